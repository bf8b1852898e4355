"""One MCP session, owned by a private event loop in a daemon thread.

The SDK is async and its transports are task-group context managers that must be entered
and left by the same task, while the harness is synchronous. So each server gets a loop
thread and one long-lived task that holds ``async with Client(...)``; the harness's calls
are submitted to that loop and waited for with timeouts. Shutting down asks the holding
task to leave the context (stdio: close stdin, then SIGTERM/SIGKILL the process group, as
the SDK does), so no server process outlives the provider.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import tempfile
import threading
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation

from pytest_tooleval.tools.base import ProviderError
from pytest_tooleval.tools.mcp.config import McpServerConfig, server_environment

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_STDERR_LINES = 15
_MAX_PAGES = 1000
_CLOSE_GRACE = 10.0


class McpConnection:
    """The loop thread, the session-holding task and the server's stderr log."""

    def __init__(self, name: str, config: McpServerConfig) -> None:
        self.name, self.config = name, config
        self.label = f"MCP server {name!r} ({config.transport}: {config.target()})"
        self.failure: str | None = None
        #: From the initialize handshake: the server's name and version, as it states them.
        self.server_name: str | None = None
        self.server_version: str | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._run_loop, name=f"tooleval-mcp-{name}", daemon=True
        )
        self._client: Client | None = None
        self._ready: concurrent.futures.Future[list[Any]] = concurrent.futures.Future()
        self._finished = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        self._want = ""  # "close" or "abort", requested before the holder task got there
        self._closing: anyio.Event | None = None
        self._scope: anyio.CancelScope | None = None
        self._stderr_path: str | None = None

    # -- life cycle -----------------------------------------------------------------------

    def open(self) -> list[Any]:
        """Start, initialise and list the tools; ``ProviderError`` when that fails."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._hold(), self._loop)
        timeout = self.config.startup_timeout
        try:
            return self._ready.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            message = self.message(f"did not start within startup_timeout = {timeout:g} s")
            self.close()
            raise ProviderError(message) from None
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Leave the session and stop the loop; safe to call twice, from any thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._thread.is_alive():
            established = self._ready.done() and self._ready.exception() is None
            self._loop.call_soon_threadsafe(self._request, "close" if established else "abort")
            if not self._finished.wait(_CLOSE_GRACE):
                self._loop.call_soon_threadsafe(self._request, "abort")
                self._finished.wait(_CLOSE_GRACE)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(_CLOSE_GRACE)
        if not self._thread.is_alive() and not self._loop.is_closed():
            self._loop.close()
        if self._stderr_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._stderr_path)

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def _request(self, what: str) -> None:
        """Runs on the loop: ask the holder to leave gracefully, or cancel it outright."""
        self._want = "abort" if "abort" in (what, self._want) else what
        if self._closing is not None:
            self._closing.set()
        if self._want == "abort" and self._scope is not None:
            self._scope.cancel()

    async def _hold(self) -> None:
        """The one task that enters and leaves the client context."""
        self._closing = anyio.Event()
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                if self._want == "abort":
                    scope.cancel()
                async with Client(
                    self._transport(), cache=None, client_info=_client_info()
                ) as client:
                    self._client = client
                    info = client.server_info
                    if info is not None:
                        self.server_name, self.server_version = info.name, info.version
                    tools = await self._list_tools(client)
                    self._ready.set_result(tools)
                    if not self._want:
                        await self._closing.wait()
        except Exception as exc:
            reason = describe_exception(exc)
            if not self._ready.done():
                self._ready.set_exception(ProviderError(self.message(f"failed to start: {reason}")))
            elif not self._want:
                self.failure = self.message(f"stopped: {reason}")
        finally:
            self._client = None
            if not self._want and self.failure is None and self._ready.done():
                self.failure = self.message("the session ended unexpectedly")
            if not self._ready.done():
                self._ready.set_exception(ProviderError(self.message("was stopped while starting")))
            self._finished.set()

    def _transport(self) -> Any:
        if self.config.url is not None:
            return _http_transport(self.config.url, self.config.headers)
        fd, self._stderr_path = tempfile.mkstemp(prefix=f"tooleval-mcp-{self.name}-", suffix=".log")
        os.close(fd)
        params = StdioServerParameters(
            command=str(self.config.command),
            args=list(self.config.args),
            env=server_environment(self.config),
            cwd=self.config.cwd,
        )
        return _stdio_transport(params, self._stderr_path)

    @staticmethod
    async def _list_tools(client: Client) -> list[Any]:
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    @property
    def server_info(self) -> str | None:
        parts = [part for part in (self.server_name, self.server_version) if part]
        return " ".join(parts) or None

    # -- calls ----------------------------------------------------------------------------

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """A ``CallToolResult``, or an ``MCPError`` the server answered with (returned).

        Raises ``ProviderError`` when the server is gone, hangs or breaks the protocol.
        """
        if self.failure is not None:
            raise ProviderError(self.failure)
        if self._closed or self._finished.is_set() or self._client is None:
            raise ProviderError(self.message("is not running (closed, or never started)"))
        timeout = self.config.call_timeout
        future = self._submit(self._call(self._client, name, arguments, timeout))
        try:
            return future.result(timeout=timeout + 5)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise ProviderError(self._timeout_message(name)) from None
        except TimeoutError:
            raise ProviderError(self._timeout_message(name)) from None
        except MCPError as exc:
            if exc.code == _REQUEST_TIMEOUT:
                raise ProviderError(self._timeout_message(name)) from None
            if exc.code == _CONNECTION_CLOSED:
                self.failure = self.message(f"went away during a call of {name!r}")
                raise ProviderError(self.failure) from None
            return exc
        except (ProviderError, KeyboardInterrupt):
            raise
        except Exception as exc:
            reason = describe_exception(exc)
            if self._finished.is_set():
                self.failure = self.message(f"stopped: {reason}")
                raise ProviderError(self.failure) from None
            raise ProviderError(self.message(f"failed a call of {name!r}: {reason}")) from None

    def _submit(self, coro: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        try:
            return asyncio.run_coroutine_threadsafe(coro, self._loop)
        except RuntimeError:  # the loop was stopped under us
            coro.close()
            raise ProviderError(self.message("is not running")) from None

    @staticmethod
    async def _call(client: Client, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        with anyio.fail_after(timeout):
            return await client.call_tool(name, arguments, read_timeout_seconds=timeout)

    def _timeout_message(self, name: str) -> str:
        timeout = self.config.call_timeout
        return self.message(
            f"did not answer a call of {name!r} within call_timeout = {timeout:g} s"
        )

    # -- messages -------------------------------------------------------------------------

    def message(self, what: str) -> str:
        """``label what`` plus the last lines of the server's stderr, where there are any."""
        text = f"{self.label} {what}"
        tail = self.stderr_tail()
        if tail:
            text += "\n  last lines of its stderr:\n" + "\n".join(f"    {line}" for line in tail)
        return text

    def stderr_tail(self, lines: int = _STDERR_LINES) -> list[str]:
        if self._stderr_path is None:
            return []
        try:
            with open(self._stderr_path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 8192))
                data = handle.read().decode("utf-8", "replace")
        except OSError:
            return []
        return [line.rstrip() for line in data.splitlines() if line.strip()][-lines:]


@asynccontextmanager
async def _stdio_transport(params: StdioServerParameters, stderr_path: str) -> AsyncIterator[Any]:
    """The SDK's stdio transport, with the server's stderr appended to a log we can quote."""
    with open(stderr_path, "a", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams


@asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    if not headers:
        async with streamable_http_client(url) as streams:
            yield streams
        return
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def describe_exception(exc: BaseException) -> str:
    """The innermost useful message, unwrapping exception groups from task groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"{exc.message} (MCP error {exc.code})"
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _client_info() -> Implementation:
    try:
        own = version("pytest-tooleval")
    except PackageNotFoundError:  # pragma: no cover - running from a checkout
        own = "0"
    return Implementation(name="pytest-tooleval", version=own)
