"""``tooleval check``: the corpus checked before any model runs (no model, no world).

For every case file: the guards, ``requires`` against this machine, each step's expected
tools among the k the router shows (a chain's later steps keep the previous step's
expected tools, as the tool loop does); across the corpus, near-duplicate questions and
two files with one benchmark name.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_tooleval.cases.duplicates import DEFAULT_SIMILARITY, Question, find_near_duplicates
from pytest_tooleval.cases.errors import CaseFileError, Problem
from pytest_tooleval.cases.load import load_case_file, same_name
from pytest_tooleval.cases.model import Case, CaseFile
from pytest_tooleval.check.files import collect_files
from pytest_tooleval.check.report import (
    GUARD,
    NEAR_DUPLICATE,
    REQUIRES,
    ROUTER_MISS,
    SPLIT,
    CheckReport,
    Failure,
    Miss,
)
from pytest_tooleval.check.split import Split, case_key, find_split, group_of, verify
from pytest_tooleval.hints import did_you_mean
from pytest_tooleval.router.base import SHOWN, Router, Routing
from pytest_tooleval.router.catalogue import (
    BUILTIN_ORDER,
    GROUP_OF,
    builtin_rows,
    builtin_specs,
    offered_builtin_names,
)
from pytest_tooleval.router.trigger_router import WEB_TOOL, TriggerRouter
from pytest_tooleval.tools.base import ToolSpec
from pytest_tooleval.tools.offered import missing_tools

if TYPE_CHECKING:
    from pytest_tooleval.check.cache import FileParts


@dataclass(kw_only=True)
class FilePart(CheckReport):
    """One case file's share of the report: its load, guards, ``requires`` and routed
    steps. ``check/cache.py`` keeps it per file, so that a check after editing one file
    loads, guards and routes only that file; what spans files (the splits, the
    near-duplicate search, one benchmark name twice) is computed every time."""

    questions: list[Question] = field(default_factory=list)
    #: The benchmark's name (None when the file did not load or was not checked).
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "name": self.name,
                "questions": [asdict(question) for question in self.questions]}

    @classmethod
    def stored(cls, data: Any) -> FilePart | None:
        """The part ``to_json`` wrote; None when there is none, or it is damaged."""
        try:
            part = cls.from_json(data)
            part.questions = [Question(**question) for question in data["questions"]]
            part.name = None if data["name"] is None else str(data["name"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return part


def _catalogue(
    offered: set[str], case_file: CaseFile, source: str, known: Sequence[ToolSpec] = ()
) -> list[ToolSpec]:
    """What this machine would show the router for one file: the catalogue's specs
    (``known``: the run's real ones, descriptions included; else the built-ins and bare
    names), then the file's inline tools."""
    inline = {tool.name for tool in case_file.tools}
    if known:
        specs = [spec for spec in known if spec.name not in inline]
    else:
        specs = [spec for spec in builtin_specs() if spec.name in offered]
        specs += [
            ToolSpec(name, "", {"type": "object", "properties": {}}, "offered")
            for name in sorted(offered - set(BUILTIN_ORDER) - inline)
        ]
    specs += [
        ToolSpec(t.name, t.description, t.parameters, f"inline:{source}") for t in case_file.tools
    ]
    return specs


def _miss_class(tool: str, score: float) -> str:
    if score > 0:
        return "outranked"
    if tool == WEB_TOOL:
        return "current-information"
    return "stem" if tool in GROUP_OF else "cue"


def _fallback_only(routing: Routing, expected: Iterable[str]) -> bool:
    """An expected tool was shown only as a filler: no trigger, cue or class chose it."""
    for tool in expected:
        reasons = routing.reasons.get(tool, [])
        if reasons and all(reason.startswith("filler") for reason in reasons):
            return True
    return False


def _problem_detail(problem: Problem) -> str:
    text = problem.message
    if problem.field:
        text = f"field {problem.field!r}: {text}"
    if problem.value is not None:
        text += f" (value: {problem.value!r})"
    return text + (f"; fix: {problem.fix}" if problem.fix else "")


def run_check(
    paths: list[Path],
    *,
    k: int = SHOWN,
    offered_tools: set[str] | None = None,
    similarity: float = DEFAULT_SIMILARITY,
    language: str | None = None,
    router: Router | None = None,
    strict: bool = False,
    catalogue: Sequence[ToolSpec] | None = None,
    catalogue_sources: Sequence[str] = (),
    parts: FileParts | None = None,
) -> CheckReport:
    """Check every case file under ``paths``.

    ``catalogue``: the specs a run would offer; without it, ``offered_tools`` names
    (default: the built-ins this machine offers) are routed with the built-in descriptions
    only. ``parts``: the files' parts kept by an earlier check under the same options,
    catalogue and router (``tooleval check``).
    """
    started = time.perf_counter()
    router = router or TriggerRouter(k)
    report = CheckReport(k=router.k, catalogue=list(catalogue_sources))
    known = list(catalogue or ())
    if catalogue is not None:
        machine = {spec.name for spec in known}
    else:
        machine = set(offered_tools) if offered_tools is not None else offered_builtin_names()
    unlisted = [line for line in catalogue_sources if line.startswith("not listed: ")]
    questions: list[Question] = []
    splits: dict[Path, Split | None] = {}
    verified: dict[Path, str] = {}  # split folder -> its split file's text
    names: dict[str, str] = {}  # benchmark name -> the first file of that name
    tools = ",".join(sorted(machine))
    for path in collect_files(paths):
        source = str(path)
        try:
            split = find_split(path, splits)
        except ValueError as error:
            report.failures.append(Failure(SPLIT, source, None, None, str(error)))
            split = None
        if split is not None and split.folder not in verified:
            verified[split.folder] = split.path.read_text(encoding="utf-8")
            report.splits.append(str(split.path))
            report.failures += [
                Failure(SPLIT, str(split.folder), key, None, problem)
                for key, problem in verify(split)
            ]
        # What a file's part depends on beyond the parts' own key: the file's path and
        # bytes, the split that assigns its cases to halves, this machine's tools.
        context = f"no split\0{tools}" if split is None else \
            f"split {split.path}\0{verified[split.folder]}\0{tools}"
        key = None if parts is None else parts.key(source, path.read_bytes(), context)
        part = None if parts is None or key is None else FilePart.stored(parts.get(key))
        if part is None:
            part = _check_file(path, source, router, strict, language, machine,
                               unlisted, known, split)
            if parts is not None and key is not None:
                parts.put(key, part.to_json(), path, context)
        report.merge(part)
        questions += part.questions
        if part.name is not None and names.setdefault(part.name, source) != source:
            report.failures.append(Failure(GUARD, source, None, None, _problem_detail(
                same_name(part.name, names[part.name]))))
    report.failures += [Failure(NEAR_DUPLICATE, pair.first.file, pair.first.case, None,
                                pair.describe())
                        for pair in find_near_duplicates(questions, similarity)]
    report.seconds = time.perf_counter() - started
    return report


def _check_file(
    path: Path,
    source: str,
    router: Router,
    strict: bool,
    language: str | None,
    machine: set[str],
    unlisted: list[str],
    known: list[ToolSpec],
    split: Split | None,
) -> FilePart:
    """One file's part of the report: load and guards, ``requires``, routing."""
    part = FilePart(k=router.k)
    try:
        # as a run loads it: the machine's other tools are no excuse for a missing 'requires'
        case_file = load_case_file(path, strict=strict)
    except CaseFileError as error:
        part.files = 1
        part.failures = [
            Failure(GUARD, source, p.case, p.step, _problem_detail(p)) for p in error.problems
        ]
        return part
    if language and case_file.language != language:
        return part
    part.files = 1
    part.name = case_file.name
    offered = machine | set(case_file.inline_tool_names)
    part.failures += [Failure(REQUIRES, source, None, None, detail) for detail in
                      _requires_details([t for t in case_file.requires if t not in offered],
                                        machine, unlisted)]
    specs = _catalogue(offered, case_file, source, known)
    for case in case_file.cases:
        part.cases += 1
        part.questions.append(Question(
            source, case.name, case_file.language, " / ".join(s.message for s in case.steps),
            case.job, case.register))
        half = None if split is None else (
            split.half_of(case_key(split.folder, path, case)) or "unassigned")
        _route_case(part, router, case, case_file.language, source, specs, offered, half)
    return part


def _requires_details(missing: list[str], machine: set[str], unlisted: list[str]) -> list[str]:
    """Why required tools are missing here, with the fix: a built-in's own reason (no
    ``git``, no jail: bubblewrap named) when the built-ins are offered; the sources that
    did not list their tools (a conftest.py that does not import, an MCP server that did
    not start), once for all the others; else the usual reasons, one tool a row."""
    details, others = [], []
    for tool in missing:
        row = next((row for row in builtin_rows() if row.spec.name == tool), None)
        why = (missing_tools([(tool, row.needs, row.jailed)]).get(tool)
               if row is not None and machine & set(BUILTIN_ORDER) else None)
        if why:
            details.append(f"requires {tool!r}, a built-in this machine cannot offer: {why}")
        else:
            others.append(tool)
    if others and unlisted:  # one cause: one row
        details.append(f"requires {', '.join(map(repr, others))}, not offered here: "
                       + "; ".join(unlisted))
    else:
        details += [f"requires {tool!r}{did_you_mean(tool, machine)}, which no provider on "
                    "this machine offers (a missing binary, an MCP server not configured or "
                    "not started)" for tool in others]
    return details


def _route_case(
    report: CheckReport,
    router: Router,
    case: Case,
    language: str,
    source: str,
    catalogue: list[ToolSpec],
    offered: set[str],
    half: str | None = None,
) -> None:
    previous: tuple[str, ...] = ()
    for number, step in enumerate(case.steps, start=1):
        expected = step.expected_tools
        keep, previous = previous, tuple(expected)
        if not expected:
            continue
        routes = [route for route in step.routes if set(route) <= offered]
        if not routes:
            report.steps_skipped += 1
            continue
        report.steps_routed += 1
        routing = router.route(step.message, language, catalogue, keep)
        # A step is covered when every tool of one of its routes is shown.
        gaps = [[tool for tool in route if tool not in routing.tools] for route in routes]
        missing = min(gaps, key=len)
        group = group_of(case, expected)
        # No signal: every covering route has a tool shown only as a filler.
        fallback = not missing and all(
            _fallback_only(routing, route) for route, gap in zip(routes, gaps, strict=True)
            if not gap
        )
        report.count(
            not missing,
            language,
            group,
            case.register or "unspecified",
            half=half,
            fallback=fallback,
        )
        if not missing:
            continue
        scores: dict[str, float] = {}
        if isinstance(router, TriggerRouter):
            scores, _ = router.score(step.message, language, catalogue)
        miss_class = _miss_class(missing[0], scores.get(missing[0], 0.0))
        report.by_miss_class[miss_class] = report.by_miss_class.get(miss_class, 0) + 1
        report.misses.append(
            Miss(
                source,
                case.name,
                number,
                step.message,
                language,
                expected,
                missing,
                miss_class,
                list(routing.tools),
            )
        )
        report.failures.append(
            Failure(
                ROUTER_MISS,
                source,
                case.name,
                number,
                f"{', '.join(missing)} not among the {router.k} shown for {step.message!r} "
                f"(class: {miss_class}); shown: {', '.join(routing.tools)}",
            )
        )

