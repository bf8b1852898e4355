"""MCP servers as tool providers."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from pytest_tooleval.tools.base import ProviderError, ToolProvider, ToolResult, ToolSpec
from pytest_tooleval.tools.mcp.config import McpServerConfig
from pytest_tooleval.tools.mcp.render import render_result

if TYPE_CHECKING:
    from pytest_tooleval.tools.mcp.connection import McpConnection

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class McpToolProvider(ToolProvider):
    """The tools of one MCP server, each name prefixed with ``config.prefix``.

    ``start()`` connects (also called by ``list_tools()`` on first use). Failures to start,
    crashes and hangs raise ``ProviderError``; tool-level errors (``isError``, or a protocol
    error the live server answered a call with) come back as error results the model sees.
    A finalizer closes the session when the provider is collected or the interpreter exits
    without ``close()``.
    """

    def __init__(self, name: str, config: McpServerConfig) -> None:
        self.name = name
        self.config = config
        self.source = f"mcp:{name}"
        self._connection: McpConnection | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._specs: list[ToolSpec] = []
        self._server_names: dict[str, str] = {}
        self._start_error: ProviderError | None = None

    @property
    def started(self) -> bool:
        return self._connection is not None and self._start_error is None

    def start(self) -> None:
        """Connect, initialise and list the tools; idempotent; ``ProviderError`` on failure."""
        if self._start_error is not None:
            raise self._start_error
        if self._connection is not None:
            return
        try:
            from pytest_tooleval.tools.mcp.connection import McpConnection
        except ImportError as exc:
            self._start_error = ProviderError(
                f"MCP server {self.name!r} needs the official MCP SDK, which is not installed "
                f"({exc}); install it with: pip install 'mcp>=2.3'"
            )
            raise self._start_error from None
        connection = McpConnection(self.name, self.config)
        self._connection = connection
        self._finalizer = weakref.finalize(self, connection.close)
        try:
            tools = connection.open()
        except ProviderError as exc:
            self._start_error = exc
            raise
        for tool in tools:
            exposed = f"{self.config.prefix}{tool.name}"
            self._server_names[exposed] = tool.name
            self._specs.append(
                ToolSpec(
                    name=exposed,
                    description=(tool.description or tool.title or tool.name or "").strip(),
                    parameters=dict(tool.input_schema or _EMPTY_SCHEMA),
                    source=self.source,
                )
            )

    def list_tools(self) -> list[ToolSpec]:
        self.start()
        return list(self._specs)

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        self.start()
        assert self._connection is not None
        server_name = self._server_names.get(name)
        if server_name is None:
            return ToolResult.error(f"{self.source} offers no tool named {name!r}")
        outcome = self._connection.call_tool(server_name, dict(arguments))
        if isinstance(outcome, Exception):  # the server answered the call with a protocol error
            return ToolResult.error(str(outcome) or type(outcome).__name__)
        return render_result(outcome)

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "source": self.source,
            "transport": self.config.transport,
            "target": self.config.target(),
            "prefix": self.config.prefix,
            "tools": [spec.name for spec in self._specs],
        }
        if self._connection is not None and self._connection.server_info:
            info["server"] = self._connection.server_info
        if self._start_error is not None:
            info["error"] = str(self._start_error)
        return info


def mcp_providers(configs: dict[str, McpServerConfig]) -> list[McpToolProvider]:
    """Providers for the enabled servers, not yet started (call ``start()`` on each)."""
    return [McpToolProvider(name, config) for name, config in configs.items() if config.enabled]
