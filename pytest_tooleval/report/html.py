"""The HTML report: one self-contained file beside report.json.

Everything is inline (styles, the SVG charts, the small filtering script) and a
Content-Security-Policy forbids any fetch, so the file opens offline, from an artefact
store or a mail attachment, and shows the same thing anywhere.
"""

from __future__ import annotations

import json
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from pytest_tooleval.atomic import write_atomic
from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.report.charts import Bar, bar_chart
from pytest_tooleval.report.markdown import (
    PASS_K_NOTE,
    calls_line,
    language_gap_line,
    pass_k_rows,
    routed_cell,
    selection_line,
)
from pytest_tooleval.report.model import BreakdownRow, Interval, Report, Summary
from pytest_tooleval.report.terminal import interval_note, too_few, verdict_reason
from pytest_tooleval.result import LABELS, CaseResult, Outcome
from pytest_tooleval.scoring.aggregate import WEIGHTS
from pytest_tooleval.scoring.failure_modes import MODES, case_modes

TEMPLATES = Path(__file__).parent / "templates"


@lru_cache(maxsize=1)
def environment() -> Any:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    # a call's arguments as written (İzmir, don't), escaped as HTML, not as a script's JSON
    env.filters["json"] = partial(json.dumps, ensure_ascii=False)
    return env


def bounds(interval: Interval | None, scale: float = 1.0) -> tuple[float, float] | None:
    return None if interval is None else (interval.low * scale, interval.high * scale)


def _notes(*parts: str) -> str:
    return " · ".join(part for part in parts if part)


def axis_chart(summary: Summary) -> str:
    """The score and each axis; the safety gate's threshold on the irrelevance row, the
    only axis it applies to."""
    gate = 100 * summary.safety_gate.threshold
    bars = [Bar("score", summary.score, bounds(summary.score_interval),
                too_few(summary.score_interval, summary.cases_scored), css="bar score")]
    for axis, weight in WEIGHTS.items():
        data = summary.axes.get(axis)
        here = axis == "irrelevance" and gate > 0
        marker, marker_label = (gate, f"gate ≥ {gate:.0f}") if here else (None, "")
        if data is None:
            bars.append(Bar(f"{axis} (×{weight:.2f})", None, note="not measured",
                            marker=marker, marker_label=marker_label))
            continue
        bars.append(Bar(f"{axis} (×{weight:.2f})", 100 * data.value,
                        bounds(data.interval, 100),
                        _notes(too_few(data.interval, data.cases), f"{data.cases} cases"),
                        marker=marker, marker_label=marker_label))
    return bar_chart("Score and axes", bars)


def breakdown_chart(title: str, table: dict[str, BreakdownRow]) -> str:
    """Each row's score; its note as report.md's row: cases (tries), outcomes, routing."""
    bars = []
    for label, row in table.items():
        bars.append(Bar(label, row.score, bounds(row.interval), _notes(
            too_few(row.interval, row.cases),
            f"n={row.cases}" + (f" ({row.tries} tries)" if row.tries is not None else ""),
            ", ".join(f"{k.lower()} {v}" for k, v in row.outcomes.items() if v),
            f"routed {routed_cell(row.routing)}" if row.routing.steps else "")))
    return bar_chart(title, bars)


RANK = {"PASS": 0, "PARTIAL": 1, "FAIL": 2, "ERROR": 3}  # the sort's "worst first"


def one_line(case: CaseResult) -> str:
    """A collapsed case row's reason: the error, else the first reason, else a pass."""
    if case.error is not None and case.is_error:
        first = next(iter(case.error.message.splitlines()), "")  # the message may be empty
        return f"{case.error.kind} error: {first}"
    if case.reasons:
        more = len(case.reasons) - 1
        return case.reasons[0] + (f" (+{more} more)" if more else "")
    return "every check held"


def step_cost(step: StepTranscript) -> dict[str, Any]:
    """A step's model calls: count, latency (s), prompt and completion tokens."""
    calls = step.model_calls
    return {"calls": len(calls), "latency": step.latency_s,
            "prompt": sum(c.prompt_tokens or 0 for c in calls),
            "completion": sum(c.completion_tokens or 0 for c in calls)}


def _case_view(case: CaseResult, order: int) -> dict[str, Any]:
    text = " ".join([case.nodeid, *(t.message for t in case.transcripts), *case.reasons,
                     *(t.answer or "" for t in case.transcripts)])
    costs = [step_cost(t) for t in case.transcripts]
    # "İ".lower() is "i" and a combining dot, which the search drops: "istanbul" finds İstanbul
    return {"case": case, "steps": list(zip(range(1, len(costs) + 1), case.transcripts, costs,
                                            strict=True)),
            "search": text.lower().replace("\u0307", ""), "why": one_line(case),
            "modes": " ".join(dict.fromkeys(case_modes(case))),
            "sort": {"order": order, "rank": RANK[case.outcome.value],
                     "latency": round(sum(c["latency"] for c in costs), 3),
                     "tokens": sum(c["prompt"] + c["completion"] for c in costs)},
            "labels": {key: case.label(key) or "" for key in LABELS}}


def _options(cases: list[CaseResult], key: str) -> list[str]:
    return sorted({label for c in cases if (label := c.label(key))})


def render_html(report: Report, *, title: str | None = None,
                gap: dict[str, Any] | None = None) -> str:
    summary, run, cases = report.summary, report.run, report.cases
    charts = [(title, breakdown_chart(title, table))
              for title, _, table in summary.breakdowns() if table]
    return str(environment().get_template("report.html.j2").render(
        title=title or f"tooleval: {run.model_name}",
        run=run, summary=summary, verdict_reason=verdict_reason(summary, run.interrupted),
        interval_note=interval_note(summary),
        score_note=too_few(summary.score_interval, summary.cases_scored),
        axis_chart=axis_chart(summary), charts=charts,
        cases=[_case_view(c, i) for i, c in enumerate(cases)],
        outcomes=[o.value for o in Outcome],
        options={key: _options(cases, key) for key in LABELS}, modes=MODES, gap=gap,
        pass_k=pass_k_rows(summary.repeats) if summary.repeats.k > 1 else [],
        pass_k_note=PASS_K_NOTE, run_lines=[selection_line(report), language_gap_line(summary),
                                            calls_line(summary)],
    ))


def write_html(path: Path, report: Report) -> None:
    write_atomic(path, render_html(report))


def flip_matrix(on: Report, off: Report) -> dict[str, list[str]]:
    """Cases by (grammar on, grammar off) pass/not-pass, over the cases both arms scored."""
    off_by_id = {c.nodeid: c for c in off.cases}
    cells: dict[str, list[str]] = {"helped": [], "hurt": [], "both_pass": [], "both_fail": []}
    for case in on.cases:
        other = off_by_id.get(case.nodeid)
        if other is None or case.is_error or other.is_error:
            continue
        passed_on, passed_off = case.outcome is Outcome.PASS, other.outcome is Outcome.PASS
        key = ("both_pass" if passed_on and passed_off else "helped" if passed_on else
               "hurt" if passed_off else "both_fail")
        cells[key].append(case.nodeid)
    return cells


def gap_chart(gap: dict[str, Any]) -> str:
    """Each figure's two arms, grammar on above grammar off, the gap in the off row's note."""
    rows = [("score", gap["score"]), *((f"axis {a}", v) for a, v in gap["axes"].items()),
            *((f"group {g}", v) for g, v in gap["groups"].items())]
    bars = []
    for label, values in rows:
        shown = "" if values["gap"] is None else f"gap {values['gap']:+.1f}"
        bars.append(Bar(f"{label} · on", values["on"], css="bar on"))
        bars.append(Bar(f"{label} · off", values["off"], note=shown, css="bar off"))
    return bar_chart("Grammar on against off", bars)


def write_gap_html(path: Path, gap: dict[str, Any], on: Report, off: Report) -> None:
    """The grammar-on report with the gap on top: both arms as a chart, figures per arm,
    the flip matrix and, as gap.md, each figure's and group's paired gap and interval."""
    paired = gap["paired"]
    engine = (paired["figures"].get("pass rate") or {}).get("flips")  # the statistics' own
    view = {**gap, "flips": engine or flip_matrix(on, off),
            "figure_flips": {**paired["figures"], **paired["groups"]}, "chart": gap_chart(gap)}
    write_atomic(path, render_html(on, title=f"tooleval gap: {gap.get('model')}", gap=view))
