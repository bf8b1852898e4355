"""The catalogue a run would show, built for ``tooleval check`` and ``tooleval route``.

The same providers as a pytest run, from the same configuration: the built-ins (unless
switched off, less those a server shadows), the ``@tool`` functions of ``python_tools`` and
of the ``conftest.py`` files a run of these paths would load, and the MCP servers: started
and listed (``mcp="start"``), read from their cached tool list (``"cached"``), or left out
(``"off"``). Each source is described in one line of the check's output.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from pytest_tooleval.config import Settings
from pytest_tooleval.tools.base import (
    Catalogue,
    ConfigurationError,
    DuplicateToolError,
    ProviderError,
    ToolProvider,
    ToolResult,
    ToolSpec,
)

McpMode = Literal["start", "cached", "off"]


@dataclass
class ConfiguredCatalogue:
    specs: list[ToolSpec] = field(default_factory=list)
    #: One line per source: "builtin: 36 tools", "mcp:git: 12 tools (started: ...)".
    sources: list[str] = field(default_factory=list)
    #: Sources whose tools are unknown here, and why (their tools count as missing).
    problems: list[str] = field(default_factory=list)


class _Listed(ToolProvider):
    """Specs known without a live provider (a cached MCP tool list)."""

    def __init__(self, source: str, specs: list[ToolSpec], shadows: set[str]) -> None:
        self.source, self._specs, self._shadows = source, specs, shadows

    def list_tools(self) -> list[ToolSpec]:
        return list(self._specs)

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:  # pragma: no cover
        raise ProviderError(f"{self.source}: a cached tool list cannot run tools")

    def shadowed_builtins(self) -> set[str]:
        return set(self._shadows)


def configured_catalogue(
    settings: Settings, paths: Iterable[Path] = (), *, mcp: McpMode = "start"
) -> ConfiguredCatalogue:
    """Build (and for MCP, start and stop) the configured providers; see the module doc."""
    result = ConfiguredCatalogue()
    providers: list[ToolProvider] = []
    notes: dict[str, str] = {}
    if not settings.no_builtin:
        from pytest_tooleval.router.catalogue import listed_builtin_specs

        providers.append(_Listed("builtin", listed_builtin_specs(settings.unsafe_no_jail), set()))
    providers += _python_providers(settings, paths, result)
    opened: list[ToolProvider] = []
    try:
        for provider, note in _mcp_providers(settings, mcp, result, opened):
            providers.append(provider)
            notes[provider.source] = note
        try:
            catalogue = Catalogue(providers)
        except DuplicateToolError as exc:
            raise ConfigurationError(str(exc)) from None
    finally:
        for provider in opened:
            provider.close()
    for provider in catalogue.providers:
        count = sum(1 for name in catalogue.names if catalogue.source_of(name) == provider.source)
        how = notes.get(provider.source)
        result.sources.append(f"{provider.source}: {count} tools" + (f" ({how})" if how else ""))
    if catalogue.shadowed:
        shadowed = ", ".join(f"{name} (by {by})" for name, by in sorted(catalogue.shadowed.items()))
        result.sources.append(f"built-ins shadowed: {shadowed}")
    result.specs = catalogue.specs
    return result


def _mcp_providers(
    settings: Settings, mode: McpMode, result: ConfiguredCatalogue, opened: list[ToolProvider]
) -> list[tuple[ToolProvider, str]]:
    found: list[tuple[ToolProvider, str]] = []
    if not settings.mcp_servers:
        return found
    from pytest_tooleval.tools.mcp import mcp_providers
    from pytest_tooleval.tools.mcp.cache import CacheMiss, read_cache

    for name, config in settings.mcp_servers.items():
        source = f"mcp:{name}"
        if not config.enabled:
            continue
        if mode == "off":
            result.problems.append(f"{source} (--mcp off)")
            continue
        if mode == "cached":
            try:
                cached = read_cache(settings.config_dir, name, config)
            except CacheMiss as exc:
                result.problems.append(f"{source}: {exc}")
                continue
            found.append((_Listed(source, cached.specs, cached.shadows),
                          f"cached tool list of {cached.listed_at}"
                          + (f", {cached.server_info}" if cached.server_info else "")))
            continue
        provider = mcp_providers({name: config}, settings.config_file)[0]
        opened.append(provider)
        try:
            provider.start()
        except ProviderError as exc:
            result.problems.append(f"{source}: {exc}")
            continue
        info = provider.server_info
        found.append((provider, "started and listed" + (f", {info}" if info else "")))
    return found


def _python_providers(
    settings: Settings, paths: Iterable[Path], result: ConfiguredCatalogue
) -> list[ToolProvider]:
    conftests = conftest_modules(settings, paths, result.problems)
    if not conftests and not settings.python_tools:
        return []  # no Python tools: their module is not even imported
    from pytest_tooleval.tools.python import PythonToolError
    from pytest_tooleval.wiring import python_tool_providers
    try:
        return python_tool_providers(settings, conftests)
    except (PythonToolError, DuplicateToolError) as exc:
        raise ConfigurationError(str(exc)) from None


def conftest_modules(settings: Settings, paths: Iterable[Path],
                     problems: list[str]) -> list[ModuleType]:
    """The ``conftest.py`` files a run of ``paths`` would load, imported (once per
    process) for their ``@tool`` functions; one that cannot be imported (a run stops on it
    too) is a line in ``problems``: its line, the error and the fix; its tools are missing."""
    modules = []
    for conftest in conftest_files(settings.config_dir, paths):
        try:
            modules.append(_import_file(conftest))
        except Exception as exc:
            from pytest_tooleval.tools.python import PythonToolError

            frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
                      if Path(frame.filename) == conftest]
            where = f"{conftest}:{frames[-1].lineno}" if frames else str(conftest)
            if isinstance(exc, PythonToolError):  # a refused @tool: its message has the fix
                why = str(exc)
            else:
                last = traceback.format_exception_only(type(exc), exc)[-1].strip()
                fix = (f"install {exc.name!r} into the Python tooleval runs in "
                       f"({sys.executable}), or correct the import"
                       if isinstance(exc, ModuleNotFoundError) and exc.name else
                       "correct the error there")
                why = f"{last}; fix: {fix}"
            problems.append(f"python:{where}: {why}")
    return modules


def conftest_files(root: Path, paths: Iterable[Path]) -> list[Path]:
    """The ``conftest.py`` files pytest would load for ``paths``: in ``root`` and in every
    folder between it and each path."""
    root = root.resolve()
    candidates = [root]
    for path in paths:
        path = path.resolve()
        folder = path if path.is_dir() else path.parent
        if folder == root or root in folder.parents:
            chain = [folder, *folder.parents]
            candidates += reversed(chain[: chain.index(root)])
    conftests = dict.fromkeys(folder / "conftest.py" for folder in candidates)
    return [conftest for conftest in conftests if conftest.is_file()]


def _import_file(path: Path) -> ModuleType:
    """``path`` imported as pytest imports a conftest.py: with the first folder above it
    that is not a package on ``sys.path`` (a module beside it imports)."""
    name = f"tooleval_conftest_{abs(hash(str(path)))}"
    if name in sys.modules:
        return sys.modules[name]
    root = next(folder for folder in path.parents if not (folder / "__init__.py").is_file())
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
