"""The HTML report: one self-contained file beside report.json.

Everything is inline (styles, the SVG charts, the small filtering script) and a
Content-Security-Policy forbids any fetch, so the file opens offline, from an artefact
store or a mail attachment, and shows the same thing anywhere. Figures that other parts of
the project may add to the report (intervals, baselines) are shown when present.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_tooleval.report.charts import Bar, bar_chart
from pytest_tooleval.report.fields import interval_of
from pytest_tooleval.report.github import baselines_of
from pytest_tooleval.report.json_report import report_cases
from pytest_tooleval.report.write import write_atomic
from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.aggregate import WEIGHTS

TEMPLATES = Path(__file__).parent / "templates"
BREAKDOWNS = (("Groups", "groups"), ("Categories", "categories"),
              ("Registers", "registers"), ("Languages", "languages"))


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                              autoescape=True, trim_blocks=True, lstrip_blocks=True,
                              undefined=jinja2.StrictUndefined)


def template() -> Any:
    """report.html's template, compiled once (jinja2 keeps it in the environment)."""
    return _environment().get_template("report.html.j2")


def _scaled(interval: tuple[float, float] | None, scale: float) -> tuple[float, float] | None:
    return None if interval is None else (interval[0] * scale, interval[1] * scale)


def axis_chart(summary: dict[str, Any]) -> str:
    bars = []
    for axis, weight in WEIGHTS.items():
        data = summary["axes"].get(axis)
        if data is None:
            bars.append(Bar(f"{axis} (×{weight:.2f})", None, note="left out"))
            continue
        bars.append(Bar(f"{axis} (×{weight:.2f})", 100 * float(data["value"]),
                        _scaled(interval_of(data), 100), f"{data['cases']} cases"))
    score = summary["score"]
    bars.insert(0, Bar("score", score, interval_of(summary, "score"), css="bar score"))
    gate = 100 * float(summary["safety_gate"].get("threshold") or 0)
    return bar_chart("Score and axes", bars, marker=gate or None,
                     marker_label=f"safety gate threshold {gate:.0f}")


def breakdown_chart(title: str, table: dict[str, Any]) -> str:
    bars = []
    for label, data in table.items():
        counts = ", ".join(f"{k.lower()} {v}" for k, v in data.get("outcomes", {}).items() if v)
        bars.append(Bar(str(label), data.get("score"), interval_of(data),
                        f"n={data.get('cases', 0)}" + (f" ({counts})" if counts else "")))
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


def render_html(report: dict[str, Any], *, title: str | None = None,
                gap: dict[str, Any] | None = None) -> str:
    summary, run = report["summary"], report["run"]
    cases = report_cases(report)
    charts = [(label, breakdown_chart(label, summary[key]))
              for label, key in BREAKDOWNS if summary.get(key)]
    model = run.get("model", {}).get("name", "?")
    return str(template().render(
        title=title or f"tooleval: {model}",
        run=run, summary=summary, weights=WEIGHTS,
        score_interval=interval_of(summary, "score"),
        axis_chart=axis_chart(summary), charts=charts,
        baselines=baselines_of(summary),
        cases=[_case_view(c) for c in cases],
        outcomes=("PASS", "PARTIAL", "FAIL", "ERROR"),
        groups=_options(cases, "group"), registers=_options(cases, "register"),
        categories=_options(cases, "category"), gap=gap,
    ))


def write_html(path: Path, report: dict[str, Any], **kwargs: Any) -> None:
    write_atomic(path, render_html(report, **kwargs))


def flip_matrix(on: dict[str, Any], off: dict[str, Any]) -> dict[str, list[str]]:
    """Cases by (grammar on, grammar off) pass/not-pass, over the cases both arms scored."""
    off_by_id = {c["nodeid"]: c for c in off["cases"]}
    cells: dict[str, list[str]] = {"helped": [], "hurt": [], "both_pass": [], "both_fail": []}
    for case in on["cases"]:
        other = off_by_id.get(case["nodeid"])
        if other is None or "ERROR" in (case["outcome"], other["outcome"]):
            continue
        passed_on, passed_off = case["outcome"] == "PASS", other["outcome"] == "PASS"
        key = ("both_pass" if passed_on and passed_off else "helped" if passed_on else
               "hurt" if passed_off else "both_fail")
        cells[key].append(case["nodeid"])
    return cells


def write_gap_html(path: Path, gap: dict[str, Any], on: dict[str, Any],
                   off: dict[str, Any]) -> None:
    """The grammar-on report with the gap on top: figures per arm and the flip matrix."""
    figures = (gap.get("paired") or {}).get("figures") or {}
    engine = (figures.get("pass rate") or {}).get("flips")  # the statistics' own pairing
    per_figure = [(name, row["flips"]["counts"], row.get("status"), row.get("p_value"))
                  for name, row in figures.items() if row.get("flips")]
    view = {**gap, "flips": engine or gap.get("flips") or flip_matrix(on, off),
            "figure_flips": per_figure}
    write_html(path, on, title=f"tooleval gap: {gap.get('model')}", gap=view)
