"""What the router test files share: the built-in catalogue, the routers they route with,
the small functions that read a routing, and one job's register messages.

A plain module (imported as ``tests.router.routing``), not a fixture: the test files use
these names at import time, in ``parametrize`` lists and Hypothesis strategies."""

from __future__ import annotations

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.tools.base import ToolSpec

CATALOGUE = list(builtin_specs())  # shared: a test that changes it works on a copy
CATALOGUE_NAMES = [spec.name for spec in CATALOGUE]

ROUTER = TriggerRouter()  # k = 9, every mechanism on
PLAIN = TriggerRouter(9, lexical=False)  # no learned cue: the rule alone
TRIGGERS_ONLY = TriggerRouter(lexical=False, fuzzy=False)  # the triggers alone


def shown(
    message: str,
    language: str = "tr",
    catalogue: list[ToolSpec] | None = None,
    k: int = 9,
    *,
    fresh: bool = False,
) -> list[str]:
    """The tools shown for ``message``: by ROUTER, or by ``TriggerRouter(k)`` for another
    k or, with ``fresh``, by a router of its own built for this call."""
    router = ROUTER if k == 9 and not fresh else TriggerRouter(k)
    return router.route(message, language, catalogue or CATALOGUE).tools


def fired(message: str, language: str = "tr") -> dict[str, list[str]]:
    """Tools with a positive score, with their reasons (the filler is not a reason)."""
    scores, reasons = ROUTER.score(message, language, CATALOGUE)
    return {tool: reasons[tool] for tool, score in scores.items() if score > 0}


def reasons(
    message: str, language: str, *, fresh: bool = False, **options: object
) -> dict[str, list[str]]:
    """Every tool's reasons: ROUTER's, or, with ``fresh`` or any ``options``, those of a
    router of its own built for this call, ``TriggerRouter(9, **options)``."""
    router = TriggerRouter(9, **options) if fresh or options else ROUTER  # type: ignore[arg-type]
    return router.score(message, language, CATALOGUE)[1]


def signal(message: str, language: str, tool: str) -> list[str]:
    """The reasons ``tool`` was shown for, fillers left out (empty: not shown by a signal)."""
    routing = PLAIN.route(message, language, CATALOGUE)
    return [r for r in routing.reasons.get(tool, []) if not r.startswith("filler")]


def plain_reasons(message: str, language: str, tool: str) -> list[str]:
    """The reasons ``tool`` scored for, the learned cue off."""
    _scores, why = PLAIN.score(message, language, CATALOGUE)
    return why.get(tool, [])


# One job's Turkish registers, written out (routed in test_router_registers.py and timed in
# test_router_fast_paths.py).
REGISTERS = {
    "formal": "Sayın asistan, bu ayki elektrik faturamın tutarını öğrenebilir miyim?",
    "whatsapp": "fatura ne kdr gelmiş",
    "elderly": "evladım şu elektrik faturası ne kadar gelmiş bir bakıver",
    "anatolian": "ula bu elektrik faturasi ne kadar gelmiş",
    "no-turkish-letters": "elektrik faturami ne kadar gelmis",
    "caps": "ELEKTRİK FATURAMI NE KADAR GELMİŞ",
    "emoji": "🧾 ne kadar gelmiş ⚡",
}
