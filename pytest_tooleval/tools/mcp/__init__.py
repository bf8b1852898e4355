"""MCP servers (stdio and streamable HTTP) as tool providers, through the official SDK.

Importing this package does not import the SDK: configuration can be checked without it,
and ``McpToolProvider.start()`` says how to install it when it is missing. Nor does it
import the provider and the result rendering until they are used (``tooleval check``
reads the configuration, and starts servers only where some are configured).
"""

from typing import TYPE_CHECKING, Any

from pytest_tooleval.tools.mcp.config import (
    EXTRA_INHERITED_ENV,
    McpConfigError,
    McpServerConfig,
    load_mcp_configs,
    server_environment,
)

if TYPE_CHECKING:
    from pytest_tooleval.tools.mcp.provider import McpToolProvider, mcp_providers
    from pytest_tooleval.tools.mcp.render import render_result

_LAZY = {"McpToolProvider": "provider", "mcp_providers": "provider", "render_result": "render"}

__all__ = [
    "EXTRA_INHERITED_ENV",
    "McpConfigError",
    "McpServerConfig",
    "McpToolProvider",
    "load_mcp_configs",
    "mcp_providers",
    "render_result",
    "server_environment",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
