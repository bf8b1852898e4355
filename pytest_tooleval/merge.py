"""``tooleval merge``: join the shards of a run (their journals or reports) into one report.

Every part must come from a run with the same identity (pytest_tooleval/journal.py:
model, grammar, router, k, tools, package, platform) and must have finished; shards must
be distinct and complete (``1/N`` … ``N/N``) and no case may appear twice. The merged
report is built from the parts' typed results exactly as a single run's is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_tooleval.journal import JOURNAL_NAME, JournalError, read_journal
from pytest_tooleval.result import CaseResult
from pytest_tooleval.router.base import SHOWN
from pytest_tooleval.scoring.settings import Thresholds


class MergeError(Exception):
    pass


@dataclass
class Part:
    source: Path
    identity_hash: str | None
    shard: str | None
    results: list[dict[str, Any]]
    run: dict[str, Any]
    interrupted: str | None


def load_part(path: Path) -> Part:
    """A journal (``journal.jsonl``), a report (``report.json``), or a folder holding one
    (the journal preferred: it says whether the run finished)."""
    if path.is_dir():
        path = path / JOURNAL_NAME if (path / JOURNAL_NAME).exists() else path / "report.json"
    if path.name.endswith(".jsonl"):
        try:
            stored = read_journal(path)
        except JournalError as exc:
            raise MergeError(str(exc)) from None
        if stored.end is None:
            raise MergeError(f"{path}: this run did not finish (it was killed: the journal "
                             "has no end record); resume it with --tooleval-resume first")
        return Part(path, stored.identity_hash, stored.start.get("shard"),
                    list(stored.cases.values()), dict(stored.end.get("run") or {}),
                    stored.end.get("interrupted"))
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise MergeError(f"{path}: not a readable report: {exc}") from None
    run = report.get("run", {})
    return Part(path, run.get("identity_hash"), run.get("shard"), list(report.get("cases", [])),
                dict(run), run.get("interrupted"))


def check_parts(parts: list[Part]) -> None:
    if not parts:
        raise MergeError("nothing to merge: name the shards' report folders, journals or "
                         "reports")
    identities = {p.identity_hash for p in parts}
    if None in identities:
        missing = next(p.source for p in parts if p.identity_hash is None)
        raise MergeError(f"{missing}: no run identity recorded (a report from before "
                         "journals); rerun that shard")
    if len(identities) > 1:
        listing = ", ".join(f"{p.source} ({p.identity_hash})" for p in parts)
        raise MergeError("the parts come from runs with different configurations (model, "
                         f"grammar, router, k, tools, package or platform): {listing}")
    for part in parts:
        if part.interrupted:
            raise MergeError(f"{part.source}: that run was interrupted ({part.interrupted}); "
                             "resume it with --tooleval-resume, then merge")
    shards = [p.shard for p in parts]
    if any(shards):
        if not all(shards):
            raise MergeError("some parts are shards and some are not: "
                             + ", ".join(f"{p.source} ({p.shard or 'no shard'})" for p in parts))
        given = [s for s in shards if s]
        counts = {s.split("/")[1] for s in given}
        if len(counts) > 1:
            raise MergeError(f"the parts split the run differently: {sorted(set(given))}")
        total = int(next(iter(counts)))
        seen = sorted(int(s.split("/")[0]) for s in given)
        if len(set(seen)) != len(seen):
            raise MergeError(f"a shard is given twice: {sorted(given)}")
        absent = sorted(set(range(1, total + 1)) - set(seen))
        if absent:
            raise MergeError(f"shard(s) {', '.join(f'{i}/{total}' for i in absent)} missing;"
                             " the merged report would not cover the run")
    nodeids: dict[str, Path] = {}
    for part in parts:
        for case in part.results:
            nodeid = str(case.get("nodeid"))
            if nodeid in nodeids:
                raise MergeError(f"{nodeid} is in both {nodeids[nodeid]} and {part.source}")
            nodeids[nodeid] = part.source


def merge(paths: list[Path], out_dir: Path, rootdir: Path) -> tuple[dict[str, Any], Any]:
    """Build and write the merged report; returns it and the recorder that wrote it."""
    from pytest_tooleval.config import Settings
    from pytest_tooleval.journal import case_set_hash
    from pytest_tooleval.recorder import Recorder

    parts = [load_part(path) for path in paths]
    check_parts(parts)
    first = parts[0].run
    thresholds = first.get("thresholds", {})
    defaults = Thresholds()
    settings = Settings(
        rootdir=rootdir, report_dir=out_dir, k=int(first.get("k", SHOWN)),
        gate=float(thresholds.get("gate", defaults.gate)),
        min_score=float(thresholds.get("min_score", defaults.min_score)),
        max_malformed=float(thresholds.get("max_malformed", defaults.max_malformed)),
        latency_p95=thresholds.get("latency_p95"),
        min_cases=int(thresholds.get("min_cases", defaults.min_cases)),
    )
    recorder = Recorder(settings, {})
    for part in parts:
        for case in part.results:
            recorder.results[str(case["nodeid"])] = CaseResult.from_json(case)
    metadata = dict(first)
    for key in ("package_version", "platform"):
        metadata.pop(key, None)  # build_report adds them; the parts' are equal (identity)
    started = [str(p.run["started"]) for p in parts if p.run.get("started")]
    finished = [str(p.run["finished"]) for p in parts if p.run.get("finished")]
    metadata.update({
        "started": min(started) if started else None,
        "finished": max(finished) if finished else None,
        "interrupted": None,
        "cases_done": len(recorder.results),
        "cases_selected": len(recorder.results),
        "shard": None,
        "merged_from": [str(p.source) for p in parts],
    })
    selection = dict(first.get("selection", {}))
    selection["cases"] = len(recorder.results)
    selection["case_set_hash"] = case_set_hash(
        {nodeid: r.case_hash for nodeid, r in recorder.results.items()})
    metadata["selection"] = selection
    report = recorder.build_and_write(None, metadata)
    return report, recorder
