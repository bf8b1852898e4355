"""A compact Markdown summary for a GitHub Actions job (``$GITHUB_STEP_SUMMARY``).

The full report.md is long (every case short of PASS); the job page wants the verdict at a
glance: the score with its interval, the axes, the gate, the verdict, the baselines, and
the top regressions when the run was compared with a baseline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_tooleval.report.model import Interval, Report
from pytest_tooleval.report.terminal import fmt, interval_text, verdict_reason
from pytest_tooleval.scoring.aggregate import WEIGHTS
from pytest_tooleval.scoring.failure_modes import modes_text

TOP_REGRESSIONS = 10


def with_interval(value: float | None, interval: Interval | None, cases: int,
                   scale: float = 1.0) -> str:
    """The figure and its interval; "too few cases" where it has none for that reason."""
    return fmt(None if value is None else value * scale) + interval_text(interval, scale,
                                                                         cases=cases)


def render_step_summary(report: Report, comparison: dict[str, Any] | None = None) -> str:
    summary, run = report.summary, report.run
    gate = summary.safety_gate
    outcomes = summary.outcomes
    lines = [f"### tooleval: `{run.model_name}` (grammar {run.grammar})",
             ""]
    score = with_interval(summary.score, summary.score_interval, summary.cases_scored)
    lines += [f"**Score {score} / 100** · safety gate **{gate.status}** · "
              f"**{summary.deployability.verdict}**: "
              f"{verdict_reason(summary, run.interrupted)}", ""]
    header = "| " + " | ".join(WEIGHTS) + " |"
    cells = ["left out" if data is None else
             with_interval(data.value, data.interval, data.cases, 100)
             for data in (summary.axes.get(axis) for axis in WEIGHTS)]
    lines += [header, "|" + "---|" * len(WEIGHTS), "| " + " | ".join(cells) + " |", ""]
    lines.append(f"{outcomes['PASS']} pass · {outcomes['PARTIAL']} partial · "
                 f"{outcomes['FAIL']} fail · {outcomes['ERROR']} error")
    if summary.failure_modes.run:
        lines += ["", f"Failure modes: {modes_text(summary.failure_modes.run)}"]
    if summary.baselines:
        lines += ["", "Baselines: " + ", ".join(f"{name} {fmt(row.score)}"
                                                 for name, row in summary.baselines.items())]
    if comparison is not None:
        lines += ["", *_comparison_lines(comparison)]
    return "\n".join(lines).rstrip() + "\n"


def _comparison_lines(comparison: dict[str, Any]) -> list[str]:
    if comparison.get("refused") and not comparison.get("forced"):
        return ["**Baseline comparison refused**: " + "; ".join(comparison["refused"])]
    score = comparison.get("score", {})
    delta = score.get("delta")
    paired = comparison.get("paired") or {}
    interval = (paired.get("figures") or {}).get("score", {}).get("interval")
    spread = "" if interval is None else (f", {paired['level']:.0%} paired interval "
                                          f"{interval['low']:+.1f} to {interval['high']:+.1f}")
    lines = [f"Against the baseline: {fmt(score.get('baseline'))} → {fmt(score.get('new'))}"
             + ("" if delta is None else f" ({delta:+.1f}{spread})")]
    beyond = comparison.get("regressed_beyond_tolerance") or []
    if beyond:
        lines.append("Beyond the tolerance: " + "; ".join(beyond))
    regressions = comparison.get("regressions") or []
    if regressions:
        lines += ["", f"Top regressions ({len(regressions)}):", ""]
        lines += [f"- `{c['nodeid']}`: {c['baseline']} → {c['new']}"
                  for c in regressions[:TOP_REGRESSIONS]]
        if len(regressions) > TOP_REGRESSIONS:
            lines.append(f"- … and {len(regressions) - TOP_REGRESSIONS} more (report.json)")
    return lines


def append_step_summary(path: Path, report: Report,
                        comparison: dict[str, Any] | None = None) -> None:
    """Append (the file is shared by every step of the job), never overwrite."""
    with path.open("a", encoding="utf-8") as stream:
        stream.write(render_step_summary(report, comparison) + "\n")
