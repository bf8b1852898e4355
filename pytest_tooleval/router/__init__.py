"""The router: which k tools the model is shown for one user message (docs/router.md)."""

from __future__ import annotations

import functools
from typing import Any

from pytest_tooleval.router.base import SHOWN, Remembered, Router, Routing

__all__ = ["Router", "Routing", "default_router"]


def default_router(k: int = SHOWN, **options: Any) -> Router:
    """The router the tool loop, the baselines and ``tooleval check`` use. Without
    ``options``, one per ``k`` in a process, remembering its routings (``Remembered``)."""
    # Imported here: importing the package must not load the trigger tables.
    from pytest_tooleval.router.trigger_router import TriggerRouter

    return TriggerRouter(k, **options) if options else _shared(k)


@functools.cache
def _shared(k: int) -> Router:
    from pytest_tooleval.router.trigger_router import TriggerRouter

    return Remembered(TriggerRouter(k))
