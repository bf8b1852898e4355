"""``BuiltinToolProvider``: the catalogue of built-in tools acting on one case's world."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any, cast

from pytest_tooleval.tools import deadline, jail
from pytest_tooleval.tools.base import (
    CaseContext,
    ProviderError,
    ToolProvider,
    ToolResult,
    ToolSpec,
)
from pytest_tooleval.tools.builtin import (
    archives,
    calc,
    documents,
    files,
    gittools,
    personal,
    runner,
    timetools,
    units,
    web,
)
from pytest_tooleval.tools.builtin.common import Context, Tool
from pytest_tooleval.tools.builtin.sandbox import Sandbox, SandboxBroken, ToolError
from pytest_tooleval.tools.names import BUILTIN_TOOL_NAMES, SIDE_EFFECTING_BUILTINS
from pytest_tooleval.tools.offered import missing_tools
from pytest_tooleval.world.api import World

log = logging.getLogger(__name__)

ALL_TOOLS: dict[str, Tool] = {
    tool.name: tool
    for module in (calc, timetools, units, documents, files, archives, gittools, runner, web,
                   personal)
    for tool in module.TOOLS
}
assert set(ALL_TOOLS) == BUILTIN_TOOL_NAMES, set(ALL_TOOLS) ^ BUILTIN_TOOL_NAMES


class BuiltinToolProvider(ToolProvider):
    """Serves the built-in catalogue. ``world_for_case`` yields a fresh World per case.

    Tools that execute code (``Tool.jailed``) are offered only where the jail works, or
    when ``unsafe_no_jail`` opts into running them without it.

    Copy on write: with ``shared_world`` (the run's immutable template, for a case without
    world overrides), a case's world is made only when the case needs its own: the first
    call of a tool that writes, runs code or runs a binary (git may touch its index; the
    jail binds the case's real folder), or a state check on a case with overrides. Pure
    reading tools read the template. A case that calls no built-in never copies.
    """

    source = "builtin"

    def __init__(
        self,
        world_for_case: Callable[[CaseContext], World],
        cleanup: Callable[[World], None] | None = None,
        *,
        unsafe_no_jail: bool = False,
        shared_world: Callable[[CaseContext], World | None] | None = None,
    ) -> None:
        self._world_for_case = world_for_case
        self._cleanup = cleanup
        self._shared_world = shared_world
        self._ctx: Context | None = None  # the case's own world, once made
        self._shared: Context | None = None  # the template, read by reading tools
        self._case: CaseContext | None = None
        self.unsafe_no_jail = unsafe_no_jail

    def list_tools(self) -> list[ToolSpec]:
        missing = unavailable_tools(self.unsafe_no_jail)
        return [
            ToolSpec(tool.name, tool.description, tool.parameters, self.source,
                     read_only=tool.name not in SIDE_EFFECTING_BUILTINS)
            for tool in ALL_TOOLS.values()
            if tool.name not in missing
        ]

    def begin_case(self, context: CaseContext) -> None:
        self.end_case()
        self._case = context
        if self._shared_world is None:
            self._materialise()

    def _materialise(self) -> Context:
        """The case's own world (copied from the template, overrides applied)."""
        if self._ctx is None:
            assert self._case is not None  # begin_case, call and world see to it
            try:
                self._ctx = self._context(self._world_for_case(self._case))
            except ProviderError:
                raise
            except Exception as exc:
                raise ProviderError(f"cannot build the world for this case: {exc}") from exc
        return self._ctx

    def _reading_context(self) -> Context | None:
        """The shared template for a case without overrides (None: it needs its own)."""
        if self._shared_world is None or self._case is None:
            return None
        if self._shared is None:
            template = self._shared_world(self._case)
            if template is None:
                return None
            self._shared = self._context(template)
        return self._shared

    def _context_for(self, tool: Tool) -> Context:
        if self._ctx is not None:
            return self._ctx
        if not tool.uses_world and self._shared_world is not None:
            return _NO_WORLD
        reads_only = (tool.name not in SIDE_EFFECTING_BUILTINS and not tool.jailed
                      and tool.needs is None)
        shared = self._reading_context() if reads_only else None
        return shared if shared is not None else self._materialise()

    def end_case(self) -> None:
        self._case = None
        self._shared = None
        ctx, self._ctx = self._ctx, None
        if ctx is not None and self._cleanup is not None:
            try:
                self._cleanup(ctx.world)
            except Exception:  # a failed cleanup must not fail the next case
                log.exception("cleaning up the world at %s failed", ctx.world.root)

    def close(self) -> None:
        self.end_case()

    def fork(self) -> BuiltinToolProvider:
        """Its own case state over the same worlds (each case still gets its own copy)."""
        return BuiltinToolProvider(self._world_for_case, self._cleanup,
                                   unsafe_no_jail=self.unsafe_no_jail,
                                   shared_world=self._shared_world)

    @property
    def world(self) -> World | None:
        """The case's world as its state checks see it: its own copy if it has one, else
        the template (identical to a fresh copy for a case without overrides)."""
        if self._ctx is not None:
            return self._ctx.world
        if self._case is None:
            return None
        shared = self._reading_context()
        return (shared or self._materialise()).world

    def use_world(self, world: World) -> None:
        """Act on ``world`` directly (tests, interactive use) without a case context."""
        self._ctx = self._context(world)

    def _context(self, world: World) -> Context:
        try:
            home = Sandbox(world.home, alias=jail.JAIL_HOME)
        except SandboxBroken as exc:
            raise ProviderError(str(exc)) from exc
        return Context(world=world, home=home, unsafe_no_jail=self.unsafe_no_jail)

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        tool = ALL_TOOLS.get(name)
        if tool is None:
            return ToolResult.error(f"unknown tool {name!r}")
        if self._ctx is None and self._case is None:
            raise ProviderError("the built-in tools were called before begin_case()")
        if not isinstance(arguments, dict):
            return ToolResult.error("arguments must be a JSON object")
        with deadline.shielded():  # a world copied in part would serve the next call
            context = self._context_for(tool)
        try:
            # A jailed tool is bounded by the jail's wall clock, and its clean-up (the jail
            # ended, the home copied back) must not be torn by the call's own clock.
            with deadline.shielded() if tool.jailed else contextlib.nullcontext():
                value = tool.run(context, arguments)
        except ToolError as exc:
            return ToolResult.error(str(exc))
        except (SandboxBroken, jail.JailUnavailable, ProviderError) as exc:
            raise ProviderError(f"{name}: {exc}") from exc
        except RecursionError:
            return ToolResult.error("the input is nested too deeply")
        except MemoryError:
            return ToolResult.error("the input needs too much memory")
        except Exception as exc:
            # Hostile input may still reach an OS or parsing corner, or a library's own error
            # class on a corrupt file: the model sees it, the case goes on.
            if not isinstance(exc, OSError | ValueError | TypeError | OverflowError):
                log.warning("built-in tool %s failed on hostile input", name, exc_info=True)
            return ToolResult.error(f"{name} failed: {type(exc).__name__}: {exc}")
        return ToolResult.of(value)


#: What a tool that never touches the world runs with before any world exists.
_NO_WORLD = Context(world=cast(World, None), home=cast(Sandbox, None))


def unavailable_tools(unsafe_no_jail: bool = False) -> dict[str, str]:
    """Built-in tools this machine cannot offer, each with why and how to fix it."""
    return missing_tools(((tool.name, tool.needs, tool.jailed) for tool in ALL_TOOLS.values()),
                         unsafe_no_jail)
