"""Configuration of MCP servers: one ``[tool.tooleval.mcp.NAME]`` table per server."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pytest_tooleval.hints import choice_hint, did_you_mean
from pytest_tooleval.tools.deadline import MAX_TIMEOUT_S
from pytest_tooleval.tools.names import BUILTIN_TOOL_NAMES

#: Inherited by stdio servers on top of the SDK's own minimal set (HOME, LOGNAME, PATH,
#: SHELL, TERM, USER): locale and temp dir, and an active virtual environment.
EXTRA_INHERITED_ENV = ("LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "VIRTUAL_ENV")

_PREFIX = re.compile(r"^[A-Za-z0-9_-]*\Z")  # \Z: "$" allows a final newline
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_.-]+\Z")


class McpConfigError(ValueError):
    """A ``[tool.tooleval.mcp.NAME]`` table that cannot be used; names the table and field."""


class McpServerConfig(BaseModel):
    """How to reach one MCP server: a command to start (stdio) or a URL (streamable HTTP)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    prefix: str = ""
    startup_timeout: float = Field(default=30.0, gt=0)
    # finite and at most a day: the clocks of a call and of a reset cannot wait for inf or
    # 1e300 (OverflowError)
    call_timeout: float = Field(default=60.0, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    enabled: bool = True
    #: "per-case": a server one case called is restarted before the next case, so every
    #: case starts from the server's initial state; "per-run": one process for the run.
    isolation: Literal["per-case", "per-run"] = "per-case"
    #: A command run (in ``cwd``, with ``env``) before a case whose predecessor called this
    #: server: for state the server keeps outside itself (a repository, a database).
    reset: list[str] = Field(default_factory=list)
    reset_timeout: float = Field(default=60.0, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    #: The built-in tools this server's tools stand for are not offered (see
    #: docs/your-tools.md, "Prefixes and the router").
    shadow_builtins: bool = False

    @field_validator("prefix")
    @classmethod
    def _prefix_chars(cls, value: str) -> str:
        if not _PREFIX.match(value):
            raise ValueError(
                "may only contain letters, digits, '_' and '-' (for example \"gh_\")"
            )
        return value

    @field_validator("url")
    @classmethod
    def _url_scheme(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https:// (a streamable HTTP endpoint)")
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if self.command is None and self.url is None:
            raise ValueError("set either 'command' (a stdio server) or 'url' (streamable HTTP)")
        if self.command is not None and self.url is not None:
            raise ValueError("set only one of 'command' and 'url', not both")
        if self.command is not None and not self.command.strip():
            raise ValueError("'command' is empty")
        if self.url is not None:
            stdio_only = [k for k in ("args", "env", "cwd") if k in self.model_fields_set]
            if stdio_only:
                raise ValueError(
                    f"{', '.join(stdio_only)} only apply to 'command' servers, not 'url'"
                )
        elif "headers" in self.model_fields_set:
            raise ValueError("'headers' only applies to 'url' servers")
        return self

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"

    def target(self) -> str:
        """The command line or URL, as shown in messages."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return str(self.url)


def load_mcp_configs(
    table: dict[str, Any], base_dir: str | Path | None = None, section: str = "tool.tooleval.mcp"
) -> dict[str, McpServerConfig]:
    """Turn the ``[tool.tooleval.mcp]`` table into configs, keyed by server name.

    With ``base_dir`` (the directory of the configuration file), a relative ``cwd`` is
    resolved against it, and a server without ``cwd`` starts there, so ``args`` can name
    files relative to the project whatever directory pytest was started from.
    """
    if not isinstance(table, dict):
        raise McpConfigError(
            f"[{section}] must be a table of servers, such as [{section}.github]"
        )
    configs: dict[str, McpServerConfig] = {}
    for name, body in table.items():
        where = f"[{section}.{name}]"
        if not _SERVER_NAME.match(name):
            raise McpConfigError(
                f"{where}: a server name may only contain letters, digits, '_', '-' and '.'"
            )
        if not isinstance(body, dict):
            raise McpConfigError(f"{where}: expected a table with 'command' or 'url', got {body!r}")
        try:
            config = McpServerConfig.model_validate(body)
        except ValidationError as exc:
            raise McpConfigError(_describe(where, exc)) from None
        if base_dir is not None and config.command is not None:
            base = Path(base_dir)
            cwd = base / config.cwd if config.cwd is not None else base
            config = config.model_copy(update={"cwd": str(cwd)})
        configs[name] = config
    return configs


def _describe(where: str, exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ") + choice_hint(error)
        if error["type"] == "extra_forbidden":
            names = list(McpServerConfig.model_fields)
            message = (f"unknown field{did_you_mean(field, names)} "
                       f"(known fields: {', '.join(names)})")
        lines.append(f"{where}: field {field!r}: {message}" if field else f"{where}: {message}")
    return "\n".join(lines)


def stands_for(server_name: str, config: McpServerConfig) -> str | None:
    """The built-in a server tool does the job of: its own name is a built-in's, and the
    server's prefix renames it (unprefixed, it already is that name)."""
    return server_name if config.prefix and server_name in BUILTIN_TOOL_NAMES else None


def shadowed_by(server_names: list[str], config: McpServerConfig) -> set[str]:
    """The built-ins a server with ``shadow_builtins = true`` replaces."""
    return set(server_names) & BUILTIN_TOOL_NAMES if config.shadow_builtins else set()


def server_environment(config: McpServerConfig) -> dict[str, str]:
    """What a stdio server gets beyond the SDK's minimal environment; ``env`` wins."""
    inherited = {key: os.environ[key] for key in EXTRA_INHERITED_ENV if key in os.environ}
    return inherited | dict(config.env)
