"""``tooleval gap``: grammar on against grammar off, run here or read from two reports."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_tooleval.atomic import write_atomic, write_json
from pytest_tooleval.cli.common import Refused, refusals
from pytest_tooleval.cli.run import missing_for, pytest_args_for_run, run_parser, split_passthrough
from pytest_tooleval.report.compare import differences
from pytest_tooleval.report.gap import gap_of, render_gap
from pytest_tooleval.report.html import write_gap_html
from pytest_tooleval.report.model import Report, ReportError, load_report

ARMS = ("on", "off")


@refusals("tooleval gap", ReportError)
def main(argv: Sequence[str]) -> int:
    parser = run_parser(
        "tooleval gap",
        "Run the cases with grammar on and with grammar off (same prompt, same seed) and "
        "report the difference per axis and group, with validity figures.",
        leave_out=("grammar", "partial"), defaults={"report_dir": "tooleval-report/gap"})
    parser.add_argument("--from-reports", nargs=2, metavar=("ON.json", "OFF.json"),
                        type=Path, help="build the gap from two report.json files run before "
                        "(for example on different days or machines) instead of running")
    parser.add_argument("--force", action="store_true",
                        help="with --from-reports: build the gap even when the two runs differ "
                        "in platform, tools offered or case set")
    own, extra = split_passthrough(argv)
    options = parser.parse_args(own)
    missing = missing_for(options)
    if missing and not options.from_reports:
        raise Refused(missing)
    out = Path(options.report_dir)
    reports: dict[str, Report] = {}
    if options.from_reports:
        reports = {arm: load_report(path)
                   for arm, path in zip(ARMS, options.from_reports, strict=True)}
        _check_pair(reports, options.force)
    else:
        for arm in ARMS:
            arm_options = argparse.Namespace(**vars(options))
            arm_options.grammar = arm
            arm_options.report_dir = str(out / arm)
            args = pytest_args_for_run(arm_options, [*extra, "--tooleval-partial", "pass"])
            print(f"tooleval gap: grammar {arm}: pytest {' '.join(args)}", flush=True)
            code = subprocess.call([sys.executable, "-m", "pytest", *args])
            if code not in (0, 1):
                raise Refused(f"the grammar-{arm} run stopped (pytest exit {code})")
            reports[arm] = load_report(out / arm / "report.json")
    gap = gap_of(reports["on"], reports["off"])
    text = render_gap(gap)
    write_json(out / "gap.json", gap)
    write_atomic(out / "gap.md", text)
    write_gap_html(out / "gap.html", gap, reports["on"], reports["off"])
    print(text, end="")
    print(f"written: {out / 'gap.json'}, {out / 'gap.md'}, {out / 'gap.html'}")
    return 0


def _check_pair(reports: dict[str, Report], force: bool) -> None:
    """Refused when two given reports cannot make a gap; with ``force``, the differences
    beyond the grammar said on stderr instead."""
    grammars = [reports[arm].run.backend.get("grammar") for arm in ARMS]
    if grammars != list(ARMS):
        raise Refused(f"the reports ran with grammar {grammars[0]} and {grammars[1]}; give "
                      "the grammar-on report first, then the grammar-off one")
    # The constraint is meant to differ; nothing else may.
    found = "".join(f"\n  - {d}" for d in differences(reports["on"], reports["off"])
                    if not d.startswith("grammar mechanism differs"))
    if found and not force:
        raise Refused("the two runs differ beyond the grammar (pass --force to build the gap "
                      f"over the cases both scored anyway):{found}")
    if found:
        print(f"tooleval gap: --force: building the gap although the runs differ:{found}",
              file=sys.stderr)
