"""The built-in catalogue as the router and ``tooleval check`` see it: specs and priority.

The real specs (descriptions and schemas) live in ``pytest_tooleval.tools.builtin``; it
is imported lazily and only for a function that lists specs without building a world.
Until it exists (or if it fails to import) specs are built from ``tools/names.py`` with
empty descriptions, which still route through the hand-written triggers.
"""

from __future__ import annotations

import importlib
import shutil
from functools import lru_cache
from typing import Any

from pytest_tooleval.tools.base import ToolSpec
from pytest_tooleval.tools.names import BUILTIN_TOOLS_BY_GROUP

BUILTIN_ORDER: tuple[str, ...] = tuple(
    name for names in BUILTIN_TOOLS_BY_GROUP.values() for name in names
)
_INDEX = {name: index for index, name in enumerate(BUILTIN_ORDER)}
GROUP_OF: dict[str, str] = {
    name: group for group, names in BUILTIN_TOOLS_BY_GROUP.items() for name in names
}
GIT_TOOLS = frozenset(name for name in BUILTIN_ORDER if name.startswith("git_"))

_SPEC_FUNCTIONS = ("builtin_specs", "tool_specs", "list_specs", "specs", "list_tools")
_SPEC_CONSTANTS = ("BUILTIN_SPECS", "TOOL_SPECS", "SPECS", "ALL_TOOLS")


def priority(name: str) -> tuple[int, int, str]:
    """The fixed tie-break: the user's own tools (inline, MCP, Python) by name, then the
    built-ins in names.py order. A run that brings its own tools is about them, so when
    scores tie (most often at zero, when no trigger or cue fired) they take the places."""
    index = _INDEX.get(name)
    return (1, index, "") if index is not None else (0, 0, name)


def _as_spec(item: Any) -> ToolSpec | None:
    if isinstance(item, ToolSpec):
        return item
    name = getattr(item, "name", None)
    if not isinstance(name, str):
        return None
    return ToolSpec(
        name,
        str(getattr(item, "description", "") or ""),
        dict(getattr(item, "parameters", None) or {}),
        "builtin",
    )


def _from_module() -> list[ToolSpec] | None:
    try:
        module = importlib.import_module("pytest_tooleval.tools.builtin")
    except Exception:  # absent or half-written: fall back to names.py
        return None
    for attribute in (*_SPEC_FUNCTIONS, *_SPEC_CONSTANTS):
        found = getattr(module, attribute, None)
        if found is None:
            continue
        try:
            items = found() if callable(found) else found
            if isinstance(items, dict):
                items = list(items.values())
            specs = [spec for spec in map(_as_spec, items) if spec is not None]
        except Exception:  # a function that needs a world is no use here
            continue
        if specs:
            return specs
    return None


@lru_cache(maxsize=1)
def builtin_specs() -> tuple[ToolSpec, ...]:
    """Every built-in tool's spec, in catalogue order, whatever this machine offers."""
    found = {spec.name: spec for spec in _from_module() or []}
    return tuple(
        found.get(name) or ToolSpec(name, "", {"type": "object", "properties": {}}, "builtin")
        for name in BUILTIN_ORDER
    )


def offered_builtin_names() -> set[str]:
    """Built-ins this machine can offer: git tools only when a ``git`` binary exists, the
    tools that execute code (git, run_python) only where the jail works."""
    from pytest_tooleval.tools import jail

    names = set(BUILTIN_ORDER)
    if shutil.which("git") is None:
        names -= GIT_TOOLS
    if not jail.probe().available:
        names -= GIT_TOOLS | {"run_python"}
    return names
