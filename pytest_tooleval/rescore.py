"""``tooleval rescore REPORT_OR_JOURNAL [paths]``: the current case files applied to stored
transcripts, with no model. A case whose model saw something else now (its messages, the
tools the router would show, its inline tools' results), a stored ERROR and a case no
longer in its file are listed as needing a rerun and keep their stored outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.identity import content_hash
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.check.catalogue import _Listed
from pytest_tooleval.engine.transcript import shorten
from pytest_tooleval.report.model import Interval, RunInfo, StatisticsInfo, load_report
from pytest_tooleval.report.terminal import fmt
from pytest_tooleval.result import CaseResult
from pytest_tooleval.router.ablation import make_router
from pytest_tooleval.router.base import SHOWN
from pytest_tooleval.router.catalogue import listed_builtin_specs
from pytest_tooleval.run.journal import JOURNAL_NAME, read_journal
from pytest_tooleval.run.score import forbidden_called, verdict
from pytest_tooleval.scoring.aggregate import INTERVAL_MIN_CASES, WEIGHTS, axes_of, score_of
from pytest_tooleval.scoring.intervals import figure_intervals
from pytest_tooleval.scoring.outcome import cut_off
from pytest_tooleval.scoring.repeats import group_tries
from pytest_tooleval.scoring.settings import DEFAULT_LEVEL, IntervalSettings
from pytest_tooleval.tools.base import CaseContext, Catalogue, ToolProvider
from pytest_tooleval.tools.inline import InlineToolProvider
from pytest_tooleval.tools.jail import UNSAFE_MODE


@dataclass
class Rescored:
    #: Every stored case as it stands now: re-scored, or as stored (a rerun is needed).
    results: list[CaseResult] = field(default_factory=list)
    changed: list[tuple[CaseResult, CaseResult]] = field(default_factory=list)
    #: The same outcome for other reasons (a reworded check): listed, not counted as changed.
    reworded: list[tuple[CaseResult, CaseResult]] = field(default_factory=list)
    #: The same outcome and reasons, other axis values (a scoring rule of this version:
    #: a chain's closing "thanks" on the irrelevance axis): the figures move.
    revalued: list[tuple[CaseResult, CaseResult]] = field(default_factory=list)
    rerun: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    #: Cases whose shown tools could not be re-checked (the run had MCP or Python tools).
    routing_unchecked: int = 0
    #: The run's score as stored and as re-scored (None: no case scored).
    score: tuple[float | None, float | None] = (None, None)
    #: The re-scored score's interval at the run's ``level`` (None under too few cases).
    interval: Interval | None = None
    level: float = DEFAULT_LEVEL

    def to_dict(self) -> dict[str, Any]:
        return {
            "changed": [{"nodeid": old.nodeid, "was": old.outcome.value,
                         "now": new.outcome.value, "reasons_before": old.reasons,
                         "reasons_now": new.reasons} for old, new in self.changed],
            "reworded": [{"nodeid": old.nodeid, "outcome": new.outcome.value,
                          "reasons_before": old.reasons, "reasons_now": new.reasons}
                         for old, new in self.reworded],
            "revalued": [{"nodeid": old.nodeid, "outcome": new.outcome.value,
                          "axes_before": old.axes, "axes_now": new.axes}
                         for old, new in self.revalued],
            "needs_rerun": [{"nodeid": n, "why": why} for n, why in self.rerun],
            "unchanged": self.unchanged,
            "routing_unchecked": self.routing_unchecked,
            "score": {"before": self.score[0], "after": self.score[1],
                      "interval": None if self.interval is None else self.interval.model_dump()},
        }


@dataclass
class StoredRun:
    """What re-scoring needs of the stored run: its router and the tools it offered."""

    k: int
    router_mode: str
    tools_offered: list[str]
    unsafe_no_jail: bool
    #: The run as it recorded itself when it ended (None: a killed run's journal).
    info: RunInfo | None = None
    #: Its report's intervals (None: not recorded, a journal of a killed run or of an
    #: earlier version).
    statistics: StatisticsInfo | None = None

    @classmethod
    def of(cls, run: RunInfo, statistics: StatisticsInfo | None) -> StoredRun:
        return cls(run.k, run.router_mode, run.tools_offered,
                   run.isolation.get("mode") == UNSAFE_MODE, run, statistics)


def load_stored(path: Path) -> tuple[list[CaseResult], StoredRun]:
    """The typed cases and the run of a report.json or journal.jsonl (or a report folder
    holding one)."""
    if path.is_dir():
        path = path / "report.json" if (path / "report.json").exists() else path / JOURNAL_NAME
    if not path.name.endswith(".jsonl"):
        report = load_report(path)
        return report.cases, StoredRun.of(report.run, report.summary.statistics)
    stored = read_journal(path)
    cases = [CaseResult.from_json(c) for c in stored.cases.values()]
    end = stored.end or {}
    if end.get("run"):
        statistics = end.get("statistics")
        return cases, StoredRun.of(RunInfo.model_validate(end["run"]),
                                   StatisticsInfo.model_validate(statistics) if statistics
                                   else None)
    identity = stored.start.get("identity", {})  # a killed run: no report was written
    tools = identity.get("tools", {})
    # Its catalogue as the start line records it: the built-ins listed when the run had
    # them (and nothing else: MCP and Python tools cannot be listed again, ``Unrouted``).
    listed = tools.get("builtin") and not tools.get("python_tools") and not tools.get("mcp")
    unsafe = bool(tools.get("unsafe_no_jail"))
    offered = [spec.name for spec in listed_builtin_specs(unsafe)] if listed else []
    return cases, StoredRun(int(identity.get("k") or SHOWN),
                            str(identity.get("router") or "triggers"), offered, unsafe)


def rescore(results: list[CaseResult], run: StoredRun, rootdir: Path,
            only: Sequence[Path] = ()) -> Rescored:
    chosen = [p.resolve() for p in only]
    outcome = Rescored()
    files: dict[str, Any] = {}
    router = make_router(run.router_mode, run.k)
    for old in sorted(results, key=lambda r: r.nodeid):
        path = (rootdir / old.nodeid.partition("::")[0]).resolve()
        if chosen and not any(path == c or c in path.parents for c in chosen):
            outcome.results.append(old)
            continue
        new = _again(old, path, files, router, run, outcome)
        if isinstance(new, str):  # not re-scored: the stored outcome stands
            outcome.rerun.append((old.nodeid, new))
            outcome.results.append(old)
            continue
        outcome.results.append(new)
        if new.outcome != old.outcome:
            outcome.changed.append((old, new))
        elif new.reasons != old.reasons:
            outcome.reworded.append((old, new))
        elif new.axes != old.axes:
            outcome.revalued.append((old, new))
        else:
            outcome.unchanged += 1
    outcome.score = (score_of(axes_of(results)), score_of(axes_of(outcome.results)))
    cases = [tries for tries in group_tries(outcome.results) if tries.n]
    outcome.level = run.statistics.level if run.statistics else DEFAULT_LEVEL
    if len(cases) >= INTERVAL_MIN_CASES:
        outcome.interval = figure_intervals(cases, WEIGHTS,
                                            IntervalSettings(level=outcome.level))[0]
    return outcome


def _again(old: CaseResult, path: Path, files: dict[str, Any], router: Any, run: StoredRun,
           outcome: Rescored) -> CaseResult | str:
    """``old`` scored by its case as the file has it now, or why it needs a rerun."""
    relative, _, name = old.nodeid.partition("::")
    if relative not in files:
        try:
            files[relative] = load_case_file(path)
        except (CaseFileError, OSError) as exc:
            files[relative] = exc
    case_file = files[relative]
    if isinstance(case_file, Exception):
        return f"its file cannot be loaded now: {case_file}"
    case = next((c for c in case_file.cases if c.name == name), None)
    if case is None:
        return "the case is no longer in its file"
    if old.is_error:
        return "it ended in ERROR: nothing was scored"
    transcripts = old.transcripts
    if len(case.steps) != len(transcripts):
        return f"it has {len(case.steps)} step(s) now, {len(transcripts)} when it ran"
    for number, (step, transcript) in enumerate(zip(case.steps, transcripts, strict=True), 1):
        if step.message != transcript.message:
            return f"step {number}'s message changed"
    try:
        why = _shown_changed(case_file, case, old, router, run)
    except Unrouted:
        outcome.routing_unchecked += 1
        why = None
    why = why or _inline_results_changed(case_file, old)
    if why:
        return why
    if old.error is not None and not cut_off(case, transcripts, old.error):
        return "the machine cut it off, and its last step now expects a tool"
    new = old.model_copy(update={**verdict(case_file, case, transcripts, old.error),
                                 "case_hash": content_hash(case_file, case)})
    # A forbidden call before a failure: an earlier try's, carried by resume, while the case
    # still forbids the tool; this try's own as the case forbids it now (score_run's).
    forbidden = {name for step in case.steps for name in step.forbidden}
    new.forbidden_before_failure = sorted(
        {name for name in old.forbidden_before_failure if name in forbidden}
        | (forbidden_called(case, transcripts) - set(new.forbidden_ran)))
    return new


def _shown_changed(case_file: Any, case: Any, old: CaseResult, router: Any,
                   run: StoredRun) -> str | None:
    """The router run again on the run's catalogue as it is now: a different set shown
    means the model saw something else. ``Unrouted`` when the catalogue cannot be rebuilt
    (the run had MCP or Python tools)."""
    offered = set(run.tools_offered)
    providers: list[ToolProvider] = []
    if offered:
        builtin = listed_builtin_specs(run.unsafe_no_jail)
        if not offered <= {spec.name for spec in builtin}:
            raise Unrouted
        providers.append(_Listed("builtin", [s for s in builtin if s.name in offered], set()))
    if case_file.tools:
        providers.append(InlineToolProvider(list(case_file.tools), old.file))
    specs = Catalogue(providers).specs
    names = {spec.name for spec in specs}
    routing_for = router.for_case(case)
    previous: tuple[str, ...] = ()
    for number, (step, transcript) in enumerate(zip(case.steps, old.transcripts,
                                                    strict=True), 1):
        gone = sorted(set(transcript.shown) - names)
        if gone and run.info is None:  # a killed run's start line lists no @tool tools
            raise Unrouted
        if gone:
            return f"step {number} was shown {', '.join(gone)}, no longer in the catalogue"
        routing = routing_for.route(step.message, case_file.language, specs, keep=previous)
        now, was = set(routing.tools), set(transcript.shown)
        if now != was:
            return f"step {number} would now be shown other tools: " + ", ".join(
                [*(f"+{name}" for name in sorted(now - was)),
                 *(f"-{name}" for name in sorted(was - now))])
        previous = tuple(dict.fromkeys(transcript.ran))
    return None


class Unrouted(Exception):
    """The stored run's catalogue cannot be rebuilt without its providers."""


def _inline_results_changed(case_file: Any, old: CaseResult) -> str | None:
    """Each inline call the stored run made, made again: a different result means the
    model answered from output that no longer exists."""
    if not case_file.tools:
        return None
    provider = InlineToolProvider(list(case_file.tools), old.file)
    names = {spec.name for spec in provider.list_tools()}
    provider.begin_case(CaseContext(file_path=old.file, file_name=case_file.name,
                                    case_name=old.case, language=case_file.language, world={}))
    for number, transcript in enumerate(old.transcripts, 1):
        for attempt in transcript.attempts:
            if not attempt.valid or attempt.result is None or attempt.name not in names:
                continue  # (no result: the machine failed before it came back)
            arguments = attempt.arguments if isinstance(attempt.arguments, dict) else {}
            now = shorten(provider.call(attempt.name, arguments).text)
            if now != attempt.result:
                return f"step {number}: inline tool {attempt.name} now returns something else"
    return None


def render(result: Rescored) -> str:
    before, after = result.score
    shown = (f" [{result.level:.0%} CI {result.interval.text()}]" if result.interval else
             " [too few cases]" if after is not None else "")
    lines = [f"tooleval rescore: score {fmt(before)} → {fmt(after)}{shown} (the same "
             f"transcripts); {len(result.changed)} changed outcome, "
             f"{len(result.rerun)} need a rerun, {result.unchanged} unchanged"
             + (f", {len(result.reworded)} with the same outcome for other reasons"
                if result.reworded else "")
             + (f", {len(result.revalued)} with the same outcome and other axis values"
                if result.revalued else "")]
    for old, new in [*result.changed, *result.reworded]:
        lines.append(f"  {old.nodeid}: {old.outcome.value} -> {new.outcome.value}")
        lines += [f"      now: {reason}" for reason in new.reasons if reason not in old.reasons]
        lines += [f"      no longer: {reason}" for reason in old.reasons
                  if reason not in new.reasons]
    for old, new in result.revalued:
        lines.append(f"  {old.nodeid}: {new.outcome.value}, axes {_axes(old.axes)} -> "
                     f"{_axes(new.axes)}")
    if result.routing_unchecked:
        lines.append(f"note: for {result.routing_unchecked} case(s) the tools shown were not "
                     "re-checked: the run's catalogue had MCP or Python tools")
    if result.rerun:
        lines.append("needs a rerun (not re-scored; the stored outcome stands):")
        lines += [f"  {nodeid}: {why}" for nodeid, why in result.rerun]
    return "\n".join(lines) + "\n"


def _axes(axes: dict[str, float]) -> str:
    return ", ".join(f"{axis} {value:.3g}" for axis, value in axes.items()) or "none"
