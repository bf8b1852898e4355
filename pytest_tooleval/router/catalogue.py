"""The built-in catalogue as the router and ``tooleval check`` see it: specs and priority.

The specs (descriptions and schemas) come from the built-in tools themselves
(``pytest_tooleval.tools.builtin``), imported on first use (``builtin_rows``); names and
groups from ``tools/names.py``, which loading case files needs without the tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pytest_tooleval.tools.base import ToolSpec
from pytest_tooleval.tools.names import BUILTIN_TOOLS_BY_GROUP

BUILTIN_ORDER: tuple[str, ...] = tuple(
    name for names in BUILTIN_TOOLS_BY_GROUP.values() for name in names
)
_INDEX = {name: index for index, name in enumerate(BUILTIN_ORDER)}
GROUP_OF: dict[str, str] = {
    name: group for group, names in BUILTIN_TOOLS_BY_GROUP.items() for name in names
}


def priority(name: str) -> tuple[int, int, str]:
    """The fixed tie-break: the user's own tools (inline, MCP, Python) by name, then the
    built-ins in names.py order. A run that brings its own tools is about them, so when
    scores tie (most often at zero, when no trigger or cue fired) they take the places."""
    index = _INDEX.get(name)
    return (1, index, "") if index is not None else (0, 0, name)


@dataclass(frozen=True)
class BuiltinRow:
    """A built-in tool as its provider lists it, and what offering it needs."""

    spec: ToolSpec
    needs: str | None  # a binary on PATH
    jailed: bool  # runs code: offered only where the jail works


def builtin_specs() -> tuple[ToolSpec, ...]:
    """Every built-in tool's spec, in catalogue order, whatever this machine offers."""
    return tuple(row.spec for row in builtin_rows())


def offered_builtin_names() -> set[str]:
    """Built-ins this machine can offer: those whose binary (``needs``) is on PATH, as the
    built-in provider decides."""
    return {spec.name for spec in listed_builtin_specs()}


def listed_builtin_specs(unsafe_no_jail: bool = False) -> list[ToolSpec]:
    """What the built-in provider lists on this machine (no world is built for that): git
    tools only with a ``git`` binary, the tools that run code only where the jail works.
    Decided here and now, as the provider decides it (``tools/offered.py``), from rows
    that need no tool imported (``builtin_rows``)."""
    from pytest_tooleval.tools.offered import missing_tools

    rows = builtin_rows()
    missing = missing_tools(((row.spec.name, row.needs, row.jailed) for row in rows),
                            unsafe_no_jail)
    return [row.spec for row in rows if row.spec.name not in missing]


@lru_cache(maxsize=1)
def builtin_rows() -> tuple[BuiltinRow, ...]:
    """Every built-in tool as ``BuiltinToolProvider.list_tools`` lists it (specs with
    ``read_only``, in its order), with what it needs."""
    from pytest_tooleval.tools.builtin.provider import ALL_TOOLS
    from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS

    return tuple(
        BuiltinRow(ToolSpec(tool.name, tool.description, tool.parameters, "builtin",
                            read_only=tool.name not in SIDE_EFFECTING_BUILTINS),
                   tool.needs, tool.jailed)
        for tool in ALL_TOOLS.values()
    )

