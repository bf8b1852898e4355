"""pytest-tooleval: measure how well a language model uses tools, inside pytest.

The public surface, for those who extend it (docs/usage.md, "Your own model session" and
"Your own backend kind"): ``tool`` (a Python function as a tool); ``ToolProvider``,
``ToolSpec`` and ``ToolResult`` (a source of tools of one's own); ``Backend``, ``ModelTurn``,
``RawCall`` and ``BackendError`` (a model behind an API of one's own); ``ModelSession``
(what the ``pytest_tooleval_make_session`` hook returns); ``CaseResult`` (one case's typed
result). Names load on first use (all of them at once cost about 0.2 s), so importing the
plugin stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_tooleval.engine.session import ModelSession
    from pytest_tooleval.models.base import Backend, BackendError, ModelTurn, RawCall
    from pytest_tooleval.result import CaseResult
    from pytest_tooleval.tools.base import ToolProvider, ToolResult, ToolSpec
    from pytest_tooleval.tools.python import tool

__all__ = [
    "Backend", "BackendError", "CaseResult", "ModelSession", "ModelTurn", "RawCall",
    "ToolProvider", "ToolResult", "ToolSpec", "tool",
]

_HOMES = {
    "Backend": "pytest_tooleval.models.base",
    "BackendError": "pytest_tooleval.models.base",
    "ModelTurn": "pytest_tooleval.models.base",
    "RawCall": "pytest_tooleval.models.base",
    "CaseResult": "pytest_tooleval.result",
    "ModelSession": "pytest_tooleval.engine.session",
    "ToolProvider": "pytest_tooleval.tools.base",
    "ToolResult": "pytest_tooleval.tools.base",
    "ToolSpec": "pytest_tooleval.tools.base",
    "tool": "pytest_tooleval.tools.python",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pytest_tooleval' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
