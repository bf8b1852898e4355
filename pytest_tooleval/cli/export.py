"""``tooleval export``: the corpus and a run's results as a Hugging Face dataset."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cli.common import Refused, case_paths, command
from pytest_tooleval.report.dataset import export
from pytest_tooleval.report.model import ReportError, load_report


@command("tooleval export", ReportError, CaseFileError)
def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tooleval export",
        description="Write the corpus (and, with --report, a run's per-case results) as a "
        "Hugging Face dataset: Parquet files and a dataset card. Needs the [datasets] extra.")
    parser.add_argument("paths", nargs="*", type=Path,
                        help="case files or folders (default: benchmarks scenarios)")
    parser.add_argument("--report", type=Path, help="a report.json whose cases to export")
    parser.add_argument("--out", type=Path, default=Path("tooleval-dataset"),
                        help="output folder (default tooleval-dataset)")
    options = parser.parse_args(list(argv))
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
