"""``tooleval merge``: join the shards of a run (journals or reports) into one report.
Every part must have finished, with the same identity; shards must be distinct and
complete, and no case may appear twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_tooleval.cases.identity import case_set_hash
from pytest_tooleval.report.model import (
    ReportError,
    RunInfo,
    Selection,
    StatisticsInfo,
    load_report,
)
from pytest_tooleval.result import CaseResult
from pytest_tooleval.run.finish import Finished, finish, settings_for
from pytest_tooleval.run.journal import JOURNAL_NAME, JournalError, read_journal
from pytest_tooleval.run.shard import parse_shard


class MergeError(Exception):
    pass


@dataclass
class Part:
    source: Path
    results: list[CaseResult]
    run: RunInfo
    statistics: StatisticsInfo


def load_part(path: Path) -> Part:
    """A journal (``journal.jsonl``), a report (``report.json``), or a folder holding one
    (the journal preferred: it says whether the run finished)."""
    if path.is_dir():
        path = path / JOURNAL_NAME if (path / JOURNAL_NAME).exists() else path / "report.json"
    if not path.name.endswith(".jsonl"):
        try:
            report = load_report(path)
        except ReportError as exc:
            raise MergeError(str(exc)) from None
        return Part(path, report.cases, report.run, report.summary.statistics)
    try:
        stored = read_journal(path)
    except JournalError as exc:
        raise MergeError(str(exc)) from None
    if stored.end is None:
        raise MergeError(f"{path}: this run did not finish (it was killed: the journal "
                         "has no end record); resume it with --tooleval-resume first")
    if not stored.end.get("run"):
        raise MergeError(f"{path}: the run wrote no report (its end record has no run); "
                         "run that shard again")
    if not stored.end.get("statistics"):
        raise MergeError(f"{path}: no interval level recorded (a journal of an earlier "
                         "version); merge its report.json instead")
    skipped = {s["nodeid"] for s in stored.end["run"].get("skipped") or []}
    lost = sorted(set(stored.start.get("cases", {})) - set(stored.cases) - skipped)
    if lost:  # a line deleted or damaged since: the report would be short of these
        raise MergeError(f"{path}: no result for {len(lost)} selected case(s) ({lost[0]}"
                         f"{', …' if len(lost) > 1 else ''}); run them with "
                         "--tooleval-resume, then merge")
    return Part(path, [CaseResult.from_json(case) for case in stored.cases.values()],
                RunInfo.model_validate(stored.end["run"]),
                StatisticsInfo.model_validate(stored.end["statistics"]))


def check_parts(parts: list[Part]) -> None:
    if not parts:
        raise MergeError("nothing to merge: name the shards' report folders, journals or "
                         "reports")
    identities = {p.run.identity_hash for p in parts}
    if None in identities:
        missing = next(p.source for p in parts if p.run.identity_hash is None)
        raise MergeError(f"{missing}: no run identity recorded (a report from before "
                         "journals); rerun that shard")
    if len(identities) > 1:
        listing = ", ".join(f"{p.source} ({p.run.identity_hash})" for p in parts)
        raise MergeError("the parts come from runs with different configurations (model, "
                         f"grammar, router, k, tools, package or platform): {listing}")
    if len({(p.statistics.level, p.statistics.max_width) for p in parts}) > 1:
        raise MergeError("the parts ran with different --tooleval-level or "
                         "--tooleval-max-width: " + ", ".join(
                             f"{p.source} ({p.statistics.level:g}, {p.statistics.max_width:g})"
                             for p in parts) + "; run the shards with the same ones")
    # The merged report has one selection and one set of thresholds: the first part's.
    if len({p.run.thresholds.model_dump_json() for p in parts}) > 1:
        raise MergeError("the parts ran with different thresholds (--tooleval-gate, "
                         "--tooleval-min-score, --tooleval-min-cases, …): " + ", ".join(
                             f"{p.source} ({p.run.thresholds})" for p in parts)
                         + "; run the shards with the same ones")
    chosen = {p.source: "no selection recorded" if p.run.selection is None else
              _selection_text(p.run.selection) for p in parts}
    if len(set(chosen.values())) > 1:
        raise MergeError("the parts selected different cases: " + ", ".join(
            f"{source} ({c})" for source, c in chosen.items())
            + "; run the shards with the same paths, -k, -m, --deselect and --ignore")
    for part in parts:
        if part.run.interrupted:
            raise MergeError(f"{part.source}: that run was interrupted ({part.run.interrupted}); "
                             "resume it with --tooleval-resume, then merge")
    shards = [p.run.shard for p in parts]
    if any(shards):
        if not all(shards):
            raise MergeError("some parts are shards and some are not: "
                             + ", ".join(f"{p.source} ({p.run.shard or 'no shard'})"
                                         for p in parts))
        named = [s for s in shards if s]
        given = [parse_shard(s) for s in named]
        totals = {n for _, n in given}
        if len(totals) > 1:
            raise MergeError(f"the parts split the run differently: {sorted(set(named))}")
        total = totals.pop()
        if len(set(given)) != len(given):
            raise MergeError(f"a shard is given twice: {sorted(named)}")
        absent = sorted(set(range(1, total + 1)) - {i for i, _ in given})
        if absent:
            raise MergeError(f"shard(s) {', '.join(f'{i}/{total}' for i in absent)} missing;"
                             " the merged report would not cover the run")
    nodeids: dict[str, Path] = {}
    for part in parts:
        for case in part.results:
            if case.nodeid in nodeids:
                raise MergeError(f"{case.nodeid} is in both {nodeids[case.nodeid]} and "
                                 f"{part.source}")
            nodeids[case.nodeid] = part.source


def _selection_text(chosen: Selection) -> str:
    return (f"paths {chosen.paths}, -k {chosen.keyword!r}, -m {chosen.markers!r}"
            + (f", --deselect {chosen.deselected}" if chosen.deselected else "")
            + (f", --ignore {chosen.ignored}" if chosen.ignored else ""))


def merge(paths: list[Path], out_dir: Path, rootdir: Path) -> Finished:
    """Build and write the merged report (``Finished``: it, and the files written)."""
    parts = [load_part(path) for path in paths]
    check_parts(parts)
    first = parts[0].run
    settings = settings_for(first, parts[0].statistics, rootdir, out_dir)
    results = {case.nodeid: case for part in parts for case in part.results}
    count = len(results)
    # Skipped cases were dealt to the shards too: each part lists its own, and a single
    # run counts them as selected and done.
    skipped = {s.nodeid: s for part in parts for s in part.run.skipped or []
               if s.nodeid not in results}
    selection = first.selection.model_copy(update={
        "cases": count, "case_set_hash": case_set_hash(
            (nodeid, r.case_hash) for nodeid, r in results.items()),
    }) if first.selection else None
    run = first.model_copy(update={
        "started": min(p.run.started for p in parts),
        "finished": max(p.run.finished for p in parts),
        "interrupted": None, "resumed": None, "cases_done": count + len(skipped),
        "cases_selected": count + len(skipped), "shard": None,
        "skipped": [skipped[nodeid] for nodeid in sorted(skipped)] or None,
        "merged_from": [str(p.source) for p in parts], "selection": selection,
    })
    return finish(list(results.values()), run, settings, report_option="--report")
