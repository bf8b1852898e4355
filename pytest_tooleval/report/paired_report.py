"""The statistics of a comparison (scoring/paired.py) attached to it, as JSON and as text.

Kept apart from compare.py's refusals and per-case lists so that each changes alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.aggregate import WEIGHTS
from pytest_tooleval.scoring.paired import POWER, decide, group_rows, pair_cases, paired_rows

if TYPE_CHECKING:
    from pytest_tooleval.report.compare import Comparison


def paired_comparison(result: Comparison, new: list[CaseResult],
                      base: list[CaseResult]) -> None:
    """The statistics: pair cases by content hash, then per figure the paired difference,
    its interval and test, and the verdict (scoring/paired.py)."""
    result.pairing = pair_cases(new, base)
    pairs = result.pairing.pairs
    result.rows = paired_rows(pairs, WEIGHTS, level=result.level)
    result.group_rows = group_rows(pairs, WEIGHTS, level=result.level)
    result.verdict = decide(result.rows, level=result.level, tolerance=result.tolerance)
    decide(result.group_rows, level=result.level, tolerance=result.tolerance)


def paired_dict(result: Comparison) -> dict[str, Any]:
    if result.pairing is None or result.verdict is None:
        return {}
    pairing = result.pairing
    return {
        "paired": {
            "level": result.level,
            "cases": len(pairing.pairs),
            "edited": pairing.edited,
            "only_new": pairing.only_new,
            "only_baseline": pairing.only_base,
            "unscored": pairing.unscored,
            "figures": {row.name: row.to_dict() for row in result.rows},
            "groups": {row.name: row.to_dict() for row in result.group_rows},
            "verdict": result.verdict.to_dict(),
        }
    }


def render_paired(result: Comparison) -> list[str]:
    """The statistics section of a comparison, for a person."""
    if result.pairing is None or result.verdict is None:
        return []
    verdict, pairing = result.verdict, result.pairing
    level = f"{result.level:.0%}"
    lines = [f"Paired over {len(pairing.pairs)} case(s) matched by content; {level} paired "
             f"intervals; a drop is a regression when p < {verdict.per_figure_alpha:.3g} "
             f"(α = {verdict.alpha:.2g}, Bonferroni over {len(result.rows)} figures) and "
             f"larger than {result.tolerance:g} points.",
             f"  {'':18} {'baseline':>8} → {'new':>6}  {'delta':>6}  {'interval':>15}  "
             f"{'test':>9}  {'p':>7}  flips (hurt/helped)  verdict"]
    for row in [*result.rows, *result.group_rows]:
        interval = row.difference.interval
        shown = "n/a (few cases)" if interval is None else (
            f"[{interval.low * row._scale:+.1f}, {interval.high * row._scale:+.1f}]")
        flipped = f"{len(row.flips.hurt)}/{len(row.flips.helped)}" if row.flips else ""
        status = row.status
        if not row.decides and status != "no detectable change":
            status = ("drop" if row.delta < 0 else "rise") + " at p < α, uncorrected"
        note = "" if row.decides else " (not deciding)"
        lines.append(f"  {row.name:<18} {row.base:8.1f} → {row.new:6.1f}  {row.delta:+6.1f}  "
                     f"{shown:>15}  {row.test:>9}  {row.p_value:7.3g}  {flipped:>19}  "
                     f"{status}{note}")
    for title, keys in (("only in this run", pairing.only_new),
                        ("only in the baseline", pairing.only_base),
                        ("ERROR in one run (not compared)", pairing.unscored)):
        if keys:
            lines.append(f"  {len(keys)} case(s) {title}: " + ", ".join(keys[:10])
                         + (f", … {len(keys) - 10} more" if len(keys) > 10 else ""))
    lines.append("")
    if verdict.status == "no detectable change":
        sizes = [f"{name} {value:.1f} points" for name, value in
                 verdict.smallest_detectable.items() if value is not None]
        lines.append(f"Verdict: no detectable change. With {verdict.cases} paired case(s) the "
                     f"smallest difference detectable (at {POWER:.0%} power) is "
                     + ("; ".join(sizes) if sizes else "not estimable")
                     + f"; at least {verdict.min_flips} cases must flip one way to show at all.")
    else:
        moved = [row.name for row in result.rows if row.status == verdict.status]
        lines.append(f"Verdict: {verdict.status} in {', '.join(moved)} (outside the noise at "
                     f"{level}).")
    return lines
