"""The plugin's own hooks, registered with ``pytest_addhooks``. Implement them in a
``conftest.py`` or a plugin.

- ``pytest_tooleval_make_session``: make the run's one model session (your own backend,
  providers or router). The first non-None result wins; without one, the built-in wiring
  from the settings and the ``--model`` profile is used. Called once per process (so once
  per xdist worker), when the session is first needed.
- ``pytest_tooleval_run_metadata``: add to (or change) the run's metadata before the report
  is written, on the controller.
"""

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
    """Return the ``ModelSession`` that runs every case of this process, or None to use
    the built-in one. It must be a ``pytest_tooleval.ModelSession``. (A backend kind of
    one's own needs no hook: an entry point in the group ``pytest_tooleval.backends``,
    ``models/registry.py``.)"""


def pytest_tooleval_run_metadata(config: pytest.Config, metadata: dict[str, Any]) -> None:
    """Called on the controller with the run's metadata dict (``report.json``'s ``run``)
    before the reports are written; change it in place."""
