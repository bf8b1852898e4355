"""Why cases fell short of PASS, by kind: each failing step gets one failure mode, read
from the checks the scorer already made (``StepChecks``) and the step's transcript; a
case that ended in ERROR counts once, by its error's kind.

``MODES`` is the one table of the modes: a stable key (report.json, links) and a short
label (what people read). Every report shows them in this order.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import get_args

from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.report.model import FailureModes
from pytest_tooleval.result import CaseResult, ErrorKind, StepChecks

#: key → label, in the order the reports show them. The model's modes count steps; the
#: ``error_*`` modes count cases (the machine failed, nothing was scored).
MODES: dict[str, str] = {
    "forbidden_tool": "ran a forbidden tool",
    "unwanted_call": "called a tool where none was wanted",
    "leaked_call": "call leaked into the text",
    "malformed_call": "malformed call",
    "asked_back": "asked back instead of calling",
    "no_call": "needed a tool, called none",
    "wrong_tool": "called the wrong tool",
    "wrong_arguments": "right tool, wrong arguments",
    "wrong_state": "wrong state after the step",
    "no_answer": "no final answer",
    "facts_missing": "facts missing from the answer",
    **{f"error_{kind}": f"ERROR ({kind})" for kind in get_args(ErrorKind)},
}


def step_mode(checks: StepChecks, transcript: StepTranscript) -> str | None:
    """The step's failure mode (the first that applies, in ``MODES`` order); None when
    every check that applied held."""
    attempts = transcript.attempts
    if checks.forbidden_ran:
        return "forbidden_tool"
    if checks.restraint is False:
        return "unwanted_call"
    if checks.tool is False:
        if any(a.leaked for a in attempts):
            return "leaked_call"
        if any(not a.valid for a in attempts):
            return "malformed_call"
        if not attempts:
            asked = (transcript.answer or "").rstrip().endswith("?")
            return "asked_back" if asked else "no_call"
        return "wrong_tool"
    if checks.args is False:
        return "wrong_arguments"
    if checks.state is False:
        return "wrong_state"
    if not transcript.answered:
        return "no_answer"
    if checks.evidence is not None and checks.evidence < 1:
        return "facts_missing"
    return None


def case_modes(result: CaseResult) -> list[str]:
    """One mode per failing step; one ``error_<kind>`` for an ERROR case."""
    if result.error is not None and result.is_error:
        return [f"error_{result.error.kind}"]
    found = [step_mode(step.checks, step.transcript) for step in result.steps
             if step.checks is not None]
    return [mode for mode in found if mode is not None]


def _ordered(counts: dict[str, int]) -> dict[str, int]:
    return {key: counts[key] for key in MODES if counts.get(key)}


def failure_modes(results: list[CaseResult]) -> FailureModes:
    """The modes counted over the run, per group and per language (every try counts)."""
    run: Counter[str] = Counter()
    by: dict[str, dict[str, Counter[str]]] = {"group": defaultdict(Counter),
                                              "language": defaultdict(Counter)}
    for result in results:
        for mode in case_modes(result):
            run[mode] += 1
            for key, table in by.items():
                label = result.label(key)
                if label:
                    table[label][mode] += 1
    groups, languages = ({label: _ordered(table[label]) for label in sorted(table)}
                         for table in by.values())
    return FailureModes(run=_ordered(run), groups=groups, languages=languages)


def modes_text(counts: dict[str, int]) -> str:
    """``needed a tool, called none 12 · malformed call 3``, most frequent first."""
    ranked = sorted(counts.items(), key=lambda item: -item[1])  # stable: ties in MODES order
    return " · ".join(f"{MODES.get(key, key)} {count}" for key, count in ranked)
