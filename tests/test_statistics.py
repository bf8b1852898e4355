"""scoring/statistics.py, repeats and intervals: hand-computed values on small fixed tables."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tooleval.report.markdown import statistics_sections
from pytest_tooleval.report.terminal import statistics_lines
from pytest_tooleval.result import CaseResult, Outcome
from pytest_tooleval.scoring.aggregate import WEIGHTS, Thresholds, summarize
from pytest_tooleval.scoring.repeats import _pass_k
from pytest_tooleval.scoring.settings import IntervalSettings
from pytest_tooleval.scoring.statistics import (
    bootstrap,
    cases_for_width,
    cases_needed,
    mcnemar_exact,
    mcnemar_power,
    min_detectable,
    min_flips,
    paired_bootstrap,
    pass_at_k,
    pass_hat_k,
    stratified_indices,
    usable_strata,
    wilson,
    z_value,
)

# ------------------------------------------------------------------------------ Wilson


@pytest.mark.parametrize(("successes", "n", "low", "high"), [
    # (p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n), z = 1.959964, worked by hand
    (0, 10, 0.0, 0.277533),
    (10, 10, 0.722467, 1.0),
    (5, 10, 0.236593, 0.763407),
    (1, 1, 0.206549, 1.0),
    (40, 45, 0.765010, 0.951596),
])
def test_wilson_by_hand(successes: int, n: int, low: float, high: float) -> None:
    interval = wilson(successes, n, 0.95)
    assert interval is not None
    assert interval.low == pytest.approx(low, abs=1e-5)
    assert interval.high == pytest.approx(high, abs=1e-5)
    assert interval.method == "wilson"


def test_wilson_edges_and_levels() -> None:
    assert wilson(0, 0) is None
    with pytest.raises(ValueError):
        wilson(11, 10)
    narrow, wide = wilson(30, 60, 0.80), wilson(30, 60, 0.99)
    assert narrow and wide and wide.low < narrow.low < 0.5 < narrow.high < wide.high
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    with pytest.raises(ValueError):
        z_value(1.0)


@given(st.integers(1, 400), st.data())
def test_wilson_stays_in_unit_interval_and_contains_the_estimate(n: int, data) -> None:
    successes = data.draw(st.integers(0, n))
    interval = wilson(successes, n)
    assert interval is not None
    assert 0.0 <= interval.low <= successes / n <= interval.high <= 1.0


# -------------------------------------------------------------------------- pass^k


def test_pass_k_small_table() -> None:
    # n = 5 tries, c = 3 pass, k = 2: C(3,2)/C(5,2) = 3/10; 1 − C(2,2)/C(5,2) = 9/10
    assert pass_hat_k(5, 3, 2) == pytest.approx(0.3)
    assert pass_at_k(5, 3, 2) == pytest.approx(0.9)
    assert pass_hat_k(3, 2, 3) == 0.0 and pass_at_k(3, 2, 3) == 1.0
    assert pass_hat_k(4, 4, 4) == 1.0 and pass_at_k(4, 0, 4) == 0.0
    assert pass_hat_k(6, 3, 1) == pass_at_k(6, 3, 1) == 0.5
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 3)


@given(st.integers(1, 8), st.data())
def test_pass_k_is_the_mean_over_every_k_subset_of_the_tries(n: int, data) -> None:
    """The closed form equals drawing k of the n recorded tries without replacement."""
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    tries = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(tries, k))
    assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))
    assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))


# -------------------------------------------------------------------------- McNemar


def test_mcnemar_exact_by_hand() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(6, 0) == pytest.approx(2 / 64)
    assert mcnemar_exact(1, 1) == 1.0
    assert mcnemar_exact(2, 8) == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert mcnemar_exact(0, 1) == 1.0
    assert mcnemar_exact(40, 0) == pytest.approx(2 * 0.5**40)
    assert mcnemar_exact(600, 600) == 1.0  # large counts: exact integer arithmetic


def test_power_planning() -> None:
    assert min_flips(0.05) == 6 and min_flips(0.01) == 8
    # The normal approximation's (z_.975·√.2 + z_.8·√(.2 − .01))² / .01 = 155 cases gives
    # the exact test 76 % power; 168 give 80 %
    assert cases_needed(0.10, 0.20) == 168
    assert mcnemar_power(168, 0.10, 0.20, 0.05) == pytest.approx(0.80, abs=0.01)
    detectable = min_detectable(155, 0.20)
    assert detectable is not None and 0.10 < detectable <= 0.11
    # nothing flipped: a difference d must flip at least d of the cases, all one way;
    # √δ·(√300·√δ − 1.96 − 0.84) ≥ 0 → δ ≈ 0.026 (about 8 of 300 cases)
    quiet = min_detectable(300, 0.0)
    assert quiet is not None and 6 / 300 < quiet < 0.03
    assert min_detectable(300, 0.3) > quiet  # noisier runs hide more
    assert min_detectable(5, 0.5) is None  # 6 flips cannot happen in 5 cases
    with pytest.raises(ValueError):
        cases_needed(0.3, 0.2)  # a difference larger than the flips
    # a ±5-point interval on a proportion near ½: (2·1.96)²·¼ / 0.1² = 384.1 → 385
    assert cases_for_width(0.10) == 385


def exact_power(n: int, delta: float, discordance: float, alpha: float) -> float:
    """The exact McNemar test's power by brute force: every (hurt, helped) count's
    trinomial chance, where mcnemar_exact rejects."""
    helped, hurt = (discordance + delta) / 2, (discordance - delta) / 2
    return sum(math.comb(n, b) * math.comb(n - b, c) * hurt**b * helped**c
               * (1 - discordance) ** (n - b - c)
               for b in range(n + 1) for c in range(n + 1 - b) if mcnemar_exact(b, c) < alpha)


@pytest.mark.parametrize(("delta", "discordance", "alpha"),
                         [(0.2, 0.3, 0.05), (0.3, 0.5, 0.01), (0.2, 0.2, 0.05 / 6)])
def test_the_cases_needed_give_the_exact_test_its_power(
        delta: float, discordance: float, alpha: float) -> None:
    # The normal approximation stated 80 % where the exact test has 76–79 %.
    n = cases_needed(delta, discordance, alpha=alpha)
    assert exact_power(n, delta, discordance, alpha) >= 0.8 > exact_power(
        n - 1, delta, discordance, alpha)
    assert mcnemar_power(n, delta, discordance, alpha) == pytest.approx(
        exact_power(n, delta, discordance, alpha), abs=1e-9)


# ------------------------------------------------------------------------- bootstrap


def test_stratified_resampling_keeps_each_stratum() -> None:
    strata = ["tool", "irrelevance", "tool", "chain", "irrelevance", "tool"]
    indices = stratified_indices(strata, 50, np.random.default_rng(1))
    assert indices.shape == (50, 6)
    for row in indices:
        assert sorted(strata[i] for i in row) == sorted(strata)


def test_bootstrap_is_reproducible_and_brackets_the_score() -> None:
    rows = [{"tool": float(i % 3 != 0), "answer": (i % 4) / 3} for i in range(30)]
    rows += [{"irrelevance": float(i % 5 != 0)} for i in range(20)]
    strata = ["tool"] * 30 + ["irrelevance"] * 20
    first = bootstrap(rows, strata, WEIGHTS, seed=7)
    assert first == bootstrap(rows, strata, WEIGHTS, seed=7)
    assert first != bootstrap(rows, strata, WEIGHTS, seed=8)
    tool, answer, irr = 20 / 30, sum((i % 4) / 3 for i in range(30)) / 30, 16 / 20
    score = 100 * (0.4 * irr + 0.3 * tool + 0.1 * answer) / 0.8
    assert first.score is not None and first.score.low < score < first.score.high
    assert first.axes["step"] is None


def test_paired_bootstrap_of_identical_runs_is_zero() -> None:
    rows = [{"tool": float(i % 2)} for i in range(40)]
    found = paired_bootstrap(rows, rows, ["tool"] * 40, WEIGHTS)
    score = found["score"]
    assert score is not None and score.delta == 0.0
    assert score.interval is not None and score.interval.low == score.interval.high == 0.0
    assert found["irrelevance"] is None


# ---------------------------------------------------------------- intervals in a run


def result(name: str, outcome: str, axes: dict[str, float], category: str,
           repeat: int | None = None) -> CaseResult:
    suffix = f"[r{repeat}]" if repeat else ""
    return CaseResult(nodeid=f"f.json::{name}{suffix}", file="f.json", case=name,
                      outcome=Outcome(outcome), axes=axes, category=category, group=category,
                      repeat=repeat)


def test_summary_intervals_match_wilson_and_warn_on_width() -> None:
    cases = [result(f"i{i}", "PASS" if i < 40 else "FAIL", {"irrelevance": float(i < 40)},
                    "irrelevance") for i in range(45)]
    cases += [result(f"t{i}", "PASS", {"tool": 1.0}, "tool") for i in range(10)]
    summary = summarize(cases, Thresholds(intervals=IntervalSettings(max_width=10)))
    irr = summary.axes["irrelevance"].interval
    assert (irr.low, irr.high, irr.method) == (
        pytest.approx(0.76501, abs=1e-4), pytest.approx(0.951596, abs=1e-4), "wilson")
    tool = summary.axes["tool"].interval  # 10 of 10: Wilson, not a point
    assert tool.low == pytest.approx(0.722467, abs=1e-4) and tool.high == 1.0
    score = summary.score_interval
    assert score.low < summary.score <= score.high <= 100.0
    assert score.high - score.low > 0
    assert summary.groups["irrelevance"].interval.low < 100 * 40 / 45
    warned = summary.warnings
    assert any(w.startswith("axis irrelevance: the 95% interval 76.5–95.2") for w in warned)
    assert any(w.startswith("axis tool") for w in warned)
    wide = summarize(cases, Thresholds(intervals=IntervalSettings(max_width=50)))
    assert wide.warnings == []
    assert summary.statistics.level == 0.95
    assert summary.repeats.k == 1 and summary.repeats.flaky == []
    # one try each: pass^k's interval is the axes' business, report.json stays as it was
    assert summary.repeats.overall.pass_hat_k_interval is None


def test_repeats_are_clusters_not_extra_cases() -> None:
    tries = []
    for i in range(6):
        for r in (1, 2, 3):
            passed = i < 3 or (i == 3 and r != 2)
            tries.append(result(f"t{i}", "PASS" if passed else "FAIL",
                                {"tool": float(passed)}, "tool", repeat=r))
    summary = summarize(tries, Thresholds())
    assert summary.cases_scored == 6
    assert summary.axes["tool"].cases == 6
    assert summary.axes["tool"].value == pytest.approx((3 + 2 / 3) / 6)
    # per-case means are not all 0/1: the cluster bootstrap, not Wilson over 18 tries
    assert summary.axes["tool"].interval.method == "bootstrap"
    repeats = summary.repeats
    assert repeats.overall.pass_hat_k == pytest.approx(3 / 6)  # t3 has 2 of 3
    assert repeats.overall.pass_at_k == pytest.approx(4 / 6)
    assert [row.case for row in repeats.flaky] == ["f.json::t3"]
    # an interval over the 6 cases (clusters): the axes' bootstrap, so pass^1 (each case's
    # pass rate) has the tool axis's interval; pass^3 and pass@3 (0 or 1 a case, 3 tries
    # each) are proportions over the 6 cases: Wilson's
    assert repeats.curve[0].pass_hat_k_interval == summary.axes["tool"].interval
    assert repeats.overall.pass_hat_k_interval == wilson(3, 6).rounded()
    assert repeats.overall.pass_at_k_interval == wilson(4, 6).rounded()
    assert repeats.axes["tool"].pass_hat_k_interval == repeats.overall.pass_hat_k_interval
    lines = "\n".join(statistics_lines(summary))
    assert "pass^3 0.50 [0.19–0.81], pass@3 0.67 [0.30–0.90] over 6" in lines
    assert "| overall, k = 3 | 0.500 [0.188–0.812] | 0.667 [0.300–0.903] | 6 |" in \
        statistics_sections(summary)
    assert summary.groups["tool"].cases == 6 and summary.groups["tool"].tries == 18
    assert summary.score == pytest.approx(100 * (3 + 2 / 3) / 6)


def test_pass_k_at_0_or_1_has_wilson_s_interval_and_few_cases_none() -> None:
    """Every case passing every try: resampling cannot move pass^k, so Wilson's interval
    (as an axis at 100 has); under 5 cases none, and the reports say why."""
    tries = [result(f"t{i}", "PASS", {"tool": 1.0}, "tool", repeat=r)
             for i in range(8) for r in (1, 2)]
    overall = summarize(tries, Thresholds()).repeats.overall
    assert overall.pass_hat_k_interval == overall.pass_at_k_interval == wilson(8, 8).rounded()
    few = summarize(tries[:8], Thresholds())
    assert few.repeats.overall.pass_hat_k_interval is None
    assert "pass^2 1.00 [too few cases], pass@2 1.00 [too few cases]" in \
        "\n".join(statistics_lines(few))


def test_one_more_case_failing_never_raises_pass_k_s_lower_bound() -> None:
    """30 cases of 3 tries, 0 to 3 of them failing all three: pass^3 is a proportion, and
    its interval's lower bound falls as cases fail (the bootstrap gave 29 of 30 0.900 and
    30 of 30, Wilson's, 0.887)."""
    lows = [_pass_k([(3, 3, "a")] * (30 - bad) + [(3, 0, "a")] * bad, 3, 0.95)
            .pass_hat_k_interval.low for bad in range(4)]
    assert lows == sorted(lows, reverse=True) and len(set(lows)) == 4, lows


def test_tiny_strata_are_resampled_together() -> None:
    assert usable_strata(["a"] * 5 + ["b"] * 5) == ["a"] * 5 + ["b"] * 5
    assert usable_strata(["a"] * 9 + ["b"]) == ["all"] * 10
    # one case per category: stratified, every resample would be the run itself
    rows = [{"irrelevance": 1.0}, {"tool": 0.0}, {"step": 0.5}, {"tool": 1.0}]
    result = bootstrap(rows, ["irrelevance", "tool", "chain", "tool"], WEIGHTS)
    assert result.score is not None and result.score.high - result.score.low > 10
