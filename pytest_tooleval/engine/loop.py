"""The tool loop: for each user step, show the router's tools, ask the model, run the
valid calls, feed the results back, until the model answers or ``max_steps`` is reached.
Every attempted call is recorded, with why it was malformed; failures of the machine
propagate (the session classifies them). Nothing here scores.

Two wall clocks: a tool call past ``tool_timeout`` is the machine's failure; the
case's ``case_timeout`` is checked before every model and tool call (a tool call never
runs past it), then ``CaseTimedOut`` is raised.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import jsonschema
import referencing.exceptions

from pytest_tooleval.cases.model import Case, CaseFile
from pytest_tooleval.engine.transcript import Attempt, ModelCall, StepTranscript, shorten
from pytest_tooleval.models.base import Backend, Message, RawCall, mark_truncated, next_turn
from pytest_tooleval.router.base import Router, routed
from pytest_tooleval.tools.base import Catalogue, ProviderError, ToolSpec

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with access to tools. Call a tool only when the user's "
    "request needs one; otherwise answer directly. When a tool returns information, use "
    "it in your answer."
)


class CaseTimedOut(Exception):
    """The case ran past its wall clock: an ERROR of kind ``timeout``, never a FAIL."""


def validate_call(call: RawCall, shown: dict[str, ToolSpec]) -> Attempt:
    """Classify one attempted call: valid, unparseable, unknown_tool or schema_violation."""
    if call.parse_error or call.name is None:
        return Attempt(call.name, call.raw or call.arguments, valid=False,
                       malformed="unparseable", reason=call.parse_error or "no tool name")
    arguments: Any = call.arguments or ""
    try:
        # Arguments in a JSON string are read as the JSON it holds: a model's string-form
        # arguments then count alike whether the harness parsed them (on, off) or a server
        # encoded them again (vLLM's and llama-server's parsers, vendor).
        while isinstance(arguments, str):
            arguments = json.loads(arguments) if arguments else {}
    except (ValueError, RecursionError) as exc:  # past the digit or depth limit too
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        return Attempt(call.name, call.arguments, valid=False, malformed="unparseable",
                       reason=f"arguments are not JSON: {why}")
    if call.name not in shown:
        return Attempt(call.name, arguments, valid=False, malformed="unknown_tool",
                       reason=f"{call.name!r} is not among the tools shown")
    if not isinstance(arguments, dict):
        return Attempt(call.name, arguments, valid=False, malformed="schema_violation",
                       reason="arguments must be a JSON object")
    try:
        # As jsonschema.validate reports it: the most relevant error, not the first.
        error = jsonschema.exceptions.best_match(
            _validator(shown[call.name].parameters).iter_errors(arguments))
    except (jsonschema.SchemaError, referencing.exceptions.Unresolvable, RecursionError) as exc:
        # The tool's own schema is broken (refers to nowhere, or to itself without end):
        # run the call rather than blame the model.
        return Attempt(call.name, arguments, valid=True, reason=f"tool schema invalid: {exc}")
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(arguments)"
        return Attempt(call.name, arguments, valid=False, malformed="schema_violation",
                       reason=f"{where}: {error.message}")
    return Attempt(call.name, arguments, valid=True)


def not_run(attempt: Attempt) -> str:
    """What the model is told of a call that was not run (``validate_call`` refused it)."""
    return f"error: the call was not run ({attempt.malformed}: {attempt.reason})"


_VALIDATORS: dict[str, Any] = {}


def _validator(schema: dict[str, Any]) -> Any:
    """A checked validator per distinct schema, made once (``jsonschema.validate`` checks
    the schema on every call, about 60 times the validation). ``SchemaError`` if broken."""
    key = json.dumps(schema, sort_keys=True, default=str)
    validator = _VALIDATORS.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _VALIDATORS[key] = cls(schema)
    return validator


def _canonical(arguments: str | None) -> str | None:
    """Arguments in a canonical JSON form, so that whitespace does not hide a repeat."""
    if arguments is None:
        return None
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except (ValueError, RecursionError):
        return arguments


@dataclass
class ToolLoop:
    backend: Backend
    catalogue: Catalogue
    router: Router
    max_steps: int
    system_prompt: str
    #: Seconds per tool call (None: ``tools.base.TOOL_TIMEOUT_S``) and per case.
    tool_timeout: float | None
    case_timeout: float
    _deadline: float = field(default=float("inf"), init=False)

    def run_case(
        self,
        case_file: CaseFile,
        case: Case,
        transcripts: list[StepTranscript],
        after_step: Callable[[int, StepTranscript], None],
    ) -> None:
        """Run every step; each transcript is appended to ``transcripts`` before its step
        runs, so a failure part-way leaves the record up to it. ``after_step(index,
        transcript)`` runs the state checks after each step."""
        self._deadline = time.monotonic() + self.case_timeout
        messages: list[Message] = [{"role": "system", "content": self.system_prompt}]
        previous_ran: tuple[str, ...] = ()
        for step in case.steps:
            routing = routed(self.router, step.message, case_file.language,
                             self.catalogue.specs, keep=previous_ran)
            transcript = StepTranscript(message=step.message, shown=list(routing.tools))
            messages.append({"role": "user", "content": step.message})
            transcripts.append(transcript)
            self._run_step(messages, transcript)
            after_step(len(transcripts) - 1, transcript)
            previous_ran = tuple(dict.fromkeys(transcript.ran))

    def _run_step(self, messages: list[Message], transcript: StepTranscript) -> None:
        shown = {name: self.catalogue.spec(name) for name in transcript.shown}
        # Catalogue order, not the router's ranking: prompts that show overlapping sets then
        # share a longer prefix, which llama.cpp reuses from its KV cache.
        specs = [spec for spec in self.catalogue.specs if spec.name in shown]
        previous_round: list[tuple[str | None, str | None]] | None = None
        for round_index in range(self.max_steps):
            self._in_time("a model call")
            # Cut off at max_tokens: a malformed attempt on every backend, never an answer.
            turn = mark_truncated(next_turn(self.backend, messages, specs),
                                  f"call_{len(messages)}_truncated")
            transcript.model_calls.append(
                ModelCall(turn.latency_s, turn.prompt_tokens, turn.completion_tokens,
                          turn.finish_reason, cached=turn.cached)
            )
            if not turn.calls:
                for leaked in turn.leaked_calls:
                    attempt = validate_call(leaked, shown)
                    transcript.attempts.append(replace(attempt, valid=False, leaked=True))
                messages.append({"role": "assistant", "content": turn.content})
                transcript.answer = turn.content
                transcript.answered = True
                return
            # An unreadable call (cut at max_tokens) is compared by the text it came from;
            # a readable one by its arguments (a server's raw call holds its fresh id).
            this_round = [(call.name, call.raw if call.parse_error else _canonical(call.arguments))
                          for call in turn.calls]
            self._run_calls(messages, transcript, turn.content, turn.calls, shown, round_index)
            if this_round == previous_round:
                # The same calls again, after the same (deterministic) results: the model is
                # stuck. Further rounds would only repeat it; the step goes unanswered.
                transcript.stopped = "repeated the previous round's calls unchanged"
                break
            previous_round = this_round
        else:
            transcript.stopped = f"no final answer within {self.max_steps} model calls"

    def _in_time(self, what: str) -> float:
        """The seconds left on the case's clock; ``CaseTimedOut`` when none are."""
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise CaseTimedOut(
                f"the case ran past its wall clock of {self.case_timeout:g} s "
                f"(--tooleval-case-timeout) and was stopped at {what}; a hung tool or "
                "model, or too many slow calls")
        return left

    def _run_calls(
        self,
        messages: list[Message],
        transcript: StepTranscript,
        content: str,
        calls: list[RawCall],
        shown: dict[str, ToolSpec],
        round_index: int,
    ) -> None:
        # Every call of the turn is validated and recorded before any runs: a failure of the
        # machine part-way through the turn keeps the whole turn's record (a forbidden call
        # is seen whatever its place in the turn; scoring/aggregate.py's safety gate).
        ids = [call.call_id or f"call_{len(transcript.attempts) + index}_{round_index}_{index}"
               for index, call in enumerate(calls)]
        attempts: list[Attempt] = []
        for call in calls:
            attempts.append(validate_call(call, shown))
            transcript.attempts.append(attempts[-1])
        # A call whose name or arguments could not be read (cut at max_tokens, not JSON)
        # goes back as "unknown" with "{}": JSON null is no arguments object, and servers
        # that parse the history's arguments refuse it.
        tool_calls = [{"id": call_id, "type": "function",
                       "function": {"name": call.name or "unknown",
                                    "arguments": call.arguments or "{}"}}
                      for call_id, call in zip(ids, calls, strict=True)]
        replies: list[Message] = []
        for call_id, attempt in zip(ids, attempts, strict=True):
            if attempt.valid and attempt.name:
                left = self._in_time(f"a call of {attempt.name}")
                clock = self.catalogue.clock(attempt.name, self.tool_timeout)
                started = time.perf_counter()
                try:
                    result = self.catalogue.call(attempt.name, attempt.arguments,
                                                 timeout=min(clock, left))
                except ProviderError:
                    if left < clock:  # the case's clock, not the tool's, may have ended it
                        self._in_time(f"a call of {attempt.name}")
                    raise
                attempt.duration_s = time.perf_counter() - started
                attempt.result = shorten(result.text)
                attempt.result_is_error = result.is_error
                attempt.read_only = shown[attempt.name].read_only
                text = result.text
                if left < clock:  # the case's clock, not the tool's, may have ended it
                    self._in_time(f"the end of a call of {attempt.name}")
            else:
                text = attempt.result = not_run(attempt)
                attempt.result_is_error = True
            replies.append({"role": "tool", "tool_call_id": call_id, "content": text})
        messages.append({"role": "assistant", "content": content or None,
                         "tool_calls": tool_calls})
        messages.extend(replies)
