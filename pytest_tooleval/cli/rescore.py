"""``tooleval rescore``: the current case files applied to a stored run's transcripts."""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import ValidationError

from pytest_tooleval.atomic import write_json
from pytest_tooleval.cli.common import Refused, arg, command
from pytest_tooleval.report.html import write_html
from pytest_tooleval.report.model import ReportError
from pytest_tooleval.rescore import load_stored, render, rescore
from pytest_tooleval.run.finish import finish, settings_for
from pytest_tooleval.run.journal import JournalError


@command("tooleval rescore",
         "Apply the current case files to the transcripts of a stored run (a report.json, a "
         "journal.jsonl or a report folder) without a model. Exit 0 when nothing changed, 1 "
         "when an outcome changed or a case needs a rerun, 2 on bad input.",
         arg("stored", type=Path, metavar="REPORT_OR_JOURNAL",
             help="report.json, journal.jsonl or a folder"),
         # a default: else argparse lists an empty list's name as required
         arg("paths", nargs="*", type=Path, default=[], metavar="PATH",
             help="only the cases under these files or folders"),
         arg("--json", type=Path, help="also write the result as JSON"),
         arg("--report", type=Path, metavar="DIR",
             help="also write the re-scored run as a report of this version (report.json, "
             "report.md, report.html) into DIR"))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    missing = next((path for path in options.paths if not path.exists()), None)
    if missing is not None:
        raise Refused(f"no such file or directory: {missing}; fix: name case files or folders "
                      "of this project, from its root")
    try:
        results, run = load_stored(options.stored)
    except (JournalError, ReportError) as exc:  # they name the file
        raise Refused(str(exc)) from None
    except (OSError, ValidationError) as exc:
        raise Refused(f"{options.stored}: {exc}") from None
    result = rescore(results, run, Path.cwd(), options.paths)
    print(render(result), end="")
    if options.json:
        write_json(options.json, result.to_dict())
    if options.report:
        if run.info is None:
            raise Refused(f"{options.stored}: this run was killed, so it recorded no run to "
                          "write a report from; resume it to its end (pytest "
                          "--tooleval-resume) and rescore that")
        if run.statistics is None:
            print(f"note: {options.stored} records no --tooleval-level or --tooleval-max-width "
                  "(a journal of an earlier version): the report has the defaults")
        finished = finish(result.results, run.info,
                          settings_for(run.info, run.statistics, Path.cwd(), options.report),
                          report_option="--report")
        if finished.write_error:
            raise Refused(finished.write_error)
        write_html(options.report / "report.html", finished.report)
        print(f"written: {', '.join(str(p) for p in finished.paths)}, "
              f"{options.report / 'report.html'}")
    return 1 if (result.changed or result.rerun) else 0
