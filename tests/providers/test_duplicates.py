"""A name offered twice stops the catalogue, naming both sources and the ways out."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tooleval.tools.base import (
    Catalogue,
    DuplicateToolError,
    ToolProvider,
    ToolResult,
    ToolSpec,
)
from pytest_tooleval.tools.mcp import McpToolProvider
from pytest_tooleval.tools.python import PythonToolProvider, python_providers, tool

from ._support import new_tag, toy_config, wait_gone


class FakeBuiltins(ToolProvider):
    source = "builtin"

    def list_tools(self) -> list[ToolSpec]:
        return [ToolSpec("echo", "Repeat.", {"type": "object"}, self.source)]

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult("builtin")


def test_mcp_name_colliding_with_a_builtin() -> None:
    tag = new_tag()
    plain = McpToolProvider("toy", toy_config(tag))
    prefixed = McpToolProvider("toy", toy_config(tag, prefix="toy_"))
    try:
        with pytest.raises(DuplicateToolError) as raised:
            Catalogue([FakeBuiltins(), plain])
        message = str(raised.value)
        assert "'echo'" in message and "builtin" in message and "mcp:toy" in message
        assert "--tooleval-no-builtin" in message and "builtin = false" in message
        assert 'prefix = "toy_"' in message and "[tool.tooleval.mcp.toy]" in message
        catalogue = Catalogue([FakeBuiltins(), prefixed])  # the prefix is the way out
        assert catalogue.call("echo", {}).text == "builtin"
        assert catalogue.call("toy_echo", {"text": "mcp"}).text == "mcp"
    finally:
        plain.close()
        prefixed.close()
    assert wait_gone(tag) == []


def lookup(name: str) -> str:
    """First lookup."""
    return name


def test_python_tool_colliding_with_a_builtin_suggests_renaming() -> None:
    with pytest.raises(DuplicateToolError) as raised:
        Catalogue([FakeBuiltins(), PythonToolProvider([tool(name="echo")(lookup)], "python:t.py")])
    message = str(raised.value)
    assert "by builtin and by python:t.py" in message
    assert "--tooleval-no-builtin" in message and '@tool(name="...")' in message
    assert "prefix" not in message  # no MCP server is involved: a prefix helps nothing


def test_two_python_functions_with_one_name() -> None:
    def other(name: str) -> str:
        """Second lookup."""
        return name

    first, second = tool(name="lookup")(lookup), tool(name="lookup")(other)
    with pytest.raises(DuplicateToolError, match="'lookup' is offered twice"):
        PythonToolProvider([first, second])
    assert len(PythonToolProvider([first, first]).list_tools()) == 1  # the same function twice
    providers = python_providers([first])
    assert providers[0].source.endswith("test_duplicates.py")


@pytest.mark.parametrize(("first", "second", "way"), [
    ("mcp:a", "mcp:b", 'prefix = "a_" under [tool.tooleval.mcp.a]'),
    ("mcp:raw", "mcp:raw", "fix MCP server 'raw': it lists this tool twice"),
    ("python:t.py", "python:t.py", '@tool(name="...")')])
def test_only_the_ways_out_that_help_are_offered(first: str, second: str, way: str) -> None:
    """Switching the built-ins off helps only where a built-in is one of the two; a prefix
    only where two providers clash, not where one lists the name twice."""
    message = str(DuplicateToolError("echo", first, second))
    assert way in message
    assert "--tooleval-no-builtin" not in message
    assert (first == second) is ("prefix =" not in message)
