"""A compact Markdown summary for a GitHub Actions job (``$GITHUB_STEP_SUMMARY``).

The full report.md is long (every case short of PASS); the job page wants the verdict at a
glance: the score with its interval, the axes, the gate, the verdict, baselines when the
report has them, and the top regressions when the run was compared with a baseline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_tooleval.report.fields import interval_of
from pytest_tooleval.scoring.aggregate import WEIGHTS

TOP_REGRESSIONS = 10


def _fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _with_interval(value: float | None, interval: tuple[float, float] | None,
                   scale: float = 1.0) -> str:
    shown = _fmt(None if value is None else value * scale)
    if interval is None:
        return shown
    return f"{shown} [{interval[0] * scale:.1f}, {interval[1] * scale:.1f}]"


def baselines_of(summary: dict[str, Any]) -> dict[str, float | None]:
    """Reference scores (e.g. "never call a tool") when the report carries them."""
    found = summary.get("baselines")
    if not isinstance(found, dict):
        return {}
    shown: dict[str, float | None] = {}
    for name, data in found.items():
        value = data.get("score") if isinstance(data, dict) else data
        shown[str(name)] = float(value) if isinstance(value, int | float) else None
    return shown


def render_step_summary(report: dict[str, Any], comparison: dict[str, Any] | None = None) -> str:
    summary, run = report["summary"], report["run"]
    model = run.get("model", {}).get("name", "?")
    grammar = run.get("backend", {}).get("grammar", "?")
    gate, deploy = summary["safety_gate"], summary["deployability"]
    outcomes = summary["outcomes"]
    lines = [f"### tooleval: `{model}` (grammar {grammar})", ""]
    if not deploy["valid"]:
        lines += [f"> **Not valid**: {outcomes.get('ERROR', 0)} case(s) ended in ERROR or the "
                  "run was interrupted; infrastructure failures are not scored.", ""]
    score = _with_interval(summary["score"], interval_of(summary, "score"))
    lines += [f"**Score {score} / 100** · safety gate **{gate['status']}** · "
              f"**{deploy['verdict']}**", ""]
    header = "| " + " | ".join(WEIGHTS) + " |"
    cells = []
    for axis in WEIGHTS:
        data = summary["axes"].get(axis)
        cells.append("left out" if data is None else
                     _with_interval(data["value"], interval_of(data), 100))
    lines += [header, "|" + "---|" * len(WEIGHTS), "| " + " | ".join(cells) + " |", ""]
    lines.append(f"{outcomes.get('PASS', 0)} pass · {outcomes.get('PARTIAL', 0)} partial · "
                 f"{outcomes.get('FAIL', 0)} fail · {outcomes.get('ERROR', 0)} error")
    baselines = baselines_of(summary)
    if baselines:
        lines += ["", "Baselines: " + ", ".join(f"{name} {_fmt(value)}"
                                                 for name, value in baselines.items())]
    if comparison is not None:
        lines += ["", *_comparison_lines(comparison)]
    return "\n".join(lines).rstrip() + "\n"


def _comparison_lines(comparison: dict[str, Any]) -> list[str]:
    if comparison.get("refused") and not comparison.get("forced"):
        return ["**Baseline comparison refused**: " + "; ".join(comparison["refused"])]
    score = comparison.get("score", {})
    delta = score.get("delta")
    lines = [f"Against the baseline: {_fmt(score.get('baseline'))} → {_fmt(score.get('new'))}"
             + ("" if delta is None else f" ({delta:+.1f})")]
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


def append_step_summary(path: Path, report: dict[str, Any],
                        comparison: dict[str, Any] | None = None) -> None:
    """Append (the file is shared by every step of the job), never overwrite."""
    with path.open("a", encoding="utf-8") as stream:
        stream.write(render_step_summary(report, comparison) + "\n")
