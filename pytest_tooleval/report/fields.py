"""Reading optional report fields that other parts of the project may or may not write.

Intervals come from the statistics work; a report without them is still read everywhere.
An interval is accepted as ``[low, high]``, ``{"low": .., "high": ..}`` or
``{"lower": .., "upper": ..}``, under ``<name>_interval``, ``<name>_ci``, ``interval``
or ``ci``.
"""

from __future__ import annotations

from typing import Any


def _pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        low, high = value
    elif isinstance(value, dict):
        low = value.get("low", value.get("lower"))
        high = value.get("high", value.get("upper"))
    else:
        return None
    if isinstance(low, int | float) and isinstance(high, int | float):
        return float(low), float(high)
    return None


def interval_of(data: Any, name: str | None = None) -> tuple[float, float] | None:
    """The interval stored beside a figure, or None when the report has none."""
    if not isinstance(data, dict):
        return None
    keys = [f"{name}_interval", f"{name}_ci"] if name else ["interval", "ci"]
    for key in keys:
        found = _pair(data.get(key))
        if found is not None:
            return found
    return None


def corpus_hash(report: dict[str, Any]) -> str:
    """A short hash of the cases a run covered (the report's own when it records one): the
    same cases (node id and content hash) give the same hash on any machine and worker
    count."""
    recorded = report.get("run", {}).get("corpus_hash")
    if isinstance(recorded, str) and recorded:
        return recorded
    import hashlib
    import json

    content = sorted((c["nodeid"], c.get("case_hash")) for c in report.get("cases", []))
    digest = hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:12]
