"""Two runs of the same cases, compared case by case (paired by content hash).

Per figure: new − base with an interval (Tango's on pass/fail flips, else the paired
bootstrap, from MIN_PAIRS cases), a two-sided test (exact McNemar on pass/fail flips, else
sign-flip) and the flip matrix. A drop is a regression only when its
test is significant, Bonferroni-corrected over the deciding figures; otherwise "no
detectable change", with the smallest difference this many cases could have detected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.repeats import CaseTries, group_tries
from pytest_tooleval.scoring.statistics import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    PairedDifference,
    mcnemar_exact,
    min_detectable,
    min_flips,
    paired_bootstrap,
    score_min_detectable,
    sign_flip_p,
    tango_paired,
)

POWER = 0.8
#: Fewer paired cases than this: no bootstrap interval. Below it a 95 % one covered a true
#: difference in 80–92 % of simulated runs (docs/dev/intervals.md). Tango's interval and
#: the tests (sign-flip, McNemar) stay valid at any size.
MIN_PAIRS = 20


@dataclass
class Pairing:
    """Which cases of the two runs are the same case (new, base), and which are not."""

    pairs: list[tuple[CaseTries, CaseTries]] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    only_new: list[str] = field(default_factory=list)
    only_base: list[str] = field(default_factory=list)
    #: Paired, but with no scored try in one of the runs (ERROR): left out of the figures.
    unscored: list[str] = field(default_factory=list)


def pair_cases(new: list[CaseResult], base: list[CaseResult]) -> Pairing:
    """Pair by content hash (the same case even if renamed or moved); a case whose name is
    in both runs but whose content differs is edited. Without hashes, by node id."""
    pairing = Pairing()
    base_cases = group_tries(base)
    by_hash: dict[str, list[CaseTries]] = {}
    for case in base_cases:
        if case.case_hash:
            by_hash.setdefault(case.case_hash, []).append(case)
    by_key = {case.key: case for case in base_cases}
    used: set[str] = set()
    for case in group_tries(new):
        candidates = [c for c in by_hash.get(case.case_hash or "", []) if c.key not in used]
        match = next((c for c in candidates if c.key == case.key), None) or next(
            iter(candidates), None)
        same_name = by_key.get(case.key)
        if match is None and same_name is not None and same_name.key not in used:
            if case.case_hash and same_name.case_hash:
                pairing.edited.append(case.key)
                used.add(same_name.key)
                continue
            match = same_name
        if match is None:
            pairing.only_new.append(case.key)
            continue
        used.add(match.key)
        if case.n and match.n:
            pairing.pairs.append((case, match))
        else:
            pairing.unscored.append(case.key)
    pairing.only_base = [c.key for c in base_cases if c.key not in used]
    return pairing


def significant(value: float, digits: int = 4) -> float:
    """Rounded to significant digits, so a p-value of 1e-12 does not print as 0."""
    return float(f"{value:.{digits}g}")


def passed_overall(case: CaseTries) -> bool | None:
    """PASS in most of its scored tries (a single run: PASS)."""
    return None if not case.n else case.passes / case.n > 0.5


def passed_axis(axis: str) -> Callable[[CaseTries], bool | None]:
    def passed(case: CaseTries) -> bool | None:
        tries, full = case.axis_passes(axis)
        return None if not tries else full / tries > 0.5

    return passed


@dataclass
class Flips:
    """The 2×2 table of paired cases: helped (base fails, new passes), hurt, both pass,
    both fail; the exact McNemar p-value on hurt against helped."""

    helped: list[str] = field(default_factory=list)
    hurt: list[str] = field(default_factory=list)
    both_pass: list[str] = field(default_factory=list)
    both_fail: list[str] = field(default_factory=list)

    @property
    def cases(self) -> int:
        return sum(len(cases) for cases in self._cells().values())

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.hurt), len(self.helped))

    @property
    def discordance(self) -> float:
        return (len(self.helped) + len(self.hurt)) / self.cases if self.cases else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "counts": {key: len(cases) for key, cases in self._cells().items()},
            "mcnemar_p": significant(self.p_value),
            **self._cells(),
        }

    def _cells(self) -> dict[str, list[str]]:
        return {"helped": self.helped, "hurt": self.hurt, "both_pass": self.both_pass,
                "both_fail": self.both_fail}


def flips(pairs: list[tuple[CaseTries, CaseTries]],
          passed: Callable[[CaseTries], bool | None]) -> Flips:
    table = Flips()
    for new, base in pairs:
        after, before = passed(new), passed(base)
        if after is None or before is None:
            continue
        cell = {(True, True): table.both_pass, (False, False): table.both_fail,
                (True, False): table.helped, (False, True): table.hurt}[(after, before)]
        cell.append(new.key)
    return table


@dataclass
class Row:
    """One figure's paired comparison, on a 0–100 scale."""

    name: str
    new: float
    base: float
    difference: PairedDifference
    test: str  # "mcnemar" or "sign-flip"
    flips: Flips | None = None
    #: The sign-flip test's p-value (used unless the test is McNemar).
    randomisation_p: float = 1.0
    decides: bool = True
    status: str = "no detectable change"

    @property
    def delta(self) -> float:
        return self.new - self.base

    @property
    def p_value(self) -> float:
        return self.flips.p_value if self.test == "mcnemar" and self.flips else \
            self.randomisation_p

    def to_dict(self) -> dict[str, Any]:
        interval = self.difference.interval
        return {
            "new": round(self.new, 4), "baseline": round(self.base, 4),
            "delta": round(self.delta, 4),
            "interval": None if interval is None
            else interval.scaled(self._scale).rounded().model_dump(),
            "p_value": significant(self.p_value), "test": self.test, "status": self.status,
            "decides": self.decides,
            **({"flips": self.flips.to_dict()} if self.flips else {}),
        }

    @property
    def _scale(self) -> float:
        return 1.0 if self.name.startswith(("score", "group")) else 100.0


def paired_rows(pairs: list[tuple[CaseTries, CaseTries]], weights: dict[str, float], *,
                level: float = DEFAULT_LEVEL, resamples: int = DEFAULT_RESAMPLES,
                score_only: bool = False) -> list[Row]:
    """Score, pass rate and each axis: paired difference, interval, test and flips."""
    if not pairs:
        return []
    strata = [new.stratum for new, _ in pairs]
    new_rows = [new.axes() for new, _ in pairs]
    base_rows = [base.axes() for _, base in pairs]
    found = paired_bootstrap(new_rows, base_rows, strata, weights, level=level,
                             resamples=resamples)
    if len(pairs) < MIN_PAIRS:
        found = {k: None if v is None else replace(v, interval=None) for k, v in found.items()}
    rows: list[Row] = []
    score = found["score"]
    if score is not None:
        new_score = _weighted(new_rows, weights)
        rows.append(Row("score", new_score, new_score - score.delta, score, "sign-flip",
                        randomisation_p=sign_flip_p(_score_terms(new_rows, base_rows,
                                                                 weights))))
    if score_only:
        return rows
    single = all(new.n == 1 and base.n == 1 for new, base in pairs)
    overall = flips(pairs, passed_overall)
    rates_new = [{"pass": new.passes / new.n} for new, _ in pairs]
    rates_base = [{"pass": base.passes / base.n} for _, base in pairs]
    rate = paired_bootstrap(rates_new, rates_base, strata, {"pass": 1.0}, level=level,
                            resamples=resamples)["pass"]
    if rate is not None and score is not None and score.interval is None:
        rate = replace(rate, interval=None)
    if rate is not None:
        new_rate = 100 * sum(r["pass"] for r in rates_new) / len(pairs)
        rows.append(_row("pass rate", new_rate, new_rate - 100 * rate.delta, rate, single,
                         overall, [n["pass"] - b["pass"] for n, b in
                                   zip(rates_new, rates_base, strict=True)], level))
    for axis in weights:
        difference = found[axis]
        if difference is None:
            continue
        members = [(pair, n[axis], b[axis]) for pair, n, b in
                   zip(pairs, new_rows, base_rows, strict=True) if axis in n and axis in b]
        new_mean = 100 * sum(n for _, n, _ in members) / len(members)
        exact = single and all(v in (0.0, 1.0) for _, n, b in members for v in (n, b))
        if len(members) < MIN_PAIRS:  # the cases that count on it (5 chains in 37 pairs)
            difference = replace(difference, interval=None)
        rows.append(_row(f"axis {axis}", new_mean, new_mean - 100 * difference.delta,
                         difference, exact, flips([p for p, _, _ in members],
                                                  passed_axis(axis)),
                         [n - b for _, n, b in members], level))
    return rows


def _row(name: str, new: float, base: float, difference: PairedDifference, exact: bool,
         table: Flips, terms: list[float], level: float) -> Row:
    """A pass/fail figure of single tries is tested by exact McNemar on its flips, with
    Tango's score interval; any other by the sign-flip test on its per-case differences
    (computed only then), with the paired bootstrap's."""
    if exact:
        interval = tango_paired(len(table.helped), len(table.hurt), table.cases, level)
        return Row(name, new, base, replace(difference, interval=interval), "mcnemar", table)
    return Row(name, new, base, difference, "sign-flip", table, sign_flip_p(terms))


def _score_terms(new_rows: list[dict[str, float]], base_rows: list[dict[str, float]],
                 weights: dict[str, float]) -> list[float]:
    """Each case's share of the score difference (points): the score is linear in the
    per-case axis values, Σₐ wₐ·mean(a) / Σ w, so the difference splits case by case."""
    counts = {a: sum(1 for n, b in zip(new_rows, base_rows, strict=True)
                     if a in n and a in b) for a in weights}
    total = sum(weights[a] for a, c in counts.items() if c)
    shares = [sum(weights[a] * (new[a] - base[a]) / counts[a]
                  for a in weights if a in new and a in base)
              for new, base in zip(new_rows, base_rows, strict=True)]
    return [100.0 * share / total if total else 0.0 for share in shares]


def _weighted(rows: list[dict[str, float]], weights: dict[str, float]) -> float:
    sums: dict[str, list[float]] = {}
    for row in rows:
        for axis, value in row.items():
            sums.setdefault(axis, []).append(value)
    used = {a: sum(v) / len(v) for a, v in sums.items() if a in weights}
    total = sum(weights[a] for a in used)
    return 100.0 * sum(weights[a] * m for a, m in used.items()) / total if total else 0.0


def group_rows(pairs: list[tuple[CaseTries, CaseTries]], weights: dict[str, float], *,
               level: float = DEFAULT_LEVEL) -> list[Row]:
    """The score row and pass/fail flips per group: shown, never deciding (many groups
    would make chance drops certain)."""
    labels = sorted({new.label("group") or "" for new, _ in pairs} - {""})
    rows = []
    for label in labels:
        members = [(n, b) for n, b in pairs if n.label("group") == label]
        found = paired_rows(members, weights, level=level, resamples=1000, score_only=True)
        if found:  # score_only: the score row, or none
            rows.append(replace(found[0], name=f"group {label}", decides=False,
                                flips=flips(members, passed_overall)))
    return rows


@dataclass
class Verdict:
    status: str  # "regression", "improvement", "no detectable change", "nothing compared"
    alpha: float
    per_figure_alpha: float
    cases: int
    smallest_detectable: dict[str, float | None]
    min_flips: int

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "alpha": self.alpha,
                "per_figure_alpha": round(self.per_figure_alpha, 6),
                "correction": "Bonferroni over the deciding figures", "cases": self.cases,
                "power": POWER, "smallest_detectable_points": {
                    k: None if v is None else round(v, 2)
                    for k, v in self.smallest_detectable.items()},
                "min_flips": self.min_flips}


def decide(rows: list[Row], *, level: float = DEFAULT_LEVEL,
           tolerance: float = 0.0) -> Verdict:
    """Mark each row and give the run's verdict. A deciding row is a regression when its
    drop is significant at (1 − level) / m and larger than ``tolerance`` points."""
    alpha = 1.0 - level
    deciding = [r for r in rows if r.decides]
    per_figure = alpha / max(1, len(deciding))
    for row in rows:
        threshold = per_figure if row.decides else alpha
        if row.p_value < threshold and abs(row.delta) > tolerance:
            row.status = "regression" if row.delta < 0 else "improvement"
        else:
            row.status = "no detectable change"
    cases = next((r.flips.cases for r in deciding if r.name == "pass rate" and r.flips), 0)
    smallest: dict[str, float | None] = {}
    for row in deciding:
        if row.name == "score":
            # Nothing varied between the runs: no spread to size a difference by. A score
            # moves 100 points at most: past that, no difference would be detected.
            se = row.difference.standard_error
            size = score_min_detectable(se, alpha=per_figure, power=POWER) if se > 0 else None
            smallest["score"] = size if size is not None and size <= 100 else None
        elif row.flips is not None and row.flips.cases:
            detectable = min_detectable(row.flips.cases, row.flips.discordance,
                                        alpha=per_figure, power=POWER)
            smallest[row.name] = None if detectable is None else 100 * detectable
    if cases < min_flips(per_figure):  # no difference could show: none is detectable
        smallest = dict.fromkeys(smallest)
    statuses = {r.status for r in deciding}
    status = ("regression" if "regression" in statuses else
              "improvement" if "improvement" in statuses else
              "no detectable change" if deciding else "nothing compared")
    return Verdict(status, alpha, per_figure, cases, smallest, min_flips(per_figure))
