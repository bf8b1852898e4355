"""MCP servers as tool providers: start, list, call, and keep each case's state its own."""

from __future__ import annotations

import logging
import subprocess
import time
import warnings
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_tooleval.configfile import table_line
from pytest_tooleval.tools.base import (
    OFFERABLE_NAME,
    CaseContext,
    ProviderError,
    ToolProvider,
    ToolResult,
    ToolSpec,
    clip,
)
from pytest_tooleval.tools.mcp.cache import write_cache
from pytest_tooleval.tools.mcp.config import (
    McpServerConfig,
    server_environment,
    shadowed_by,
    stands_for,
)
from pytest_tooleval.tools.mcp.render import render_result

if TYPE_CHECKING:
    from pytest_tooleval.tools.mcp.connection import McpConnection

log = logging.getLogger(__name__)
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class McpToolProvider(ToolProvider):
    """The tools of one MCP server, each name prefixed with ``config.prefix``.

    Failures to start, crashes, hangs and protocol errors raise ``ProviderError``; a
    result with ``isError`` and an "invalid params" error (-32602) are error results the
    model sees. ``config_file`` is where its warnings point; its folder is where the tool
    list is cached and where a ``reset`` of a URL server runs.
    """

    def __init__(self, name: str, config: McpServerConfig,
                 config_file: Path | None = None) -> None:
        self.name = name
        self.config = config
        self.source = f"mcp:{name}"
        self.config_file = config_file
        self.base_dir = config_file.parent if config_file else None
        # The connection gives a call call_timeout + 5 s before it names the server as hung;
        # the catalogue's wall clock for its calls is never shorter than that.
        self.call_limit_s = config.call_timeout + 10
        self._connection: McpConnection | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._specs: list[ToolSpec] = []
        self._server_names: dict[str, str] = {}
        #: Tools not offered, by the name they would have had, and why.
        self.refused: dict[str, str] = {}
        self._start_error: ProviderError | None = None
        self._called = False  # since the last case began
        #: Why this case cannot use the server (its reset or restart failed): raised by a
        #: call, so only a case that calls the server is an ERROR.
        self._broken: ProviderError | None = None
        self.restarts = 0
        self.restart_seconds = 0.0
        self.resets = 0

    def start(self) -> None:
        """Connect, initialise and list the tools; idempotent; ``ProviderError`` on failure."""
        if self._start_error is not None:
            raise self._start_error
        if self._connection is not None:
            return
        try:
            tools, left_out = self._connect()
        except ProviderError as exc:
            self._start_error = exc
            raise
        self.refused = {f"{self.config.prefix}{name}": why for name, why in left_out.items()}
        for tool in tools:
            exposed = f"{self.config.prefix}{tool.name}"
            if not OFFERABLE_NAME.match(exposed):
                self.refused[exposed] = (
                    "a tool name is 1 to 64 letters, digits, '_' or '-'; rename it in the "
                    "server" + (", or shorten the prefix" if len(exposed) > 64 and
                                self.config.prefix else ""))
                continue
            self._server_names[exposed] = tool.name
            self._specs.append(
                ToolSpec(
                    name=exposed,
                    description=(tool.description or tool.title or tool.name or "").strip(),
                    parameters=dict(tool.input_schema or _EMPTY_SCHEMA),
                    source=self.source,
                    # The standard hint, else unknown: an undeclared tool may have acted.
                    read_only=tool.annotations.read_only_hint if tool.annotations else None,
                    stands_for=stands_for(tool.name, self.config),
                )
            )
        if self.refused:
            message = (f"tooleval: MCP server {self.name!r}: not offered to the model: "
                       + "; ".join(f"{name!r} ({why})" for name, why in self.refused.items()))
            if self.config_file is None:
                warnings.warn(message, stacklevel=2)
            else:  # at the server's table, not at a line of the harness
                warnings.warn_explicit(message, UserWarning, str(self.config_file),
                                       table_line(self.config_file, "mcp", self.name))
        self._write_cache()

    def _connect(self) -> tuple[list[Any], dict[str, str]]:
        """The tools listed, and those left out for their inputSchema, with why."""
        try:
            from pytest_tooleval.tools.mcp.connection import McpConnection
        except ImportError as exc:
            raise ProviderError(
                f"MCP server {self.name!r} needs the official MCP SDK, which is not installed "
                f"({exc}); install it with: pip install 'mcp>=2.3'"
            ) from None
        connection = McpConnection(self.name, self.config)
        self._connection = connection
        self._finalizer = weakref.finalize(self, connection.close)
        return connection.open(), connection.left_out

    def _write_cache(self) -> None:
        if self.base_dir is None:
            return
        try:
            write_cache(self.base_dir, self.name, self.config, self._specs, self.server_info)
        except OSError as exc:  # a read-only checkout: the run goes on without a cache
            log.warning("cannot cache the tool list of %s: %s", self.source, exc)

    @property
    def server_info(self) -> str | None:
        return self._connection.server_info if self._connection is not None else None

    def list_tools(self) -> list[ToolSpec]:
        self.start()
        return list(self._specs)

    def shadowed_builtins(self) -> set[str]:
        if not self.config.shadow_builtins:
            return set()
        self.start()
        return shadowed_by(list(self._server_names.values()), self.config)

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        self.start()
        assert self._connection is not None
        server_name = self._server_names.get(name)
        if server_name is None:
            return ToolResult.error(f"{self.source} offers no tool named {name!r}")
        if self._broken is not None:
            raise self._broken
        self._called = True
        outcome = self._connection.call_tool(server_name, dict(arguments))
        if isinstance(outcome, Exception):  # -32602: the server refused the model's arguments
            return ToolResult.error(clip(str(outcome) or type(outcome).__name__))
        return render_result(outcome)

    # -- between cases --------------------------------------------------------------------

    def begin_case(self, context: CaseContext) -> None:
        """Undo what the previous case did to this server (nothing when it was not called),
        and start a server that died again. A failure is raised by this case's calls of the
        server, and tried again next case."""
        self._broken = None
        connection = self._connection
        if connection is None or not (self._called or connection.failure):
            return
        try:
            if self.config.reset:
                self._reset()
            if self.config.isolation == "per-case" or connection.failure:
                self._restart()
        except ProviderError as exc:
            self._broken = exc
            return
        self._called = False

    def _reset(self) -> None:
        command = list(self.config.reset)
        where = self.config.cwd or (str(self.base_dir) if self.base_dir else None)
        try:
            done = subprocess.run(
                command, cwd=where, env=server_environment(self.config), capture_output=True,
                text=True, timeout=self.config.reset_timeout, check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ProviderError(f"{self.source}: reset command {command} failed: {exc}") from None
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise ProviderError(
                f"{self.source}: reset command {command} exited with {done.returncode}"
                + ("".join(f"\n    {line}" for line in tail) if tail else "")
            )
        self.resets += 1

    def _restart(self) -> None:
        """Stop the server and start a fresh one, which must offer the same tools."""
        started = time.perf_counter()
        self.close()
        self._connection = None
        tools, left_out = self._connect()
        names = sorted([*(tool.name for tool in tools), *left_out])
        before = [*self._server_names.values(),
                  *(name.removeprefix(self.config.prefix) for name in self.refused)]
        if names != sorted(before):
            raise ProviderError(
                f"{self.source} offers other tools after a restart: {', '.join(names)}"
                + ("; set isolation = \"per-run\" for a server whose tool list changes"
                   if self.config.isolation == "per-case" else "")
            )
        self.restarts += 1
        self.restart_seconds += time.perf_counter() - started

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "source": self.source,
            "transport": self.config.transport,
            "target": self.config.target(),
            "prefix": self.config.prefix,
            "isolation": self.config.isolation,
            "tools": [spec.name for spec in self._specs],
        }
        connection = self._connection
        if connection is not None and connection.server_name:
            info["server"] = {"name": connection.server_name,
                              "version": connection.server_version}
        if self.refused:
            info["refused"] = dict(self.refused)
        if self.config.reset:
            info["reset"] = list(self.config.reset)
        if self.restarts or self.resets:
            info["restarts"], info["resets"] = self.restarts, self.resets
            info["restart_seconds"] = round(self.restart_seconds, 3)
        if self._start_error is not None:
            info["error"] = str(self._start_error)
        return info


def mcp_providers(
    configs: dict[str, McpServerConfig], config_file: Path | None = None
) -> list[McpToolProvider]:
    """Providers for the enabled servers, not yet started (call ``start()`` on each)."""
    return [McpToolProvider(name, config, config_file) for name, config in configs.items()
            if config.enabled]
