"""``tooleval html``: the HTML report from report.json files written before (or elsewhere)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_tooleval.cli.common import arg, command
from pytest_tooleval.report.gap import gap_of
from pytest_tooleval.report.html import write_gap_html, write_html
from pytest_tooleval.report.model import ReportError, load_report


@command("tooleval html",
         "Write a self-contained HTML report. One report.json gives report.html beside it; "
         "--gap ON.json OFF.json gives gap.html with the flip matrix.",
         arg("report", nargs="?", type=Path, help="a report.json"),
         arg("--gap", nargs=2, type=Path, metavar=("ON.json", "OFF.json")),
         arg("--out", type=Path, help="where to write (default: beside the input)"),
         errors=(ReportError,))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if (options.report is None) == (options.gap is None):
        parser.error("give one report.json, or --gap ON.json OFF.json")
    if options.gap:
        on, off = (load_report(p) for p in options.gap)
        out = options.out or options.gap[0].parent.parent / "gap.html"
        write_gap_html(out, gap_of(on, off), on, off)
    else:
        report = load_report(options.report)
        out = options.out or options.report.with_name("report.html")
        write_html(out, report)
    print(f"written: {out}")
    return 0
