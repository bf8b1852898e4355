"""The router interface: which k tools the model is shown for one user message."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from pytest_tooleval.tools.base import ToolSpec


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
