"""MCP provider over streamable HTTP, against the toy server on a loopback port."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from pytest_tooleval.tools.base import ProviderError
from pytest_tooleval.tools.mcp import McpServerConfig, McpToolProvider

from ._support import free_port, http_toy_server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with http_toy_server() as (address, _):
        yield address


def test_lists_and_calls_over_http(url: str) -> None:
    provider = McpToolProvider("web", McpServerConfig(url=url, call_timeout=1.5))
    try:
        names = {spec.name for spec in provider.list_tools()}
        assert {"echo", "add", "fail", "slow", "crash"} <= names
        assert provider.describe()["transport"] == "http"
        assert provider.call("echo", {"text": "over http"}).text == "over http"
        added = provider.call("add", {"a": 20, "b": 22})
        assert json.loads(added.text)["total"] == 42
        failed = provider.call("fail", {"reason": "no such repository"})
        assert failed.is_error and "no such repository" in failed.text
        with pytest.raises(ProviderError, match=r"call_timeout = 1\.5 s"):
            provider.call("slow", {"seconds": 2.5})
    finally:
        provider.close()


def test_headers_are_sent(url: str) -> None:
    config = McpServerConfig(url=url, headers={"Authorization": "Bearer test"})
    provider = McpToolProvider("web", config)
    try:
        assert provider.call("echo", {"text": "with headers"}).text == "with headers"
    finally:
        provider.close()


def test_nothing_listening_is_a_start_error_naming_the_url() -> None:
    address = f"http://127.0.0.1:{free_port()}/mcp"
    provider = McpToolProvider("offline", McpServerConfig(url=address, startup_timeout=5))
    started = time.monotonic()
    with pytest.raises(ProviderError) as raised:
        provider.start()
    assert time.monotonic() - started < 6
    assert "MCP server 'offline'" in str(raised.value) and address in str(raised.value)


def test_server_dying_mid_run_fails_the_next_call() -> None:
    with http_toy_server() as (address, process):
        provider = McpToolProvider("web", McpServerConfig(url=address, call_timeout=5))
        try:
            assert provider.call("echo", {"text": "hi"}).text == "hi"
            process.kill()
            process.wait()
            with pytest.raises(ProviderError, match="MCP server 'web'"):
                provider.call("echo", {"text": "anyone?"})
        finally:
            provider.close()
