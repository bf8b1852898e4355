"""The run pipeline. Only the keys live here, so that loading the plugin stays light."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_tooleval.run.runtime import Runtime

#: workeroutput key: what a worker's session ran with (``Runtime.info``).
WORKER_INFO_KEY = "tooleval_run"
#: workerinput keys: the world base folder, and the node ids a resumed run skips.
WORLD_BASE_KEY = "tooleval_world_base"
RESUMED_KEY = "tooleval_resumed"

RUNTIME_KEY = pytest.StashKey["Runtime"]()


def runtime_of(config: pytest.Config) -> Runtime:
    return config.stash[RUNTIME_KEY]


def collection_cut_short() -> bool:
    """In ``pytest_collection_finish``, which pytest calls from a ``finally``: Ctrl-C (or
    SIGTERM) stopped the collection, so its items are a part of the selection."""
    return isinstance(sys.exception(), KeyboardInterrupt)
