"""``tooleval merge``: the shards of a run joined into one report."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_tooleval.cli.common import Refused, arg, command
from pytest_tooleval.report.html import write_html
from pytest_tooleval.run.merge import MergeError, merge


@command("tooleval merge",
         "Join the shards of a run (--tooleval-shard I/N), given as report folders, journals "
         "or report.json files, into one report. Refused (exit 2) when the parts differ in "
         "configuration, a shard is missing or given twice, or a part did not finish.",
         arg("parts", nargs="+", type=Path, metavar="SHARD",
             help="report folders, journal.jsonl or report.json files"),
         arg("--report", type=Path, default=Path("tooleval-report"),
             help="folder for the merged report (default tooleval-report)"),
         errors=(MergeError,))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    finished = merge(list(options.parts), options.report, Path.cwd())
    if finished.write_error:
        raise Refused(finished.write_error)
    report = finished.report
    html = options.report / "report.html"  # as a run writes it beside report.json
    write_html(html, report)
    score = report.summary.score
    print(f"tooleval merge: {len(report.cases)} cases from {len(options.parts)} part(s); "
          f"score {'n/a' if score is None else f'{score:.1f}'}, "
          f"{report.summary.deployability.verdict}")
    print(f"written: {', '.join(str(p) for p in [*finished.paths, html])}")
    return 0
