"""The oracle check: every case proven passable by its gold path, for free (no model).

Each case runs through the real session (the providers a run would have, built by
``wiring.configured_providers``; the router, the tool loop and the scorer) with
``OracleBackend`` in the model's place. For every step the oracle sends the step's gold
calls (all in one turn, in order), then answers with the text of every tool result of the
case so far and nothing else: any evidence the answer holds came from a tool.

A case is proven when it PASSes and ``judge`` finds nothing (a gold call not run or
failing, evidence missing from the tools' output or already in the conversation before its
step, a ``wrong`` item in the tools' output, a state check that does not hold), and the
measuring guards pass. A step expecting no tool must pass with no call at all.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.evidence import claims_found, evidence_found
from pytest_tooleval.cases.guards import measuring_problems
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import Case, CaseFile, GoldCall, case_today
from pytest_tooleval.check.catalogue import conftest_modules
from pytest_tooleval.check.files import collect_files
from pytest_tooleval.engine.session import CaseRef, CaseRun, ModelSession
from pytest_tooleval.models.base import Backend, Message, ModelTurn, RawCall
from pytest_tooleval.router import default_router
from pytest_tooleval.router.base import SHOWN
from pytest_tooleval.scoring.outcome import score_case
from pytest_tooleval.tools.base import CaseContext, ToolProvider, ToolSpec
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.tools.names import READ_ONLY_BUILTINS, WRITE_BUILTINS
from pytest_tooleval.wiring import CaseWorlds, configured_providers
from pytest_tooleval.world.state import evaluate

if TYPE_CHECKING:
    from pytest_tooleval.config import Settings

ORACLE = "oracle"
NO_GOLD = "no-gold"
GUARD = "guard"


class OracleBackend(Backend):
    """A scripted model that follows the case's gold path; see the module docstring."""

    mode = "oracle"

    def __init__(self) -> None:
        self._gold: list[list[GoldCall]] = []
        self._sent: set[int] = set()

    def prepare(self, case: Case) -> None:
        """Follow ``case`` next (a step without gold calls nothing)."""
        self._gold = [list(step.gold_calls or []) for step in case.steps]
        self._sent = set()

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        step = sum(1 for m in messages if m["role"] == "user") - 1
        gold = self._gold[step] if 0 <= step < len(self._gold) else []
        if gold and step not in self._sent:
            self._sent.add(step)
            calls = [RawCall(c.tool, json.dumps(c.args, ensure_ascii=False),
                             call_id=f"gold_{step}_{i}") for i, c in enumerate(gold)]
            return ModelTurn("", calls=calls, finish_reason="tool_calls")
        return ModelTurn(tool_outputs(messages), finish_reason="stop")

    def describe(self) -> dict[str, Any]:
        return {"backend": "oracle", "grammar": self.mode}


def tool_outputs(messages: list[Message]) -> str:
    """Every tool result of the conversation so far, one per line block."""
    return "\n".join(str(m.get("content") or "") for m in messages if m["role"] == "tool")


@dataclass(frozen=True)
class OracleFailure:
    kind: str  # "oracle" (the gold path fails), "no-gold" (a step has none), "guard"
    file: str
    case: str
    step: int | None
    reason: str


@dataclass
class OracleReport:
    files: int = 0
    cases: int = 0
    proven: int = 0
    failures: list[OracleFailure] = field(default_factory=list)
    load_errors: list[CaseFileError] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures and not self.load_errors

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok, "files": self.files, "cases": self.cases, "proven": self.proven,
            "seconds": round(self.seconds, 3),
            "failures": [vars(f) for f in self.failures],
            "load_errors": [str(e) for e in self.load_errors],
        }

    def render(self) -> str:
        # A file that did not load is named, once, in the check's table above.
        lines = [f"{f.kind:8} {f.file}::{f.case}" + (f" step {f.step}" if f.step else "")
                 + f": {f.reason}" for f in self.failures]
        # A file that did not load holds cases nobody counted: "3/3 proven" would read as all.
        unloaded = ", ".join(error.path for error in self.load_errors)
        proven = (f"{self.proven} of the {self.cases} loaded cases proven by their gold path; "
                  f"not all: {len(self.load_errors)} file(s) not loaded, their cases unproven: "
                  f"{unloaded}" if self.load_errors else
                  f"{self.proven}/{self.cases} cases proven by their gold path")
        lines.append(f"oracle: {proven} ({self.files} files, {len(self.failures)} failures, "
                     f"{self.seconds:.1f}s)")
        return "\n".join(lines)


def judge(case_file: CaseFile, case: Case, run: CaseRun, source: str) -> list[OracleFailure]:
    """Why the oracle's run of ``case`` does not prove it; empty when it does. Scored with
    ``scoring.score_case``, as every run is."""
    failures: list[OracleFailure] = []

    def fail(step: int | None, reason: str) -> None:
        failures.append(OracleFailure(ORACLE, source, case.name, step, reason))

    if run.error is not None:
        fail(None, f"the run failed ({run.error.kind}, not the case's fault): "
                   f"{run.error.message}")
        return failures
    # An inline tool declared `error: true` answers with an error by design: the case
    # measures whether the model reports it instead of claiming success.
    designed_errors = {tool.name for tool in case_file.tools if tool.error}
    outputs: list[str] = []
    # The conversation before this step: earlier messages, tool results and answers, each
    # matched on its own (joined, numbers at the ends of two lines would run together).
    before: list[str] = []
    for number, (step, transcript) in enumerate(zip(case.steps, run.transcripts, strict=True),
                                                1):
        for attempt in transcript.attempts:
            called = f"{attempt.name}({json.dumps(attempt.arguments, ensure_ascii=False)})"
            if not attempt.valid:
                fail(number, f"gold call {called} was not run: {attempt.reason}")
            elif attempt.result_is_error and attempt.name not in designed_errors:
                fail(number, f"gold call {called} returned a tool error: "
                             f"{(attempt.result or '')[:200]}")
        outputs.append(transcript.answer or "")
        for alternatives in step.evidence_alternatives():
            if not any(evidence_found(alternatives, output, case_file.language)
                       for output in outputs):
                seen = " ".join(" ".join(a.result or "" for a in transcript.attempts).split())
                shown = f"this step's calls returned: {seen[:240]!r}" if seen else \
                    "this step made no call"
                fail(number, f"evidence {' | '.join(alternatives)!r} is not in the output of "
                             f"any gold call so far: the fact does not come from the tools "
                             f"({shown})")
        for item in claims_found(step.wrong, transcript.answer or "", case_file.language):
            fail(number, f"wrong item {item!r} is in the gold path's own tool output, so a "
                         f"right answer may cite it; fix: remove it from 'wrong', or write the "
                         f"claim as a wrong answer states it (a phrase the tools never show)")
        if not step.recall:
            for index, alternatives in enumerate(step.evidence_alternatives()):
                if any(evidence_found(alternatives, text, case_file.language)
                       for text in before):
                    fail(number, f"evidence[{index}] {' | '.join(alternatives)!r} was already "
                                 f"in the conversation before this step ran, so it checks "
                                 f"nothing here; fix: pick a fact this step's own tool output "
                                 f"brings, or mark the step as a deliberate recall "
                                 f"(\"recall\": true)")
        for check in transcript.state:
            if not check["held"]:
                fail(number, f"state check {check['check']} does not hold: {check['detail']}")
        # What the step added to the conversation: its tool results and its answer.
        before += [step.message, *(attempt.result or "" for attempt in transcript.attempts),
                   transcript.answer or ""]
    scored = score_case(case, run.transcripts, case_file.language, case_today(case_file))
    if scored.outcome != "PASS":
        fail(None, f"the gold path scores {scored.outcome}: " + "; ".join(scored.reasons))
    return failures


class _OracleWorlds:
    """A fresh world copy for a case whose gold path may change the world or whose state
    is checked; the shared template for one that only reads (the read-only built-ins and
    inline tools cannot change it). Copying is most of the oracle's time."""

    def __init__(self, base: Path) -> None:
        self.copies = CaseWorlds(lambda: base)
        self.fresh = True
        self._shared: Any = None

    def world_for_case(self, context: Any) -> Any:
        if self.fresh or context.world:
            return self.copies.world_for_case(context)
        self._shared = self.copies.shared(context)
        return self._shared

    def discard(self, world: Any) -> None:
        if world is not self._shared:
            self.copies.discard(world)


def _held_before(case_file: CaseFile, case: Case, source: str,
                 worlds: _OracleWorlds) -> list[OracleFailure]:
    """Write steps measured only by state checks that hold before the case runs: they
    cannot fail, so any call of the tool passes (``args`` measures such a step instead)."""
    failures: list[OracleFailure] = []
    context = CaseContext(source, case_file.name, case.name, case_file.language,
                          case_file.world.model_dump(exclude_none=True) if case_file.world
                          else {})
    world = None
    for index, step in enumerate(case.steps):
        checks = case.checks_after(index)
        writes = [tool for tool in step.expected_tools if tool in WRITE_BUILTINS]
        if not writes or not checks or step.args is not None:
            continue
        world = world or worlds.copies.shared(context) or worlds.copies.world_for_case(context)
        if all(evaluate(world, c.kind, getattr(c, c.kind), contains=c.contains,
                        language=case_file.language) is None for c in checks):
            failures.append(OracleFailure(
                ORACLE, source, case.name, index + 1,
                f"the state checks of this write step ({'; '.join(c.describe() for c in checks)})"
                f" already hold before the case runs: they cannot fail, so any call of "
                f"{', '.join(writes)} passes; fix: check what the write leaves (the new file, "
                f"event or text), or add 'args'"))
    if world is not None and context.world:  # a copy: shared() is None where the case overrides
        worlds.copies.discard(world)
    return failures


def _needs_fresh_world(case: Case, inline: set[str]) -> bool:
    if case.after or any(step.after for step in case.steps):
        return True
    return any(call.tool not in READ_ONLY_BUILTINS and call.tool not in inline
               for step in case.steps for call in step.gold_calls or [])


def _session(base: Path, k: int, settings: Settings | None,
             conftests: Sequence[ModuleType]) -> Any:
    """The oracle's session: the providers a run of ``settings`` would have (built by
    ``wiring.configured_providers``, as a run's are), with the oracle in the model's place
    and the built-ins over ``_OracleWorlds``; only the built-ins without ``settings``."""
    oracle = OracleBackend()
    worlds = _OracleWorlds(base)
    router = default_router(k)
    builtin = BuiltinToolProvider(
        worlds.world_for_case, worlds.discard,
        unsafe_no_jail=settings.unsafe_no_jail if settings is not None else False)
    providers: list[ToolProvider] = [builtin] if settings is None else \
        configured_providers(settings, lambda: base, conftests, builtin=builtin)
    session = ModelSession(
        backend_factory=lambda: oracle,
        providers=providers,
        router_factory=lambda case_file: router,
    )
    return session, oracle, worlds


def _unoffered(case_file: CaseFile, case: Case, session: Any,
               problems: Sequence[str]) -> str | None:
    """Why the gold path cannot run here: a gold call to a tool that no provider offers
    (a server that did not start, a conftest that cannot be imported, a typo); None when
    every gold call's tool is offered."""
    offered = session.offered_tools() | set(case_file.inline_tool_names)
    missing = sorted({call.tool for step in case.steps for call in step.gold_calls or []
                      if call.tool not in offered})
    if not missing:
        return None
    why = f"; {'; '.join(problems)}" if problems else ""
    return (f"gold calls {', '.join(missing)}, which no provider offers here (providers: "
            f"{session.describe_providers()}{why})")


def run_oracle(paths: Iterable[Path], *, k: int = SHOWN, language: str | None = None,
               world_base: Path | None = None,
               settings: Settings | None = None) -> OracleReport:
    """Replay every case's gold path under ``paths``, with the providers a run of
    ``settings`` would have (only the built-ins without it). A configuration mistake
    raises ``ConfigurationError``."""
    started = time.perf_counter()
    report = OracleReport()
    paths = list(paths)
    files = collect_files(paths)
    problems: list[str] = []
    conftests: list[ModuleType] = []
    if settings is not None:
        conftests = conftest_modules(settings, [*paths, *files], problems)
    with tempfile.TemporaryDirectory(prefix="tooleval-oracle-") as scratch:
        session, oracle, worlds = _session(world_base or Path(scratch), k, settings, conftests)
        try:
            session.catalogue  # noqa: B018 - start the providers: a duplicate name stops here
            for path in files:
                source = str(path)
                try:
                    case_file = load_case_file(path)
                except CaseFileError as error:
                    report.files += 1
                    report.load_errors.append(error)
                    continue
                if language and case_file.language != language:
                    continue
                report.files += 1
                guarded = [
                    OracleFailure(GUARD, source, p.case or "", p.step,
                                  f"{p.message}; fix: {p.fix}")
                    for p in measuring_problems(case_file)
                ]
                report.failures += guarded
                unmeasured = {failure.case for failure in guarded}
                for case in case_file.cases:
                    report.cases += 1
                    missing = [OracleFailure(NO_GOLD, source, case.name, n,
                                             "the step expects a tool but has no 'gold' path")
                               for n, step in enumerate(case.steps, 1) if step.gold_calls is None]
                    if missing:
                        report.failures += missing
                        continue
                    unoffered = _unoffered(case_file, case, session, problems)
                    if unoffered:
                        report.failures.append(
                            OracleFailure(ORACLE, source, case.name, None, unoffered))
                        continue
                    oracle.prepare(case)
                    worlds.fresh = _needs_fresh_world(case, set(case_file.inline_tool_names))
                    ref = CaseRef(f"{source}::{case.name}", source, case_file, case)
                    found = _held_before(case_file, case, source, worlds)
                    found += judge(case_file, case, session.run(ref), source)
                    report.failures += found
                    report.proven += not found and case.name not in unmeasured
        finally:
            session.close()
    report.seconds = time.perf_counter() - started
    return report
