"""Tools declared inline in a scenario file, answering with canned results."""

from __future__ import annotations

from typing import Any

from pytest_tooleval.cases.model import InlineTool
from pytest_tooleval.tools.base import CaseContext, ToolProvider, ToolResult, ToolSpec


class InlineToolProvider(ToolProvider):
    """Serves one scenario file's ``tools:``. ``results`` are handed out one per call."""

    def __init__(self, tools: list[InlineTool], file_path: str) -> None:
        self.source = f"inline:{file_path}"
        self._tools = {tool.name: tool for tool in tools}
        self._calls: dict[str, int] = {}

    def list_tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(tool.name, tool.description, tool.parameters, self.source, tool.read_only)
            for tool in self._tools.values()
        ]

    def begin_case(self, context: CaseContext) -> None:
        self._calls = {}

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        tool = self._tools[name]
        index = self._calls.get(name, 0)
        self._calls[name] = index + 1
        if tool.results is not None:
            value = tool.results[min(index, len(tool.results) - 1)] if tool.results else ""
        else:
            value = tool.result if tool.result is not None else "ok"
        return ToolResult(ToolResult.of(value).text, is_error=tool.error)
