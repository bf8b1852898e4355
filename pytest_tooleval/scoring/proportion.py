"""The Wilson interval of a proportion and the one way an interval is printed, with neither
numpy nor a pydantic model, so that ``tooleval check`` prints router recall's interval as
light as it is; scoring/statistics.py's ``wilson`` and report/model.py's ``Interval`` use
them."""

from __future__ import annotations

import math
from statistics import NormalDist

from pytest_tooleval.scoring.settings import DEFAULT_LEVEL


def z_value(level: float) -> float:
    """The two-sided normal quantile for a confidence level (1.959964 at 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level must lie strictly between 0 and 1, got {level}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def wilson_bounds(successes: float, n: int,
                  level: float = DEFAULT_LEVEL) -> tuple[float, float] | None:
    """The Wilson score interval for ``successes`` of ``n``; None when n is 0."""
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, {n}], got {successes}")
    z = z_value(level)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # Exact at the edges: float noise must not leave 1 of 1 outside its own interval.
    low = 0.0 if successes == 0 else max(0.0, (centre - half) / denominator)
    high = 1.0 if successes == n else min(1.0, (centre + half) / denominator)
    return low, high


def interval_text(low: float, high: float, scale: float = 1.0, digits: int = 1) -> str:
    """``low–high`` on the figure's scale, as every report prints an interval."""
    return f"{low * scale:.{digits}f}–{high * scale:.{digits}f}"
