"""Routing ablations (``--tooleval-router``): the same run with routing taken out of the way.

- ``oracle``: each step's expected tools (its ``gold`` tools where the step has a gold path)
  are forced into the k shown; the remaining places go to the normal router's ranking.
- ``all``: every offered tool is shown, whatever k says.

Paired with a normal run (``tooleval compare``), a case that fails normally and passes under
an ablation fails because of routing, not because of the model (docs/router.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pytest_tooleval.router import default_router
from pytest_tooleval.router.base import SHOWN, Router, Routing, make_room
from pytest_tooleval.tools.base import ToolSpec

MODES = ("triggers", "oracle", "all")
FORCED = "oracle: the step's expected tool"


def step_tools(step: Any) -> list[str]:
    """The tools a step must see: its gold path's tools when it has one, else every tool
    its routes expect."""
    gold = [call.tool for call in step.gold or ()]
    return list(dict.fromkeys(gold or step.expected_tools))


class AllRouter(Router):
    """Every tool of the catalogue, in catalogue order."""

    name = "all"

    def __init__(self, k: int = SHOWN) -> None:
        self.k = k

    def route(
        self,
        message: str,
        language: str,
        catalogue: list[ToolSpec],
        keep: tuple[str, ...] = (),
    ) -> Routing:
        names = list(dict.fromkeys(spec.name for spec in catalogue))
        return Routing(names, {name: ["all: every offered tool"] for name in names})

    def describe(self) -> dict[str, object]:
        return {"router": self.name, "mode": "all", "k": "all"}


class OracleRouter(Router):
    """The base router's ranking with each step's expected tools forced into the k.

    ``for_case`` binds it to a case: its steps' messages, in order, tell which tools to force.
    A message that is not one of the case's steps is routed as the base router routes it.
    """

    name = "oracle"

    def __init__(self, base: Router, forced: Sequence[tuple[str, Sequence[str]]] = ()) -> None:
        self.base = base
        self.k = base.k
        self._forced = [(message, list(tools)) for message, tools in forced]

    def for_case(self, case: Any) -> Router:
        return OracleRouter(self.base, [(s.message, step_tools(s)) for s in case.steps])

    def _tools_for(self, message: str) -> list[str]:
        for index, (text, tools) in enumerate(self._forced):
            if text == message:
                del self._forced[index]  # a repeated message takes the next step's tools
                return tools
        return []

    def route(
        self,
        message: str,
        language: str,
        catalogue: list[ToolSpec],
        keep: tuple[str, ...] = (),
    ) -> Routing:
        routing = self.base.route(message, language, catalogue, keep)
        names = {spec.name for spec in catalogue}
        forced = [tool for tool in self._tools_for(message) if tool in names]
        return force(routing, forced)

    def describe(self) -> dict[str, object]:
        return {**self.base.describe(), "router": self.name, "mode": "oracle",
                "base": self.base.name}


def force(routing: Routing, forced: Iterable[str]) -> Routing:
    """``routing`` with ``forced`` tools in it (``make_room``), each one added saying so."""
    tools = make_room(routing.tools, list(dict.fromkeys(forced)))
    if tools is routing.tools:
        return routing
    reasons = {t: list(routing.reasons.get(t, [])) if t in routing.tools else [FORCED]
               for t in tools}
    return Routing(tools, reasons, {t: routing.scores[t] for t in tools if t in routing.scores})


def make_router(mode: str, k: int = SHOWN) -> Router:
    """The router of a run: ``triggers`` (normal), or one of the ablations around it."""
    if mode not in MODES:
        raise ValueError(f"unknown router mode {mode!r}; use one of {', '.join(MODES)}")
    if mode == "all":
        return AllRouter(k)

    router = default_router(k)
    return OracleRouter(router) if mode == "oracle" else router
