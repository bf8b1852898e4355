"""Near-copy check and load check for router-eval-3, Turkish part A (similarity only).

Run from the repository root:

    PYTHONPATH=$PWD /work/main/.venv/bin/python router-eval-3/tools/dedupe_tra.py \
        [--threshold 0.72] [--pairs]

It never prints router output. It folds every message (NFKC, Turkish-aware lower-casing,
diacritics dropped, punctuation and emoji removed, whitespace collapsed), then:

1. compares each message of this part (the Turkish files of `router-eval-3/tr/` written by
   part A: `*-a.json` and `web-current.json`) with every step message in `benchmarks/`,
   `scenarios/`, `router-eval/` and `router-eval-2/` using `difflib.SequenceMatcher`, and
   lists the matches at or above the threshold. The text of a match in `router-eval/` or
   `router-eval-2/` is withheld (the writer of this set does not read those questions):
   only its file and case are named, and such a message is simply reworded;
2. refuses two messages in `router-eval-3/` that fold to the same key, and a message that
   folds to the same key as a reference message;
3. with `--pairs`, lists pairs of this part's own messages at or above the threshold
   (expected between register variants of one job, worth reading elsewhere);
4. loads every `router-eval-3/*/*.json` with `pytest_tooleval.cases.load.load_case_file`
   and prints the counts per file, group and register of this part.

Exit status 1 when a file does not load or two messages share a key; matches above the
threshold are for a person to read and do not fail the run.
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
MINE = ("*-a.json", "web-current.json")
REFERENCES = ("benchmarks", "scenarios", "router-eval", "router-eval-2")
WITHHELD = ("router-eval/", "router-eval-2/")
_TURKISH = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})
_NOT_WORD = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """The comparison key: Turkish lower-casing, no diacritics, no punctuation or emoji."""
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


def _mine_paths() -> list[Path]:
    return sorted({p for pattern in MINE for p in (SET / "tr").glob(pattern)})


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


def messages_of(paths: list[Path]) -> list[tuple[str, str, str]]:
    """(file::case, message, key) for the given files."""
    found = []
    for path in paths:
        for case, message in _messages(_parse(path)):
            found.append((f"{path.relative_to(ROOT)}::{case}", message, fold(message)))
    return found


def similar(mine: list[tuple[str, str, str]], refs: list[tuple[str, str, str]],
            threshold: float, skip_self: bool = False
            ) -> list[tuple[float, str, str, str, str]]:
    """Every (score, my id, my message, source, source message) at or above threshold."""
    hits = []
    for index, (ident, message, key) in enumerate(mine):
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(key)
        others = refs[index + 1:] if skip_self else refs
        for source, other, other_key in others:
            matcher.set_seq1(other_key)
            if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
                continue
            score = matcher.ratio()
            if score >= threshold:
                hits.append((score, ident, message, source, other))
    return sorted(hits, reverse=True)


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


def counts() -> None:
    """Cases per file, group and register, and expected tools, of this part."""
    per_group: Counter[str] = Counter()
    per_register: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    jobs: dict[str, set[str]] = defaultdict(set)
    two_tool = 0
    for path in _mine_paths():
        cases = _parse(path)["cases"]
        print(f"  {path.name}: {len(cases)} cases, "
              f"{sum(1 for c in cases if 'job' in c)} register variants")
        for case in cases:
            per_group[case["group"]] += 1
            if "register" in case:
                per_register[case["register"]] += 1
                jobs[case["job"]].add(case["register"])
            for step in case["steps"]:
                expect = step["expect"] if isinstance(step["expect"], list) else [step["expect"]]
                tools.update(expect)
                two_tool += len(expect) > 1
    print(f"  groups: {dict(sorted(per_group.items()))}, total {sum(per_group.values())}")
    print(f"  registers: {dict(sorted(per_register.items()))} over {len(jobs)} jobs")
    incomplete = {job: sorted(regs) for job, regs in jobs.items() if len(regs) != 7}
    if incomplete:
        print(f"  JOBS WITHOUT ALL SEVEN REGISTERS: {incomplete}")
    print(f"  two-tool steps: {two_tool}; tools: {dict(tools.most_common())}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--threshold", type=float, default=0.72)
    parser.add_argument("--pairs", action="store_true",
                        help="also list pairs of this part's own messages above threshold")
    options = parser.parse_args()

    refs = reference_messages()
    mine = messages_of(_mine_paths())
    hits = similar(mine, refs, options.threshold)
    for score, ident, message, source, other in hits:
        shown = "[text withheld]" if source.startswith(WITHHELD) else repr(other)
        print(f"{score:.3f}  {ident}  {message!r}\n       ~ {source}  {shown}")

    if options.pairs:
        for score, ident, message, source, other in similar(mine, mine, options.threshold,
                                                             skip_self=True):
            print(f"pair {score:.3f}  {ident} ~ {source}\n       {message!r}\n       {other!r}")

    by_key: dict[str, list[str]] = defaultdict(list)
    for ident, _, key in messages_of(sorted(SET.glob("*/*.json"))):
        by_key[key].append(ident)
    dupes = {key: ids for key, ids in by_key.items() if len(ids) > 1}
    for key, ids in dupes.items():
        print(f"SAME KEY {key!r}: {', '.join(ids)}")
    ref_keys = {key: source for source, _, key in refs}
    exact = sorted((ident, ref_keys[key]) for ident, _, key in mine if key in ref_keys)
    for ident, source in exact:
        print(f"SAME KEY AS A REFERENCE MESSAGE: {ident} ~ {source}")

    failed = load_all()
    print("counts of part A:")
    counts()
    best = f"{hits[0][0]:.3f}" if hits else "none"
    withheld = sum(1 for h in hits if h[3].startswith(WITHHELD))
    print(f"\n{len(mine)} messages checked against {len(refs)} reference messages; "
          f"{len(hits)} at or above {options.threshold} ({withheld} of them in "
          f"router-eval/ or router-eval-2/); highest {best}; {len(dupes)} shared keys in "
          f"router-eval-3, {len(exact)} shared with a reference; "
          f"{len(failed)} files failing to load")
    return 1 if failed or dupes or exact else 0


if __name__ == "__main__":
    sys.exit(main())
