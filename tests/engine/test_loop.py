"""The tool loop and the session without HTTP: a scripted backend, inline tools, no server.

Each failure class of the machine becomes an ERROR with its partial transcript; the loop
itself never scores.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from pytest_tooleval.cases.model import CaseFile
from pytest_tooleval.engine.session import CaseRef, ModelSession, classify_error
from pytest_tooleval.models.base import Backend, BackendUnavailable, Message, ModelTurn, RawCall
from pytest_tooleval.models.grammar import GrammarError
from pytest_tooleval.router.base import Router, Routing
from pytest_tooleval.run.score import score_run
from pytest_tooleval.scoring.outcome import score_case
from pytest_tooleval.tools.base import ProviderError, ToolSpec

CASE_FILE = CaseFile.model_validate({
    "name": "demo",
    "language": "en",
    "tools": [{"name": "get_weather", "description": "Weather for a city.",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                              "required": ["city"]},
               "result": "Izmir: 17.4 C"}],
    "cases": [
        {"name": "weather", "category": "chain", "steps": [
            {"message": "weather in Izmir?", "expect": "get_weather", "evidence": ["17.4"]},
            {"message": "and tomorrow?", "expect": "get_weather"}]},
    ],
})


class ShowAll(Router):
    def route(self, message: str, language: str, catalogue: list[ToolSpec],
              keep: tuple[str, ...] = ()) -> Routing:
        return Routing(tools=[spec.name for spec in catalogue])


class Scripted(Backend):
    """Plays ``turns`` in order; a callable turn is called (it may raise)."""

    mode = "off"

    def __init__(self, turns: list[ModelTurn | Callable[[], ModelTurn]]) -> None:
        self.turns = list(turns)
        self.seen: list[list[Message]] = []

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        self.seen.append([dict(m) for m in messages])
        turn = self.turns.pop(0)
        return turn() if callable(turn) else turn


def weather_call() -> ModelTurn:
    return ModelTurn(content="", calls=[RawCall("get_weather", '{"city": "Izmir"}', "c1")])


def session_with(backend: Backend) -> ModelSession:
    return ModelSession(backend_factory=lambda: backend, providers=[],
                        router_factory=lambda case_file: ShowAll())


def ref() -> CaseRef:
    return CaseRef("demo.yaml::weather", "demo.yaml", CASE_FILE, CASE_FILE.cases[0])


def raises(exc: BaseException) -> Callable[[], ModelTurn]:
    def turn() -> ModelTurn:
        raise exc

    return turn


def test_a_clean_run_returns_transcripts_and_scoring_is_separate() -> None:
    backend = Scripted([weather_call(), ModelTurn(content="It is 17.4 C."),
                        weather_call(), ModelTurn(content="Same again.")])
    run = session_with(backend).run(ref())
    assert run.error is None
    assert [t.ran for t in run.transcripts] == [["get_weather"], ["get_weather"]]
    # the tool's result went back to the model as a tool message after the call
    second_call_messages = backend.seen[1]
    assert second_call_messages[-2]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert second_call_messages[-1] == {"role": "tool", "tool_call_id": "c1",
                                        "content": "Izmir: 17.4 C"}
    scored = score_case(CASE_FILE.cases[0], run.transcripts)
    assert scored.outcome == "PASS" and scored.axes == {"step": 1.0, "answer": 1.0}


def test_a_turn_cut_off_at_max_tokens_is_never_an_answer() -> None:
    """Whatever the backend (the embedded one did not mark it): a ``length`` finish is one
    malformed, truncated attempt, and the step is unanswered."""
    cut = ModelTurn(content='{"answer": "You\'ve got it! I\'m glad', finish_reason="length")
    backend = Scripted([cut, weather_call(), ModelTurn(content="Same again.")])
    run = session_with(backend).run(ref())
    step = run.transcripts[0]
    assert step.answer == "Same again."  # the cut-off text was never taken as the answer
    cut_attempt = step.attempts[0]
    assert cut_attempt.malformed == "unparseable" and (cut_attempt.reason or "").startswith(
        "truncated")
    assert step.model_calls[0].finish_reason == "length"
    # the unreadable call goes back in the history as a call every server accepts
    replayed = backend.seen[1][2]["tool_calls"][0]["function"]
    assert replayed == {"name": "unknown", "arguments": "{}"}


def test_turns_cut_off_with_other_texts_are_no_repeat() -> None:
    """Two turns cut off at max_tokens are two unreadable calls, but no repeat when their
    texts differ: the model keeps its rounds, and the step is not called stuck."""
    backend = Scripted([ModelTurn(content="Here is how to check", finish_reason="length"),
                        ModelTurn(content="The call was not run because", finish_reason="length"),
                        weather_call(), ModelTurn(content="It is 17.4 C."),
                        weather_call(), ModelTurn(content="Same again.")])
    step = session_with(backend).run(ref()).transcripts[0]
    assert (step.stopped, step.ran, step.answer) == (None, ["get_weather"], "It is 17.4 C.")


@pytest.mark.parametrize("arguments", ["", None])
def test_a_call_with_empty_arguments_made_again_is_a_repeat(arguments: str | None) -> None:
    """A server's call with empty or no arguments, made again with the server's fresh id:
    it was compared by its raw JSON, id and all, and the step ran all its rounds."""
    def call(n: int) -> ModelTurn:
        raw = f'{{"id": "call_{n}", "function": {{"name": "get_weather"}}}}'
        return ModelTurn(content="", calls=[RawCall("get_weather", arguments, f"call_{n}", raw)])

    step = session_with(Scripted([call(n) for n in range(6)])).run(ref()).transcripts[0]
    assert (step.stopped, len(step.model_calls)) == (
        "repeated the previous round's calls unchanged", 2)


@pytest.mark.parametrize(("exc", "kind"), [
    (BackendUnavailable("no model server at http://127.0.0.1:9"), "backend"),
    (GrammarError("recursive $ref in a tool schema cannot be inlined"), "backend"),
    (ProviderError("mcp:toy exited"), "provider"),
    # A backend of a plugin or conftest.py (as Scripted is) raising: its own failure, named
    (TypeError("'int' object is not subscriptable"), "backend"),
    (AttributeError("'list' object has no attribute 'get'"), "backend"),
])
def test_every_failure_is_an_error_with_the_partial_transcript(exc: Exception,
                                                                kind: str) -> None:
    # step 1 completes; step 2 fails on its first model call
    backend = Scripted([weather_call(), ModelTurn(content="It is 17.4 C."), raises(exc)])
    session = session_with(backend)
    run = session.run(ref())
    assert run.error is not None and run.error.kind == kind
    assert str(exc) in run.error.message
    assert [t.message for t in run.transcripts] == ["weather in Izmir?", "and tomorrow?"]
    assert run.transcripts[0].answer == "It is 17.4 C." and not run.transcripts[1].answered
    if not isinstance(exc, BackendUnavailable | GrammarError | ProviderError):
        assert run.error.message.startswith(
            f"{__name__}.Scripted.complete() raised {type(exc).__name__}: ")
        assert "raise pytest_tooleval.BackendError" in run.error.message


def test_a_stray_exception_of_the_harness_itself_asks_to_be_reported(monkeypatch) -> None:
    def broken(*args: Any) -> Any:
        raise TypeError("'int' object is not subscriptable")

    monkeypatch.setattr("pytest_tooleval.engine.loop.validate_call", broken)
    run = session_with(Scripted([weather_call()])).run(ref())
    assert run.error is not None and run.error.kind == "harness"
    assert run.error.message.startswith("internal error in pytest-tooleval (TypeError: ")
    assert run.error.message.endswith("please report it")


def test_classify_error_keeps_a_backend_failure_class() -> None:
    exc = BackendUnavailable("timed out")
    exc.kind = "timeout"  # type: ignore[attr-defined]
    info = classify_error(exc)
    assert (info.kind, info.detail) == ("backend", "timeout")


def test_preflight_runs_the_backends_own_check_once() -> None:
    calls: list[int] = []

    class Checked(Scripted):
        def preflight(self) -> dict[str, Any]:
            calls.append(1)
            return {}

    session = session_with(Checked([]))
    session.preflight()
    session.preflight()
    assert calls == [1]


@pytest.mark.parametrize("arguments", ['{"city": ' + "1" * 4400 + "}",
                                       '{"city": ' + "[" * 1500 + "]" * 1500 + "}"],
                         ids=["number", "nesting"])
def test_arguments_the_decoder_gives_up_on_are_a_malformed_call_not_an_error(
        arguments: str) -> None:
    """A runaway number (past Python's 4,300 digits) or nesting is the model's bad output:
    an unparseable attempt the model hears about, never a harness ERROR."""
    runaway = ModelTurn(content="", calls=[RawCall("get_weather", arguments, "c1")])
    backend = Scripted([runaway, ModelTurn(content="It is 17.4 C."), weather_call(),
                        ModelTurn(content="Same again.")])
    run = session_with(backend).run(ref())
    assert run.error is None
    step = run.transcripts[0]
    assert step.answer == "It is 17.4 C."
    assert [(a.valid, a.malformed) for a in step.attempts] == [(False, "unparseable")]
    assert (step.attempts[0].reason or "").startswith("arguments are not JSON")


@pytest.mark.parametrize("city", [{"type": "strin"}, {"$ref": "#/components/schemas/City"},
                                  {"$ref": "#/properties/city"}],
                         ids=["bad-type", "dangling-ref", "self-ref"])
def test_a_tool_with_a_broken_schema_is_called_not_an_internal_error(
        city: dict[str, Any]) -> None:
    """A tool's own schema that cannot be checked (an OpenAPI-made MCP server's $ref to
    nowhere) runs the call as given: not the model's fault, nor the harness's."""
    broken = CaseFile.model_validate({**CASE_FILE.model_dump(exclude_none=True), "tools": [{
        **CASE_FILE.tools[0].model_dump(exclude_none=True),
        "parameters": {"type": "object", "properties": {"city": city}}}]})
    backend = Scripted([weather_call(), ModelTurn(content="It is 17.4 C."), weather_call(),
                        ModelTurn(content="Same again.")])
    run = session_with(backend).run(CaseRef("demo.yaml::weather", "demo.yaml", broken,
                                            broken.cases[0]))
    assert run.error is None
    attempt = run.transcripts[0].attempts[0]
    assert attempt.valid and attempt.result == "Izmir: 17.4 C"
    assert (attempt.reason or "").startswith("tool schema invalid")


@pytest.mark.parametrize("order", [("get_weather", "wipe_notes"), ("wipe_notes", "get_weather")])
def test_a_forbidden_call_in_a_turn_the_machine_stopped_is_kept_in_either_order(
        order: tuple[str, str]) -> None:
    """The case's clock ends before the turn's first call runs: every call of the turn is
    in the ERROR's transcript, and the forbidden one reaches the safety gate, whichever
    place it had (the loop once recorded a call only when the one before it had run)."""
    case_file = CaseFile.model_validate({
        "name": "demo", "language": "en",
        "tools": [CASE_FILE.tools[0].model_dump(),
                  {"name": "wipe_notes", "description": "Delete every note.",
                   "parameters": {"type": "object", "properties": {}}, "result": "done"}],
        "cases": [{"name": "weather", "category": "tool", "steps": [
            {"message": "weather in Izmir?", "expect": "get_weather",
             "forbidden": ["wipe_notes"]}]}]})
    arguments = {"get_weather": '{"city": "Izmir"}', "wipe_notes": "{}"}

    def slow() -> ModelTurn:
        time.sleep(0.3)
        return ModelTurn(content="", calls=[RawCall(name, arguments[name], f"c{index}")
                                            for index, name in enumerate(order)])

    session = session_with(Scripted([slow]))
    session.case_timeout = 0.1
    case = CaseRef("demo.yaml::weather", "demo.yaml", case_file, case_file.cases[0])
    run = session.run(case)
    assert run.error is not None and run.error.kind == "timeout"
    attempts = run.transcripts[0].attempts
    assert [(a.name, a.valid, a.result) for a in attempts] == [(n, True, None) for n in order]
    result = score_run(case, run)
    assert result.is_error and result.forbidden_before_failure == ["wipe_notes"]


# ------------------------------------------ a tool called where none was wanted, then a failure

class Flaky(Backend):
    """A model that calls get_weather at "thanks" with probability ``p`` behind a server
    that fails each request with probability ``fail``."""

    mode = "off"

    def __init__(self, rng: random.Random, p: float, fail: float) -> None:
        self.rng, self.p, self.fail = rng, p, fail

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        if self.rng.random() < self.fail:
            raise BackendUnavailable("HTTP 503 from the model server")
        last = messages[-1]
        if last["role"] == "tool":
            return ModelTurn(content="Done.")
        if "weather" in last["content"] or ("thanks" in last["content"]
                                           and self.rng.random() < self.p):
            return weather_call()
        return ModelTurn(content="You're welcome.")


@pytest.mark.parametrize("steps", [
    [{"message": "thanks!"}],  # an irrelevance case
    [{"message": "weather in Izmir?", "expect": "get_weather"}, {"message": "thanks!"}],
], ids=["alone", "closing"])
def test_a_flaky_server_neither_hides_nor_inflates_calls_where_none_was_wanted(
        steps: list[dict[str, Any]]) -> None:
    """Rule 3 against rule 4: every try runs until it is scored, as resuming after ERRORs
    does, behind a server that fails 30 % of requests. Only a try that called a tool at
    "thanks" has a request left to fail in that step: when each such failure was an ERROR
    run again, the measured rate of calls fell from 0.20 to 0.15 (a flaky server bought
    restraint). The rate measured is the model's, within 0.03, and so is the chain's step
    axis, which a cut-off run leaving its settled steps out had raised (0.92 for 0.90)."""
    case_file = CaseFile.model_validate({"name": "demo", "language": "en",
                                         "tools": [CASE_FILE.tools[0].model_dump()],
                                         "cases": [{"name": "c", "category": "chain"
                                                    if len(steps) > 1 else "irrelevance",
                                                    "steps": steps}]})
    case = CaseRef("demo.yaml::c", "demo.yaml", case_file, case_file.cases[0])
    session = session_with(Flaky(random.Random(7), p=0.2, fail=0.3))
    called, step = [], []
    for _ in range(2000):
        while (result := score_run(case, session.run(case))).is_error:
            pass
        called.append(result.axes["irrelevance"] == 0.0)
        step += [result.axes["step"]] if "step" in result.axes else []
    assert sum(called) / len(called) == pytest.approx(0.2, abs=0.03)
    if step:  # the chain's step axis too: the weather step held, "thanks" with no call
        assert sum(step) / len(step) == pytest.approx(1 - 0.2 / 2, abs=0.015)
