"""``tooleval power``: cases or repeats a comparison needs (report/power.py computes)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_tooleval.cli.common import Refused, arg, case_paths, command
from pytest_tooleval.report.model import load_report
from pytest_tooleval.report.power import (
    DEFAULT_DISCORDANCE,
    compare_alpha,
    plan,
    report_figures,
    selection_counts,
)


@command("tooleval power",
         "How many cases or repeats a comparison needs to detect a given change, and what the "
         "selection can detect now. Reads case files (or a report.json).",
         arg("paths", nargs="*", type=Path,
             help="case files or folders (default: benchmarks scenarios)"),
         arg("--detect", type=float, required=True,
             help="the change to detect, in points out of 100 (e.g. 5)"),
         arg("--discordance", type=float,
             help="share of cases that flip between two runs anyway (0..1); default: from "
             f"--from-report's repeats, else {DEFAULT_DISCORDANCE}"),
         arg("--from-report", type=Path,
             help="take the case counts (and, with repeats, the discordance) from a "
             "report.json instead of case files"),
         arg("--level", type=float, default=0.95, help="confidence level"),
         arg("--power", type=float, default=0.8, help="power (default 0.8)"))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
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
            counts = selection_counts(case_paths(options.paths))
    except Exception as exc:  # a clear message, never a traceback
        raise Refused(str(exc)) from None
    if not counts.get("all"):
        raise Refused(f"{options.from_report}: no case scored; give a run that scored cases"
                      if options.from_report else "no case file under "
                      f"{' '.join(map(str, options.paths)) or 'benchmarks scenarios'}; give "
                      "case files or folders")
    discordance = options.discordance if options.discordance is not None else (
        observed if observed is not None else DEFAULT_DISCORDANCE)
    source = ("given" if options.discordance is not None else
              "measured from the report's repeats" if observed is not None else
              "assumed; measure it with --tooleval-repeat and --from-report")
    print(f"Selection: {counts['all']} case(s); discordance {discordance:.3f} ({source}).")
    for line in plan(counts, options.detect, discordance, alpha=compare_alpha(options.level),
                     level=options.level, power=options.power):
        print(line)
    return 0
