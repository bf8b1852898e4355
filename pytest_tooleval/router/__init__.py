"""The router: which k tools the model is shown for one user message (docs/router.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_tooleval.router.base import SHOWN, Router, Routing

if TYPE_CHECKING:
    from pytest_tooleval.router.trigger_router import TriggerRouter

__all__ = ["Router", "Routing", "TriggerRouter", "default_router"]


def default_router(k: int = SHOWN, **options: Any) -> TriggerRouter:
    """The router the tool loop and ``tooleval check`` use."""
    from pytest_tooleval.router.trigger_router import TriggerRouter

    return TriggerRouter(k, **options)


def __getattr__(name: str) -> Any:
    # Lazy: importing the package must not load the trigger tables.
    if name == "TriggerRouter":
        from pytest_tooleval.router.trigger_router import TriggerRouter

        return TriggerRouter
    raise AttributeError(name)
