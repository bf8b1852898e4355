"""Confidence intervals on a run's figures: the score, each axis and each breakdown.

The method suits the figure: a binary axis with one try per case is a proportion (Wilson);
the weighted score, fractional axes (step, answer) and anything with repeats use the
bootstrap over cases (clusters), stratified by category. Every interval uses the same
fixed seed, so the same results give the same interval.
"""

from __future__ import annotations

import math

from pytest_tooleval.report.model import Interval, Summary
from pytest_tooleval.scoring.repeats import CaseTries
from pytest_tooleval.scoring.settings import IntervalSettings
from pytest_tooleval.scoring.statistics import bootstrap, wilson


def figure_intervals(
    cases: list[CaseTries], weights: dict[str, float], settings: IntervalSettings
) -> tuple[Interval | None, dict[str, Interval | None]]:
    """The score's interval (0–100) and each axis's (0–1) over these cases."""
    scored = [c for c in cases if c.n]
    rows = [c.axes() for c in scored]
    result = bootstrap(rows, [c.stratum for c in scored], weights, level=settings.level)
    axes: dict[str, Interval | None] = {}
    still: set[str] = set()
    for axis in weights:
        members = [(c, row) for c, row in zip(scored, rows, strict=True) if axis in row]
        if not members:
            continue
        total = sum(row[axis] for _, row in members)
        # A proportion (one try each, 0 or 1) is Wilson's; so is an axis on which every case
        # has the same value (at 0 or 1, or 5 cases each firing at 1 of 2 tries), where every
        # resample is the same: the bootstrap's interval would have no width.
        proportion = all(c.n == 1 and row[axis] in (0.0, 1.0) for c, row in members)
        if len({row[axis] for _, row in members}) == 1:
            still.add(axis)
        if proportion or axis in still:
            axes[axis] = wilson(total, len(members), settings.level)
        else:
            axes[axis] = result.axes.get(axis)
    return _score_interval(result.score, axes, still, weights), axes


def _score_interval(boot: Interval | None, axes: dict[str, Interval | None],
                    still: set[str], weights: dict[str, float]) -> Interval | None:
    """The bootstrap's interval; where an axis's cases all have one value (so resampling
    cannot move it), widened to the weighted combination of the axis intervals, a
    conservative bound."""
    if boot is None or not still:
        return boot
    used = {a: i for a, i in axes.items() if i is not None}
    total = sum(weights[a] for a in used)
    low = 100.0 * sum(weights[a] * i.low for a, i in used.items()) / total
    high = 100.0 * sum(weights[a] * i.high for a, i in used.items()) / total
    return Interval(low=min(boot.low, low), high=max(boot.high, high),
                    method="bootstrap, widened by wilson")


def width_warnings(summary: Summary, settings: IntervalSettings) -> list[str]:
    """A sample-size warning for each figure whose interval is wider than max_width."""
    limit = settings.max_width
    found = []

    def check(label: str, interval: Interval | None, scale: float, cases: int) -> None:
        if interval is None:
            return
        width = (interval.high - interval.low) * scale
        if width > limit:
            needed = math.ceil(cases * (width / limit) ** 2)  # width ∝ 1/√n
            found.append(
                f"{label}: the {settings.level:.0%} interval {interval.text(scale)} is "
                f"{width:.1f} points wide (over {limit:g}) with {cases} case(s); about "
                f"{needed} would narrow it to {limit:g}"
            )

    check("score", summary.score_interval, 1.0, summary.cases_scored)
    for axis, data in summary.axes.items():
        check(f"axis {axis}", data.interval, 100.0, data.cases)
    for _, name, table in summary.breakdowns():
        for label, row in table.items():
            check(f"{name} {label}", row.interval, 1.0, row.cases)
    return found
