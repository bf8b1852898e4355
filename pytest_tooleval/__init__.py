"""pytest-tooleval: measure how well a language model uses tools, inside pytest.

The public surface is small: ``tool`` (register a Python function as a tool) and the
plugin itself (loaded by pytest through its entry point). Attributes load on first use so
that importing the plugin stays cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["tool"]


def __getattr__(name: str) -> Any:
    if name == "tool":
        from pytest_tooleval.tools.python import tool

        return tool
    raise AttributeError(f"module 'pytest_tooleval' has no attribute {name!r}")
