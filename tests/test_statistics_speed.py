"""The bootstrap made cheaper for the end of a run (issue 20, item 6) gives the same
numbers as before, bit for bit: the implementation it replaced is kept here as the
reference and both run on random tables (NaN where a case does not count, fractional
values, strata too small to stratify, repeats' means)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.scoring.statistics import (
    _CHUNK,
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    BootstrapResult,
    _levels,
    _percentile_interval,
    _prepare,
    _terms,
    bootstrap,
    case_matrix,
    paired_bootstrap,
    stratified_indices,
    usable_strata,
)

WEIGHTS = {"irrelevance": 0.40, "tool": 0.30, "step": 0.20, "answer": 0.10}


def reference_bootstrap(rows, strata, weights, *, level=DEFAULT_LEVEL,
                        resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """scoring/statistics.py's bootstrap as it was before (commit 145e88d), its percentiles
    read at the expanded level as the method now has them (statistics._levels)."""
    axes = list(weights)
    if not rows:
        return BootstrapResult(None, dict.fromkeys(axes))
    values = case_matrix(rows, axes)
    w = np.array([weights[a] for a in axes])
    rng = np.random.default_rng(seed)
    strata = usable_strata(strata)
    level, *levels = _levels(level, strata, _terms(_prepare(values), w))
    means_parts, score_parts = [], []
    for start in range(0, resamples, _CHUNK):
        indices = stratified_indices(strata, min(_CHUNK, resamples - start), rng)
        chosen = values[indices]
        present = ~np.isnan(chosen)
        counts = present.sum(axis=1)
        sums = np.where(present, chosen, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        used = np.where(counts > 0, w, 0.0)
        total = used.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            score = 100.0 * np.where(counts > 0, means * w, 0.0).sum(axis=1) / total
        means_parts.append(means)
        score_parts.append(score)
    means = np.concatenate(means_parts)
    score = np.concatenate(score_parts)
    return BootstrapResult(
        _percentile_interval(score, level, "bootstrap"),
        {axis: _percentile_interval(means[:, j], levels[j], "bootstrap")
         for j, axis in enumerate(axes)},
    )


VALUES = st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.25, 0.1, 0.7])
ROW = st.dictionaries(st.sampled_from(list(WEIGHTS)), VALUES, min_size=1)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=60),
       data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_the_bootstrap_gives_the_numbers_it_gave_before(rows, data, seed) -> None:
    strata = data.draw(st.lists(st.sampled_from(["tool", "chain", "irrelevance"]),
                                min_size=len(rows), max_size=len(rows)))
    resamples = data.draw(st.sampled_from([1, 249, 250, 600]))
    found = bootstrap(rows, strata, WEIGHTS, resamples=resamples, seed=seed)
    assert found == reference_bootstrap(rows, strata, WEIGHTS, resamples=resamples,
                                        seed=seed)


def test_the_bootstrap_on_a_large_run_gives_the_numbers_it_gave_before() -> None:
    rng = np.random.default_rng(5)
    rows = []
    for _ in range(633):
        row = {axis: float(rng.choice([0.0, 0.5, 1.0, 1 / 3])) for axis in WEIGHTS
               if rng.random() < 0.6}
        rows.append(row or {"tool": 1.0})
    strata = [str(rng.choice(["tool", "chain", "irrelevance"])) for _ in rows]
    assert bootstrap(rows, strata, WEIGHTS) == reference_bootstrap(rows, strata, WEIGHTS)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_paired_bootstrap_still_matches_its_unpaired_figures(seed) -> None:
    """paired_bootstrap shares the resampling code: identical runs differ by exactly 0."""
    rng = np.random.default_rng(seed)
    rows = [{"tool": float(rng.choice([0.0, 0.5, 1.0]))} for _ in range(30)]
    found = paired_bootstrap(rows, rows, ["tool"] * 30, {"tool": 1.0}, seed=seed)
    assert found["tool"] is not None and found["tool"].delta == 0.0
    assert found["tool"].interval is not None
    assert (found["tool"].interval.low, found["tool"].interval.high) == (0.0, 0.0)
