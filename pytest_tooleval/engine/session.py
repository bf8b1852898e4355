"""The model session: one per pytest process (one per xdist worker).

It owns the backend, the tool providers and the router, runs one case at a time through
the tool loop and returns the case's result as plain data. Everything heavy is built on
first use, so collecting (``--collect-only``) never contacts a model server.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.model import Case, CaseFile
from pytest_tooleval.engine.loop import DEFAULT_SYSTEM_PROMPT, LoopSettings, ToolLoop
from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.models.base import Backend, BackendUnavailable
from pytest_tooleval.scoring.outcome import Outcome, axis_values, case_outcome, check_step
from pytest_tooleval.tools.base import (
    CaseContext,
    Catalogue,
    ConfigurationError,
    DuplicateToolError,
    ProviderError,
    ToolProvider,
)
from pytest_tooleval.tools.inline import InlineToolProvider


class InfrastructureError(Exception):
    """The machine failed, not the model: the case is an ERROR."""


@dataclass
class CaseRef:
    """Where a case comes from, as reported."""

    nodeid: str
    path: str
    case_file: CaseFile
    case: Case


@dataclass
class ModelSession:
    """Runs cases. Build it with ``build_session`` (or your own, in a conftest fixture)."""

    backend_factory: Any  # Callable[[], Backend]
    providers: list[ToolProvider]
    router_factory: Any  # Callable[[CaseFile], Router]
    max_steps: int = 6
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    consecutive_errors: int = 0
    _backend: Backend | None = None
    _catalogue: Catalogue | None = None
    _inline: dict[str, InlineToolProvider] = field(default_factory=dict)
    failed_providers: dict[str, str] = field(default_factory=dict)
    _router_info: dict[str, Any] = field(default_factory=dict)

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = self.backend_factory()
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
                    provider.list_tools()
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

    def describe_providers(self) -> str:
        catalogue = self.catalogue
        parts = []
        for provider in catalogue.providers:
            count = sum(
                1 for name in catalogue.names if catalogue.source_of(name) == provider.source
            )
            parts.append(f"{provider.source} ({count} tools)")
        parts += [f"{source} (failed: {why})" for source, why in self.failed_providers.items()]
        return ", ".join(parts) or "none configured"

    def describe_router(self) -> dict[str, Any]:
        return self._router_info

    def offered_tools(self) -> set[str]:
        return set(self.catalogue.names)

    def catalogue_for(self, case_file: CaseFile, path: str) -> Catalogue:
        if not case_file.tools:
            return self.catalogue
        inline = self._inline.get(path)
        if inline is None:
            inline = self._inline[path] = InlineToolProvider(list(case_file.tools), path)
        return self.catalogue.extended([inline])

    def run(self, ref: CaseRef) -> dict[str, Any]:
        started = time.perf_counter()
        result: dict[str, Any] = {
            "nodeid": ref.nodeid,
            "file": ref.path,
            "file_name": ref.case_file.name,
            "case": ref.case.name,
            "category": ref.case.category,
            "group": ref.case.group,
            "register": ref.case.register,
            "language": ref.case_file.language,
            "marks": sorted({*ref.case_file.marks, *ref.case.marks}),
            "messages": [step.message for step in ref.case.steps],
        }
        transcripts: list[StepTranscript] = []
        try:
            transcripts = self._run_case(ref)
        except (BackendUnavailable, ProviderError, InfrastructureError,
                DuplicateToolError) as exc:
            self.consecutive_errors += 1
            result.update(outcome=Outcome.ERROR.value, error=str(exc), reasons=[str(exc)],
                          axes={}, steps=[], transcript=[t.to_dict() for t in transcripts])
        else:
            self.consecutive_errors = 0
            steps = [check_step(s, t) for s, t in zip(ref.case.steps, transcripts, strict=True)]
            outcome, reasons = case_outcome(ref.case, steps)
            result.update(outcome=outcome.value, error=None, reasons=reasons,
                          axes=axis_values(ref.case, steps), steps=steps,
                          transcript=[t.to_dict() for t in transcripts])
        result["duration_s"] = round(time.perf_counter() - started, 4)
        return result

    def _run_case(self, ref: CaseRef) -> list[StepTranscript]:
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
                provider.begin_case(context)
                started.append(provider)
            router = self.router_factory(ref.case_file).for_case(ref.case)
            self._router_info = router.describe()
            loop = ToolLoop(
                self.backend,
                catalogue,
                router,
                LoopSettings(max_steps=self.max_steps, system_prompt=self.system_prompt),
            )
            return loop.run_case(ref.case_file, ref.case)
        finally:
            for provider in started:
                provider.end_case()

    def close(self) -> None:
        for provider in self.providers:
            provider.close()
        if self._backend is not None:
            self._backend.close()


def resolve_path(rootdir: Path, path: str) -> str:
    try:
        return Path(path).resolve().relative_to(rootdir.resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()
