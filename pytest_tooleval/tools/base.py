"""The tool-provider interface: every source of tools offers specs and executes calls.

Sources: inline scenario tools, the built-in catalogue, MCP servers, Python functions.
A provider that cannot do its job (a crashed server, a sandbox that cannot be built)
raises ``ProviderError``: that is infrastructure, and the case becomes ERROR, never FAIL.
"""

from __future__ import annotations

import json
import re
import sys
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pytest_tooleval.tools.deadline import TOOL_TIMEOUT_S, CallExpired, call_within, too_slow


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]
    source: str  # "builtin", "inline:scenarios/x.yaml", "mcp:github", "python:conftest.py"
    #: True: only reads; False: changes something (a file, a message sent); None: unknown.
    read_only: bool | None = None
    #: The built-in tool this one does the job of (an MCP server's ``git_log`` offered as
    #: ``repo_git_log``): the router gives it that tool's triggers when the built-in itself
    #: is not in the catalogue (built-ins off, or shadowed).
    stands_for: str | None = None

    def __post_init__(self) -> None:
        # Scored live as given, re-read by pydantic on rescore: "yes" would score twice over.
        if not (self.read_only is None or isinstance(self.read_only, bool)):
            raise TypeError(f"tool {self.name!r}: read_only must be True, False or None, "
                            f"not {self.read_only!r}")

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class ToolResult:
    """What the model sees back from a call. ``is_error`` marks a tool-level error."""

    text: str
    is_error: bool = False

    @classmethod
    def error(cls, message: str) -> ToolResult:
        return cls(text=f"error: {message}", is_error=True)

    @classmethod
    def of(cls, value: Any) -> ToolResult:
        if isinstance(value, str):
            return cls(value)
        return cls(json.dumps(value, ensure_ascii=False, default=str))


#: The most characters of a tool's result the model is shown (an MCP server's, a Python
#: tool's, most built-ins').
MAX_OUTPUT_CHARS = 20_000


def clip(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Cap text handed back to the model, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... truncated, {len(text) - limit} more characters]"


#: A name a tool can be offered under (an @tool's, an MCP server's): OpenAI's chat API
#: refuses a request with a longer one, or one with another character (a space, '/', '.',
#: a non-ASCII letter); \Z: "$" allows a final newline.
OFFERABLE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")


class ProviderError(Exception):
    """The provider itself failed: infrastructure, never the model's fault."""


T = TypeVar("T")


#: The way out a provider's own stray exception is told.
PROVIDER_FIX = ("fix the provider, or raise pytest_tooleval.ProviderError for a failure of "
                "the machine behind it")


def extension_name(owner: object) -> str | None:
    """``module.Class`` of a backend or provider (or its class) that a plugin or a
    ``conftest.py`` defines; None for pytest-tooleval's own, whose stray exception is a bug
    of the harness."""
    cls = owner if isinstance(owner, type) else type(owner)
    if cls.__module__.partition(".")[0] == "pytest_tooleval":
        return None
    return f"{cls.__module__}.{cls.__qualname__}"


def type_name(value: object) -> str:
    """``value``'s class as a message names it: ``pytest_tooleval.X`` for the public API's
    (the package is loaded: this module is part of it)."""
    package, cls = sys.modules["pytest_tooleval"], type(value)
    name = cls.__name__
    if name in package.__all__ and getattr(package, name, None) is cls:
        return f"pytest_tooleval.{name}"
    return f"{cls.__module__}.{cls.__qualname__}"


def call_extension(error: type[Exception], owner: object, method: str, fix: str,
                   function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, a method of ``owner``: an extension's exception other than
    ``error`` becomes ``error`` naming its class, the method, where it raised and ``fix``
    (the machine's failure, never the model's, nor one of pytest-tooleval)."""
    try:
        return function(*args)
    except (error, ProviderError, ConfigurationError):  # the machine's, classified as they are
        raise
    except Exception as exc:
        name = extension_name(owner)
        if name is None:
            raise
        last = traceback.extract_tb(exc.__traceback__)[-1:]
        at = f" at {last[0].filename}:{last[0].lineno}" if last else ""
        raise error(f"{name}.{method} raised {type(exc).__name__}: {exc}{at}; {fix}") from exc


@dataclass(frozen=True)
class CaseContext:
    """What a provider may need to prepare for one case."""

    file_path: str
    file_name: str
    case_name: str
    language: str
    world: dict[str, Any] = field(default_factory=dict)


class ToolProvider(ABC):
    """A source of tools. One instance serves one pytest process (one xdist worker)."""

    #: A short, stable label used in messages and reports, such as "builtin" or "mcp:github".
    source: str = "provider"
    #: Seconds one call may take by this provider's own configuration (an MCP server's
    #: ``call_timeout``), when that is longer than the run's wall clock of a tool call.
    call_limit_s: float | None = None

    @abstractmethod
    def list_tools(self) -> list[ToolSpec]:
        """The tools this provider offers on this machine (absent binaries excluded)."""

    @abstractmethod
    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Execute one schema-valid call. Tool-level failures return ``ToolResult.error``."""

    def begin_case(self, context: CaseContext) -> None:  # noqa: B027 - optional hook
        """Prepare per-case state (a fresh world copy, canned-result counters)."""

    def end_case(self) -> None:  # noqa: B027 - optional hook
        """Drop per-case state."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release processes and files at the end of the session."""

    def fork(self) -> ToolProvider | None:
        """A provider with its own per-case state for a concurrent tool loop (a profile's
        ``concurrency``); None: this one serves one case at a time, and concurrency stays 1."""
        return None

    @property
    def world(self) -> Any:
        """The case's world, which its state checks (``after``) read; None without one."""
        return None

    def shadowed_builtins(self) -> set[str]:
        """Built-in tools this provider replaces: the catalogue leaves them out."""
        return set()

    def describe(self) -> dict[str, Any]:
        return {"source": self.source}


def describe_providers(
    providers: list[ToolProvider], failed: dict[str, str]
) -> list[dict[str, Any]]:
    """Every provider's own description (MCP: the server's name and version from its
    initialize handshake), and the providers that failed to start, for the run metadata."""
    described = [provider.describe() for provider in providers]
    return described + [{"source": source, "error": why} for source, why in failed.items()]


class ConfigurationError(Exception):
    """The user's tool configuration cannot be used (a message, never a traceback)."""


class DuplicateToolError(Exception):
    """Two providers offer one name; the message names both and the ways out."""

    def __init__(self, name: str, first: str, second: str) -> None:
        servers = [s.removeprefix("mcp:") for s in (first, second) if s.startswith("mcp:")]
        server = servers[0] if servers else "NAME"
        ways = []
        if "builtin" in (first, second):
            ways.append("switch the built-in catalogue off for this run (--tooleval-no-builtin, "
                        "or builtin = false under [tool.tooleval])")
        if servers and first != second:  # a prefix helps only an MCP server against another
            ways.append(f'give the MCP server a name prefix (prefix = "{server}_" under '
                        f"[tool.tooleval.mcp.{server}] offers it as {server + '_' + name!r})")
        elif servers:
            ways.append(f"fix MCP server {server!r}: it lists this tool twice")
        if servers and "builtin" in (first, second):
            ways.append(f"let the server replace the built-ins it duplicates (shadow_builtins "
                        f"= true under [tool.tooleval.mcp.{server}])")
        if any(s.startswith("python:") for s in (first, second)):
            ways.append('rename the Python tool with @tool(name="...")')
        super().__init__(
            f"tool {name!r} is offered twice, by {first} and by {second}. Ways out: "
            + "; or ".join(f"({i}) {way}" for i, way in enumerate(ways, 1))
            + "."
        )


class Catalogue:
    """The union of the providers' tools; a name offered twice is an error."""

    def __init__(self, providers: list[ToolProvider]) -> None:
        self.providers = list(providers)
        self._owner: dict[str, ToolProvider] = {}
        self._specs: dict[str, ToolSpec] = {}
        #: A shadowed built-in and the provider that shadows it.
        self.shadowed: dict[str, str] = {
            name: provider.source for provider in self.providers
            for name in provider.shadowed_builtins()
        }
        for provider in self.providers:
            for spec in provider.list_tools():
                if provider.source == "builtin" and spec.name in self.shadowed:
                    continue
                if spec.name in self._owner:
                    raise DuplicateToolError(
                        spec.name, self._owner[spec.name].source, provider.source
                    )
                self._owner[spec.name] = provider
                self._specs[spec.name] = spec

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    @property
    def names(self) -> list[str]:
        return list(self._specs)

    @property
    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def source_of(self, name: str) -> str:
        return self._owner[name].source

    def spec(self, name: str) -> ToolSpec:
        return self._specs[name]

    def clock(self, name: str, tool_timeout: float | None = None) -> float:
        """The wall clock of a call of ``name``: ``tool_timeout`` (default
        ``TOOL_TIMEOUT_S``), or its provider's own longer ``call_limit_s``."""
        seconds = TOOL_TIMEOUT_S if tool_timeout is None else tool_timeout
        own = self._owner[name].call_limit_s
        return seconds if own is None else max(seconds, own)

    def call(self, name: str, arguments: dict[str, Any],
             timeout: float | None = None) -> ToolResult:
        """The owner's result, within ``timeout`` seconds (default: ``clock(name)``; see
        ``tools/deadline.py``). A call past it is the machine's failure (``ProviderError``)."""
        seconds = self.clock(name) if timeout is None else timeout
        owner = self._owner[name]
        try:
            result = call_within(seconds, call_extension, ProviderError, owner,
                                 f"call({name!r})", f"{PROVIDER_FIX} (a tool's error the model "
                                 "should see is ToolResult.error(...))", owner.call, name,
                                 arguments)
        except CallExpired:
            raise ProviderError(too_slow(name, seconds)) from None
        if not isinstance(result, ToolResult):
            raise ProviderError(f"{extension_name(owner) or owner.source}.call({name!r}) "
                                f"returned a {type(result).__name__}; it must return a "
                                "pytest_tooleval.ToolResult (ToolResult.of(value) for data)")
        return result

    def extended(self, extra: list[ToolProvider]) -> Catalogue:
        return Catalogue([*self.providers, *extra])
