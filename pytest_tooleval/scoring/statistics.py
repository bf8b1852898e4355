"""Uncertainty for every figure the reports print: pure functions; an interval is the
report's own ``Interval`` (report/model.py).

Wilson intervals for proportions; unbiased pass^k and pass@k; a seeded percentile bootstrap
over cases, stratified by category (a case with repeats is one cluster), its level expanded
for few cases; the paired bootstrap, sign-flip and exact McNemar tests for two runs;
exact McNemar power for planning.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from pytest_tooleval.report.model import Interval
from pytest_tooleval.scoring.proportion import wilson_bounds
from pytest_tooleval.scoring.proportion import z_value as z_value
from pytest_tooleval.scoring.settings import DEFAULT_LEVEL as DEFAULT_LEVEL
from pytest_tooleval.scoring.settings import DEFAULT_RESAMPLES as DEFAULT_RESAMPLES
from pytest_tooleval.scoring.settings import DEFAULT_SEED as DEFAULT_SEED

#: Resamples per numpy chunk: bounds memory at chunk × cases × axes floats.
_CHUNK = 250


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile, by its Cornish–Fisher expansion about the normal's
    (Abramowitz & Stegun 26.7.5): at the 0.975 quantile within 0.004 of the exact value
    from 3 degrees of freedom, at 0.995 within 0.05; below 3 too small, but there the
    expanded level is 1 to three places either way (the resamples' whole range)."""
    z = NormalDist().inv_cdf(p)
    terms = ((z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96,
             (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
             (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160)
    return z + sum(term / df**power for power, term in enumerate(terms, start=1))


def expanded_level(level: float, strata: Sequence[str], terms: Iterable[float]) -> float:
    """The level at which to read the bootstrap's percentiles so that few cases still
    cover as claimed (Hesterberg's expanded percentile interval): the percentile interval
    is as narrow as a normal one with the plug-in variance, so read it where a normal
    gives the width of Student's t with the unbiased variance. ``terms``: each case's share
    of the figure; the degrees of freedom are Welch–Satterthwaite's over the strata, so a
    small stratum that carries most of the spread (6 chain cases beside 300 tool cases)
    counts as few cases, not as the run's. With equal spreads: n − h (h strata); 0.95
    becomes 0.983 at 10 cases, 0.959 at 43, 0.9506 at 674."""
    groups: dict[str, list[float]] = {}
    for stratum, term in zip(strata, terms, strict=True):
        groups.setdefault(stratum, []).append(term)
    # Per stratum (n, the plug-in variance of its sum, the unbiased one).
    parts = [(len(g), len(g) * float(np.var(g)), len(g) ** 2 * float(np.var(g)) / (len(g) - 1))
             for g in groups.values() if len(g) > 1]
    plug, unbiased = sum(p for _, p, _ in parts), sum(u for *_, u in parts)
    if plug <= 0:
        return level
    df = unbiased**2 / sum(u * u / (n - 1) for n, _, u in parts)
    widened = t_quantile(0.5 + level / 2.0, df) * math.sqrt(unbiased / plug)
    return 2.0 * NormalDist().cdf(widened) - 1.0


def wilson(successes: float, n: int, level: float = DEFAULT_LEVEL) -> Interval | None:
    """The Wilson score interval for ``successes`` of ``n``; None when n is 0."""
    bounds = wilson_bounds(successes, n, level)
    return None if bounds is None else Interval(low=bounds[0], high=bounds[1], method="wilson")


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of "all k of k tries pass" from c passes in n tries: C(c,k)/C(n,k)."""
    _check_tries(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of "at least one of k tries passes": 1 − C(n−c,k)/C(n,k)."""
    _check_tries(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _check_tries(n: int, c: int, k: int) -> None:
    if not (1 <= k <= n and 0 <= c <= n):
        raise ValueError(f"need 1 <= k <= n and 0 <= c <= n, got n={n}, c={c}, k={k}")


#: A stratum smaller than this barely varies when resampled within itself.
MIN_STRATUM = 5


def usable_strata(strata: Sequence[str]) -> list[str]:
    """The strata, or one stratum for all when any is too small to vary."""
    counts = Counter(strata)
    if counts and min(counts.values()) < MIN_STRATUM:
        return ["all"] * len(strata)
    return list(strata)


def stratified_indices(strata: Sequence[str], resamples: int,
                       rng: np.random.Generator) -> np.ndarray:
    """``resamples`` × N case indices, drawn with replacement within each stratum."""
    columns = []
    for label in sorted(set(strata)):
        members = np.array([i for i, s in enumerate(strata) if s == label], dtype=np.int64)
        draws = rng.integers(0, len(members), size=(resamples, len(members)))
        columns.append(members[draws])
    return np.concatenate(columns, axis=1)


def _resampled(strata: Sequence[str], resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The bootstrap's case indices, in chunks of ``_CHUNK`` resamples."""
    usable = usable_strata(strata)
    rng = np.random.default_rng(seed)
    for start in range(0, resamples, _CHUNK):
        yield stratified_indices(usable, min(_CHUNK, resamples - start), rng)


def _figures(prepared: tuple[np.ndarray, np.ndarray], weights: np.ndarray,
             indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per resample: each axis's mean (NaN where no case has it) and the weighted score,
    from ``_prepare(values)``."""
    filled, present_cases = prepared
    counts = present_cases[indices].sum(axis=1)  # resamples × axes
    total = np.where(counts > 0, weights, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = filled[indices].sum(axis=1) / counts
        score = 100.0 * np.where(counts > 0, means * weights, 0.0).sum(axis=1) / total
    return means, score


def _prepare(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cases × axes: the values with 0 where a case does not count, and where it does."""
    present = ~np.isnan(values)
    return np.where(present, values, 0.0), present


def _percentile_interval(samples: np.ndarray, level: float, method: str) -> Interval | None:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return Interval(low=float(low), high=float(high), method=method)


@dataclass(frozen=True)
class BootstrapResult:
    score: Interval | None
    axes: dict[str, Interval | None]


def case_matrix(rows: Sequence[dict[str, float]], axes: Sequence[str]) -> np.ndarray:
    """Cases × axes, NaN where a case does not count on an axis."""
    values = [[row.get(axis, np.nan) for axis in axes] for row in rows]
    return np.array(values, dtype=float).reshape(len(rows), len(axes))


def bootstrap(rows: Sequence[dict[str, float]], strata: Sequence[str],
              weights: dict[str, float], *, level: float = DEFAULT_LEVEL,
              resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> BootstrapResult:
    """Percentile intervals on the weighted score (0–100) and each axis mean (0–1).

    ``rows``: one per case (a case with repeats: its tries' means), each the case's value
    on the axes it counts on; ``strata``: each case's category."""
    axes = list(weights)
    if not rows:
        return BootstrapResult(None, dict.fromkeys(axes))
    prepared = _prepare(case_matrix(rows, axes))
    w = np.array([weights[a] for a in axes])
    score_level, *levels = _levels(level, strata, _terms(prepared, w))
    parts = [_figures(prepared, w, indices) for indices in _resampled(strata, resamples, seed)]
    means = np.concatenate([m for m, _ in parts])
    score = np.concatenate([s for _, s in parts])
    return BootstrapResult(
        _percentile_interval(score, score_level, "bootstrap"),
        {axis: _percentile_interval(means[:, j], levels[j], "bootstrap")
         for j, axis in enumerate(axes)},
    )


def _terms(prepared: tuple[np.ndarray, np.ndarray], weights: np.ndarray) -> np.ndarray:
    """Cases × (score, axes): each case's share of the score, then its value on each axis
    (NaN where it does not count): the figures are sums of these over cases."""
    filled, present = prepared
    counts = present.sum(axis=0)
    shares = np.where(present, filled / np.maximum(counts, 1), 0.0) @ weights
    with np.errstate(invalid="ignore", divide="ignore"):
        score = 100.0 * shares / weights[counts > 0].sum()
    return np.column_stack([score, np.where(present, filled, np.nan)])


def _levels(level: float, strata: Sequence[str], terms: np.ndarray) -> list[float]:
    """The score's expanded level, then each axis's, from the cases that count on it (its
    mean varies as theirs does: the step axis of 12 chain cases in a run of 42 is read as
    12 cases); ``terms`` from ``_terms``."""
    usable = np.array(usable_strata(strata))
    return [expanded_level(level, usable[ok].tolist(), column[ok])
            for column, ok in zip(terms.T, np.isfinite(terms).T, strict=True)]


@dataclass(frozen=True)
class PairedDifference:
    """new − base on one figure over paired cases: the point value, its paired interval
    and the bootstrap's standard error."""

    delta: float
    interval: Interval | None
    standard_error: float


def paired_bootstrap(
    new_rows: Sequence[dict[str, float]], base_rows: Sequence[dict[str, float]],
    strata: Sequence[str], weights: dict[str, float], *, level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
) -> dict[str, PairedDifference | None]:
    """Differences (new − base) of the score (points) and each axis (0–1) over paired
    cases: each resample draws the same case indices in both runs. Keys: "score" and
    the axes; None where a figure is missing in either run."""
    axes = list(weights)
    keys = ["score", *axes]
    if not new_rows:
        return dict.fromkeys(keys)
    new, base = _prepare(case_matrix(new_rows, axes)), _prepare(case_matrix(base_rows, axes))
    w = np.array([weights[a] for a in axes])
    full = np.arange(len(new_rows))[None, :]
    new_means, new_score = _figures(new, w, full)
    base_means, base_score = _figures(base, w, full)
    observed = {"score": float(new_score[0] - base_score[0])}
    observed |= {a: float(new_means[0, j] - base_means[0, j]) for j, a in enumerate(axes)}
    parts: list[np.ndarray] = []
    for indices in _resampled(strata, resamples, seed):
        nm, ns = _figures(new, w, indices)
        bm, bs = _figures(base, w, indices)
        parts.append(np.column_stack([ns - bs, nm - bm]))
    samples = np.concatenate(parts)
    levels = _levels(level, strata, _terms(new, w) - _terms(base, w))
    found: dict[str, PairedDifference | None] = dict.fromkeys(keys)
    for j, key in enumerate(keys):
        column = samples[np.isfinite(samples[:, j]), j]
        if math.isfinite(observed[key]):
            found[key] = PairedDifference(
                delta=observed[key],
                interval=_percentile_interval(column, levels[j], "paired bootstrap"),
                standard_error=float(column.std(ddof=1)) if column.size > 1 else 0.0,
            )
    return found


def mean_interval(values: Sequence[float], *, level: float = DEFAULT_LEVEL,
                  resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  method: str = "paired bootstrap") -> Interval | None:
    """The percentile bootstrap interval of the mean of ``values`` (one per unit: paired
    differences, or a language's job scores), read at the expanded level as every
    bootstrap here is."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        return None
    strata = ["all"] * data.size
    samples = np.concatenate([data[indices].mean(axis=1)
                              for indices in _resampled(strata, resamples, seed)])
    return _percentile_interval(samples, expanded_level(level, strata, data), method)


def sign_flip_p(differences: Sequence[float], *, resamples: int = 20_000,
                seed: int = DEFAULT_SEED) -> float:
    """Two-sided paired randomisation test of a sum of per-case differences: under "no
    change" each difference's sign is a coin toss. Exact up to 16 changed cases, else a
    seeded Monte Carlo; valid at any case count, unlike the bootstrap."""
    d = np.asarray([x for x in differences if abs(x) > 1e-12], dtype=float)
    if d.size == 0:
        return 1.0
    observed = abs(float(d.sum())) - 1e-9
    if d.size <= 16:
        patterns = ((np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1) * 2 - 1
        return float(np.count_nonzero(np.abs(patterns @ d) >= observed) / patterns.shape[0])
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, resamples, 5000):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(min(5000, resamples - start), d.size))
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed))
    return (hits + 1) / (resamples + 1)



def tango_paired(helped: int, hurt: int, n: int,
                 level: float = DEFAULT_LEVEL) -> Interval | None:
    """Tango's score interval (1998) for new − base of a pass/fail figure on n paired
    cases, ``helped`` of them failing before and passing now, ``hurt`` the reverse: the
    differences θ whose score test does not reject, found by bisection. Unlike a bootstrap
    it is not [0, 0] when no case changed: 0 flips in 10 cases is ±0.278, in 130 ±0.029."""
    if n <= 0:
        return None
    z = z_value(level)

    def statistic(theta: float) -> float:
        # The chance of a hurt case under θ, at its constrained maximum likelihood.
        w = helped * (1 + theta) + hurt * (1 - theta) - 2 * n * theta
        hurt_chance = (w + math.sqrt(w * w + 8 * n * hurt * theta * (1 - theta))) / (4 * n)
        variance = n * (2 * hurt_chance + theta * (1 - theta))
        gap = helped - hurt - n * theta
        return gap / math.sqrt(variance) if variance > 0 else math.copysign(math.inf, gap)

    def accepted(theta: float) -> bool:
        return abs(statistic(theta)) <= z

    estimate = (helped - hurt) / n
    return Interval(low=_bisect(accepted, estimate, -1.0),
                    high=_bisect(accepted, estimate, 1.0), method="tango")


def _bisect(holds: Callable[[float], bool], inside: float, outside: float,
            halvings: int = 60) -> float:
    """The edge of where ``holds`` holds, from ``inside`` (where it does) towards
    ``outside``, by ``halvings``: the last point found inside."""
    for _ in range(halvings):
        middle = (inside + outside) / 2
        inside, outside = (middle, outside) if holds(middle) else (inside, middle)
    return inside


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: b cases pass→fail, c fail→pass; the binomial test
    of min(b, c) against Binomial(b + c, ½). 1.0 when nothing flipped."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def min_flips(alpha: float) -> int:
    """The fewest flips, all one way and nothing else discordant, that the exact McNemar
    test can call significant at ``alpha`` (6 at 0.05): 2·½ᵈ < α."""
    d = 1
    while 2.0 * 0.5**d >= alpha:
        d += 1
    return d


def _binomial(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """The counts k within 8 standard deviations + 8 of Binomial(n, p)'s mean, and
    P(X = k) for each, through logarithms; beyond them the chance is under 1e-13."""
    span = 8 * math.sqrt(n * p * (1 - p)) + 8
    k = np.arange(max(0, math.floor(n * p - span)), min(n, math.ceil(n * p + span)) + 1)
    first = int(k[0])  # log C(n, k), from C(n, k + 1) = C(n, k)·(n − k)/(k + 1)
    log_choose = math.lgamma(n + 1) - math.lgamma(first + 1) - math.lgamma(n - first + 1) \
        + np.concatenate([[0.0], np.cumsum(np.log((n - k[:-1]) / (k[:-1] + 1)))])
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(k > 0, k * np.log(p), 0.0) + np.where(k < n, (n - k) * np.log1p(-p), 0.0)
    return k, np.exp(log_choose + terms)


def mcnemar_power(n: int, delta: float, discordance: float, alpha: float) -> float:
    """Power of the two-sided exact McNemar test (``mcnemar_exact`` below α) with n pairs, a
    difference ``delta`` in pass rate and a discordant share ``discordance``: exact, summed
    over the binomial number of flips d and, given d, their binomial split."""
    delta = abs(delta)
    if delta == 0 or n <= 0:
        return alpha
    if delta > discordance:
        raise ValueError(f"a difference of {delta} needs at least that share of flipped "
                         f"cases; the discordance given is {discordance}")
    towards = (discordance + delta) / (2 * discordance)  # a flip's chance to go delta's way
    power = 0.0
    for d, weight in zip(*_binomial(n, discordance), strict=True):
        # Rejected when the smaller side is at most k: 2·P(X ≤ k) < α, X ~ Binomial(d, ½).
        counts, null = _binomial(int(d), 0.5)
        k = counts[0] - 1 + np.count_nonzero(2 * np.cumsum(null) < alpha)
        counts, split = _binomial(int(d), towards)
        power += float(weight * split[(counts <= k) | (counts >= d - k)].sum())
    return power


def cases_needed(delta: float, discordance: float, *, alpha: float = 1 - DEFAULT_LEVEL,
                 power: float = 0.8) -> int:
    """Paired cases for the exact McNemar test to detect ``delta`` (a difference in pass
    rate) with this power, when ``discordance`` of the cases flip between the two runs."""
    delta = abs(delta)
    if not 0 < delta <= discordance <= 1:
        raise ValueError(f"need 0 < difference <= discordance <= 1, got difference {delta}, "
                         f"discordance {discordance}")

    def enough(n: int) -> bool:
        return mcnemar_power(n, delta, discordance, alpha) >= power

    low = high = min_flips(alpha) - 1  # fewer cases than flips the test needs: no power
    while not enough(high):
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def min_detectable(n: int, discordance: float, *, alpha: float = 1 - DEFAULT_LEVEL,
                   power: float = 0.8) -> float | None:
    """The smallest difference in pass rate that n paired cases detect with this power,
    when ``discordance`` of them flip (taken as at least the difference); floored at the
    fewest flips the exact test can see. None when no difference up to 1 would be."""
    if n <= 0 or min_flips(alpha) > n:
        return None

    def enough(delta: float) -> bool:
        psi = min(1.0, max(discordance, delta))
        return mcnemar_power(n, delta, psi, alpha) >= power

    if not enough(1.0):
        return None
    return max(_bisect(enough, 1.0, 0.0, 24), min_flips(alpha) / n)  # to 1e-7


def score_min_detectable(standard_error: float, *, alpha: float = 1 - DEFAULT_LEVEL,
                         power: float = 0.8) -> float:
    """The smallest score difference (points) a paired comparison with this bootstrap
    standard error detects with this power: (z₁₋α/₂ + z_power) · SE."""
    return (z_value(1.0 - alpha) + NormalDist().inv_cdf(power)) * standard_error


def cases_for_width(width: float, proportion: float = 0.5,
                    level: float = DEFAULT_LEVEL) -> int:
    """Cases for a proportion's interval to be at most ``width`` wide (0–1, normal
    approximation; 0.5 is the worst case)."""
    if not 0 < width <= 1:
        raise ValueError(f"a width must lie in (0, 1], got {width}")
    z = z_value(level)
    return max(1, math.ceil((2 * z) ** 2 * proportion * (1 - proportion) / width**2))
