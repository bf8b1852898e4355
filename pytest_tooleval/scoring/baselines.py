"""Baselines: what trivial policies score on the same selection, through the same loop and
scorer. A model that does not beat the best of them is NOT DEPLOYABLE.

Three scripted backends, no model, so they cost seconds:

- ``never-call``: never calls a tool; answers with nothing;
- ``top-routed``: calls the router's top-ranked tool with empty arguments once per step,
  then answers with nothing;
- ``echo``: never calls a tool; answers with the user's own message.

They run on the built-in world (and the files' inline tools), as the model did. None of
them changes the world: only ``top-routed`` calls tools, with empty arguments, and every
side-effecting built-in requires arguments, so its call fails the schema and never runs
(a provider wrapper refuses side-effecting calls anyway).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import CaseFile
from pytest_tooleval.engine.session import CaseRef, ModelSession
from pytest_tooleval.models.base import Backend, Message, ModelTurn, RawCall
from pytest_tooleval.result import CaseResult
from pytest_tooleval.router import default_router
from pytest_tooleval.router.base import SHOWN, Routing
from pytest_tooleval.run.score import score_run
from pytest_tooleval.scoring.aggregate import axes_of, outcome_counts, score_of
from pytest_tooleval.tools.base import CaseContext, ToolProvider, ToolResult, ToolSpec
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS
from pytest_tooleval.world import WorldFactory

log = logging.getLogger(__name__)

POLICIES: dict[str, str] = {
    "never-call": "never calls a tool; answers with nothing",
    "top-routed": "calls the top-routed tool with empty arguments; answers with nothing",
    "echo": "never calls a tool; answers by echoing the question",
}


class PolicyBackend(Backend):
    """One scripted policy (see ``POLICIES``)."""

    mode = "baseline"

    def __init__(self, policy: str, rank: Callable[[str, str, list[ToolSpec]], list[str]]):
        if policy not in POLICIES:
            raise ValueError(f"unknown baseline policy {policy!r}")
        self.policy = policy
        self.rank = rank
        self.language = "en"

    def prepare(self, case_file: CaseFile) -> None:
        self.language = case_file.language

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        last = messages[-1]
        question = next((str(m.get("content") or "") for m in reversed(messages)
                         if m["role"] == "user"), "")
        if self.policy == "echo":
            return ModelTurn(question, finish_reason="stop")
        if self.policy == "top-routed" and last["role"] == "user" and tools:
            ranked = self.rank(question, self.language, tools)
            if ranked:
                return ModelTurn("", calls=[RawCall(ranked[0], "{}", call_id="baseline_0")],
                                 finish_reason="tool_calls")
        return ModelTurn("", finish_reason="stop")

    def describe(self) -> dict[str, Any]:
        return {"backend": f"baseline:{self.policy}", "grammar": self.mode}


class _ReadOnly(ToolProvider):
    """Wraps the built-in provider so that no baseline call can change the shared world."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.source = inner.source

    @property
    def world(self) -> Any:
        return self.inner.world

    def list_tools(self) -> list[ToolSpec]:
        return self.inner.list_tools()

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        if name in SIDE_EFFECTING_BUILTINS:
            return ToolResult.error("a baseline does not run side-effecting tools")
        return self.inner.call(name, arguments)

    def begin_case(self, context: CaseContext) -> None:
        self.inner.begin_case(context)

    def end_case(self) -> None:
        self.inner.end_case()

    def close(self) -> None:
        self.inner.close()


class _RoutingMemo:
    """The built-in router, remembering each (message, language, catalogue) it ranked: every
    policy routes the same steps, and routing was most of the baselines' time (0.56 of 0.80 s
    for 300 cases). That router is deterministic and reads only each spec's ``name`` and
    ``stands_for``, so a remembered routing is the routing; each caller gets its own copy."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "router")
        self._seen: dict[tuple[Any, ...], Any] = {}

    def route(self, message: str, language: str, catalogue: list[ToolSpec],
              keep: tuple[str, ...] = ()) -> Any:
        key = (message, language, tuple(keep),
               tuple((spec.name, spec.stands_for) for spec in catalogue))
        routing = self._seen.get(key)
        if routing is None:
            routing = self._seen[key] = self.inner.route(message, language, catalogue, keep)
        return Routing(list(routing.tools), {name: list(why) for name, why in
                                             routing.reasons.items()}, dict(routing.scores))

    def for_case(self, case: Any) -> Any:
        inner = self.inner.for_case(case)
        return self if inner is self.inner else _RoutingMemo(inner)

    def __getattr__(self, name: str) -> Any:  # describe() and the like
        return getattr(self.inner, name)


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
        if key not in self.worlds:
            if not context.world:
                self.worlds[key] = self.factory.template()
            else:
                destination = Path(tempfile.mkdtemp(prefix="baseline-", dir=self.base))
                self.worlds[key] = self.factory.new_case_world(destination / "world",
                                                               context.world)
        return self.worlds[key]


class BaselineScorer:
    """Runs the policies case by case: each policy has one session for the whole run and
    sees the cases one at a time, in the run's order (``table``)."""

    def __init__(self, *, k: int = SHOWN, builtin: bool = True, world_base: Path | None = None,
                 policies: Iterable[str] = POLICIES) -> None:
        for policy in policies:
            if policy not in POLICIES:
                raise ValueError(f"unknown baseline policy {policy!r}")
        self.k = k
        self.builtin = builtin
        self.world_base = world_base
        self.policies = list(policies)
        self._sessions: list[tuple[str, PolicyBackend, Any]] | None = None
        self._providers: list[ToolProvider] = []
        self._scratch: Path | None = None

    def _setup(self) -> list[tuple[str, PolicyBackend, Any]]:
        if self._sessions is None:
            router = _RoutingMemo(default_router(self.k))

            def rank(message: str, language: str, tools: list[ToolSpec]) -> list[str]:
                return list(router.route(message, language, tools).tools)

            if self.builtin:
                if self.world_base is None:
                    self._scratch = Path(tempfile.mkdtemp(prefix="tooleval-baselines-"))
                worlds = _SharedWorlds(self.world_base or self._scratch)  # type: ignore[arg-type]
                # Copy on write as in a run: a case whose tools never touch the world (the
                # calculator) builds none, and reading tools read the shared template.
                self._providers.append(_ReadOnly(BuiltinToolProvider(
                    worlds.world_for_case, shared_world=worlds.shared)))
            sessions = []
            for policy in self.policies:
                backend = PolicyBackend(policy, rank)
                sessions.append((policy, backend, ModelSession(
                    backend_factory=lambda b=backend: b, providers=self._providers,
                    router_factory=lambda case_file: router)))
            self._sessions = sessions
        return self._sessions

    def score(self, ref: Any) -> dict[str, CaseResult | None]:
        """Every policy's result on this case (``CaseRef``); None for an ERROR."""
        outcomes: dict[str, CaseResult | None] = {}
        for policy, backend, session in self._setup():
            backend.prepare(ref.case_file)
            run = session.run(ref)
            if run.error is not None:
                outcomes[policy] = None
                continue
            # What the table sums up; the transcripts are not kept (a large run's memory).
            outcomes[policy] = score_run(ref, run).model_copy(update={"steps": []})
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
                "axes": {axis: v["value"] for axis, v in axes.items()},
                "outcomes": outcome_counts(results),
                "cases": len(results),
                "errors": len(tried) - len(results),
            }
        return table

    def close(self) -> None:
        for provider in self._providers:
            provider.close()
        self._providers = []
        self._sessions = None
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


def refs_for_results(results: Iterable[CaseResult], rootdir: Path) -> list[Any]:
    """Case references for the scored cases of a run, re-read from their files (each read
    once)."""
    files: dict[str, CaseFile | None] = {}
    refs = []
    for result in results:
        if not result.scored or not result.file:
            continue
        file = result.file
        if file not in files:
            path = Path(file)
            path = path if path.is_absolute() else rootdir / path
            try:
                files[file] = load_case_file(path)
            except (CaseFileError, OSError) as exc:
                log.warning("baselines: cannot reload %s: %s", path, exc)
                files[file] = None
        case_file = files[file]
        case = next((c for c in case_file.cases if c.name == result.case), None) \
            if case_file else None
        if case_file is not None and case is not None:
            refs.append(CaseRef(result.nodeid, file, case_file, case))
    return refs
