"""``tooleval power``: how many cases or repeats a question needs, before running it.

Two questions, each per axis and for the pass rate:

- a comparison (``compare``, ``--tooleval-baseline``, ``gap``): to detect a change of D
  points in a pass rate between two runs of the same cases with the exact McNemar test,
  given the share of cases that flip between runs anyway (the discordance);
- a single run: how many cases an interval no wider than W points needs.

The discordance comes from ``--discordance`` or from a report run with repeats: a case
with c of n tries passing flips between two tries with probability 2c(n−c)/(n(n−1)).
Repeats help a comparison by averaging that try-to-try noise away: with K tries per case
the noise a pair of runs carries shrinks about K-fold (an approximation that holds for
reruns of one model, where the flips are noise; a real change concentrated in a few cases
is not found by repeating them).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pytest_tooleval.report.model import Summary, load_report
from pytest_tooleval.scoring.statistics import (
    cases_for_width,
    cases_needed,
    min_detectable,
    min_flips,
)

#: Which axis a case's category counts on (the answer axis: any case with evidence).
CATEGORY_AXIS = {"irrelevance": "irrelevance", "tool": "tool", "chain": "step"}
DEFAULT_DISCORDANCE = 0.10


def selection_counts(paths: Sequence[Path]) -> Counter[str]:
    """Cases per axis in these case files (directories walked)."""
    from pytest_tooleval.cases.load import load_case_file
    from pytest_tooleval.check.static import collect_files

    counts: Counter[str] = Counter()
    for path in collect_files(paths):
        case_file = load_case_file(path)
        for case in case_file.cases:
            counts["all"] += 1
            counts[CATEGORY_AXIS.get(case.category, case.category)] += 1
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
         power: float) -> list[str]:
    """The lines ``tooleval power`` prints."""
    delta = detect / 100.0
    psi = max(discordance, delta)
    lines = [f"To detect a change of {detect:g} points in a pass rate between two runs "
             f"(exact McNemar, α = {alpha:g}, power {power:.0%}), with {discordance:.0%} of "
             "cases flipping between runs anyway:", ""]
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
        f"50%, the widest case): {cases_for_width(delta, 0.5, 1 - alpha)} cases; near 90%: "
        f"{cases_for_width(delta, 0.9, 1 - alpha)}.",
    ]
    return lines


def power_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tooleval power",
        description="How many cases or repeats a comparison needs to detect a given change, "
        "and what the selection can detect now. Reads case files (or a report.json).")
    parser.add_argument("paths", nargs="*", type=Path,
                        help="case files or folders (default: benchmarks scenarios)")
    parser.add_argument("--detect", type=float, required=True,
                        help="the change to detect, in points out of 100 (e.g. 5)")
    parser.add_argument("--discordance", type=float,
                        help="share of cases that flip between two runs anyway (0..1); "
                        f"default: from --from-report's repeats, else {DEFAULT_DISCORDANCE}")
    parser.add_argument("--from-report", type=Path,
                        help="take the case counts (and, with repeats, the discordance) "
                        "from a report.json instead of case files")
    parser.add_argument("--level", type=float, default=0.95, help="confidence level")
    parser.add_argument("--power", type=float, default=0.8, help="power (default 0.8)")
    options = parser.parse_args(list(argv))
    problems = []
    if not 0 < options.detect <= 100:
        problems.append(f"--detect must lie in (0, 100] points, got {options.detect:g}")
    if not 0.5 <= options.level < 1 or not 0 < options.power < 1:
        problems.append("--level must lie in [0.5, 1) and --power in (0, 1)")
    if options.discordance is not None and not 0 <= options.discordance <= 1:
        problems.append(f"--discordance must lie in [0, 1], got {options.discordance:g}")
    if problems:
        for problem in problems:
            print(f"tooleval power: {problem}", file=sys.stderr)
        return 2
    observed: float | None = None
    try:
        if options.from_report:
            counts, observed = report_figures(load_report(options.from_report).summary)
        else:
            paths = options.paths or [Path(p) for p in ("benchmarks", "scenarios")
                                      if Path(p).is_dir()]
            counts = selection_counts(paths)
    except Exception as exc:  # a clear message, never a traceback
        print(f"tooleval power: {exc}", file=sys.stderr)
        return 2
    if not counts.get("all"):
        print("tooleval power: the selection holds no case", file=sys.stderr)
        return 2
    discordance = options.discordance if options.discordance is not None else (
        observed if observed is not None else DEFAULT_DISCORDANCE)
    source = ("given" if options.discordance is not None else
              "measured from the report's repeats" if observed is not None else
              "assumed; measure it with --tooleval-repeat and --from-report")
    print(f"Selection: {counts['all']} case(s); discordance {discordance:.3f} ({source}).")
    for line in plan(counts, options.detect, discordance, alpha=1 - options.level,
                     power=options.power):
        print(line)
    return 0
