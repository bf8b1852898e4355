"""Near-copy and load check for the Turkish part B of router-eval-3 (similarity only, no router).

Run from the repository root:

    PYTHONPATH=$PWD /work/main/.venv/bin/python router-eval-3/tools/dedupe_trb.py \
        [--threshold 0.72] [--show 0.65]

Adapted from `router-eval-2/tools/dedupe.py`. It folds every message (NFKC, Turkish-aware
lower-casing, diacritics dropped, punctuation and emoji removed, whitespace collapsed), then:

1. compares each message of `router-eval-3/tr/*-b.json` with every step message in
   `benchmarks/`, `scenarios/`, `router-eval/` and `router-eval-2/` using
   `difflib.SequenceMatcher`, and lists the matches at or above the threshold. The text of a
   `router-eval/` or `router-eval-2/` match is withheld (the writer of this part does not
   read those sets' questions): only the file and case are named, and such a message is
   simply reworded;
2. compares the part-B messages with each other (pairs at or above the threshold are
   listed; within a job, register variants of one question are expected to be close) and
   refuses two messages in `router-eval-3/` that fold to the same key;
3. loads every `router-eval-3/*/*.json` with `pytest_tooleval.cases.load.load_case_file`
   and checks the part-B ids, jobs and registers.

Exit status 1 when a file does not load, two messages share a key, or an id is malformed;
matches above the threshold are for a person to read and do not fail the run.
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "router-eval-3"
MINE = "tr/*-b.json"
REFERENCES = ("benchmarks", "scenarios", "router-eval", "router-eval-2")
WITHHELD = ("router-eval/", "router-eval-2/")
REGISTERS = ("formal", "casual", "caps", "ascii", "emoji", "elderly", "anatolian")
_TURKISH = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})
_NOT_WORD = re.compile(r"[\W_]+")
_SINGLE = re.compile(r"^tr3-[a-z]+b\d{2}$")
_VARIANT = re.compile(r"^(tr3-job(\d{2}))-([a-z]+)$")


def fold(text: str) -> str:
    """The comparison key: Turkish lower-casing, no diacritics, no punctuation."""
    text = unicodedata.normalize("NFKC", text).replace("İ", "i").replace("I", "ı").lower()
    text = unicodedata.normalize("NFKD", text.translate(_TURKISH))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_NOT_WORD.sub(" ", text).split())


def _messages(node: Any, case: str = "") -> Iterator[tuple[str, str]]:
    """(case name, message) for every step message anywhere in a parsed file."""
    if isinstance(node, dict):
        name = node.get("name") if isinstance(node.get("name"), str) else None
        case = name if name and "steps" in node else case
        for key, value in node.items():
            if key == "message" and isinstance(value, str):
                yield case, value
            else:
                yield from _messages(value, case)
    elif isinstance(node, list):
        for item in node:
            yield from _messages(item, case)


def _parse(path: Path) -> Any:
    text = path.read_text(encoding="utf-8-sig")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def reference_messages() -> list[tuple[str, str, str]]:
    """(source file::case, message, key) from the reference folders."""
    found = []
    for folder in REFERENCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".json", ".yaml", ".yml") or not path.is_file():
                continue
            try:
                data = _parse(path)
            except (ValueError, yaml.YAMLError) as exc:
                print(f"skipped {path.relative_to(ROOT)}: {exc}", file=sys.stderr)
                continue
            for case, message in _messages(data):
                found.append((f"{path.relative_to(ROOT)}::{case}", message, fold(message)))
    return found


def set_messages(pattern: str) -> list[tuple[str, str, str]]:
    """(file::case, message, key) for the router-eval-3 files matching pattern."""
    found = []
    for path in sorted(SET.glob(pattern)):
        for case, message in _messages(_parse(path)):
            found.append((f"{path.relative_to(ROOT)}::{case}", message, fold(message)))
    return found


def similar(mine: list[tuple[str, str, str]], refs: list[tuple[str, str, str]],
            threshold: float) -> list[tuple[float, str, str, str, str]]:
    """Every (score, my id, my message, source, source message) at or above threshold."""
    hits = []
    for ident, message, key in mine:
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(key)
        for source, other, other_key in refs:
            if source == ident:
                continue
            matcher.set_seq1(other_key)
            if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
                continue
            score = matcher.ratio()
            if score >= threshold:
                hits.append((score, ident, message, source, other))
    return sorted(hits, reverse=True)


def check_ids() -> tuple[list[str], Counter[str], Counter[str], Counter[str]]:
    """Problems with part-B ids/jobs/registers, and counts per file, group and register."""
    problems: list[str] = []
    per_file: Counter[str] = Counter()
    per_group: Counter[str] = Counter()
    per_register: Counter[str] = Counter()
    jobs: dict[str, set[str]] = defaultdict(set)
    for path in sorted(SET.glob(MINE)):
        for case in _parse(path)["cases"]:
            name = case["name"]
            per_file[path.name] += 1
            per_group[case.get("group", "?")] += 1
            match = _VARIANT.match(name)
            if match:
                job, number, register = match.groups()
                if not 16 <= int(number) <= 30:
                    problems.append(f"{name}: part B jobs are 16-30")
                if case.get("job") != job or case.get("register") != register:
                    problems.append(f"{name}: job/register fields do not match the id")
                if register not in REGISTERS:
                    problems.append(f"{name}: unknown register {register!r}")
                jobs[job].add(register)
                per_register[register] += 1
            elif not _SINGLE.match(name) or "job" in case or "register" in case:
                problems.append(f"{name}: not a part-B single id (tr3-<kind>bNN)")
    for job, registers in sorted(jobs.items()):
        if set(registers) != set(REGISTERS):
            problems.append(f"{job}: registers {sorted(registers)} (want all seven)")
    return problems, per_file, per_group, per_register


def load_all() -> list[str]:
    """Names of the files that fail to load, each with its error printed."""
    from pytest_tooleval.cases.load import load_case_file

    failed = []
    for path in sorted(SET.glob("*/*.json")):
        try:
            case_file = load_case_file(path)
        except Exception as exc:  # report every file, whatever the error
            failed.append(str(path.relative_to(ROOT)))
            print(f"LOAD FAIL {path.relative_to(ROOT)}: {exc}")
        else:
            print(f"loads     {path.relative_to(ROOT)}: {len(case_file.cases)} cases")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=0.72)
    parser.add_argument("--show", type=float, default=None,
                        help="also count matches at or above this lower figure")
    options = parser.parse_args()

    refs = reference_messages()
    mine = set_messages(MINE)
    hits = similar(mine, refs, options.threshold)
    for score, ident, message, source, other in hits:
        shown = "[text withheld]" if source.startswith(WITHHELD) else repr(other)
        print(f"{score:.3f}  {ident}  {message!r}\n       ~ {source}  {shown}")

    inner = [h for h in similar(mine, mine, options.threshold) if h[1] < h[3]]
    same_job = 0
    for score, ident, message, source, other in inner:
        job_a = _VARIANT.match(ident.split("::")[1])
        job_b = _VARIANT.match(source.split("::")[1])
        if job_a and job_b and job_a.group(1) == job_b.group(1):
            same_job += 1
            continue
        print(f"INSIDE {score:.3f}  {ident} {message!r}\n       ~ {source} {other!r}")

    by_key: dict[str, list[str]] = defaultdict(list)
    for ident, _, key in set_messages("*/*.json"):
        by_key[key].append(ident)
    dupes = {key: ids for key, ids in by_key.items() if len(ids) > 1}
    for key, ids in dupes.items():
        print(f"SAME KEY {key!r}: {', '.join(ids)}")
    exact = {key for _, _, key in refs} & {key for _, _, key in mine}
    for key in sorted(exact):
        print(f"SAME KEY AS A REFERENCE MESSAGE: {key!r}")

    problems, per_file, per_group, per_register = check_ids()
    for problem in problems:
        print(f"ID PROBLEM {problem}")
    failed = load_all()

    best = f"{hits[0][0]:.3f}" if hits else "none"
    withheld = sum(1 for h in hits if h[3].startswith(WITHHELD))
    print(f"\n{len(mine)} messages checked against {len(refs)} reference messages; "
          f"{len(hits)} at or above {options.threshold} ({withheld} of them in "
          f"router-eval/ or router-eval-2/); highest {best}")
    if options.show is not None:
        low = similar(mine, refs, options.show)
        top = f"{low[0][0]:.3f}" if low else "none"
        print(f"{len(low)} at or above {options.show} "
              f"({sum(1 for h in low if h[3].startswith(WITHHELD))} withheld); "
              f"highest {top}")
    print(f"inside part B: {len(inner)} pairs at or above {options.threshold}, "
          f"{same_job} of them register variants of one job")
    print(f"{len(dupes)} shared keys in router-eval-3, {len(exact)} shared with a reference; "
          f"{len(problems)} id problems; {len(failed)} files failing to load")
    print("per file:", dict(sorted(per_file.items())))
    print("per group:", dict(sorted(per_group.items())))
    print("per register:", dict(sorted(per_register.items())))
    return 1 if failed or dupes or exact or problems else 0


if __name__ == "__main__":
    sys.exit(main())
