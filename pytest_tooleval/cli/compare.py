"""``tooleval compare``: a run against a baseline report, paired case by case."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_tooleval.atomic import write_json
from pytest_tooleval.cli.common import Refused, arg, command
from pytest_tooleval.report.compare import compare, render_comparison
from pytest_tooleval.report.model import ReportError, load_report


@command("tooleval compare",
         "A run against a baseline, paired case by case (by content hash): per axis, the pass "
         "rate and the score, the difference with its paired interval and test, and a "
         "verdict. Exit 1 on a regression (a drop outside the noise at the level and beyond "
         "the tolerance), a refused comparison or none (no case scored in both runs); 0 on "
         "'no detectable change' or an "
         "improvement; 2 on unreadable input.",
         arg("new", type=Path, help="report.json of the new run, or its folder"),
         arg("baseline", type=Path, help="report.json of the baseline run, or its folder"),
         arg("--tolerance", type=float, default=1.0,
             help="a significant drop must also exceed this many points out of 100 to count "
             "as a regression (default 1.0)"),
         arg("--level", type=float, default=0.95,
             help="confidence level of the intervals and the regression test (default 0.95)"),
         arg("--force", action="store_true",
             help="compare runs that differ in platform, tools, cases or grammar"),
         arg("--json", type=Path, help="also write the comparison as JSON"),
         errors=(ReportError,))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    new, base = load_report(options.new), load_report(options.baseline)
    if not 0.5 <= options.level < 1:
        raise Refused(f"--level must lie in [0.5, 1), got {options.level}")
    if not 0 <= options.tolerance <= 100:  # NaN too: no drop would ever exceed it
        raise Refused("--tolerance must be a number of points in [0, 100], got "
                      f"{options.tolerance}")
    result = compare(new, base, force=options.force, tolerance=options.tolerance,
                     level=options.level)
    print(render_comparison(result), end="")
    if options.json:
        write_json(options.json, result.to_dict())
    return 1 if (not result.compared or result.regressed()) else 0
