"""The real third-party ``mcp-server-time`` from PyPI, over stdio."""

from __future__ import annotations

import json
import sys

import mcp_server_time  # noqa: F401  (the real third-party server must be installed)

from pytest_tooleval.tools.mcp import McpServerConfig, McpToolProvider

from ._support import wait_gone


def test_time_server_lists_and_answers() -> None:
    config = McpServerConfig(
        command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"]
    )
    provider = McpToolProvider("time", config)
    try:
        specs = {spec.name: spec for spec in provider.list_tools()}
        assert {"get_current_time", "convert_time"} <= set(specs)
        assert "timezone" in specs["get_current_time"].parameters["properties"]
        result = provider.call("get_current_time", {"timezone": "Europe/Istanbul"})
        assert not result.is_error
        answer = json.loads(result.text)
        assert answer["timezone"] == "Europe/Istanbul"
        assert answer["datetime"].endswith("+03:00")
        bad = provider.call("get_current_time", {"timezone": "Mars/Olympus_Mons"})
        assert bad.is_error and "Mars/Olympus_Mons" in bad.text
    finally:
        provider.close()
    assert wait_gone("mcp_server_time --local-timezone UTC") == []
