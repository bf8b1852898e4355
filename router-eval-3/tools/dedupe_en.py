"""Near-copy and load check for router-eval-3/en (prints similarity only, never router output).

Run from the repository root:

    PYTHONPATH=$PWD /work/main/.venv/bin/python router-eval-3/tools/dedupe_en.py \
        [--threshold 0.72] [--inside]

Every message is folded (NFKC, Turkish-aware lower-casing, diacritics dropped, punctuation
and emoji removed, whitespace collapsed). Then the script

1. compares each message of `router-eval-3/en/*.json` with every step message in
   `benchmarks/`, `scenarios/`, `router-eval/` and `router-eval-2/` using
   `difflib.SequenceMatcher`, and lists the matches at or above the threshold. The text of a
   match in `router-eval/` or `router-eval-2/` is withheld (a writer of this set must not read
   those sets' questions): only the file and case are named, and such a message is reworded;
2. refuses two messages of `router-eval-3/en/` that fold to the same key, and a message that
   folds to the same key as a reference message;
3. with `--inside`, lists pairs inside `router-eval-3/en/` at or above the threshold that
   are not register variants of one job;
4. loads every `router-eval-3/en/*.json` with `pytest_tooleval.cases.load.load_case_file`.

Exit status 1 when a file does not load or a key is shared; matches above the threshold are
for a person to read and do not fail the run.
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "router-eval-3" / "en"
REFERENCES = ("benchmarks", "scenarios", "router-eval", "router-eval-2")
WITHHELD = ("router-eval/", "router-eval-2/")
_TURKISH = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})
_NOT_WORD = re.compile(r"[\W_]+")
_JOB = re.compile(r"^(en3-job\d+)-")

Message = tuple[str, str, str]  # (file::case, message, folded key)


def fold(text: str) -> str:
    """The comparison key: Turkish lower-casing, no diacritics, no punctuation or emoji."""
    text = unicodedata.normalize("NFKC", text).replace("İ", "i").replace("I", "ı").lower()
    text = unicodedata.normalize("NFKD", text.translate(_TURKISH))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_NOT_WORD.sub(" ", text).split())


def _walk(node: Any, case: str = "") -> Iterator[tuple[str, str]]:
    """(case name, message) for every step message anywhere in a parsed file."""
    if isinstance(node, dict):
        name = node.get("name")
        if isinstance(name, str) and "steps" in node:
            case = name
        for key, value in node.items():
            if key == "message" and isinstance(value, str):
                yield case, value
            else:
                yield from _walk(value, case)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item, case)


def _parse(path: Path) -> Any:
    text = path.read_text(encoding="utf-8-sig")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def _collect(paths: list[Path]) -> list[Message]:
    found = []
    for path in paths:
        try:
            data = _parse(path)
        except (ValueError, yaml.YAMLError) as exc:
            print(f"skipped {path.relative_to(ROOT)}: {exc}", file=sys.stderr)
            continue
        for case, message in _walk(data):
            found.append((f"{path.relative_to(ROOT)}::{case}", message, fold(message)))
    return found


def references() -> list[Message]:
    paths = [p for folder in REFERENCES for p in sorted((ROOT / folder).rglob("*"))
             if p.is_file() and p.suffix in (".json", ".yaml", ".yml")]
    return _collect(paths)


def mine() -> list[Message]:
    return _collect(sorted(SET.glob("*.json")))


def similar(ours: list[Message], theirs: list[Message], threshold: float,
            skip_same_job: bool = False) -> list[tuple[float, Message, Message]]:
    """Every (score, ours, theirs) at or above threshold."""
    hits = []
    for one in ours:
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(one[2])
        for other in theirs:
            if other[0] == one[0]:
                continue
            if skip_same_job:
                a, b = _JOB.search(one[0].split("::")[1]), _JOB.search(other[0].split("::")[1])
                if a and b and a.group(1) == b.group(1):
                    continue
                if other[0] < one[0]:  # each pair once
                    continue
            matcher.set_seq1(other[2])
            if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
                continue
            score = matcher.ratio()
            if score >= threshold:
                hits.append((score, one, other))
    return sorted(hits, key=lambda hit: -hit[0])


def load_all() -> tuple[int, list[str]]:
    """(cases loaded, files that fail to load), each failure printed."""
    from pytest_tooleval.cases.load import load_case_file

    total, failed = 0, []
    for path in sorted(SET.glob("*.json")):
        try:
            case_file = load_case_file(path)
        except Exception as exc:  # report every file, whatever the error
            failed.append(str(path.relative_to(ROOT)))
            print(f"LOAD FAIL {path.relative_to(ROOT)}: {exc}")
        else:
            total += len(case_file.cases)
            print(f"loads     {path.relative_to(ROOT)}: {len(case_file.cases)} cases")
    return total, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--threshold", type=float, default=0.72)
    parser.add_argument("--inside", action="store_true",
                        help="also list close pairs inside this set (other jobs)")
    options = parser.parse_args()

    refs, ours = references(), mine()
    hits = similar(ours, refs, options.threshold)
    for score, one, other in hits:
        shown = "[text withheld]" if other[0].startswith(WITHHELD) else repr(other[1])
        print(f"{score:.3f}  {one[0]}  {one[1]!r}\n       ~ {other[0]}  {shown}")

    inside = similar(ours, ours, options.threshold, skip_same_job=True) if options.inside else []
    for score, one, other in inside:
        print(f"INSIDE {score:.3f}  {one[0]} {one[1]!r}\n             ~ {other[0]} {other[1]!r}")

    by_key: dict[str, list[str]] = defaultdict(list)
    for ident, _, key in ours:
        by_key[key].append(ident)
    shared = {key: ids for key, ids in by_key.items() if len(ids) > 1}
    for key, ids in shared.items():
        print(f"SAME KEY {key!r}: {', '.join(ids)}")
    ref_keys = {key for _, _, key in refs}
    exact = sorted({key for _, _, key in ours if key in ref_keys})
    for key in exact:
        print(f"SAME KEY AS A REFERENCE MESSAGE: {key!r}")

    total, failed = load_all()
    best = f"{hits[0][0]:.3f}" if hits else "none"
    withheld = sum(1 for hit in hits if hit[2][0].startswith(WITHHELD))
    print(f"\n{len(ours)} messages checked against {len(refs)} reference messages; "
          f"{len(hits)} at or above {options.threshold} ({withheld} of them in router-eval/ "
          f"or router-eval-2/); highest {best}; {len(shared)} shared keys in "
          f"router-eval-3/en, {len(exact)} shared with a reference; {total} cases loaded, "
          f"{len(failed)} files failing to load")
    return 1 if failed or shared or exact else 0


if __name__ == "__main__":
    sys.exit(main())
