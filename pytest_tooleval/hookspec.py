"""The plugin's own hooks; implement them in a ``conftest.py`` or a plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_tooleval.config import Settings
    from pytest_tooleval.engine.session import ModelSession
    from pytest_tooleval.models.profiles import Profile


@pytest.hookspec(firstresult=True)
def pytest_tooleval_make_session(
    config: pytest.Config, settings: Settings, profile: Profile
) -> ModelSession | None:
    """Return the ``pytest_tooleval.ModelSession`` that runs every case of this process
    (called once, when first needed), or None for the built-in one."""


def pytest_tooleval_run_metadata(config: pytest.Config, metadata: dict[str, Any]) -> None:
    """Called on the controller with the run's metadata dict (``report.json``'s ``run``)
    before the reports are written; change it in place."""
