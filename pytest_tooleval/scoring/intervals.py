"""Confidence intervals on a run's figures: the score, each axis and each breakdown.

The method suits the figure: a binary axis with one try per case is a proportion (Wilson);
the weighted score, fractional axes (step, answer) and anything with repeats use the
bootstrap over cases (clusters), stratified by category. Every interval uses the same
fixed seed, so the same results give the same interval.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pytest_tooleval.scoring.repeats import CaseTries
from pytest_tooleval.scoring.settings import IntervalSettings as IntervalSettings
from pytest_tooleval.scoring.statistics import (
    Interval,
    bootstrap,
    wilson,
)

if TYPE_CHECKING:
    from pytest_tooleval.report.model import Interval as ReportInterval
    from pytest_tooleval.report.model import Summary

def _is_proportion(cases: list[CaseTries], axis: str,
                   rows: list[dict[str, float]] | None = None) -> bool:
    """Every case one try, valued 0 or 1 on ``axis`` (``rows``: their ``axes()``)."""
    for case, row in zip(cases, rows or [case.axes() for case in cases], strict=True):
        if case.n != 1:
            return False
        value = row.get(axis)
        if value is not None and value not in (0.0, 1.0):
            return False
    return True


def figure_intervals(
    cases: list[CaseTries], weights: dict[str, float], settings: IntervalSettings
) -> tuple[Interval | None, dict[str, Interval | None]]:
    """The score's interval (0–100) and each axis's (0–1) over these cases."""
    scored = [c for c in cases if c.n]
    rows = [c.axes() for c in scored]  # each case's axes, worked out once
    result = bootstrap(rows, [c.stratum for c in scored], weights, level=settings.level,
                       resamples=settings.resamples, seed=settings.seed)
    axes: dict[str, Interval | None] = {}
    means: dict[str, float] = {}
    for axis in weights:
        members = [(c, row) for c, row in zip(scored, rows, strict=True) if axis in row]
        if not members:
            continue
        total = sum(row[axis] for _, row in members)
        means[axis] = total / len(members)
        # At 0 or 1 every resample is the same: the bootstrap cannot vary, Wilson can.
        if (_is_proportion([c for c, _ in members], axis, [row for _, row in members])
                or means[axis] in (0.0, 1.0)):
            axes[axis] = wilson(total, len(members), settings.level)
        else:
            axes[axis] = result.axes.get(axis)
    return _score_interval(result.score, axes, means, weights), axes


def _score_interval(boot: Interval | None, axes: dict[str, Interval | None],
                    means: dict[str, float], weights: dict[str, float]) -> Interval | None:
    """The bootstrap's interval; where an axis sits at 0 or 1 (so resampling cannot move
    it), widened to the weighted combination of the axis intervals, a conservative bound."""
    if boot is None or not any(v in (0.0, 1.0) for v in means.values()):
        return boot
    used = {a: i for a, i in axes.items() if i is not None}
    total = sum(weights[a] for a in used)
    low = 100.0 * sum(weights[a] * i.low for a, i in used.items()) / total
    high = 100.0 * sum(weights[a] * i.high for a, i in used.items()) / total
    return Interval(min(boot.low, low), max(boot.high, high), "bootstrap, widened by wilson")


def _cases_for(width: float, cases: int, max_width: float) -> int:
    """Cases that would bring an interval of this width down to max_width (width ∝ 1/√n)."""
    return math.ceil(cases * (width / max_width) ** 2)


def width_warnings(summary: Summary, settings: IntervalSettings) -> list[str]:
    """A sample-size warning for each figure whose interval is wider than max_width."""
    limit = settings.max_width
    found = []

    def check(label: str, interval: ReportInterval | None, scale: float, cases: int) -> None:
        if interval is None:
            return
        width = (interval.high - interval.low) * scale
        if width > limit:
            found.append(
                f"{label}: the {settings.level:.0%} interval {interval.text(scale)} is "
                f"{width:.1f} points wide (over {limit:g}) with {cases} case(s); about "
                f"{_cases_for(width, cases, limit)} would narrow it to {limit:g}"
            )

    check("score", summary.score_interval, 1.0, summary.cases_scored)
    for axis, data in summary.axes.items():
        check(f"axis {axis}", data.interval, 100.0, data.cases)
    for _, name, table in summary.breakdowns():
        for label, row in table.items():
            check(f"{name} {label}", row.interval, 1.0, row.cases)
    return found
