"""The model session, one per process: the backend, tool providers and router, running a
case through the tool loop into transcripts (scoring is not its business). Everything
heavy is built on first use, so ``--collect-only`` never contacts a model server.
"""

from __future__ import annotations

import contextlib
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_tooleval.cases.model import Case, CaseFile
from pytest_tooleval.engine.loop import (
    DEFAULT_SYSTEM_PROMPT,
    CaseTimedOut,
    ToolLoop,
)
from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.models.base import BACKEND_FIX, Backend, BackendError, unimplemented
from pytest_tooleval.result import ErrorInfo
from pytest_tooleval.router.base import Router, Routing
from pytest_tooleval.tools.base import (
    PROVIDER_FIX,
    CaseContext,
    Catalogue,
    ConfigurationError,
    DuplicateToolError,
    ProviderError,
    ToolProvider,
    ToolSpec,
    call_extension,
    extension_name,
    type_name,
)
from pytest_tooleval.tools.deadline import CASE_TIMEOUT_S
from pytest_tooleval.tools.inline import InlineToolProvider
from pytest_tooleval.world.state import StateUnavailable, evaluate


def classify_error(exc: BaseException) -> ErrorInfo:
    """Every failure of a case's run, classified: none is the model's fault (ERROR, never
    FAIL)."""
    if isinstance(exc, BackendError):  # its ``kind`` names the class (ErrorInfo.detail)
        return ErrorInfo.from_exception(exc, "backend")
    if isinstance(exc, ProviderError):
        return ErrorInfo.from_exception(exc, "provider")
    if isinstance(exc, ConfigurationError | DuplicateToolError):
        return ErrorInfo.from_exception(exc, "configuration")
    if isinstance(exc, CaseTimedOut):
        return ErrorInfo.from_exception(exc, "timeout")
    return ErrorInfo.from_exception(exc, "harness")


class CannotFork(Exception):
    """This session's backend or a provider cannot serve concurrent tool loops."""


@dataclass
class CaseRun:
    """Transcripts (partial when it failed) and, for a failure of the machine, why."""

    transcripts: list[StepTranscript]
    error: ErrorInfo | None
    duration_s: float


@dataclass
class CaseRef:
    """Where a case comes from, as reported."""

    nodeid: str
    path: str
    case_file: CaseFile
    case: Case
    #: The try under --tooleval-repeat (1..K), and its seed (None: the backend's own).
    repeat: int | None = None
    seed: int | None = None


@dataclass
class ModelSession:
    """Runs cases; ``wiring.build_session`` builds the built-in one."""

    backend_factory: Any  # Callable[[], Backend]
    providers: list[ToolProvider]
    router_factory: Any  # Callable[[CaseFile], Router]
    max_steps: int = 6
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    #: The wall clocks of a tool call (None: ``tools.base.TOOL_TIMEOUT_S``) and of a case.
    tool_timeout: float | None = None
    case_timeout: float = CASE_TIMEOUT_S
    _backend: Backend | None = None
    _catalogue: Catalogue | None = None
    _inline: dict[str, InlineToolProvider] = field(default_factory=dict)
    failed_providers: dict[str, str] = field(default_factory=dict)
    _router_info: dict[str, Any] = field(default_factory=dict)
    _preflight_done: bool = False
    #: Held around routing when concurrent tool loops share this session's router.
    _router_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            factory = self.backend_factory
            if isinstance(factory, Backend):
                name = type(factory).__qualname__
                raise ConfigurationError(
                    f"the session's backend_factory is a {type(factory).__module__}.{name} "
                    f"object; pass what makes one (backend_factory={name}, not {name}())")
            missing = unimplemented(factory) if isinstance(factory, type) else ""
            if missing:
                raise ConfigurationError(
                    f"the session's backend {factory.__module__}.{factory.__qualname__} does "
                    f"not implement {missing}; add it (docs/usage.md, 'Your own model session')")
            made = factory()
            if not isinstance(made, Backend):
                raise ConfigurationError(
                    f"the session's backend_factory made a {type_name(made)}; a backend "
                    "must subclass pytest_tooleval.Backend "
                    "(which gives preflight, case_scope, fork and close their defaults)")
            self._backend = made
        return self._backend

    def describe_backend(self) -> dict[str, Any]:
        return self._backend.describe() if self._backend is not None else {}

    @property
    def catalogue(self) -> Catalogue:
        """The session-wide catalogue: every configured provider's tools."""
        if self._catalogue is None:
            working = []
            for provider in self.providers:
                try:
                    specs = call_extension(ProviderError, provider, "list_tools()",
                                           PROVIDER_FIX, provider.list_tools)
                    wrong = type(specs).__name__ if not isinstance(specs, list | tuple) else \
                        next((f"list holding a {type(s).__name__}" for s in specs
                              if not isinstance(s, ToolSpec)), None)
                    if wrong is not None:
                        raise ProviderError(
                            f"{extension_name(provider)}.list_tools() returned a {wrong}; it "
                            "must return a list of pytest_tooleval.ToolSpec")
                except ProviderError as exc:
                    # Infrastructure: its tools count as missing, and `requires` says why.
                    self.failed_providers[provider.source] = str(exc)
                    continue
                working.append(provider)
            try:
                self._catalogue = Catalogue(working)
            except DuplicateToolError as exc:
                raise ConfigurationError(str(exc)) from None
        return self._catalogue

    def add_providers(self, extra: list[ToolProvider]) -> None:
        """Providers found after the catalogue was made (the ``conftest.py`` of a folder,
        which pytest loads when it collects that folder); a name offered twice is a
        ``ConfigurationError``."""
        catalogue = self.catalogue
        self.providers += extra
        try:
            self._catalogue = catalogue.extended(extra)
        except DuplicateToolError as exc:
            raise ConfigurationError(str(exc)) from None

    def describe_providers(self) -> str:
        catalogue = self.catalogue
        counts = Counter(catalogue.source_of(name) for name in catalogue.names)
        parts = [f"{provider.source} ({counts[provider.source]} tools)"
                 for provider in catalogue.providers]
        parts += [f"{source} (failed: {why})" for source, why in self.failed_providers.items()]
        return ", ".join(parts) or "none configured"

    def describe_router(self) -> dict[str, Any]:
        return self._router_info

    def router_for(self, case_file: CaseFile, case: Case) -> Router:
        """The router of ``case``; ``describe_router`` describes the last one made."""
        factory = self.router_factory
        if isinstance(factory, Router):
            name = type(factory).__qualname__
            raise ConfigurationError(
                f"the session's router_factory is a {type(factory).__module__}.{name} object; "
                f"pass what makes one (router_factory=lambda case_file: {name}())")
        router = call_extension(ConfigurationError, factory, "router_factory()",
                                "give router_factory=lambda case_file: MyRouter()",
                                factory, case_file).for_case(case)
        self._router_info = router.describe()
        return router

    def offered_tools(self) -> set[str]:
        return set(self.catalogue.names)

    def catalogue_for(self, case_file: CaseFile, path: str) -> Catalogue:
        if not case_file.tools:
            return self.catalogue
        inline = self._inline.get(path)
        if inline is None:
            inline = self._inline[path] = InlineToolProvider(list(case_file.tools), path)
        return self.catalogue.extended([inline])

    def preflight(self) -> None:
        """Prove the set-up once, before the first case: providers started, the backend
        built and its own preflight run. Raises what the backend raises."""
        if self._preflight_done:
            return
        self.offered_tools()  # the catalogue: providers started, duplicate names refused
        backend = self.backend
        call_extension(BackendError, backend, "preflight()", BACKEND_FIX, backend.preflight)
        self._preflight_done = True

    def run(self, ref: CaseRef) -> CaseRun:
        """Run one case. A failure of the machine is returned as ``error``, with the
        transcript up to it, never raised."""
        started = time.perf_counter()
        transcripts: list[StepTranscript] = []
        error: ErrorInfo | None = None
        try:
            with self._seeded(ref.seed):
                self._run_case(ref, transcripts)
        except (KeyboardInterrupt, GeneratorExit):
            raise  # the user stops the run: pytest marks it interrupted
        except BaseException as exc:  # classified once, here: see classify_error
            if type(exc).__module__.startswith("_pytest"):
                raise  # pytest.exit() and its kin are pytest's, not a case's failure
            error = classify_error(exc)
        return CaseRun(transcripts, error, round(time.perf_counter() - started, 4))

    @contextlib.contextmanager
    def _seeded(self, seed: int | None) -> Iterator[None]:
        """The case's seed for its run only: the backend describes its own seed after."""
        if seed is None:
            yield
            return
        backend = self.backend
        previous = backend.current_seed()
        backend.reseed(seed)
        try:
            yield
        finally:
            if previous is not None:
                backend.reseed(previous)

    def _run_case(self, ref: CaseRef, transcripts: list[StepTranscript]) -> None:
        catalogue = self.catalogue_for(ref.case_file, ref.path)
        context = CaseContext(
            file_path=ref.path,
            file_name=ref.case_file.name,
            case_name=ref.case.name,
            language=ref.case_file.language,
            world=ref.case_file.world.model_dump(exclude_none=True) if ref.case_file.world
            else {},
        )
        started: list[ToolProvider] = []
        try:
            for provider in catalogue.providers:
                call_extension(ProviderError, provider, "begin_case()", PROVIDER_FIX,
                               provider.begin_case, context)
                started.append(provider)
            router = self.router_for(ref.case_file, ref.case)
            loop = ToolLoop(self.backend, catalogue, router, max_steps=self.max_steps,
                            system_prompt=self.system_prompt, tool_timeout=self.tool_timeout,
                            case_timeout=self.case_timeout)
            observe = _state_observer(ref, catalogue)
            with self.backend.case_scope():
                loop.run_case(ref.case_file, ref.case, transcripts, observe)
        finally:
            for provider in started:
                call_extension(ProviderError, provider, "end_case()", PROVIDER_FIX,
                               provider.end_case)

    def close(self) -> None:
        """Close every provider, then the backend: an extension's that raises is a warning
        naming it, and the others still close (the run's results stand)."""
        owners: list[ToolProvider | Backend] = [*self.providers]
        if self._backend is not None:
            owners.append(self._backend)
        for owner in owners:
            try:
                call_extension(ProviderError, owner, "close()", "fix it", owner.close)
            except ProviderError as exc:
                warnings.warn(f"tooleval: {exc}", RuntimeWarning, stacklevel=1)

    def fork(self) -> ModelSession:
        """A session for one more concurrent tool loop: its own backend handle and
        providers' case state, the same router behind a lock. ``CannotFork`` says why not."""
        backend = self.backend.fork()
        if backend is None:
            raise CannotFork(self.backend.no_fork_reason or (
                f"the backend {type(self.backend).__name__} serves one case at a time (its "
                "fork() gives no second handle)"))
        providers = []
        for provider in self.catalogue.providers:
            forked = provider.fork()
            if forked is None:
                raise CannotFork(
                    f"the tool provider {provider.source} serves one case at a time (its "
                    "state between cases, or its functions, are not known to be safe to "
                    "share between threads)")
            providers.append(forked)
        router_factory = _locked_router_factory(self)
        return ModelSession(
            backend_factory=lambda: backend,
            providers=providers,
            router_factory=router_factory,
            max_steps=self.max_steps,
            system_prompt=self.system_prompt,
            tool_timeout=self.tool_timeout,
            case_timeout=self.case_timeout,
            failed_providers=dict(self.failed_providers),
            _preflight_done=True,
        )


def _locked_router_factory(session: ModelSession) -> Any:
    """The router factory, its routers used under one lock: a router may build its
    indexes lazily, which is not thread-safe."""
    lock = session._router_lock
    factory = session.router_factory

    def make(case_file: CaseFile) -> Router:
        with lock:
            return _LockedRouter(factory(case_file), lock)

    return make


class _LockedRouter(Router):
    def __init__(self, inner: Router, lock: threading.Lock) -> None:
        self.inner, self.lock = inner, lock
        self.name, self.k = inner.name, inner.k

    def route(self, message: str, language: str, catalogue: list[ToolSpec],
              keep: tuple[str, ...] = ()) -> Routing:
        with self.lock:
            return self.inner.route(message, language, catalogue, keep)

    def describe(self) -> dict[str, object]:
        with self.lock:
            return self.inner.describe()

    def for_case(self, case: Any) -> Router:
        with self.lock:
            bound = self.inner.for_case(case)
        return self if bound is self.inner else _LockedRouter(bound, self.lock)


def _state_observer(ref: CaseRef, catalogue: Catalogue) -> Any:
    """The callback that runs a step's state checks on the case's world after the step."""

    def observe(index: int, transcript: StepTranscript) -> None:
        checks = ref.case.checks_after(index)
        if not checks:
            return
        worlds = (provider.world for provider in catalogue.providers)
        world = next((found for found in worlds if found is not None), None)
        if world is None:
            raise ProviderError(
                "this case checks the world's state, but no built-in world is running "
                "(the built-in catalogue is switched off)"
            )
        for check in checks:
            try:
                detail = evaluate(world, check.kind, getattr(check, check.kind),
                                  contains=check.contains, language=ref.case_file.language)
            except StateUnavailable as exc:
                raise ProviderError(f"cannot read the world's state: {exc}") from exc
            transcript.state.append(
                {"check": check.describe(), "held": detail is None, "detail": detail}
            )

    return observe

