"""Comparing a run with a baseline: deltas per axis, group and case, regressions first,
and the paired statistics (scoring/paired.py).

Refused when the runs differ in a way that would read as a change of the model's skill
(platform, tools offered, case set, constraint, model, backend, sampling); ``force``
compares the cases both ran anyway, the differences printed on top.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tooleval.report.model import Report, RunInfo
from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.aggregate import WEIGHTS, axes_of, breakdown, score_of
from pytest_tooleval.scoring.paired import (
    POWER,
    Pairing,
    Row,
    Verdict,
    decide,
    group_rows,
    pair_cases,
    paired_rows,
)
from pytest_tooleval.scoring.statistics import DEFAULT_LEVEL

OUTCOME_RANK = {"FAIL": 0, "PARTIAL": 1, "PASS": 2}


def constraint(report: Report) -> str:
    """The grammar mode and the constraint that actually ran, as a user reads them."""
    return (f"grammar {report.run.backend.get('grammar')}, constraint "
            f"{report.run.constraint or 'not recorded'}")


SAMPLING_KEYS = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed",
                 "max_tokens")


def model_identity(run: RunInfo) -> Any:
    """Which model ran: the GGUF file's name (embedded), the models the server listed at
    the preflight, or the model name the run asked for."""
    backend = run.backend
    if backend.get("model_path"):
        return Path(str(backend["model_path"])).name
    served = (backend.get("preflight") or {}).get("models")
    if isinstance(served, list) and served:
        return ", ".join(sorted(map(str, served)))
    return backend.get("model") or run.model.get("model")


def sampling_of(run: RunInfo) -> dict[str, Any]:
    """The sampling a run used: the backend's record, else the profile's fields."""
    if isinstance(run.backend.get("sampling"), dict):
        return dict(run.backend["sampling"])
    sources = (run.backend, run.model)
    return {key: source[key] for key in SAMPLING_KEYS for source in reversed(sources)
            if key in source}


def _run_differences(new: RunInfo, base: RunInfo) -> list[str]:
    found = []
    if model_identity(new) != model_identity(base):
        found.append(f"model differs: {model_identity(new)} here, {model_identity(base)} "
                     "in the baseline")
    kind_new, kind_base = new.backend.get("backend"), base.backend.get("backend")
    if kind_new != kind_base:
        found.append(f"backend differs: {kind_new} here, {kind_base} in the baseline")
    sampling_new, sampling_base = sampling_of(new), sampling_of(base)
    # A field one run did not record is unknown there, not different.
    changed = [f"{key} {sampling_new[key]} here, {sampling_base[key]} in the baseline"
               for key in SAMPLING_KEYS if key in sampling_new and key in sampling_base
               and sampling_new[key] != sampling_base[key]]
    if changed:
        found.append("sampling differs: " + "; ".join(changed))
    return found


def mcp_servers(run: RunInfo) -> dict[str, str]:
    """Each MCP provider's server as its initialize handshake named it: "name version"."""
    return {str(provider.get("source")):
            " ".join(str(part) for part in (server.get("name"), server.get("version")) if part)
            for provider in run.tool_providers
            if isinstance(server := provider.get("server"), dict)}


def differences(new: Report, base: Report) -> list[str]:
    """Why the two runs are not comparable as they stand; empty when they are."""
    found = [f"the run {where} was interrupted ({run.interrupted}); resume it first "
             "(--tooleval-resume)"
             for where, run in (("here", new.run), ("in the baseline", base.run))
             if run.interrupted]
    for key in ("system", "machine"):
        here, there = getattr(new.run.platform, key), getattr(base.run.platform, key)
        if here != there:
            found.append(f"platform differs: {key} {here} here, {there} in the baseline")
    new_tools, base_tools = set(new.run.tools_offered), set(base.run.tools_offered)
    parts = [f"{len(tools)} tool(s) only {where}: {', '.join(tools)}" for where, tools in (
        ("in the baseline", sorted(base_tools - new_tools)),
        ("here", sorted(new_tools - base_tools))) if tools]
    if parts:
        found.append("tool availability differs: " + "; ".join(parts))
    # By case, not by try: runs with different --tooleval-repeat compare.
    new_cases = {c.case_key for c in new.cases}
    base_cases = {c.case_key for c in base.cases}
    if new_cases != base_cases:
        found.append(f"case set differs: {len(new_cases - base_cases)} case(s) only here, "
                     f"{len(base_cases - new_cases)} only in the baseline")
    new_servers, base_servers = mcp_servers(new.run), mcp_servers(base.run)
    for source in sorted(set(new_servers) & set(base_servers)):
        if new_servers[source] != base_servers[source]:
            found.append(f"MCP server differs: {source} is {new_servers[source]} here, "
                         f"{base_servers[source]} in the baseline")
    if constraint(new) != constraint(base):
        found.append(f"grammar mechanism differs: {constraint(new)} here, "
                     f"{constraint(base)} in the baseline")
    found += _scoring_differences(new, base)
    return found + _run_differences(new.run, base.run)


def _scoring_differences(new: Report, base: Report) -> list[str]:
    """The same case (same content) counted on other axes in the two runs: they were scored
    by different versions, so the axes and the score would move with no change of the model."""
    moved = [(n, b) for n, b in pair_cases(new.cases, base.cases).pairs
             if n.case_hash and n.case_hash == b.case_hash and set(n.axes()) != set(b.axes())]
    if not moved:
        return []
    first_new, first_base = moved[0]
    return [f"scoring differs: {len(moved)} case(s) count on other axes here than in the "
            f"baseline (e.g. {first_new.key}: {', '.join(sorted(first_new.axes()))} here, "
            f"{', '.join(sorted(first_base.axes()))} in the baseline): the runs were scored "
            "by different versions; re-score the older report with `tooleval rescore REPORT "
            "--report DIR` and compare with DIR/report.json"]


@dataclass
class Comparison:
    refused: list[str] = field(default_factory=list)
    forced: bool = False
    score: tuple[float | None, float | None] = (None, None)
    axes: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    groups: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    regressions: list[dict[str, Any]] = field(default_factory=list)
    improvements: list[dict[str, Any]] = field(default_factory=list)
    #: Same id, different content hash: the case was edited, so its change is not the
    #: model's. Listed apart, left out of every figure.
    edited: list[dict[str, Any]] = field(default_factory=list)
    tolerance: float = 1.0
    routing: tuple[str, str] | None = None  # (new, baseline) router modes when they differ
    routing_only: list[dict[str, Any]] = field(default_factory=list)
    level: float = DEFAULT_LEVEL
    pairing: Pairing | None = None
    rows: list[Row] = field(default_factory=list)
    group_rows: list[Row] = field(default_factory=list)
    verdict: Verdict | None = None

    @property
    def compared(self) -> bool:
        """Not refused (or forced), and some case scored in both runs."""
        nothing = self.verdict is not None and self.verdict.status == "nothing compared"
        return (not self.refused or self.forced) and not nothing

    def regressed(self) -> list[str]:
        """The figures whose drop is outside the noise (significant at the level, corrected
        for the figures that decide) and larger than the tolerance (points out of 100)."""
        return [f"{row.name}: {row.base:.1f} → {row.new:.1f} ({row.delta:+.1f}, "
                f"p = {row.p_value:.2g})" for row in self.rows if row.status == "regression"]

    def to_dict(self) -> dict[str, Any]:
        def pair(values: tuple[float | None, float | None]) -> dict[str, float | None]:
            new, base = values
            delta = None if new is None or base is None else round(new - base, 4)
            return {"new": new, "baseline": base, "delta": delta}

        return {
            "refused": self.refused,
            "forced": self.forced,
            "tolerance": self.tolerance,
            "score": pair(self.score),
            "axes": {axis: pair(v) for axis, v in self.axes.items()},
            "groups": {group: pair(v) for group, v in self.groups.items()},
            "regressions": self.regressions,
            "improvements": self.improvements,
            "edited": self.edited,
            "regressed_beyond_tolerance": self.regressed(),
            "routing": list(self.routing) if self.routing else None,
            "routing_only": self.routing_only,
            **self._paired_dict(),
        }

    def _paired_dict(self) -> dict[str, Any]:
        if self.pairing is None or self.verdict is None:
            return {}
        pairing = self.pairing
        return {"paired": {
            "level": self.level,
            "cases": len(pairing.pairs),
            "edited": pairing.edited,
            "only_new": pairing.only_new,
            "only_baseline": pairing.only_base,
            "unscored": pairing.unscored,
            "figures": {row.name: row.to_dict() for row in self.rows},
            "groups": {row.name: row.to_dict() for row in self.group_rows},
            "verdict": self.verdict.to_dict(),
        }}


def paired_statistics(new: list[CaseResult], base: list[CaseResult], level: float,
                      tolerance: float) -> tuple[Pairing, list[Row], list[Row], Verdict]:
    """Cases paired by content hash; per figure (score, pass rate, each axis) and per group
    the paired difference, its interval and test; the verdict (groups do not decide)."""
    pairing = pair_cases(new, base)
    rows = paired_rows(pairing.pairs, WEIGHTS, level=level)
    groups = group_rows(pairing.pairs, WEIGHTS, level=level)
    verdict = decide(rows, level=level, tolerance=tolerance)
    decide(groups, level=level, tolerance=tolerance)
    return pairing, rows, groups, verdict


def scored_figures(
    cases: list[CaseResult],
) -> tuple[float | None, dict[str, float], dict[str, Any]]:
    """Score, axes (0–100) and group scores of these cases."""
    axes = axes_of(cases)
    return (score_of(axes), {a: 100 * v.value for a, v in axes.items()},
            {g: row.score for g, row in breakdown(cases, "group").items()})


def compare(new: Report, base: Report, *, force: bool = False,
            tolerance: float = 1.0, level: float = DEFAULT_LEVEL) -> Comparison:
    result = Comparison(refused=differences(new, base), forced=force, tolerance=tolerance,
                        level=level)
    if not result.compared:
        return result
    pairing, result.rows, result.group_rows, result.verdict = paired_statistics(
        new.cases, base.cases, level, tolerance)
    result.pairing = pairing
    base_by_id = {c.nodeid: c for c in base.cases}
    edited = set(pairing.edited)  # a case moved to another id is paired, not edited
    result.edited = [{"nodeid": case.nodeid, "baseline": base_by_id[case.nodeid].outcome.value,
                      "new": case.outcome.value} for case in new.cases
                     if case.nodeid in base_by_id and case.case_key in edited]
    # The point figures over the same cases as the statistics: paired by content.
    pairs = pairing.pairs
    new_cases = [t for case, _ in pairs for t in case.scored]
    base_cases = [t for _, case in pairs for t in case.scored]
    new_score, new_axes, new_groups = scored_figures(new_cases)
    base_score, base_axes, base_groups = scored_figures(base_cases)
    result.score = (new_score, base_score)
    result.axes = {a: (new_axes.get(a), base_axes.get(a)) for a in WEIGHTS
                   if a in new_axes or a in base_axes}
    result.groups = {g: (new_groups.get(g), base_groups.get(g))
                     for g in sorted({*new_groups, *base_groups})}
    _routing_only(result, new_cases, base_by_id, new.run.router_mode, base.run.router_mode)
    # A case is worse or better by its outcomes' mean rank over its tries (paired by
    # content, as the statistics: a 1-try baseline and a 3-try run pair case by case).
    for new_case, base_case in pairs:
        before, after = _mean_rank(base_case.scored), _mean_rank(new_case.scored)
        if after == before:
            continue
        change = {"nodeid": new_case.key,
                  "baseline": "/".join(t.outcome.value for t in base_case.scored),
                  "new": "/".join(t.outcome.value for t in new_case.scored),
                  "reasons": next((t.reasons for t in new_case.scored if t.reasons), [])}
        (result.regressions if after < before else result.improvements).append(change)
    return result


def _mean_rank(tries: list[CaseResult]) -> float:
    return sum(OUTCOME_RANK[t.outcome.value] for t in tries) / len(tries)


def _routing_only(result: Comparison, new_cases: list[CaseResult],
                  base_by_id: dict[str, CaseResult], new_mode: str, base_mode: str) -> None:
    """A normal run paired with a routing ablation: the cases that pass only when routing
    is taken away, and at which step a tool that ran under the ablation was not shown."""
    if new_mode == base_mode:
        return
    result.routing = (new_mode, base_mode)
    for case in new_cases:
        other = base_by_id.get(case.nodeid)
        if other is None or not other.scored:  # paired by content under another id
            continue
        normal, ablation = (case, other) if new_mode == "triggers" else (other, case)
        if normal.outcome.value == "PASS" or ablation.outcome.value != "PASS":
            continue
        hidden = [[t for t in dict.fromkeys(ran.transcript.ran) if t not in seen.transcript.shown]
                  for seen, ran in zip(normal.steps, ablation.steps, strict=False)]
        unseen = [f"step {number}: {', '.join(tools)} not shown"
                  for number, tools in enumerate(hidden, start=1) if tools]
        result.routing_only.append({"nodeid": case.nodeid, "normal": normal.outcome.value,
                                    "ablation": ablation.outcome.value, "unseen": unseen})


def _row(label: str, values: tuple[float | None, float | None]) -> str:
    new, base = values
    shown = ["n/a" if v is None else f"{v:6.1f}" for v in (base, new)]
    delta = "" if new is None or base is None else f"{new - base:+6.1f}"
    return f"  {label:<22} {shown[0]} → {shown[1]}  {delta}"


def render_comparison(result: Comparison) -> str:
    lines = []
    if result.refused:
        head = "Compared anyway (--force); the runs differ:" if result.forced else (
            "Comparison refused: the runs differ in ways that would read as regressions. "
            "Pass --force to compare the cases both ran anyway.")
        lines += [head, *(f"  - {reason}" for reason in result.refused)]
        if not result.forced:
            return "\n".join(lines) + "\n"
        lines.append("")
    lines += [f"{'':24} baseline →    new   delta", _row("score", result.score)]
    lines += [_row(f"axis {axis}", values) for axis, values in result.axes.items()]
    lines += [_row(f"group {group}", values) for group, values in result.groups.items()]
    lines.append("")
    # A case's change is not a regression or an improvement: the verdict below weighs them.
    worse, better = result.regressions, result.improvements
    noise = result.verdict is not None and result.verdict.status == "no detectable change"
    lines.append(f"Cases that changed: {len(worse)} worse, {len(better)} better"
                 + (" (within the noise: see the verdict)" if noise and worse + better else ""))
    lines += [f"  worse   {c['baseline']} → {c['new']}  {c['nodeid']}" for c in worse]
    lines += [f"  better  {c['baseline']} → {c['new']}  {c['nodeid']}" for c in better]
    if result.edited:
        lines.append(f"Edited cases ({len(result.edited)}; content changed, not compared):")
        lines += [f"  {c['baseline']} → {c['new']}  {c['nodeid']}" for c in result.edited]
    if result.routing:
        new_mode, base_mode = result.routing
        lines += ["", f"Routing: baseline {base_mode}, new {new_mode}. Cases that pass only "
                      f"without the router's choice ({len(result.routing_only)}):"]
        lines += [f"  {c['normal']} → {c['ablation']}  {c['nodeid']}"
                  + (f"  ({'; '.join(c['unseen'])})" if c["unseen"] else
                     "  (every tool that ran was shown: not routing alone)")
                  for c in result.routing_only]
    lines.append("")
    lines += _render_paired(result)
    return "\n".join(lines) + "\n"


def _render_paired(result: Comparison) -> list[str]:
    """The statistics section of a comparison, for a person."""
    if result.pairing is None or result.verdict is None:
        return []
    verdict, pairing = result.verdict, result.pairing
    level = f"{result.level:.0%}"
    lines = [f"Paired over {len(pairing.pairs)} case(s) matched by content; {level} paired "
             f"intervals; a drop is a regression when p < {verdict.per_figure_alpha:.3g} "
             f"(α = {verdict.alpha:.2g}, Bonferroni over {len(result.rows)} figures) and "
             f"larger than {result.tolerance:g} point{'' if result.tolerance == 1 else 's'}.",
             f"  {'':18} {'baseline':>8} → {'new':>6}  {'delta':>6}  {'interval':>16}  "
             f"{'test':>9}  {'p':>7}  flips (hurt/helped)  verdict"]
    for row in [*result.rows, *result.group_rows]:
        interval = row.difference.interval
        shown = "n/a (few cases)" if interval is None else (
            f"[{interval.low * row._scale:+.1f} to {interval.high * row._scale:+.1f}]")
        flipped = f"{len(row.flips.hurt)}/{len(row.flips.helped)}" if row.flips else ""
        status = row.status
        if not row.decides and status != "no detectable change":
            status = ("drop" if row.delta < 0 else "rise") + " at p < α, uncorrected"
        note = "" if row.decides else " (not deciding)"
        lines.append(f"  {row.name:<18} {row.base:8.1f} → {row.new:6.1f}  {row.delta:+6.1f}  "
                     f"{shown:>16}  {row.test:>9}  {row.p_value:7.3g}  {flipped:>19}  "
                     f"{status}{note}")
    for title, keys in (("only in this run", pairing.only_new),
                        ("only in the baseline", pairing.only_base),
                        ("ERROR in one run (not compared)", pairing.unscored)):
        if keys:
            lines.append(f"  {len(keys)} case(s) {title}: " + ", ".join(keys[:10])
                         + (f", … {len(keys) - 10} more" if len(keys) > 10 else ""))
    lines.append("")
    if verdict.status == "nothing compared":
        lines.append("Verdict: nothing compared: no case was scored in both runs (an ERROR "
                     "is the machine's, never scored); rerun the run whose cases ended in "
                     "ERROR, then compare again.")
    elif verdict.status == "no detectable change" and verdict.cases < verdict.min_flips:
        lines.append(f"Verdict: no detectable change, and none could show: {verdict.cases} "
                     f"paired case(s), while at least {verdict.min_flips} must flip one way "
                     "for a difference to show at all (`tooleval power` says how many cases "
                     "a difference needs).")
    elif verdict.status == "no detectable change":
        sizes = [f"{name} {value:.1f} points" for name, value in
                 verdict.smallest_detectable.items() if value is not None]
        lines.append(f"Verdict: no detectable change. With {verdict.cases} paired case(s) the "
                     f"smallest difference detectable (at {POWER:.0%} power) is "
                     + ("; ".join(sizes) if sizes else "not estimable")
                     + f"; at least {verdict.min_flips} cases must flip one way to show at all.")
    else:
        moved = [row.name for row in result.rows if row.status == verdict.status]
        lines.append(f"Verdict: {verdict.status} in {', '.join(moved)} (outside the noise at "
                     f"{level}).")
    return lines
