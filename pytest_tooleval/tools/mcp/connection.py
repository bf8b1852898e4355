"""One MCP session, held by one task on an anyio blocking portal (its own event loop thread).

The SDK is async and its transports are task-group context managers that must be entered
and left by the same task, while the harness is synchronous. So each server gets a portal
and one long-lived task that holds ``async with Client(...)``; the harness's calls are run
on the portal and waited for with timeouts. Closing asks the holding task to leave the
context (stdio: close stdin, then SIGTERM/SIGKILL the process group, as the SDK does), then
cancels it after a grace period, so no server process outlives the provider.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import logging
import math
import os
import tempfile
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio
from anyio.abc import TaskStatus
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation
from pydantic import ValidationError

from pytest_tooleval.tools.base import ProviderError, clip
from pytest_tooleval.tools.mcp.config import McpServerConfig, server_environment

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_INVALID_PARAMS = -32602
_STDERR_LINES = 15
_MAX_PAGES = 1000
_CLOSE_GRACE = 10.0
_NOT_JSON_RPC = "Failed to parse JSONRPC message from server"
# That line reaches McpConnection._stray, which keeps it with the server's stderr; the SDK's
# traceback of it would only fill the terminal.
logging.getLogger("mcp.client.stdio").addFilter(lambda record: record.msg != _NOT_JSON_RPC)


class McpConnection:
    """The portal, the session-holding task and the server's stderr log."""

    def __init__(self, name: str, config: McpServerConfig) -> None:
        self.name, self.config = name, config
        self.label = f"MCP server {name!r} ({config.transport}: {config.target()})"
        self.failure: str | None = None
        #: From the initialize handshake: the server's name and version, as it states them.
        self.server_name: str | None = None
        self.server_version: str | None = None
        #: Tools the server listed without an object inputSchema, by name, and why.
        self.left_out: dict[str, str] = {}
        self._portal_cm = start_blocking_portal()
        self._portal: BlockingPortal | None = None
        self._held: concurrent.futures.Future[None] | None = None  # the holding task
        self._client: Client | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._closing = False  # read and written on the portal's loop only
        self._stop: anyio.Event | None = None
        self._scope: anyio.CancelScope | None = None
        self._stderr_path: str | None = None

    # -- life cycle -----------------------------------------------------------------------

    def open(self) -> list[Any]:
        """Start, initialise and list the tools; ``ProviderError`` when that fails."""
        self._portal = self._portal_cm.__enter__()
        try:
            self._held, tools = self._portal.start_task(self._hold)
        except BaseException as exc:
            self.failure = str(exc)  # a restart that failed is tried again
            self.close()
            raise
        return list(tools)

    def close(self) -> None:
        """Leave the session and stop the portal; safe to call twice, from any thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        portal = self._portal
        if portal is not None:
            with contextlib.suppress(RuntimeError):  # the portal has stopped already
                portal.call(self._request_stop)
                if self._held is not None:
                    concurrent.futures.wait([self._held], _CLOSE_GRACE)
                portal.call(portal.stop, True)  # cancels a holder that did not leave in time
            self._portal_cm.__exit__(None, None, None)
        if self._stderr_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._stderr_path)

    def _request_stop(self) -> None:
        """On the loop: a started session leaves gracefully, a starting one is cancelled."""
        self._closing = True
        if self._stop is not None:
            self._stop.set()
        if self._client is None and self._scope is not None:
            self._scope.cancel()

    async def _hold(self, *, task_status: TaskStatus[list[Any]]) -> None:
        """The one task that enters and leaves the client context. Until the tools are
        listed, ``startup_timeout`` bounds it and a failure is raised to ``open()``."""
        self._stop = anyio.Event()
        timeout = self.config.startup_timeout
        started = False
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
                self._scope = scope
                if self._closing:
                    scope.cancel()
                async with Client(
                    self._transport(), cache=None, client_info=_client_info(),
                    message_handler=self._stray,
                ) as client:
                    info = client.server_info
                    if info is not None:
                        self.server_name, self.server_version = info.name, info.version
                    tools = await self._list_tools(client)
                    scope.deadline = math.inf
                    self._client, started = client, True
                    task_status.started(tools)
                    await self._stop.wait()
        except Exception as exc:
            reason = describe_exception(exc, self.config.cwd)
            if not started:
                raise ProviderError(self.message(f"failed to start: {reason}")) from None
            if not self._closing:
                self.failure = self.message(f"stopped: {reason}")
        finally:
            self._client = None
        if not started:
            what = ("was stopped while starting" if self._closing
                    else f"did not start within startup_timeout = {timeout:g} s")
            raise ProviderError(self.message(what))
        if not self._closing and self.failure is None:
            self.failure = self.message("the session ended unexpectedly")

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        """The SDK's transport; a stdio server's stderr is appended to a log we can quote."""
        config = self.config
        if config.url is not None:
            async with (
                create_mcp_http_client(headers=config.headers) as http,
                streamable_http_client(config.url, http_client=http) as streams,
            ):
                yield _ObjectSchemasOnly(streams[0], self.left_out), streams[1]
            return
        fd, self._stderr_path = tempfile.mkstemp(prefix=f"tooleval-mcp-{self.name}-", suffix=".log")
        os.close(fd)
        # "replace": stdout bytes that are no UTF-8 make a stray line (see _stray), not a
        # reader that dies with UnicodeDecodeError and a session that hangs
        params = StdioServerParameters(command=str(config.command), args=list(config.args),
                                       env=server_environment(config), cwd=config.cwd,
                                       encoding_error_handler="replace")
        with open(self._stderr_path, "a", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                yield _ObjectSchemasOnly(read, self.left_out), write

    async def _stray(self, message: Any) -> None:
        """A line a stdio server wrote on stdout that is no JSON-RPC (a print() in it) is
        kept in its stderr log, so a failure quotes it; other messages need nothing."""
        if isinstance(message, ValidationError) and self._stderr_path is not None:
            with open(self._stderr_path, "a", encoding="utf-8") as log:
                line = str(message.errors()[0].get("input", ""))[:200]
                log.write(f"(on stdout, not JSON-RPC) {line}\n")

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
        """A ``CallToolResult``, or the server's "invalid params" error (returned: the
        model's arguments). Raises ``ProviderError`` when the server is gone, hangs, breaks
        the protocol or answers with another JSON-RPC error.
        """
        if self.failure is not None:
            raise ProviderError(self.failure)
        client, portal = self._client, self._portal
        if self._closed or client is None or portal is None:
            raise ProviderError(self.message("is not running (closed, or never started)"))
        timeout = self.config.call_timeout
        try:
            future = portal.start_task_soon(self._call, client, name, arguments, timeout)
        except RuntimeError:  # the portal was stopped under us
            raise ProviderError(self.message("is not running")) from None
        try:
            return future.result(timeout=timeout + 5)
        except TimeoutError:  # the wait, or the call's own clock (anyio.fail_after)
            future.cancel()
            raise ProviderError(self._timeout_message(name)) from None
        except MCPError as exc:
            if exc.code == _REQUEST_TIMEOUT:
                raise ProviderError(self._timeout_message(name)) from None
            if exc.code == _CONNECTION_CLOSED:
                self.failure = self.message(f"went away during a call of {name!r}")
                raise ProviderError(self.failure) from None
            if exc.code == _INVALID_PARAMS:
                return exc
            raise ProviderError(self.message(
                f"answered a call of {name!r} with JSON-RPC error {exc.code}: "
                f"{clip(exc.message, 1000)}; that is the server failing, not the model (fix "
                "the server; an error the model should see is a result with isError: true)"
            )) from None
        except Exception as exc:
            reason = describe_exception(exc)
            if self._held is not None and self._held.done():
                self.failure = self.message(f"stopped: {reason}")
                raise ProviderError(self.failure) from None
            raise ProviderError(self.message(f"failed a call of {name!r}: {reason}")) from None

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

    def stderr_tail(self) -> list[str]:
        if self._stderr_path is None:
            return []
        try:
            with open(self._stderr_path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 8192))
                data = handle.read().decode("utf-8", "replace")
        except OSError:
            return []
        return [line.rstrip() for line in data.splitlines() if line.strip()][-_STDERR_LINES:]


class _ObjectSchemasOnly:
    """A server's read stream, less each listed tool whose ``inputSchema`` is no object
    schema (the SDK refuses the whole list for one such tool); ``left_out`` says why."""

    def __init__(self, stream: Any, left_out: dict[str, str]) -> None:
        self._stream, self._left_out = stream, left_out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def __aenter__(self) -> _ObjectSchemasOnly:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._stream.__aexit__(*exc_info)

    def __aiter__(self) -> _ObjectSchemasOnly:
        return self

    async def __anext__(self) -> Any:
        item = await self._stream.__anext__()
        result = getattr(getattr(item, "message", None), "result", None)
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            result["tools"] = [tool for tool in result["tools"] if self._fits(tool)]
        return item

    def _fits(self, tool: Any) -> bool:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            return True  # the SDK names what is wrong with it
        schema = tool.get("inputSchema")
        if isinstance(schema, dict) and schema.get("type") == "object":
            return True
        self._left_out[tool["name"]] = (f"its inputSchema ({json.dumps(schema)[:100]}) is no "
                                        'JSON schema of "type": "object"; fix it in the server')
        return False


def describe_exception(exc: BaseException, cwd: str | None = None) -> str:
    """The innermost useful message, unwrapping exception groups from task groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"{exc.message} (MCP error {exc.code})"
    if isinstance(exc, ValidationError):  # an answer the SDK cannot read
        first, more = exc.errors()[0], exc.error_count() - 1
        where = ".".join(str(part) for part in first["loc"])
        return (f"its {exc.title} breaks the MCP schema at {where}: {first['msg']}"
                + (f" (and {more} more)" if more else ""))
    if isinstance(exc, FileNotFoundError) and exc.filename:
        if cwd is not None and str(exc.filename) == cwd:  # the chdir before the exec failed
            return f"working directory not found: {cwd}"
        return f"command not found: {exc.filename}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _client_info() -> Implementation:
    try:
        own = version("pytest-tooleval")
    except PackageNotFoundError:  # pragma: no cover - running from a checkout
        own = "0"
    return Implementation(name="pytest-tooleval", version=own)
