"""pytest-tooleval: measure how well a language model uses tools, inside pytest.

The public surface for extending it (docs/usage.md) loads on first use, so importing the
plugin stays cheap. PYTEST_DONT_REWRITE: ``tooleval run`` has imported the package before
pytest loads it as a plugin, so pytest could not rewrite its asserts and warned on every run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_tooleval.engine.session import ModelSession
    from pytest_tooleval.models.base import (
        Backend,
        BackendConfigError,
        BackendError,
        ModelTurn,
        RawCall,
    )
    from pytest_tooleval.report.model import Report, ReportError, RunInfo, Summary, load_report
    from pytest_tooleval.result import CaseResult
    from pytest_tooleval.router.base import Router, Routing
    from pytest_tooleval.tools.base import ProviderError, ToolProvider, ToolResult, ToolSpec
    from pytest_tooleval.tools.python import tool

__all__ = [
    "Backend", "BackendConfigError", "BackendError", "CaseResult", "ModelSession", "ModelTurn",
    "ProviderError", "RawCall", "Report", "ReportError", "Router", "Routing", "RunInfo",
    "Summary", "ToolProvider", "ToolResult", "ToolSpec", "load_report", "tool",
]

_HOMES = {
    **dict.fromkeys(["Backend", "BackendConfigError", "BackendError", "ModelTurn", "RawCall"],
                    "pytest_tooleval.models.base"),
    "CaseResult": "pytest_tooleval.result",
    **dict.fromkeys(["Report", "ReportError", "RunInfo", "Summary", "load_report"],
                    "pytest_tooleval.report.model"),
    "ModelSession": "pytest_tooleval.engine.session",
    **dict.fromkeys(["Router", "Routing"], "pytest_tooleval.router.base"),
    **dict.fromkeys(["ProviderError", "ToolProvider", "ToolResult", "ToolSpec"],
                    "pytest_tooleval.tools.base"),
    "tool": "pytest_tooleval.tools.python",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pytest_tooleval' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
