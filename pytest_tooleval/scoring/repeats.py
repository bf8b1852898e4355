"""A case's tries (``--tooleval-repeat K``): one record per case over its repeats.

Every figure is computed over cases, not tries: a case's value on an axis is the mean over
its scored tries, so a case run five times weighs as much as a case run once. ERROR tries
are counted, never scored.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from pytest_tooleval.report.model import CaseTriesRow, Interval, PassK, Repeats
from pytest_tooleval.result import CaseResult, Outcome
from pytest_tooleval.scoring.settings import INTERVAL_MIN_CASES
from pytest_tooleval.scoring.statistics import bootstrap, pass_at_k, pass_hat_k, wilson


@dataclass
class CaseTries:
    key: str
    tries: list[CaseResult] = field(default_factory=list)

    @property
    def scored(self) -> list[CaseResult]:
        return [t for t in self.tries if t.scored]

    def label(self, key: str) -> str | None:
        return self.tries[0].label(key)

    @property
    def stratum(self) -> str:
        return self.tries[0].category or "?"

    @property
    def case_hash(self) -> str | None:
        return self.tries[0].case_hash

    @property
    def n(self) -> int:
        return len(self.scored)

    @property
    def passes(self) -> int:
        return sum(t.outcome is Outcome.PASS for t in self.scored)

    def axes(self) -> dict[str, float]:
        """Mean over the scored tries, per axis the case counts on."""
        values: dict[str, list[float]] = defaultdict(list)
        for result in self.scored:
            for axis, value in result.axes.items():
                values[axis].append(value)
        return {axis: sum(v) / len(v) for axis, v in values.items()}

    def axis_passes(self, axis: str) -> tuple[int, int]:
        """(tries counting on the axis, tries with full credit on it)."""
        values = [r.axes[axis] for r in self.scored if axis in r.axes]
        return len(values), sum(v >= 1.0 for v in values)

    @property
    def flaky(self) -> bool:
        """Scored tries that disagree on the outcome."""
        return len({t.outcome for t in self.scored}) > 1


def group_tries(results: list[CaseResult]) -> list[CaseTries]:
    """Results gathered per case (repeats together), ordered by case, tries by repeat."""
    found: dict[str, CaseTries] = {}
    for result in results:
        found.setdefault(result.case_key, CaseTries(result.case_key)).tries.append(result)
    for tries in found.values():
        tries.tries.sort(key=lambda r: r.repeat or 0)
    return [found[key] for key in sorted(found)]


def _pass_k(counts: list[tuple[int, int, str]], k: int, level: float | None) -> PassK | None:
    """pass^k and pass@k over the cases with k tries ((tries, passes, stratum) each); with
    ``level``, their intervals over cases: the axes' bootstrap on each case's unbiased
    estimate; Wilson's where every estimate is 0 or 1 (a proportion, as a one-try axis's)."""
    usable = [(n, c, s) for n, c, s in counts if n >= k]
    if not usable:
        return None
    rows = [{"pass_hat_k": pass_hat_k(n, c, k), "pass_at_k": pass_at_k(n, c, k)}
            for n, c, _ in usable]
    means = {key: sum(row[key] for row in rows) / len(rows) for key in rows[0]}
    found: dict[str, Interval | None] = dict.fromkeys(means)
    if level is not None and len(rows) >= INTERVAL_MIN_CASES:
        boot = bootstrap(rows, [s for *_, s in usable], dict.fromkeys(means, 1.0),
                         level=level).axes
        found = {key: boot[key] if any(0.0 < row[key] < 1.0 for row in rows)
                 else wilson(mean * len(rows), len(rows), level) for key, mean in means.items()}
    return PassK(
        k=k,
        pass_hat_k=means["pass_hat_k"],
        pass_at_k=means["pass_at_k"],
        cases=len(usable),
        cases_short_of_k=len(counts) - len(usable),
        pass_hat_k_interval=(i := found["pass_hat_k"]) and i.rounded(),
        pass_at_k_interval=(i := found["pass_at_k"]) and i.rounded(),
    )


def repeats_summary(cases: list[CaseTries], axes: list[str], level: float) -> Repeats:
    """pass^k and pass@k (overall and per axis, with their intervals at ``level`` when
    k > 1), per-case rates and the flaky cases.

    k is the most tries any case had; a case with fewer scored tries is counted as short.
    A try passes overall on PASS, on an axis with the axis's full credit."""
    k = max((len(c.tries) for c in cases), default=1)
    at = level if k > 1 else None
    overall = [(c.n, c.passes, c.stratum) for c in cases if c.n]
    per_axis = {axis: [(*c.axis_passes(axis), c.stratum) for c in cases
                       if c.axis_passes(axis)[0]] for axis in axes}
    flaky = [c for c in cases if c.flaky]
    return Repeats(
        k=k,
        overall=_pass_k(overall, k, at),
        curve=[entry for j in range(1, k + 1) if (entry := _pass_k(overall, j, at))],
        axes={axis: _pass_k(counts, k, at) for axis, counts in per_axis.items() if counts},
        flaky_count=len(flaky),
        flaky=[_case_row(c) for c in flaky],
        cases=[_case_row(c) for c in cases] if k > 1 else None,
    )


def _case_row(case: CaseTries) -> CaseTriesRow:
    k = len(case.tries)
    return CaseTriesRow(
        case=case.key,
        tries=k,
        scored=case.n,
        passes=case.passes,
        pass_rate=case.passes / case.n if case.n else None,
        pass_hat_k=pass_hat_k(case.n, case.passes, k) if case.n >= k else None,
        pass_at_k=pass_at_k(case.n, case.passes, k) if case.n >= k else None,
        flaky=case.flaky,
        outcomes=[t.outcome.value for t in case.tries],
    )
