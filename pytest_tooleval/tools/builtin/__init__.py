"""The built-in tool catalogue: real tools acting on one case's sandboxed world."""

from __future__ import annotations

from pytest_tooleval.tools.builtin.provider import ALL_TOOLS, BuiltinToolProvider

__all__ = ["ALL_TOOLS", "BuiltinToolProvider"]
