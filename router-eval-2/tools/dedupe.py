"""Copy check for router-eval-2: fold every message and compare it with the corpus.

Folding: NFKC, Turkish-aware lower-casing (I -> ı, İ -> i), diacritics dropped (ı ş ğ ç ö ü
-> i s g c o u, other accents after NFKD), punctuation and emoji removed, whitespace
collapsed. Each message of ``router-eval-2/<lang>/`` is compared with every message in
``benchmarks/``, ``scenarios/`` and ``router-eval/`` (difflib ratio on the folded keys) and
with the other messages of this folder. It prints similarity figures only; it never runs
or imports the router.

Also checks that every ``router-eval-2/<lang>/*.json`` file loads with
``pytest_tooleval.cases.load.load_case_file``, and that no two messages of this folder fold
to the same key.

    PYTHONPATH=$PWD /work/main/.venv/bin/python router-eval-2/tools/dedupe.py [--lang tr]
        [--threshold 0.72] [--show 40]

Exit status 1 when a file does not load or two messages here share a folded key.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "router-eval-2"
CORPORA = ("benchmarks", "scenarios", "router-eval")
_TR = str.maketrans({"I": "ı", "İ": "i"})
_ASCII = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})


def fold(text: str) -> str:
    """The folded key of a message (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).translate(_TR).lower().translate(_ASCII)
    text = "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)
    )
    kept = "".join(ch if ch.isalnum() else " " for ch in text)
    return " ".join(kept.split())


def _messages(data: object) -> Iterator[str]:
    """Every ``message`` string anywhere in a parsed case file."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "message" and isinstance(value, str):
                yield value
            else:
                yield from _messages(value)
    elif isinstance(data, list):
        for item in data:
            yield from _messages(item)


def _parse(path: Path) -> object:
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix == ".json":
        return json.loads(text)
    return yaml.safe_load(text)


def corpus_messages() -> list[tuple[str, str]]:
    """(where, message) for every message in the project's corpora."""
    found: list[tuple[str, str]] = []
    for top in CORPORA:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in (".json", ".yaml", ".yml") or not path.is_file():
                continue
            try:
                data = _parse(path)
            except (ValueError, yaml.YAMLError):
                continue
            found.extend((str(path.relative_to(ROOT)), m) for m in _messages(data))
    return found


def own_cases(lang: str) -> list[tuple[str, str, str]]:
    """(file, case name, message) for every step of this folder's files in ``lang``."""
    found: list[tuple[str, str, str]] = []
    for path in sorted((HERE / lang).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            for step in case["steps"]:
                found.append((str(path.relative_to(ROOT)), case["name"], step["message"]))
    return found


def load_all(lang: str) -> list[str]:
    """Problems from loading every file of ``lang`` with the project's loader."""
    from pytest_tooleval.cases.load import load_case_file

    problems: list[str] = []
    for path in sorted((HERE / lang).glob("*.json")):
        try:
            load_case_file(path)
        except Exception as exc:  # any refusal is reported; the other files still load
            problems.append(f"{path.relative_to(ROOT)}: {exc}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="tr")
    parser.add_argument("--threshold", type=float, default=0.72)
    parser.add_argument("--show", type=int, default=40, help="matches to print, highest first")
    args = parser.parse_args()

    status = 0
    problems = load_all(args.lang)
    for line in problems:
        print("LOAD FAIL", line)
        status = 1
    mine = own_cases(args.lang)
    print(
        f"loaded {len(list((HERE / args.lang).glob('*.json')))} files, "
        f"{len(mine)} messages, {len(problems)} load problems"
    )

    keys: dict[str, str] = {}
    for _, name, message in mine:
        key = fold(message)
        if key in keys:
            print(f"SAME KEY {name} and {keys[key]}: {key!r}")
            status = 1
        keys.setdefault(key, name)

    corpus = [(where, m, fold(m)) for where, m in corpus_messages()]
    matches: list[tuple[float, str, str, str, str]] = []
    best_all: list[float] = []
    for _, name, message in mine:
        key = fold(message)
        best = (0.0, "", "")
        matcher = difflib.SequenceMatcher(a=key, autojunk=False)
        for where, other, okey in corpus:
            matcher.set_seq2(okey)
            if (
                matcher.real_quick_ratio() < args.threshold
                or matcher.quick_ratio() < args.threshold
            ):
                continue
            ratio = matcher.ratio()
            if ratio > best[0]:
                best = (ratio, where, other)
        best_all.append(best[0])
        if best[0] > args.threshold:
            matches.append((best[0], name, message, best[1], best[2]))
    inner: list[tuple[float, str, str]] = []
    for i, (_, name_a, msg_a) in enumerate(mine):
        matcher = difflib.SequenceMatcher(a=fold(msg_a), autojunk=False)
        for _, name_b, msg_b in mine[i + 1 :]:
            matcher.set_seq2(fold(msg_b))
            if matcher.quick_ratio() > args.threshold and matcher.ratio() > args.threshold:
                inner.append((matcher.ratio(), name_a, name_b))

    print(f"compared with {len(corpus)} corpus messages ({', '.join(CORPORA)})")
    print(
        f"above {args.threshold} against the corpus: {len(matches)}; "
        f"max {max(best_all, default=0):.3f}"
    )
    for ratio, name, message, where, other in sorted(matches, reverse=True)[: args.show]:
        # router-eval's questions stay unread by this set's authors: name the file only,
        # and reword our message whatever the match says.
        shown = "(text not shown: reword)" if where.startswith("router-eval/") else repr(other)
        print(f"  {ratio:.3f} {name}: {message!r}\n        ~ {where}: {shown}")
    print(f"above {args.threshold} within this folder: {len(inner)}")
    for ratio, a, b in sorted(inner, reverse=True)[: args.show]:
        print(f"  {ratio:.3f} {a} ~ {b}")
    same = len(mine) - len(keys)
    print(f"same folded key within this folder: {same}")
    return status


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
