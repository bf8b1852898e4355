"""Which backend a profile's ``kind`` and a grammar mode call for: a small table of
``"module:Class"`` (imported only when used), plus the kinds plugins add with an entry point
in ``pytest_tooleval.backends`` (serving every grammar mode).
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from pytest_tooleval.hints import did_you_mean
from pytest_tooleval.models.base import Backend, BackendConfigError, unimplemented
from pytest_tooleval.tools.base import call_extension

if TYPE_CHECKING:
    from pytest_tooleval.config import Settings
    from pytest_tooleval.models.profiles import Profile

ENTRY_POINT_GROUP = "pytest_tooleval.backends"

REGISTRY: dict[tuple[str, str], str] = {
    ("openai", "vendor"): "pytest_tooleval.models.openai:OpenAIChatBackend",
    ("openai", "on"): "pytest_tooleval.models.raw_openai:RawCompletionBackend",
    ("openai", "off"): "pytest_tooleval.models.raw_openai:RawCompletionBackend",
    ("llama", "on"): "pytest_tooleval.models.llama:LlamaBackend",
    ("llama", "off"): "pytest_tooleval.models.llama:LlamaBackend",
}

_WHY_NOT = {("llama", "vendor"): "--grammar vendor means a server's own tool calling; the "
                                  "embedded model has no server: use --grammar on or off"}


def unknown_kind(kind: str) -> str | None:
    """Why ``kind`` names no backend, with the fix; None when it names one."""
    plugins = {point.name for point in entry_points(group=ENTRY_POINT_GROUP)}
    if any(known == kind for known, _ in REGISTRY) or kind in plugins:
        return None
    kinds = sorted({known for known, _ in REGISTRY} | set(plugins))
    return (f"kind {kind!r} is not a backend kind{did_you_mean(kind, kinds)}. Known kinds: "
            f"{', '.join(kinds)}; a plugin adds its own with an entry point in the group "
            f"{ENTRY_POINT_GROUP!r} (docs/usage.md, 'Your own backend kind')")


def grammar_mode(settings: Settings, profile: Profile) -> str:
    """The grammar mode a run uses: ``--grammar``, else the profile's, else "on"."""
    return settings.grammar or profile.grammar or "on"


def backend_class(kind: str, grammar: str) -> type[Backend]:
    """The backend class for this kind and grammar mode; ``BackendConfigError`` if none."""
    key = (kind, grammar)
    builtin = any(known == kind for known, _ in REGISTRY)
    points = [point for point in entry_points(group=ENTRY_POINT_GROUP) if point.name == kind]
    claims = {f"{point.dist.name if point.dist else 'a package'} ({point.value})"
              for point in points}
    if len(claims) > 1 or (builtin and claims):
        raise BackendConfigError(
            f"backend kind {kind!r} is {'built in and ' if builtin else ''}registered by "
            f"{' and by '.join(sorted(claims))}; uninstall a package, or give its entry point "
            f"in {ENTRY_POINT_GROUP!r} a name of its own")
    # Past the check, a plugin kind has one claim (its points, if several, are alike).
    target = REGISTRY.get(key) or (points[0].value if points else None)
    if target is None:
        modes = sorted(g for k, g in REGISTRY if k == kind)
        raise BackendConfigError(_WHY_NOT.get(key) or unknown_kind(kind) or (
            f"no backend for kind {kind!r} with grammar {grammar!r} "
            f"(this kind runs: {', '.join(modes)})"))
    module_name, _, name = target.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), name)
    except Exception as exc:  # not installed, or its module raises on import (SyntaxError)
        raise BackendConfigError(f"backend kind {kind!r}: cannot load {target!r}: "
                                 f"{type(exc).__name__}: {exc}") from None
    if not (isinstance(found, type) and issubclass(found, Backend)):
        raise BackendConfigError(f"backend kind {kind!r}: {target!r} is not a subclass of "
                                 "pytest_tooleval.Backend")
    missing = unimplemented(found)
    if missing:
        raise BackendConfigError(f"backend kind {kind!r}: {target!r} does not implement "
                                 f"{missing}; add it (docs/usage.md, 'Your own backend kind')")
    return found


def make_backend(profile: Profile, grammar: str, *, workers: int = 1) -> Backend:
    """The backend for this profile and grammar mode, built by its ``from_profile``.
    ``workers``: xdist workers on this machine (``Backend.from_profile``)."""
    cls = backend_class(profile.kind, grammar)
    made = call_extension(BackendConfigError, cls, "from_profile()",
                          "fix it, or raise pytest_tooleval.BackendConfigError naming what the "
                          "profile lacks", lambda: cls.from_profile(profile, grammar,
                                                                   workers=workers))
    if not isinstance(made, Backend):
        raise BackendConfigError(f"backend kind {profile.kind!r}: {cls.__module__}."
                                 f"{cls.__qualname__}.from_profile() returned a "
                                 f"{type(made).__name__}; it must return a Backend")
    return made
