"""The router interface: which k tools the model is shown for one user message."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from pytest_tooleval.tools.base import ConfigurationError, ToolSpec, call_extension, extension_name


@dataclass(frozen=True)
class Routing:
    """The tools shown, in order, and why each was chosen (trigger text per tool).

    ``scores``: each shown tool's router score (absent for routers that do not score).
    """

    tools: list[str]
    reasons: dict[str, list[str]] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)


#: How many tools a router shows per message (``k``), unless a run says otherwise.
SHOWN = 9


class Router(ABC):
    name: str = "router"
    k: int = SHOWN

    @abstractmethod
    def route(
        self,
        message: str,
        language: str,
        catalogue: list[ToolSpec],
        keep: tuple[str, ...] = (),
    ) -> Routing:
        """Pick exactly ``k`` tools (fewer only when the catalogue is smaller).

        ``keep``: tools that ran in the previous step of the same conversation; they take
        the lowest-scored places so that a follow-up can still be served.
        """

    def describe(self) -> dict[str, object]:
        return {"router": self.name, "k": self.k}

    def for_case(self, case: Any) -> Router:
        """The router for one case (the tool loop asks before its first step). Routers that
        need the case itself, as the oracle ablation does, return a bound copy."""
        return self


def routed(router: Router, message: str, language: str, catalogue: list[ToolSpec],
           keep: tuple[str, ...] = ()) -> Routing:
    """``router.route``, held to its contract: a session's own router that raises, or
    returns other than a ``Routing`` of names from ``catalogue``, is a
    ``ConfigurationError`` naming its class (never the model's failure, nor the harness')."""
    routing = call_extension(ConfigurationError, router, "route()", "fix the router",
                             router.route, message, language, catalogue, keep)
    names = {spec.name for spec in catalogue}
    if not (isinstance(routing, Routing) and isinstance(routing.tools, list)
            and all(isinstance(name, str) and name in names for name in routing.tools)):
        raise ConfigurationError(
            f"{extension_name(router) or type(router).__qualname__}.route() returned "
            f"{routing!r:.200}; it must return a pytest_tooleval.Routing(tools=[...]) of names "
            "of the catalogue it is given")
    return routing


class Remembered(Router):
    """A deterministic router whose routings are kept: a run routes each case's first step
    twice (the order of cases, then the loop) and the baselines route every step again.
    The key is what the trigger router reads (the message, the language, the kept tools,
    each spec's ``name``, ``description`` (its cues) and ``stands_for``); each caller gets
    its own copy."""

    #: Forgotten all at once past this many: a process that runs many selections.
    LIMIT = 20_000

    def __init__(self, inner: Router) -> None:
        self.inner = inner
        self.name, self.k = inner.name, inner.k
        self._seen: dict[tuple[Any, ...], Routing] = {}

    def route(self, message: str, language: str, catalogue: list[ToolSpec],
              keep: tuple[str, ...] = ()) -> Routing:
        key = (message, language, keep,
               tuple((spec.name, spec.description, spec.stands_for) for spec in catalogue))
        routing = self._seen.get(key)
        if routing is None:
            if len(self._seen) >= self.LIMIT:
                self._seen.clear()
            routing = self._seen[key] = self.inner.route(message, language, catalogue, keep)
        return Routing(list(routing.tools), {name: list(why) for name, why in
                                             routing.reasons.items()}, dict(routing.scores))

    def describe(self) -> dict[str, object]:
        return self.inner.describe()


def make_room(tools: list[str], wanted: list[str]) -> list[str]:
    """``tools`` with each of ``wanted`` (no repeats) that is missing in the place of the
    lowest-ranked tool not wanted; the order otherwise stays. More wanted than places: all
    of them are shown."""
    missing = [tool for tool in wanted if tool not in tools]
    if not missing:
        return tools
    others = [tool for tool in tools if tool not in wanted]
    stay = set(others[: max(len(tools), len(wanted)) - len(wanted)])
    return [tool for tool in tools if tool in wanted or tool in stay] + missing
