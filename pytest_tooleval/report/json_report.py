"""The JSON report: a versioned document with run metadata, every case and the summary."""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pytest_tooleval.report.caps import cap_strings
from pytest_tooleval.result import CaseResult

SCHEMA = "pytest-tooleval/report"
#: 2: cases are typed ``CaseResult`` records (pytest_tooleval/result.py); each step holds
#: its transcript and its checks; ``error`` is an object with a kind.
SCHEMA_VERSION = 2


def package_version() -> str:
    try:
        return version("pytest-tooleval")
    except PackageNotFoundError:
        return "unknown"


def platform_info() -> dict[str, str]:
    return {
        "system": platform.system(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
    }


def build_report(
    run: dict[str, Any], results: list[CaseResult], summary: dict[str, Any]
) -> dict[str, Any]:
    """``run``: metadata gathered by the recorder (model, backend, tools, times, …)."""
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "run": {
            "package_version": package_version(),
            "platform": platform_info(),
            **run,
        },
        "summary": summary,
        # Answers and tool output are untrusted and may be huge: capped per string.
        "cases": [cap_strings(r.to_json()) for r in sorted(results, key=lambda r: r.nodeid)],
    }


def report_cases(report: dict[str, Any]) -> list[CaseResult]:
    """The typed cases of a loaded report (version 1 reports are read too)."""
    return [CaseResult.from_json(case) for case in report.get("cases", [])]
