"""Builds a run's parts from settings: the backend, the tool providers, the router."""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_tooleval.config import Settings
from pytest_tooleval.engine.loop import DEFAULT_SYSTEM_PROMPT
from pytest_tooleval.engine.session import ModelSession
from pytest_tooleval.models.base import Backend
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.registry import grammar_mode, make_backend
from pytest_tooleval.run.cache import CachingBackend, model_identity
from pytest_tooleval.tools import jail
from pytest_tooleval.tools.base import CaseContext, ConfigurationError, ToolProvider
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.tools.mcp import McpConfigError, mcp_providers
from pytest_tooleval.tools.python import (
    PythonToolError,
    collect_python_tools,
    python_providers,
    tools_in_module,
)
from pytest_tooleval.world.factory import WorldFactory


class CaseWorlds:
    """Each case its own copy of the world; the template is built once per run (shared by
    xdist workers), its base folder asked for when a case first needs it."""

    def __init__(self, base: Callable[[], Path]) -> None:
        self._base = base
        self._factory: Any = None
        self._lock = threading.Lock()  # concurrent tool loops ask for worlds at once

    def _world_factory(self) -> Any:
        """The one factory, its template built once, under the lock."""
        with self._lock:
            if self._factory is None:
                self._factory = WorldFactory(self._base())
            self._factory.template()
            return self._factory

    def world_for_case(self, context: CaseContext) -> Any:
        factory = self._world_factory()
        cases = self._base() / "case-worlds"
        cases.mkdir(parents=True, exist_ok=True)
        destination = Path(tempfile.mkdtemp(prefix="case-", dir=cases))
        return factory.new_case_world(destination / "world", context.world or None)

    def shared(self, context: CaseContext) -> Any:
        """The template itself, for reading, when the case overrides nothing; else None."""
        return None if context.world else self._world_factory().template()

    @staticmethod
    def discard(world: Any) -> None:
        shutil.rmtree(Path(world.root).parent, ignore_errors=True)


def configured_providers(
    settings: Settings,
    world_base: Callable[[], Path],
    conftests: Sequence[ModuleType],
    *,
    builtin: ToolProvider | None = None,
) -> list[ToolProvider]:
    """The providers of a run (and of ``tooleval check --oracle``, whose ``builtin`` shares
    its template): the built-ins unless switched off, the Python tools, the MCP servers
    (started on first use). A configuration mistake is one ``ConfigurationError``."""
    providers: list[ToolProvider] = []
    if not settings.no_builtin:
        if builtin is None:
            worlds = CaseWorlds(world_base)
            builtin = BuiltinToolProvider(worlds.world_for_case, worlds.discard,
                                          unsafe_no_jail=settings.unsafe_no_jail,
                                          shared_world=worlds.shared)
        providers.append(builtin)
    try:
        providers += python_tool_providers(settings, conftests)
        if settings.mcp_servers:
            providers += mcp_providers(settings.mcp_servers, settings.config_file)
    except (McpConfigError, PythonToolError) as exc:
        raise ConfigurationError(str(exc)) from None
    return providers


def python_tool_providers(
    settings: Settings, conftests: Sequence[ModuleType]
) -> list[ToolProvider]:
    """The ``@tool`` functions of ``conftests`` and of the ``python_tools`` modules, one
    provider per origin file."""
    modules = list(settings.python_tools)
    # Only code that uses the decorator imports its module; nothing to find otherwise.
    if not modules and "pytest_tooleval.tools.python" not in sys.modules:
        return []

    functions = [fn for module in conftests for fn in tools_in_module(module)]
    functions += collect_python_tools(modules, base_dir=settings.config_dir)
    return list(python_providers(functions))


def build_session(
    settings: Settings,
    profile: Profile,
    world_base: Callable[[], Path],
    conftests: Sequence[ModuleType] = (),
    workers: int = 1,
) -> ModelSession:
    from pytest_tooleval.router.ablation import make_router  # the trigger tables: heavy

    grammar = grammar_mode(settings, profile)
    router = make_router(settings.router, settings.k)
    return ModelSession(
        backend_factory=_cached(settings, profile, grammar,
                                lambda: make_backend(profile, grammar, workers=workers)),
        providers=configured_providers(settings, world_base, conftests),
        router_factory=lambda case_file: router,
        max_steps=profile.max_steps,
        system_prompt=profile.system_prompt or DEFAULT_SYSTEM_PROMPT,
        tool_timeout=settings.tool_timeout,
        case_timeout=settings.case_timeout,
    )


def _cached(settings: Settings, profile: Profile, grammar: str,
            factory: Callable[[], Backend]) -> Callable[[], Backend]:
    """The backend factory, behind the response cache when one is asked for."""
    if settings.cache is None or settings.cache_mode == "off":
        return factory

    directory = settings.rootdir / settings.cache  # an absolute cache folder stays as it is
    return lambda: CachingBackend(factory, directory, settings.cache_mode,
                                  model_identity(profile, grammar))


def isolation(settings: Settings) -> dict[str, Any]:
    """The jail in force for run_python and git (tools/jail.py), or the unsafe mode."""
    if settings.no_builtin:
        return {"mode": "not used (no built-in tools)"}
    return jail.describe(settings.unsafe_no_jail)
