"""Which backend a profile and grammar mode call for: a small table, one convention.

Every entry is ``"module:attribute"`` naming a callable ``(profile, grammar, **options)``
that returns a ``Backend`` (a class's ``from_profile``, or a function); modules are
imported only when their backend is built, so listing llama.cpp here loads nothing.
``register`` adds or replaces an entry (a plugin's own backend kind, a test double).
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from pytest_tooleval.models.base import Backend, BackendConfigError
from pytest_tooleval.models.profiles import Profile


class BackendFactory(Protocol):
    def __call__(self, profile: Profile, grammar: str, **options: Any) -> Backend: ...


REGISTRY: dict[tuple[str, str], str | BackendFactory] = {
    ("openai", "vendor"): "pytest_tooleval.models.openai:OpenAIChatBackend.from_profile",
    ("openai", "on"): "pytest_tooleval.models.raw_openai:RawCompletionBackend.from_profile",
    ("openai", "off"): "pytest_tooleval.models.raw_openai:RawCompletionBackend.from_profile",
    ("llama", "on"): "pytest_tooleval.models.registry:embedded_from_profile",
    ("llama", "off"): "pytest_tooleval.models.registry:embedded_from_profile",
}

_WHY_NOT = {
    ("llama", "vendor"): "--grammar vendor means a server's own tool calling; the embedded "
                         "model has no server: use --grammar on or off",
}


def register(kind: str, grammar: str, factory: str | BackendFactory) -> None:
    REGISTRY[(kind, grammar)] = factory


def _resolve(target: str | BackendFactory) -> BackendFactory:
    if not isinstance(target, str):
        return target
    module_name, _, path = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in path.split("."):
        value = getattr(value, part)
    factory: BackendFactory = value
    return factory


def make_backend(profile: Profile, grammar: str, **options: Any) -> Backend:
    """The backend for this profile and grammar mode; ``BackendConfigError`` if none."""
    key = (profile.kind, grammar)
    target = REGISTRY.get(key)
    if target is None:
        modes = sorted(g for k, g in REGISTRY if k == profile.kind)
        raise BackendConfigError(_WHY_NOT.get(key) or (
            f"no backend for kind {profile.kind!r} with grammar {grammar!r} "
            f"(this kind runs: {', '.join(modes) or 'nothing'})"))
    return _resolve(target)(profile, grammar, **options)


def embedded_from_profile(profile: Profile, grammar: str, *, workers: int = 1,
                          **options: Any) -> Backend:
    """The embedded llama.cpp backend. ``workers``: xdist workers on this machine, so that
    embedded models share the cores instead of each taking all of them."""
    from pytest_tooleval.models import llama_cpu
    from pytest_tooleval.models.llama import LlamaBackend

    factory = getattr(LlamaBackend, "from_profile", None)
    if factory is not None:
        built: Backend = factory(profile, grammar, workers=workers, **options)
        return built
    threads = profile.n_threads or llama_cpu.default_threads(workers)
    if profile.repeat_penalty not in (None, 1.0):
        # LlamaBackend samples with repeat_penalty 1.0 and takes no keyword for it: refuse
        # rather than record a value that did not run.
        raise BackendConfigError(
            f"profile {profile.name!r}: the embedded backend samples with repeat_penalty 1.0; "
            f"repeat_penalty = {profile.repeat_penalty} is not supported there")
    sampling: dict[str, Any] = {
        name: value for name, value in (("top_p", profile.top_p), ("top_k", profile.top_k),
                                        ("min_p", profile.min_p)) if value is not None}
    return LlamaBackend(
        None if profile.gguf in (None, "default") else profile.gguf,
        grammar=grammar, n_threads=threads, n_ctx=profile.n_ctx, seed=profile.seed,
        temperature=profile.temperature, max_tokens=profile.max_tokens,
        thinking=profile.thinking, **sampling, **options,
    )
