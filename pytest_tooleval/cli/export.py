"""``tooleval export``: the corpus and a run's results as a Hugging Face dataset."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.check.files import UsageError
from pytest_tooleval.cli.common import Refused, arg, case_paths, command
from pytest_tooleval.report.dataset import export
from pytest_tooleval.report.model import ReportError, load_report


@command("tooleval export",
         "Write the corpus (and, with --report, a run's per-case results) as a Hugging Face "
         "dataset: Parquet files and a dataset card. Needs the [datasets] extra.",
         arg("paths", nargs="*", type=Path,
             help="case files or folders (default: benchmarks scenarios)"),
         arg("--report", type=Path, help="a report.json whose cases to export"),
         arg("--out", type=Path, default=Path("tooleval-dataset"),
             help="output folder (default tooleval-dataset)"),
         errors=(ReportError, CaseFileError, UsageError))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    paths = case_paths(options.paths)
    if not paths:
        parser.error("no case paths given and no benchmarks/ or scenarios/ here")
    try:
        import datasets  # noqa: F401
    except ImportError:
        raise Refused("needs the datasets package: pip install 'pytest-tooleval[datasets]'"
                      ) from None
    report = load_report(options.report) if options.report else None
    written = export(paths, options.out, report, Path.cwd())
    parts = ", ".join(f"{name} {count} rows" for name, count in written.items())
    print(f"written {options.out}: {parts}, README.md (dataset card)")
    return 0
