"""Builds a run's parts from settings: the backend, the tool providers, the router.

Heavy modules (llama.cpp, the MCP SDK, the built-in tools) are imported here, on first
use, never when the plugin loads.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.model import CaseFile
from pytest_tooleval.config import Settings
from pytest_tooleval.engine.loop import DEFAULT_SYSTEM_PROMPT
from pytest_tooleval.engine.session import ModelSession
from pytest_tooleval.models.base import Backend, BackendUnavailable
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.router.base import Router
from pytest_tooleval.tools.base import ToolProvider


def grammar_mode(settings: Settings, profile: Profile) -> str:
    return settings.grammar or profile.grammar or "on"


def make_backend(profile: Profile, grammar: str) -> Backend:
    if profile.kind == "llama":
        try:
            from pytest_tooleval.models.llama import LlamaBackend
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise BackendUnavailable(
                f"the embedded backend needs llama-cpp-python: pip install "
                f"'pytest-tooleval[local]' ({exc})"
            ) from None
        if grammar == "vendor":
            raise BackendUnavailable(
                "--grammar vendor means a server's own tool calling; the embedded model has "
                "no server: use --grammar on or off"
            )
        return LlamaBackend.from_profile(profile, grammar=grammar)
    if grammar == "vendor":
        from pytest_tooleval.models.openai import OpenAIChatBackend

        return OpenAIChatBackend(profile)
    from pytest_tooleval.models.raw_openai import RawCompletionBackend

    return RawCompletionBackend.from_profile(profile, grammar=grammar)


def make_providers(settings: Settings, world_base: Callable[[], Path]) -> list[ToolProvider]:
    providers: list[ToolProvider] = []
    if not settings.no_builtin:
        from pytest_tooleval.tools.builtin.provider import BuiltinToolProvider
        from pytest_tooleval.world.build import WorldFactory

        factory = WorldFactory(world_base)
        providers.append(BuiltinToolProvider(factory.world_for_case, factory.discard))
    providers.extend(user_providers(settings))
    return providers


def user_providers(settings: Settings) -> list[ToolProvider]:
    """Python tools (decorated in conftest.py or named modules) and MCP servers."""
    project = settings.project
    providers: list[ToolProvider] = []
    modules = list(project.get("python_tools", []))
    # The decorator's module is imported only by code that uses it (a conftest.py).
    if modules or "pytest_tooleval.tools.python" in sys.modules:
        from pytest_tooleval.tools.python import (
            PythonToolProvider,
            collect_python_tools,
            registered,
        )

        functions = [*registered(), *collect_python_tools(modules)]
        if functions:
            providers.append(PythonToolProvider(functions, source="python"))
    mcp_table = project.get("mcp", {})
    if mcp_table:
        from pytest_tooleval.tools.mcp import McpToolProvider, load_mcp_configs

        for name, config in load_mcp_configs(mcp_table, settings.rootdir).items():
            if config.enabled:
                providers.append(McpToolProvider(name, config))
    return providers


def make_router_factory(settings: Settings) -> Callable[[CaseFile], Router]:
    from pytest_tooleval.router.base import RequiresRouter

    return lambda case_file: RequiresRouter(
        [*case_file.requires, *case_file.inline_tool_names], k=settings.k
    )


def build_session(
    settings: Settings, profile: Profile, world_base: Callable[[], Path]
) -> ModelSession:
    grammar = grammar_mode(settings, profile)
    return ModelSession(
        backend_factory=lambda: make_backend(profile, grammar),
        providers=make_providers(settings, world_base),
        router_factory=make_router_factory(settings),
        max_steps=profile.max_steps,
        system_prompt=profile.system_prompt or DEFAULT_SYSTEM_PROMPT,
    )


def describe_settings(settings: Settings, profile: Profile) -> dict[str, Any]:
    return {
        "model": profile.describe(),
        "grammar_requested": grammar_mode(settings, profile),
        "k": settings.k,
        "seed": profile.seed,
        "thresholds": {
            "gate": settings.gate,
            "min_score": settings.min_score,
            "max_malformed": settings.max_malformed,
            "latency_p95": settings.latency_p95,
            "partial": settings.partial,
        },
    }
