"""The JSON report: a versioned document with run metadata, every case and the summary."""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

SCHEMA = "pytest-tooleval/report"
SCHEMA_VERSION = 1


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
    run: dict[str, Any], results: list[dict[str, Any]], summary: dict[str, Any]
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
        "cases": sorted(results, key=lambda r: r["nodeid"]),
    }
