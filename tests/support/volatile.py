"""What differs between two runs of the same cases, removed before reports are compared."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

#: Timings, the server's address, how the run was started and how many lanes ran it.
TIMING_AND_LANES = frozenset({
    "latency_s", "duration_s", "started", "finished", "latency_p50_s", "latency_p95_s",
    "base_url", "command_line", "concurrency", "replicas", "elapsed_s"})


def without(value: Any, keys: Collection[str] = TIMING_AND_LANES) -> Any:
    """``value`` (a report or a part of one) with ``keys`` dropped at every depth."""
    if isinstance(value, dict):
        return {k: without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [without(v, keys) for v in value]
    return value
