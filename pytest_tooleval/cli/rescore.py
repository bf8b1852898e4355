"""``tooleval rescore``: the current case files applied to a stored run's transcripts."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from pytest_tooleval.report.model import ReportError
from pytest_tooleval.report.write import write_json
from pytest_tooleval.rescore import load_stored, render, rescore
from pytest_tooleval.run.journal import JournalError


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tooleval rescore",
        description="Apply the current case files to the transcripts of a stored run (a "
        "report.json, a journal.jsonl or a report folder) without a model. Exit 0 when "
        "nothing changed, 1 when an outcome changed or a case needs a rerun, 2 on bad input.")
    parser.add_argument("stored", type=Path, help="report.json, journal.jsonl or a folder")
    parser.add_argument("paths", nargs="*", type=Path,
                        help="only the cases under these files or folders")
    parser.add_argument("--json", type=Path, help="also write the result as JSON")
    options = parser.parse_args(list(argv))
    try:
        results, run = load_stored(options.stored)
    except (OSError, JournalError, ReportError, ValidationError) as exc:
        print(f"tooleval rescore: {options.stored}: {exc}", file=sys.stderr)
        return 2
    result = rescore(results, run, Path.cwd(), options.paths)
    print(render(result), end="")
    if options.json:
        write_json(options.json, result.to_dict())
    return 1 if (result.changed or result.rerun) else 0
