"""Router recall read back from a run: did the model see the tools each step needed?

A step counts when it expects a tool (errors and tool-free steps do not); it is routed when
every tool of one of its accepted routes was among the tools shown. Shown beside the
model's scores per register (and group, language), so a low score can be told apart from a
router miss (docs/router.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_tooleval.result import CaseResult


def routed_share(results: Iterable[CaseResult]) -> dict[str, Any]:
    """Router recall over cases: ``{"routed", "steps", "recall"}`` (recall None if no step)."""
    routed = steps = 0
    for result in results:
        for step in () if result.is_error else result.steps:
            checks = step.checks
            if checks is None or not checks.expect:
                continue
            shown = set(step.transcript.shown)
            steps += 1
            routed += any(set(route) <= shown for route in checks.routes or [checks.expect])
    return {"routed": routed, "steps": steps, "recall": routed / steps if steps else None}
