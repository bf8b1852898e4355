"""The grammar gap: the same cases with the constraint on and off, same prompt and seed.

Besides the score per axis and group, each arm gets validity figures: how often a call
parsed, how often a parsed call fitted the schema, how often the right tool ran, how often
the arguments met the case's constraints.
"""

from __future__ import annotations

from typing import Any

from pytest_tooleval.report.compare import paired_statistics, scored_figures
from pytest_tooleval.report.model import Interval, Report
from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.aggregate import call_statistics
from pytest_tooleval.scoring.paired import Row
from pytest_tooleval.scoring.settings import INTERVAL_MIN_CASES
from pytest_tooleval.scoring.statistics import DEFAULT_LEVEL, wilson


def validity(cases: list[CaseResult]) -> dict[str, Any]:
    calls = call_statistics(cases)  # the scored cases' calls, leaks left out
    attempts = calls.attempts
    parsed = attempts - calls.malformed_kinds.get("unparseable", 0)
    steps = [checks for case in cases if not case.is_error for checks in case.checks]
    tool = [step.tool for step in steps if step.tool is not None]
    args = [step.args for step in steps if step.args is not None]
    rates = {"parse_rate": (parsed, attempts),
             "schema_valid_rate": (attempts - calls.malformed, parsed),
             "right_tool_rate": (sum(tool), len(tool)),
             "right_arguments_rate": (sum(args), len(args))}
    return {
        "attempts": attempts,
        **{key: part / whole if whole else None for key, (part, whole) in rates.items()},
        # Wilson over each rate's attempts or steps; none under 5.
        "intervals": {key: found.rounded().model_dump() for key, (part, whole) in rates.items()
                      if whole >= INTERVAL_MIN_CASES and (found := wilson(part, whole))},
        "steps_with_expected_tool": len(tool),
        "steps_with_argument_constraints": len(args),
    }


def paired_gap(on: list[CaseResult], off: list[CaseResult],
               level: float = DEFAULT_LEVEL) -> dict[str, Any]:
    """The gap case by case: cases paired by content, then per figure (score, pass rate,
    each axis; each group) the flip matrix, the gap (on − off) with its paired interval
    and whether it is significant (Bonferroni over the figures; groups uncorrected)."""
    pairing, rows, groups, verdict = paired_statistics(on, off, level, tolerance=0.0)

    def entry(row: Row) -> dict[str, Any]:
        return {**row.to_dict(), "significant": row.status != "no detectable change"}

    return {
        "level": level,
        "cases": len(pairing.pairs),
        "edited": pairing.edited,
        "unscored": pairing.unscored,
        "figures": {row.name: entry(row) for row in rows},
        "groups": {row.name: entry(row) for row in groups},
        "per_figure_alpha": verdict.per_figure_alpha,
    }


def gap_of(on: Report, off: Report) -> dict[str, Any]:
    """Differences (on − off) over the cases both arms scored (ERRORs excluded)."""
    off_by_id = {c.nodeid: c for c in off.cases}
    on_cases = [c for c in on.cases if c.nodeid in off_by_id
                and c.scored and off_by_id[c.nodeid].scored]
    off_cases = [off_by_id[c.nodeid] for c in on_cases]
    on_score, on_axes, on_groups = scored_figures(on_cases)
    off_score, off_axes, off_groups = scored_figures(off_cases)

    def pair(a: float | None, b: float | None) -> dict[str, float | None]:
        return {"on": a, "off": b, "gap": None if a is None or b is None else round(a - b, 4)}

    return {
        "cases": len(on_cases),
        "score": pair(on_score, off_score),
        "axes": {a: pair(on_axes.get(a), off_axes.get(a))
                 for a in sorted({*on_axes, *off_axes})},
        "groups": {g: pair(on_groups.get(g), off_groups.get(g))
                   for g in sorted({*on_groups, *off_groups})},
        "validity": {"on": validity(on_cases), "off": validity(off_cases)},
        "mechanism": {"on": on.run.constraint, "off": off.run.constraint},
        "model": on.run.model.get("name"),
        "paired": paired_gap(on.cases, off.cases),
    }


def render_gap(gap: dict[str, Any]) -> str:
    def fmt(value: float | None, scale: float = 1.0) -> str:
        return "   n/a" if value is None else f"{value * scale:6.1f}"

    lines = [f"# Grammar gap: {gap['model']} ({gap['cases']} cases scored in both arms)", "",
             f"Constraint that ran with grammar on: {gap['mechanism']['on']}", "",
             "| | on | off | gap (on − off) |", "|---|---|---|---|"]
    rows = [("score", gap["score"])]
    rows += [(f"axis {axis}", values) for axis, values in gap["axes"].items()]
    rows += [(f"group {group}", values) for group, values in gap["groups"].items()]
    for label, values in rows:
        shown_gap = "n/a" if values["gap"] is None else f"{values['gap']:+.1f}"
        lines.append(f"| {label} | {fmt(values['on'])} | {fmt(values['off'])} | {shown_gap} |")
    lines += ["", "| validity | on | off |", "|---|---|---|"]
    keys = ("parse_rate", "schema_valid_rate", "right_tool_rate", "right_arguments_rate")
    for key in keys:
        on, off = (fmt(arm[key], 100) + ("" if (found := arm["intervals"].get(key)) is None
                                         else f" [{Interval(**found).text(100)}]")
                   for arm in (gap["validity"]["on"], gap["validity"]["off"]))
        lines.append(f"| {key.replace('_', ' ')} (%) | {on} | {off} |")
    lines.append(f"| attempts | {gap['validity']['on']['attempts']} | "
                 f"{gap['validity']['off']['attempts']} |")
    lines += render_paired_gap(gap["paired"])
    return "\n".join(lines) + "\n"


def render_paired_gap(paired: dict[str, Any], listed: int = 40) -> list[str]:
    """The flip matrix per figure and group, the gap's paired interval and significance,
    and the cases that flipped."""
    level = f"{paired['level']:.0%}"
    lines = ["", f"## Case by case ({paired['cases']} paired cases)", "",
             "helped: fails with grammar off, passes with it on; hurt: the reverse. "
             f"Significant: the test's p below {paired['per_figure_alpha']:.3g} (α "
             f"{1 - paired['level']:.2g}, Bonferroni over the figures; groups at α, "
             "uncorrected).", "",
             f"| figure | helped | hurt | both pass | both fail | gap | {level} interval | "
             "test | p | significant |", "|---|---|---|---|---|---|---|---|---|---|"]
    entries = [*paired["figures"].items(), *paired["groups"].items()]
    for name, row in entries:
        counts = (row.get("flips") or {}).get("counts")
        cells = ([str(counts[k]) for k in ("helped", "hurt", "both_pass", "both_fail")]
                 if counts else ["", "", "", ""])
        interval = row["interval"]
        shown = "n/a" if interval is None else f"{interval['low']:+.1f} to {interval['high']:+.1f}"
        lines.append(f"| {name} | {' | '.join(cells)} | {row['delta']:+.1f} | {shown} | "
                     f"{row['test']} | {row['p_value']:.3g} | "
                     f"{'**yes**' if row['significant'] else 'no'} |")
    for name, row in paired["figures"].items():
        flips = row.get("flips") or {}
        for kind in ("helped", "hurt"):
            cases = flips.get(kind) or []
            if cases:
                more = f", … {len(cases) - listed} more in gap.json" if len(cases) > listed \
                    else ""
                lines += ["", f"{kind.capitalize()} on {name} ({len(cases)}): "
                          + ", ".join(f"`{c}`" for c in cases[:listed]) + more]
    if paired["edited"]:
        lines += ["", f"Edited between the arms (not paired): {', '.join(paired['edited'])}"]
    return lines
