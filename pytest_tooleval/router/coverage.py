"""Router recall read back from a run: did the model see the tools each step needed?

A step counts when it expects a tool; it is routed when every tool of one of its accepted
routes was among the tools shown. Shown beside the model's scores per register (and group,
language), so a low score can be told apart from a router miss (docs/router.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_tooleval.result import CaseResult


def routed_steps(result: CaseResult) -> tuple[int, int]:
    """(routed, counted) steps of one case; errors and tool-free steps do not count."""
    if result.is_error:
        return 0, 0
    routed = counted = 0
    for step in result.steps:
        checks = step.checks
        if checks is None or not checks.expect:
            continue
        routes = checks.routes or [checks.expect]
        shown = set(step.transcript.shown)
        counted += 1
        routed += any(set(route) <= shown for route in routes)
    return routed, counted


def routed_share(results: Iterable[CaseResult]) -> dict[str, Any]:
    """Router recall over cases: ``{"routed", "steps", "recall"}`` (recall None if no step)."""
    routed = steps = 0
    for result in results:
        hit, counted = routed_steps(result)
        routed += hit
        steps += counted
    return {"routed": routed, "steps": steps, "recall": routed / steps if steps else None}
