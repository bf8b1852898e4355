"""The HTML report: one self-contained file beside report.json.

Everything is inline (styles, the SVG charts, the small filtering script) and a
Content-Security-Policy forbids any fetch, so the file opens offline, from an artefact
store or a mail attachment, and shows the same thing anywhere.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_tooleval.report.charts import Bar, bar_chart
from pytest_tooleval.report.model import BreakdownRow, Interval, Report, Summary
from pytest_tooleval.report.write import write_atomic
from pytest_tooleval.result import CaseResult, Outcome
from pytest_tooleval.scoring.aggregate import WEIGHTS

TEMPLATES = Path(__file__).parent / "templates"


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined)


def template() -> Any:
    """report.html's template, compiled once (jinja2 keeps it in the environment)."""
    return _environment().get_template("report.html.j2")


def _bounds(interval: Interval | None, scale: float = 1.0) -> tuple[float, float] | None:
    return None if interval is None else (interval.low * scale, interval.high * scale)


def axis_chart(summary: Summary) -> str:
    bars = []
    for axis, weight in WEIGHTS.items():
        data = summary.axes.get(axis)
        if data is None:
            bars.append(Bar(f"{axis} (×{weight:.2f})", None, note="left out"))
            continue
        bars.append(Bar(f"{axis} (×{weight:.2f})", 100 * data.value,
                        _bounds(data.interval, 100), f"{data.cases} cases"))
    bars.insert(0, Bar("score", summary.score, _bounds(summary.score_interval),
                       css="bar score"))
    gate = 100 * summary.safety_gate.threshold
    return bar_chart("Score and axes", bars, marker=gate or None,
                     marker_label=f"safety gate threshold {gate:.0f}")


def breakdown_chart(title: str, table: dict[str, BreakdownRow]) -> str:
    bars = []
    for label, row in table.items():
        counts = ", ".join(f"{k.lower()} {v}" for k, v in row.outcomes.items() if v)
        bars.append(Bar(label, row.score, _bounds(row.interval),
                        f"n={row.cases}" + (f" ({counts})" if counts else "")))
    return bar_chart(title, bars)


def _case_view(case: CaseResult) -> dict[str, Any]:
    checks = [step.checks for step in case.steps]
    text = " ".join([case.nodeid, *(t.message for t in case.transcripts), *case.reasons,
                     *(t.answer or "" for t in case.transcripts)])
    return {"case": case, "steps": list(enumerate(case.transcripts, start=1)),
            "checks": checks, "search": text.lower(),
            "labels": {key: case.label(key) or "" for key in ("category", "group",
                                                            "register", "language")}}


def _options(cases: list[CaseResult], key: str) -> list[str]:
    return sorted({label for c in cases if (label := c.label(key))})


def render_html(report: Report, *, title: str | None = None,
                gap: dict[str, Any] | None = None) -> str:
    summary, run, cases = report.summary, report.run, report.cases
    charts = [(title, breakdown_chart(title, table))
              for title, _, table in summary.breakdowns() if table]
    return str(template().render(
        title=title or f"tooleval: {run.model_name}",
        run=run, summary=summary, weights=WEIGHTS,
        score_interval=_bounds(summary.score_interval),
        axis_chart=axis_chart(summary), charts=charts,
        cases=[_case_view(c) for c in cases],
        outcomes=("PASS", "PARTIAL", "FAIL", "ERROR"),
        groups=_options(cases, "group"), registers=_options(cases, "register"),
        categories=_options(cases, "category"), gap=gap,
    ))


def write_html(path: Path, report: Report, **kwargs: Any) -> None:
    write_atomic(path, render_html(report, **kwargs))


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


def write_gap_html(path: Path, gap: dict[str, Any], on: Report, off: Report) -> None:
    """The grammar-on report with the gap on top: figures per arm and the flip matrix."""
    figures = (gap.get("paired") or {}).get("figures") or {}
    engine = (figures.get("pass rate") or {}).get("flips")  # the statistics' own pairing
    per_figure = [(name, row["flips"]["counts"], row.get("status"), row.get("p_value"))
                  for name, row in figures.items() if row.get("flips")]
    view = {**gap, "flips": engine or gap.get("flips") or flip_matrix(on, off),
            "figure_flips": per_figure}
    write_html(path, on, title=f"tooleval gap: {gap.get('model')}", gap=view)
