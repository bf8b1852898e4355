"""Near-copy check and load check for router-eval-2 (prints similarity only, never router output).

Run from the repository root:

    PYTHONPATH=$PWD /work/main/.venv/bin/python router-eval-2/tools/dedupe.py \
        [--lang en] [--threshold 0.72]

It folds every message (NFKC, Turkish-aware lower-casing, diacritics dropped, punctuation and
emoji removed, whitespace collapsed), then:

1. compares each message of `router-eval-2/<lang>/*.json` with every message in
   `benchmarks/`, `scenarios/` and `router-eval/` using `difflib.SequenceMatcher` and lists
   the matches at or above the threshold. The text of a `router-eval/` match is withheld
   (its authors' questions are not to be read by a writer of this set): only its file and
   case are named, and such a message should simply be reworded;
2. refuses two messages in `router-eval-2/` that fold to the same key;
3. loads every `router-eval-2/*/*.json` with `pytest_tooleval.cases.load.load_case_file`.

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
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "router-eval-2"
REFERENCES = ("benchmarks", "scenarios", "router-eval")
WITHHELD = "router-eval"
_TURKISH = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})
_NOT_WORD = re.compile(r"[\W_]+")


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
    """(source file::case, message, key) from benchmarks/, scenarios/ and router-eval/."""
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


def set_messages(lang: str | None) -> list[tuple[str, str, str, str]]:
    """(language, file::case, message, key) in router-eval-2 (one language or all)."""
    found = []
    for path in sorted(SET.glob("*/*.json")):
        if lang and path.parent.name != lang:
            continue
        for case, message in _messages(_parse(path)):
            found.append((path.parent.name, f"{path.relative_to(ROOT)}::{case}", message,
                          fold(message)))
    return found


def similar(mine: list[tuple[str, str, str, str]], refs: list[tuple[str, str, str]],
            threshold: float) -> list[tuple[float, str, str, str, str]]:
    """Every (score, my id, my message, source, source message) at or above threshold."""
    hits = []
    for _, ident, message, key in mine:
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(key)
        for source, other, other_key in refs:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", help="only this language's folder (default: all)")
    parser.add_argument("--threshold", type=float, default=0.72)
    options = parser.parse_args()

    refs = reference_messages()
    mine = set_messages(options.lang)
    hits = similar(mine, refs, options.threshold)
    for score, ident, message, source, other in hits:
        shown = "[text withheld]" if source.startswith(WITHHELD + "/") else repr(other)
        print(f"{score:.3f}  {ident}  {message!r}\n       ~ {source}  {shown}")

    by_key: dict[str, list[str]] = defaultdict(list)
    for _, ident, _, key in set_messages(None):
        by_key[key].append(ident)
    dupes = {key: ids for key, ids in by_key.items() if len(ids) > 1}
    for key, ids in dupes.items():
        print(f"SAME KEY {key!r}: {', '.join(ids)}")
    exact = {key for _, _, key in refs} & {key for _, _, _, key in mine}
    for key in sorted(exact):
        print(f"SAME KEY AS A REFERENCE MESSAGE: {key!r}")

    failed = load_all()
    best = f"{hits[0][0]:.3f}" if hits else "none"
    print(f"\n{len(mine)} messages checked against {len(refs)} reference messages; "
          f"{len(hits)} at or above {options.threshold} "
          f"({sum(1 for h in hits if h[3].startswith(WITHHELD + '/'))} of them in "
          f"{WITHHELD}/); highest {best}; {len(dupes)} shared keys in router-eval-2, "
          f"{len(exact)} shared with a reference; {len(failed)} files failing to load")
    return 1 if failed or dupes or exact else 0


if __name__ == "__main__":
    sys.exit(main())
