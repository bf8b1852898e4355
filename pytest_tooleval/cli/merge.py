"""``tooleval merge``: the shards of a run joined into one report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_tooleval.run.merge import MergeError, merge


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tooleval merge",
        description="Join the shards of a run (--tooleval-shard I/N), given as report "
        "folders, journals or report.json files, into one report. Refused (exit 2) when the "
        "parts differ in configuration, a shard is missing or given twice, or a part did "
        "not finish.")
    parser.add_argument("parts", nargs="+", type=Path,
                        help="report folders, journal.jsonl or report.json files")
    parser.add_argument("--report", type=Path, default=Path("tooleval-report"),
                        help="folder for the merged report (default tooleval-report)")
    options = parser.parse_args(list(argv))
    try:
        report, recorder = merge(list(options.parts), options.report, Path.cwd())
    except MergeError as exc:
        print(f"tooleval merge: {exc}", file=sys.stderr)
        return 2
    if recorder.write_error:
        print(f"tooleval merge: {recorder.write_error}", file=sys.stderr)
        return 2
    score = report.summary.score
    print(f"tooleval merge: {len(report.cases)} cases from {len(options.parts)} part(s); "
          f"score {'n/a' if score is None else f'{score:.1f}'}, "
          f"{report.summary.deployability.verdict}")
    print(f"written: {', '.join(str(p) for p in recorder.paths)}")
    return 0
