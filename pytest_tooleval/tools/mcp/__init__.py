"""MCP servers (stdio and streamable HTTP) as tool providers, through the official SDK.

Importing this package does not import the SDK: configuration can be checked without it,
and ``McpToolProvider.start()`` says how to install it when it is missing.
"""

from pytest_tooleval.tools.mcp.config import McpConfigError, McpServerConfig, load_mcp_configs
from pytest_tooleval.tools.mcp.provider import McpToolProvider, mcp_providers
from pytest_tooleval.tools.mcp.render import render_result

__all__ = [
    "McpConfigError",
    "McpServerConfig",
    "McpToolProvider",
    "load_mcp_configs",
    "mcp_providers",
    "render_result",
]
