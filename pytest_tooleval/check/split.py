"""A held-out discipline for router evaluation sets: a tuning half and a frozen test half.

``tooleval split FOLDER`` assigns every case of the folder to one half and records the
assignment, with a content hash per case, in ``FOLDER/split.toml``. The unit is the job (a
case's ``job``, else the case), so a job's register variants land in one half; units are
stratified by language and group and dealt out alternately in seeded-hash order.

``tooleval check`` then fails when a frozen case was edited or removed, or a case is in no
half, until ``tooleval split FOLDER --record "why"`` records the change in ``changes``.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import tomli_w

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.files import is_case_path
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import Case, CaseFile
from pytest_tooleval.check.files import SPLIT_FILE, split_folder
from pytest_tooleval.router.catalogue import GROUP_OF

TUNING = "tuning"
FROZEN = "frozen"
HALVES = (TUNING, FROZEN)
DEFAULT_SEED = "tooleval-router-eval"


@dataclass(frozen=True)
class Entry:
    half: str
    unit: str
    sha256: str


@dataclass
class Split:
    """The recorded split of one folder (the content of its ``split.toml``)."""

    folder: Path
    seed: str
    created: str
    entries: dict[str, Entry] = field(default_factory=dict)
    changes: list[dict[str, object]] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.folder / SPLIT_FILE

    def half_of(self, key: str) -> str | None:
        entry = self.entries.get(key)
        return entry.half if entry else None


@dataclass(frozen=True)
class FoundCase:
    key: str  # "en/web.json::case-name", relative to the split's folder
    unit: str  # "en:job" or "en:file::case"
    stratum: str  # "en/web/job" or "en/web/single"
    sha256: str


def case_key(folder: Path, path: Path, case: Case) -> str:
    return f"{path.resolve().relative_to(folder.resolve()).as_posix()}::{case.name}"


def case_hash(case_file: CaseFile, case: Case) -> str:
    """Hash of the case's content as validated (formatting and key order do not count)."""
    content = {
        "language": case_file.language,
        "case": case.model_dump(mode="json", by_alias=True, exclude_defaults=True),
    }
    text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def group_of(case: Case, tools: list[str]) -> str:
    """The case's group: its own, else that of the first built-in of ``tools`` (the tools
    it expects), else "own tools" for other tools (inline, @tool, MCP), else its category."""
    if case.group:
        return case.group
    return next((GROUP_OF[t] for t in tools if t in GROUP_OF),
                "own tools" if tools else case.category)


def scan(folder: Path) -> tuple[list[FoundCase], list[str]]:
    """Every case under ``folder`` (files that do not load are returned as problems)."""
    found: list[FoundCase] = []
    problems: list[str] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and is_case_path(p)):
        try:
            case_file = load_case_file(path)
        except CaseFileError as error:
            problems.append(f"{path}: does not load ({len(error.problems)} problem(s))")
            continue
        for case in case_file.cases:
            key = case_key(folder, path, case)
            unit = f"{case_file.language}:{case.job}" if case.job else f"{case_file.language}:{key}"
            kind = "job" if case.job else "single"
            tools = [tool for step in case.steps for tool in step.expect]
            stratum = f"{case_file.language}/{group_of(case, tools)}/{kind}"
            found.append(FoundCase(key, unit, stratum, case_hash(case_file, case)))
    return found, problems


def _order(seed: str, unit: str) -> str:
    return hashlib.sha256(f"{seed}\0{unit}".encode()).hexdigest()


def assign(cases: Iterable[FoundCase], seed: str) -> dict[str, str]:
    """Unit → half. Per stratum (a unit's first case decides it), units in seeded-hash order
    are dealt alternately; the alternation runs on across a language's strata (separately
    for jobs and for single cases), so each group, each language, and the jobs (hence each
    register) are balanced to within one unit."""
    strata: dict[str, list[str]] = defaultdict(list)
    placed: set[str] = set()
    for case in cases:
        if case.unit not in placed:
            placed.add(case.unit)
            strata[case.stratum].append(case.unit)
    halves: dict[str, str] = {}
    dealt: dict[tuple[str, str], int] = defaultdict(int)  # per language and kind
    for stratum in sorted(strata):
        language, _, kind = stratum.split("/")
        for unit in sorted(strata[stratum], key=lambda u: _order(seed, u)):
            halves[unit] = FROZEN if dealt[language, kind] % 2 == 0 else TUNING
            dealt[language, kind] += 1
    return halves


def _loaded(folder: Path) -> list[FoundCase]:
    """``scan``, refused with ``ValueError`` when a file does not load."""
    cases, problems = scan(folder)
    if problems:
        raise ValueError("; ".join(problems))
    return cases


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_split(folder: Path, seed: str = DEFAULT_SEED) -> Split:
    cases = _loaded(folder)
    halves = assign(cases, seed)
    split = Split(folder, seed, _now())
    split.entries = {c.key: Entry(halves[c.unit], c.unit, c.sha256) for c in cases}
    return split


def record_changes(split: Split, reason: str) -> list[str]:
    """Refresh hashes, add new cases (a known job keeps its half; a new unit goes by its
    seeded hash), drop removed ones; log the frozen cases touched with ``reason``."""
    cases = _loaded(split.folder)
    unit_half = {entry.unit: entry.half for entry in split.entries.values()}
    touched: list[str] = []
    entries: dict[str, Entry] = {}
    for case in cases:
        old = split.entries.get(case.key)
        half = old.half if old else unit_half.get(case.unit)
        if half is None:
            half = FROZEN if int(_order(split.seed, case.unit), 16) % 2 == 0 else TUNING
            unit_half[case.unit] = half
        if old is None or old.sha256 != case.sha256:
            touched.append(f"{'added' if old is None else 'edited'} {half} {case.key}")
        entries[case.key] = Entry(half, case.unit, case.sha256)
    touched += [f"removed {split.entries[k].half} {k}" for k in split.entries if k not in entries]
    split.entries = entries
    if touched:
        split.changes.append({"when": _now(), "reason": reason, "cases": touched})
    return touched


def verify(split: Split) -> list[tuple[str, str]]:
    """(case key, problem) for every frozen case edited or removed and every case in no
    half since the split was last recorded."""
    cases, problems = scan(split.folder)
    found: list[tuple[str, str]] = [("-", p) for p in problems]
    fix = f"record it: tooleval split {split.folder} --record 'why'"
    seen = set()
    for case in cases:
        seen.add(case.key)
        entry = split.entries.get(case.key)
        if entry is None:
            found.append((case.key, f"in neither half of {split.path}; {fix}"))
        elif entry.half == FROZEN and entry.sha256 != case.sha256:
            found.append((case.key, f"a frozen-half case was edited after the split; {fix}"))
    for key, entry in split.entries.items():
        if entry.half == FROZEN and key not in seen:
            found.append((key, f"a frozen-half case was removed after the split; {fix}"))
    return found


# -- the file ---------------------------------------------------------------------------
_HEADER = """\
# The held-out split of this router evaluation folder (docs/router.md).
# Written by `tooleval split`; do not edit by hand: record edits with
# `tooleval split FOLDER --record 'why'`.
"""


def dump(split: Split) -> str:
    data = {
        "seed": split.seed,
        "created": split.created,
        "unit": "job (or the case without one), stratified by language, group, job or single",
        "changes": split.changes,
        "cases": {key: vars(split.entries[key]) for key in sorted(split.entries)},
    }
    return _HEADER + tomli_w.dumps(data)


def load_split(folder: Path) -> Split | None:
    path = folder / SPLIT_FILE
    if not path.is_file():
        return None
    import tomllib  # only where a folder has a split file

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        entries = {
            key: Entry(str(v["half"]), str(v["unit"]), str(v["sha256"]))
            for key, v in data.get("cases", {}).items()
        }
    except (tomllib.TOMLDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(
            f"{path}: not a split file ({exc}); rewrite it with tooleval split"
        ) from None
    bad = [key for key, entry in entries.items() if entry.half not in HALVES]
    if bad:
        raise ValueError(f"{path}: case {bad[0]!r} has a half other than tuning/frozen")
    return Split(
        folder,
        str(data.get("seed", DEFAULT_SEED)),
        str(data.get("created", "")),
        entries,
        list(data.get("changes", [])),
    )


def find_split(path: Path, cache: dict[Path, Split | None]) -> Split | None:
    """The split governing a case file: the nearest ``split.toml`` in its folders."""
    folder = split_folder(path)
    if folder is not None and folder not in cache:
        cache[folder] = load_split(folder)
    return None if folder is None else cache[folder]
