"""Baselines: what scripted policies (``POLICIES``, no model) score on the same selection,
through the same loop and scorer. A model that does not beat the best is NOT DEPLOYABLE.

They run on the built-in world, as the model did, and never change it: side-effecting
calls are refused (``_ReadOnly``).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import CaseFile
from pytest_tooleval.engine.session import CaseRef, ModelSession
from pytest_tooleval.models.base import Backend, Message, ModelTurn, RawCall
from pytest_tooleval.result import CaseResult
from pytest_tooleval.router import default_router
from pytest_tooleval.router.base import SHOWN, Router, Routing
from pytest_tooleval.run.score import score_run
from pytest_tooleval.scoring.aggregate import axes_of, outcome_counts, score_of
from pytest_tooleval.tools.base import CaseContext, ToolProvider, ToolResult, ToolSpec
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS
from pytest_tooleval.world.factory import WorldFactory

log = logging.getLogger(__name__)

POLICIES: dict[str, str] = {
    "never-call": "never calls a tool; answers with nothing",
    "top-routed": "calls the top-routed tool with empty arguments; answers with nothing",
    "echo": "never calls a tool; answers by echoing the question",
}


class PolicyBackend(Backend):
    """One scripted policy (see ``POLICIES``)."""

    mode = "baseline"

    def __init__(self, policy: str) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown baseline policy {policy!r}")
        self.policy = policy
        #: The tools the router showed for the current step, best first (``_Shown``).
        self.shown: list[str] = []

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        last = messages[-1]
        if self.policy == "echo":
            question = next((str(m.get("content") or "") for m in reversed(messages)
                             if m["role"] == "user"), "")
            return ModelTurn(question, finish_reason="stop")
        if self.policy == "top-routed" and last["role"] == "user" and self.shown:
            return ModelTurn("", calls=[RawCall(self.shown[0], "{}", call_id="baseline_0")],
                             finish_reason="tool_calls")
        return ModelTurn("", finish_reason="stop")

    def describe(self) -> dict[str, Any]:
        return {"backend": f"baseline:{self.policy}", "grammar": self.mode}


class _Shown(Router):
    """The run's router, telling a policy what it showed for each step: the top-routed
    policy calls the router's own first pick, with no second routing."""

    def __init__(self, inner: Router, backend: PolicyBackend) -> None:
        self.inner, self.backend = inner, backend
        self.name, self.k = inner.name, inner.k

    def route(self, message: str, language: str, catalogue: list[ToolSpec],
              keep: tuple[str, ...] = ()) -> Routing:
        routing = self.inner.route(message, language, catalogue, keep)
        self.backend.shown = list(routing.tools)
        return routing

    def for_case(self, case: Any) -> Router:
        bound = self.inner.for_case(case)
        return self if bound is self.inner else _Shown(bound, self.backend)

    def describe(self) -> dict[str, object]:
        return self.inner.describe()


class _ReadOnly(BuiltinToolProvider):
    """The built-in provider, refusing side-effecting calls: no baseline changes the world."""

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if name in SIDE_EFFECTING_BUILTINS:
            return ToolResult.error("a baseline does not run side-effecting tools")
        return super().call(name, arguments)


class _SharedWorlds:
    """One world per distinct set of file overrides, shared by every case that uses it."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.factory = WorldFactory(base)
        self.worlds: dict[str, Any] = {}

    def shared(self, context: CaseContext) -> Any:
        """The template for a case without overrides (None: it has its own world)."""
        return None if context.world else self.world_for_case(context)

    def world_for_case(self, context: CaseContext) -> Any:
        key = json.dumps(context.world or {}, sort_keys=True)
        if key in self.worlds:
            return self.worlds[key]
        if not context.world:
            world = self.factory.template()
        else:
            destination = Path(tempfile.mkdtemp(prefix="baseline-", dir=self.base))
            world = self.factory.new_case_world(destination / "world", context.world)
        self.worlds[key] = world
        return world


class BaselineScorer:
    """Runs the policies case by case: each policy has one session for the whole run and
    sees the cases one at a time, in the run's order (``table``)."""

    def __init__(self, *, k: int = SHOWN, builtin: bool = True, world_base: Path | None = None,
                 policies: Iterable[str] = POLICIES) -> None:
        router = default_router(k)  # shared with the run: its routings are remembered
        self.policies = list(policies)
        self._backends = [PolicyBackend(policy) for policy in self.policies]
        self._providers: list[ToolProvider] = []
        self._scratch: Path | None = None
        if builtin:
            if world_base is None:
                world_base = self._scratch = Path(tempfile.mkdtemp(prefix="tooleval-baselines-"))
            worlds = _SharedWorlds(world_base)
            # Copy on write as in a run: a case whose tools never touch the world (the
            # calculator) builds none, and reading tools read the shared template.
            self._providers.append(_ReadOnly(worlds.world_for_case, shared_world=worlds.shared))
        self._sessions = []
        for backend in self._backends:
            shown = _Shown(router, backend)
            self._sessions.append(ModelSession(backend_factory=lambda b=backend: b,
                                               providers=self._providers,
                                               router_factory=lambda case_file, r=shown: r))

    def score(self, ref: Any) -> dict[str, CaseResult | None]:
        """Every policy's result on this case (``CaseRef``); None for an ERROR."""
        outcomes: dict[str, CaseResult | None] = {}
        for backend, session in zip(self._backends, self._sessions, strict=True):
            result = score_run(ref, session.run(ref))
            # What the table sums up; the transcripts are not kept (a large run's memory).
            outcomes[backend.policy] = None if result.is_error else \
                result.model_copy(update={"steps": []})
        return outcomes

    def table(self, refs: Iterable[Any]) -> dict[str, dict[str, Any]]:
        """Each policy's score, axes and outcomes over ``refs``, in their order."""
        done = [self.score(ref) for ref in refs]
        table: dict[str, dict[str, Any]] = {}
        for policy in self.policies:
            tried = [outcomes[policy] for outcomes in done]
            results = [result for result in tried if result is not None]
            axes = axes_of(results)
            table[policy] = {
                "policy": POLICIES[policy],
                "score": score_of(axes),
                "axes": {axis: v.value for axis, v in axes.items()},
                "outcomes": outcome_counts(results),
                "cases": len(results),
                "errors": len(done) - len(results),
            }
        return table

    def close(self) -> None:
        for provider in self._providers:
            provider.close()
        self._providers = []
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


def score_policies(
    refs: Iterable[Any], *, k: int = SHOWN, builtin: bool = True,
    world_base: Path | None = None, policies: Iterable[str] = POLICIES,
) -> dict[str, dict[str, Any]]:
    """Each policy's score, axes and outcomes over ``refs`` (``CaseRef``s)."""
    scorer = BaselineScorer(k=k, builtin=builtin, world_base=world_base, policies=policies)
    try:
        return scorer.table(refs)
    finally:
        scorer.close()


def refs_for_results(results: Iterable[CaseResult], rootdir: Path,
                     loaded: Mapping[Path, CaseFile] | None = None) -> list[Any]:
    """Case references for the scored cases of a run, one per case (not per try): from
    ``loaded`` (case files this process read, by resolved path), else re-read from their
    files."""
    files: dict[str, CaseFile | None] = {}
    refs = []
    seen: set[str] = set()
    for result in results:
        # A case once, however many tries it had: the policies are scripted.
        if not result.scored or not result.file or result.case_key in seen:
            continue
        seen.add(result.case_key)
        file = result.file
        if file not in files:
            path = Path(file)
            path = (path if path.is_absolute() else rootdir / path).resolve()
            try:
                files[file] = (loaded or {}).get(path) or load_case_file(path)
            except (CaseFileError, OSError) as exc:
                log.warning("baselines: cannot reload %s: %s", path, exc)
                files[file] = None
        case_file = files[file]
        case = next((c for c in case_file.cases if c.name == result.case), None) \
            if case_file else None
        if case_file is not None and case is not None:
            refs.append(CaseRef(result.nodeid, file, case_file, case))
    return refs
