"""``tooleval power``: the cases or repeats needed to detect a change of D points between
two runs (exact McNemar, given the share of cases that flip anyway: the discordance), and
the cases one run's interval of width W needs; per axis and for the pass rate.

A case with c of n tries passing flips between two tries with probability
2c(n−c)/(n(n−1)). K tries per case shrink the try-to-try noise about K-fold (an
approximation for reruns of one model; a real change in a few cases is not found so).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.check.files import collect_files
from pytest_tooleval.report.model import Summary
from pytest_tooleval.scoring.aggregate import WEIGHTS
from pytest_tooleval.scoring.statistics import (
    cases_for_width,
    cases_needed,
    min_detectable,
    min_flips,
)

#: Which axis a case's category counts on (the irrelevance axis also takes any case with a
#: step that expects no tool, the answer axis any case with evidence).
CATEGORY_AXIS = {"irrelevance": "irrelevance", "tool": "tool", "chain": "step"}
DEFAULT_DISCORDANCE = 0.10
#: The figures ``compare`` decides on (the score, the pass rate, each axis): a regression
#: must be significant at (1 − level) over this many (Bonferroni), so plans use that α.
DECIDING = 2 + len(WEIGHTS)


def compare_alpha(level: float) -> float:
    """The α ``compare`` tests each deciding figure at."""
    return (1 - level) / DECIDING


def selection_counts(paths: Sequence[Path]) -> Counter[str]:
    """Cases per axis in these case files (directories walked)."""
    counts: Counter[str] = Counter()
    for path in collect_files(paths):
        case_file = load_case_file(path)
        for case in case_file.cases:
            counts["all"] += 1
            counts[CATEGORY_AXIS.get(case.category, case.category)] += 1
            if case.category != "irrelevance" and not all(step.routes for step in case.steps):
                counts["irrelevance"] += 1
            if any(step.evidence for step in case.steps):
                counts["answer"] += 1
    return counts


def report_figures(summary: Summary) -> tuple[Counter[str], float | None]:
    """Cases per axis of a report, and the discordance its repeats show (None without)."""
    counts: Counter[str] = Counter({axis: data.cases for axis, data in summary.axes.items()})
    counts["all"] = summary.cases_scored
    rows = summary.repeats.cases or []
    flips = [2 * r.passes * (r.scored - r.passes) / (r.scored * (r.scored - 1))
             for r in rows if r.scored >= 2]
    return counts, (sum(flips) / len(flips) if flips else None)


def plan(counts: Counter[str], detect: float, discordance: float, *, alpha: float,
         level: float, power: float) -> list[str]:
    """The lines ``tooleval power`` prints: the test at ``alpha`` (``compare_alpha``), one
    run's interval at ``level``."""
    delta = detect / 100.0
    psi = max(discordance, delta)
    lines = [f"To detect a change of {detect:g} points in a pass rate between two runs "
             f"(exact McNemar at α = {alpha:.2g}, the level compare decides at: "
             f"{1 - level:g} over its {DECIDING} deciding figures; power {power:.0%}), with "
             f"{discordance:.0%} of cases flipping between runs anyway:", ""]
    needed = cases_needed(delta, psi, alpha=alpha, power=power)
    lines.append(f"  {'figure':<12} {'cases':>6} {'needed':>7} {'repeats':>8}  smallest "
                 "detectable now")
    for name in ("all", "irrelevance", "tool", "step", "answer"):
        have = counts.get(name, 0)
        if not have:
            continue
        repeats = 1 if have >= needed else math.ceil(needed / have)
        detectable = min_detectable(have, discordance, alpha=alpha, power=power)
        shown = "none (too few cases)" if detectable is None else f"{100 * detectable:.1f} points"
        label = "pass rate" if name == "all" else name
        lines.append(f"  {label:<12} {have:>6} {needed:>7} {repeats:>8}  {shown}")
    lines += [
        "",
        f"  needed: paired cases for the test; repeats: tries per case (--tooleval-repeat) "
        f"that make up a shortfall when the flips are try-to-try noise; at least "
        f"{min_flips(alpha)} cases must flip one way for any change to show.",
        "",
        f"For one run's interval to be at most {detect:g} points wide (a proportion near "
        f"50%, the widest case): {cases_for_width(delta, 0.5, level)} cases; near 90%: "
        f"{cases_for_width(delta, 0.9, level)}.",
    ]
    return lines
