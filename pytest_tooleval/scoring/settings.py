"""The verdict's thresholds and the interval settings: plain values, importable without
numpy, so that reading the configuration (``tooleval check``, plugin load) stays light."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_LEVEL = 0.95
DEFAULT_RESAMPLES = 2000
#: The bootstrap's seed: fixed, so the same report gives the same interval every time.
DEFAULT_SEED = 15_2026
#: Below this many cases a figure gets no interval: the reports say "too few cases".
INTERVAL_MIN_CASES = 5


@dataclass(frozen=True)
class IntervalSettings:
    level: float = DEFAULT_LEVEL
    #: A figure whose interval is wider than this (points out of 100) gets a warning.
    max_width: float = 10.0

    def describe(self, repeats: bool = False) -> dict[str, Any]:
        """The intervals' settings and methods (``repeats``: pass^k's too)."""
        methods = {
            "proportion": "Wilson score interval (a binary axis, one try per case; the "
                          "malformed-call rate over the attempts; router recall over the "
                          "steps)",
            "score": "percentile bootstrap over cases, stratified by category, its level "
                     "expanded for few cases; with repeats a case's tries are averaged "
                     "and resampled together",
            "language_gap": "each language's score: the score's bootstrap over the twin "
                            "jobs (Wilson's where each job scores 0 or 100); the gap: a "
                            "paired bootstrap over the jobs",
        }
        if repeats:
            methods["pass_k"] = ("pass^k and pass@k: the score's bootstrap on each case's "
                                 "unbiased estimate; Wilson's where each case's is 0 or 1")
        return {
            "level": self.level,
            "max_width": self.max_width,
            "bootstrap_resamples": DEFAULT_RESAMPLES,
            "bootstrap_seed": DEFAULT_SEED,
            "methods": methods,
        }


@dataclass(frozen=True)
class Thresholds:
    gate: float = 0.90
    min_score: float = 70.0
    max_malformed: float = 0.02
    latency_p95: float | None = None
    #: The verdict needs at least this many scored cases on every weighted axis.
    min_cases: int = 10
    intervals: IntervalSettings = field(default_factory=IntervalSettings)
