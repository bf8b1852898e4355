"""``tooleval board``: several runs of the same cases ranked side by side (report/board.py
ranks them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_tooleval.atomic import write_atomic
from pytest_tooleval.cli.common import Refused, arg, command
from pytest_tooleval.report.board import board, render_html, render_markdown
from pytest_tooleval.report.model import ReportError, load_report


@command("tooleval board",
         "Rank several runs of the same cases (one report.json per model): score with "
         "interval, axes, gate and verdict, each pair compared case by case (Holm-corrected), "
         "and the groups the data cannot tell apart. Writes board.md and board.html. Exit 2 "
         "on unreadable input or runs that differ in more than the model.",
         arg("reports", nargs="+", type=Path, metavar="REPORT",
             help="report.json of each run (two or more)"),
         arg("--out", type=Path, default=Path("tooleval-report/board"),
             help="folder for board.md and board.html (default: %(default)s)"),
         arg("--force", action="store_true", help="rank runs that differ in cases, tools, "
             "platform, grammar, backend or sampling anyway, listing the differences"),
         errors=(ReportError,))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if len(options.reports) < 2:
        parser.error("give two or more report.json files")
    result = board([load_report(path) for path in options.reports], force=options.force)
    text = render_markdown(result)
    if not result.ranked:
        raise Refused(text.rstrip("\n"))
    write_atomic(options.out / "board.md", text)
    write_atomic(options.out / "board.html", render_html(result))
    print(text, end="")
    print(f"written: {options.out / 'board.md'}, {options.out / 'board.html'}")
    return 0
