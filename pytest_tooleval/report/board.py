"""``tooleval board``: several runs of the same cases ranked; every pair compared case by
case (paired sign-flip test on the score, Holm-corrected), and the groups of runs the data
cannot tell apart. Runs that differ in more than the model (``compare.differences``) are
refused unless ``force``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from pytest_tooleval.report.charts import Bar, bar_chart
from pytest_tooleval.report.compare import differences, model_identity, sampling_of
from pytest_tooleval.report.github import with_interval
from pytest_tooleval.report.html import bounds, environment
from pytest_tooleval.report.model import Report, RunInfo
from pytest_tooleval.report.terminal import short
from pytest_tooleval.scoring.aggregate import WEIGHTS
from pytest_tooleval.scoring.paired import Row, pair_cases, paired_rows
from pytest_tooleval.scoring.statistics import DEFAULT_LEVEL


@dataclass
class Entry:
    label: str
    report: Report
    #: The letters of the groups it belongs to (runs sharing a letter cannot be told apart).
    groups: str = ""


@dataclass
class Duel:
    """Two runs over the cases both scored: higher-ranked minus lower-ranked score."""

    better: str
    worse: str
    cases: int
    row: Row | None  # None: no case scored in both
    p_holm: float = 1.0
    differs: bool = False


@dataclass
class Board:
    entries: list[Entry]  # ranked, best first
    duels: list[Duel] = field(default_factory=list)
    groups: list[list[str]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    forced: bool = False
    level: float = DEFAULT_LEVEL

    @property
    def ranked(self) -> bool:
        return not self.refused or self.forced


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    order = sorted(range(len(p_values)), key=p_values.__getitem__)
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _setup(run: RunInfo) -> dict[str, Any]:
    """What a label can name beside the model's name: the set-up that ran."""
    return {"grammar": run.grammar, "router": run.router_mode, "tools shown": run.k,
            **{key: value for key, value in run.model.items() if key != "name"},
            **sampling_of(run), "model": model_identity(run),
            "paths": run.selection and " ".join(run.selection.paths),
            "1 case in": run.sample_every}


def _labels(reports: list[Report]) -> list[str]:
    """The model's name; runs of one model named by what differs in their set-ups
    ("m (grammar off)"), else numbered."""
    names, setups = [r.run.model_name for r in reports], [_setup(r.run) for r in reports]
    labels = []
    for name, setup in zip(names, setups, strict=True):
        twins = [other for n, other in zip(names, setups, strict=True) if n == name]
        shown = [f"{key} {short(str(value), 40)}" for key, value in setup.items()
                 if any(other.get(key) != value for other in twins)]
        labels.append(f"{name} ({', '.join(shown)})" if shown else name)
    return [label if labels.count(label) == 1 else f"{label} ({i})"
            for i, label in enumerate(labels, start=1)]


def board(reports: list[Report], *, force: bool = False,
          level: float = DEFAULT_LEVEL) -> Board:
    """Rank the runs by score; refused (nothing ranked) when they differ in more than the
    model, unless ``force``."""
    entries = [Entry(label, report) for label, report in zip(_labels(reports), reports,
                                                             strict=True)]
    first = entries[0]
    refused = [f"{entry.label} against {first.label}: {found}" for entry in entries[1:]
               for found in differences(entry.report, first.report)
               if not found.startswith("model differs")]
    refused += [f"{entry.label}: no case scored (each ended in ERROR or was skipped); run it "
                "again" for entry in entries if not entry.report.summary.cases_scored]
    seen: dict[str, str] = {}
    for entry in entries:  # the same report twice (a copy); two runs differ in timings
        same = seen.setdefault(entry.report.model_dump_json(), entry.label)
        if same != entry.label:
            refused.append(f"{entry.label} is the same run as {same} (started "
                           f"{entry.report.run.started}); give each run once")
    result = Board(entries, refused=refused, forced=force, level=level)
    if not result.ranked:
        return result
    entries.sort(key=lambda e: -1.0 if e.report.summary.score is None
                 else e.report.summary.score, reverse=True)
    for better, worse in combinations(entries, 2):
        pairs = pair_cases(better.report.cases, worse.report.cases).pairs
        rows = paired_rows(pairs, WEIGHTS, level=level, score_only=True)
        result.duels.append(Duel(better.label, worse.label, len(pairs),
                                 rows[0] if rows else None))
    tested = [d for d in result.duels if d.row is not None]
    for duel, p in zip(tested, holm([d.row.p_value for d in tested if d.row]), strict=True):
        duel.p_holm, duel.differs = p, p < 1.0 - level
    result.groups = _groups(entries, {(d.better, d.worse) for d in result.duels if d.differs})
    for letter, group in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", result.groups, strict=False):
        for entry in entries:
            if entry.label in group:
                entry.groups += letter
    return result


def _groups(ranked: list[Entry], apart: set[tuple[str, str]]) -> list[list[str]]:
    """The longest runs of neighbours in the ranking of which no two differ: each a set of
    runs the data cannot tell apart (a run can be in two)."""
    labels = [e.label for e in ranked]
    found: list[list[str]] = []
    for start in range(len(labels)):
        end = start + 1
        while end < len(labels) and not any((labels[i], labels[end]) in apart
                                            for i in range(start, end)):
            end += 1
        group = labels[start:end]
        if not found or not set(group) <= set(found[-1]):
            found.append(group)
    return found


# -- rendering ----------------------------------------------------------------------------
def _axis(report: Report, axis: str) -> str:
    data = report.summary.axes.get(axis)
    return "n/a" if data is None else with_interval(data.value, data.interval, data.cases, 100)


def _score(report: Report) -> str:
    summary = report.summary
    return with_interval(summary.score, summary.score_interval, summary.cases_scored)


def _interval(row: Row) -> str:
    interval = row.difference.interval
    return "n/a (few cases)" if interval is None else \
        f"{interval.low:+.1f} to {interval.high:+.1f}"


def _refusal(result: Board) -> list[str]:
    if not result.refused:
        return []
    head = ("Ranked anyway (--force); the runs differ:" if result.forced else
            "Board refused: these runs cannot be ranked together. Pass --force to rank "
            "them anyway over the cases each ran:")
    return [head, *(f"  - {line}" for line in result.refused)]


def _method(result: Board) -> str:
    alpha = 1.0 - result.level
    return (f"Each pair of runs is compared over the cases both scored (paired by content): "
            f"the score difference with its {result.level:.0%} paired interval and the "
            f"sign-flip test; p-values corrected for {len(result.duels)} comparison"
            f"{'' if len(result.duels) == 1 else 's'} "
            f"(Holm); a pair differs when the corrected p is below {alpha:.2g}. Runs that "
            "share a group letter cannot be told apart.")


def render_markdown(result: Board) -> str:
    lines = _refusal(result)
    if not result.ranked:
        return "\n".join(lines) + "\n"
    cases = {e.report.summary.cases_scored for e in result.entries}
    lines = [f"# Board: {len(result.entries)} runs", "", *lines, *([""] if lines else []),
             f"Cases scored per run: {', '.join(map(str, sorted(cases)))}. {_method(result)}",
             "", "| rank | model | group | score | " + " | ".join(WEIGHTS) +
             " | safety gate | verdict |", "|---" * (6 + len(WEIGHTS)) + "|"]
    for rank, entry in enumerate(result.entries, start=1):
        summary = entry.report.summary
        lines.append(f"| {rank} | {entry.label} | {entry.groups} | {_score(entry.report)} | "
                     + " | ".join(_axis(entry.report, a) for a in WEIGHTS)
                     + f" | {summary.safety_gate.status} | "
                     f"{summary.deployability.verdict} |")
    lines += ["", "Groups the data cannot tell apart: " + "; ".join(
        f"{letter}: {', '.join(group)}" for letter, group in
        zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", result.groups, strict=False)), "",
              "| pair | cases | score difference | interval | p | p (Holm) | differs |",
              "|---|---|---|---|---|---|---|"]
    for duel in result.duels:
        if duel.row is None:
            lines.append(f"| {duel.better} − {duel.worse} | 0 | n/a | n/a | | | no |")
            continue
        lines.append(f"| {duel.better} − {duel.worse} | {duel.cases} | "
                     f"{duel.row.delta:+.1f} | {_interval(duel.row)} | "
                     f"{duel.row.p_value:.3g} | {duel.p_holm:.3g} | "
                     f"{'**yes**' if duel.differs else 'no'} |")
    return "\n".join(lines) + "\n"


def render_html(result: Board) -> str:
    chart = bar_chart("Score by run", [
        Bar(f"{e.label} ({e.groups})", e.report.summary.score,
            bounds(e.report.summary.score_interval), css="bar score") for e in result.entries])
    return str(environment().get_template("board.html.j2").render(
        title=f"tooleval board: {len(result.entries)} runs", board=result, chart=chart,
        axes=list(WEIGHTS), score=_score, axis=_axis, interval=_interval,
        method=_method(result), refusal=_refusal(result)))
