"""The response cache: ``--tooleval-cache DIR`` with ``--tooleval-cache-mode``.

``record`` asks the model and stores every reply; ``replay`` never builds the model and
answers from the store (an unrecorded request is an ERROR, ``cache_miss``). A reply's key
is everything that decides it: the model's identity (never its address, so replicas share
a cache), sampling and seed, grammar mode, messages and tools shown.
``DIR/backend-<identity hash>.json`` keeps what the recording backend described.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_tooleval.atomic import write_atomic
from pytest_tooleval.cases.identity import json_digest
from pytest_tooleval.models.base import (
    BACKEND_FIX,
    Backend,
    BackendError,
    Message,
    ModelTurn,
    RawCall,
    next_turn,
)
from pytest_tooleval.tools.base import ToolSpec, call_extension

if TYPE_CHECKING:
    from pytest_tooleval.models.profiles import Profile

CACHE_VERSION = 1
_MIB = 1 << 20


class CacheMiss(BackendError):
    """Replay was asked for a reply that was never recorded."""

    kind = "cache_miss"


def gguf_identity(path: Path) -> dict[str, Any]:
    """A GGUF named by its size and a hash of its first and last MiB (hashing gigabytes
    at every start would cost more than the cache saves)."""
    size = path.stat().st_size
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        digest.update(handle.read(_MIB))
        if size > 2 * _MIB:
            handle.seek(size - _MIB)
            digest.update(handle.read(_MIB))
    return {"size": size, "sha256_head_tail": digest.hexdigest()}


def model_identity(profile: Profile, grammar: str) -> dict[str, Any]:
    described = profile.describe()
    identity: dict[str, Any] = {
        "kind": described.get("kind"),
        "model": described.get("model"),
        "sampling": profile.sampling(),
        "grammar": grammar,
        "max_steps": described.get("max_steps"),
    }
    gguf = described.get("gguf")
    if gguf:
        path = Path(str(gguf)).expanduser()
        identity["gguf"] = gguf_identity(path) if path.is_file() else str(gguf)
    return identity


def turn_from_json(data: dict[str, Any]) -> ModelTurn:
    return ModelTurn(**{**data, "calls": [RawCall(**c) for c in data.get("calls", [])],
                        "leaked_calls": [RawCall(**c) for c in data.get("leaked_calls", [])]})


class CachingBackend(Backend):
    """Wraps the real backend (built only when a request has to reach the model)."""

    def __init__(self, factory: Callable[[], Backend], directory: Path, mode: str,
                 identity: dict[str, Any]) -> None:
        self._factory = factory
        self._inner: Backend | None = None
        self.directory = directory
        self.cache_mode = mode
        self.identity = identity
        self.mode = str(identity.get("grammar", "vendor"))
        self.identity_hash = json_digest(identity)[:16]
        self._seed: int | None = None  # a repeat's seed (reseed), part of the key

    @property
    def inner(self) -> Backend:
        if self._inner is None:
            self._inner = self._factory()
        return self._inner

    def key(self, messages: list[Message], tools: list[ToolSpec]) -> str:
        shown = [{"name": t.name, "description": t.description, "parameters": t.parameters}
                 for t in tools]
        return json_digest({"version": CACHE_VERSION, "model": self.identity,
                            "seed": self.current_seed(), "messages": messages, "tools": shown})

    def reseed(self, seed: int) -> None:
        """A repeat's seed (--tooleval-repeat): part of the key, and passed to the model."""
        self._seed = seed
        if self.cache_mode != "replay":
            self.inner.reseed(seed)

    def current_seed(self) -> int | None:
        if self._seed is not None:
            return self._seed
        if self.cache_mode == "replay":
            seed = self.identity.get("sampling", {}).get("seed")
            return None if seed is None else int(seed)
        return self.inner.current_seed()

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        key = self.key(messages, tools)
        path = self.directory / key[:2] / f"{key}.json"
        if self.cache_mode == "replay":
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise CacheMiss(
                    f"--tooleval-cache-mode replay: no recorded reply for this request in "
                    f"{self.directory} (key {key[:16]}); the messages, tools or model "
                    "settings differ from the recorded run. Record it again with "
                    "--tooleval-cache-mode record.") from None
            except (OSError, json.JSONDecodeError) as exc:
                raise CacheMiss(f"the cache entry {path} is unreadable: {exc}") from None
            turn = turn_from_json(entry["turn"])
            turn.cached = True
            return turn
        turn = next_turn(self.inner, messages, tools)
        try:
            write_atomic(path, json.dumps({"version": CACHE_VERSION, "turn": asdict(turn)},
                                          ensure_ascii=False) + "\n")
        except OSError as exc:  # a full disk, a file in the way: the machine, named
            raise BackendError(f"--tooleval-cache {self.directory}: cannot store the model's "
                               f"reply there ({exc.strerror or exc}); give a folder you can "
                               "write to") from None
        return turn

    def _backend_file(self) -> Path:
        return self.directory / f"backend-{self.identity_hash}.json"

    def describe(self) -> dict[str, Any]:
        if self.cache_mode == "replay":
            try:
                described = json.loads(self._backend_file().read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                described = {"backend": "cache replay", "grammar": self.mode}
        else:
            described = self.inner.describe()
            # describing never fails a run; replay then names the cache only
            with contextlib.suppress(OSError):
                write_atomic(self._backend_file(), json.dumps(described, default=str))
        return {**described, "cache": {"mode": self.cache_mode,
                                       "directory": os.fspath(self.directory)}}

    def preflight(self) -> dict[str, Any]:
        if self.cache_mode == "replay":
            if not self.directory.is_dir():
                raise CacheMiss(f"--tooleval-cache-mode replay: {self.directory} does not "
                                "exist; record a run into it first")
            return {"checked": ["cache"], **self.describe()}
        inner = self.inner
        return call_extension(BackendError, inner, "preflight()", BACKEND_FIX, inner.preflight)

    def fork(self) -> CachingBackend | None:
        """A handle for a concurrent tool loop: replay needs no model; record forks the
        model's backend (None when it cannot be shared). Entries are written atomically,
        so lanes that store the same key write the same bytes."""
        inner = None
        if self.cache_mode != "replay":
            inner = self.inner.fork()
            if inner is None:
                self.no_fork_reason = self.inner.no_fork_reason
                return None
        forked = CachingBackend(self._factory, self.directory, self.cache_mode, self.identity)
        forked._inner = inner
        forked._seed = self._seed
        return forked

    def case_scope(self) -> Any:
        return self.inner.case_scope() if self.cache_mode != "replay" else super().case_scope()

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()
