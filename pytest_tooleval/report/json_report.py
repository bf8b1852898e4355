"""The JSON report: a versioned document with run metadata, every case and the summary."""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version

from pytest_tooleval.report.caps import MAX_REPORT_CHARS, cap_strings
from pytest_tooleval.report.model import Platform, Report, RunInfo, Summary
from pytest_tooleval.result import CaseResult


def package_version() -> str:
    try:
        return version("pytest-tooleval")
    except PackageNotFoundError:
        return "unknown"


def platform_info() -> Platform:
    return Platform(system=platform.system(), machine=platform.machine(),
                    python=platform.python_version(), implementation=sys.implementation.name)


def build_report(run: RunInfo, results: list[CaseResult], summary: Summary) -> Report:
    """The run's report; answers and tool output are untrusted and may be huge, so each
    case keeps at most ``MAX_REPORT_CHARS`` of any one string (report/caps.py)."""
    cases = [_capped(r) for r in sorted(results, key=lambda r: r.nodeid)]
    return Report(run=run, summary=summary, cases=cases)


def _capped(result: CaseResult) -> CaseResult:
    """``result`` itself when no string in it can be over the cap (its whole JSON text is
    shorter), else a copy with the long strings cut."""
    if len(result.model_dump_json()) <= MAX_REPORT_CHARS:
        return result
    return CaseResult.from_json(cap_strings(result.to_json()))
