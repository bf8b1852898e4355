"""Near copies and loading of a router evaluation set (prints similarity, never router output).

    python scripts/eval_dedupe.py evals/router/3 [--files 'tr/*-b.json'] [--threshold 0.72]
        [--show 0.65] [--reference DIR ...]

A writer of a blind set runs this on their own files: it must not show them what the router
does, nor the questions of the earlier evaluation sets. Every step message is folded (NFKC,
Turkish-aware lower-casing, diacritics, punctuation and emoji dropped, whitespace collapsed)
and then:

1. each message of the chosen files is compared (``difflib``) with every message of the
   references (default: ``benchmarks/``, ``scenarios/`` and every other folder of
   ``evals/router/``); matches at or above the threshold are listed, the text of a match in an
   evaluation folder withheld (only its file and case named);
2. two messages of the folder that fold to the same key, or one that folds to a reference
   message's key, fail the run;
3. pairs inside the chosen files at or above the threshold that are not variants of one job
   are listed;
4. every case file of the folder is loaded with ``load_case_file``, and each job's variants
   must carry distinct ``register`` values.

Exit status 1 when a file does not load, a key is shared or a job is malformed; matches are
for a person to read and do not fail the run.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
#: The router evaluation sets: one numbered folder each.
EVALS = "evals/router"
CASE_SUFFIXES = (".json", ".yaml", ".yml")
_TURKISH = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})
_NOT_WORD = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """The comparison key: Turkish lower-casing, no diacritics, no punctuation."""
    text = unicodedata.normalize("NFKC", text).replace("İ", "i").replace("I", "ı").lower()
    text = unicodedata.normalize("NFKD", text.translate(_TURKISH))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_NOT_WORD.sub(" ", text).split())


class Message:
    __slots__ = ("case", "ident", "job", "key", "text")

    def __init__(self, ident: str, case: dict[str, Any], text: str) -> None:
        self.ident, self.text, self.key = ident, text, fold(text)
        self.case, self.job = case, case.get("job")


def _messages(node: Any, case: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """(its case, message) for every ``message`` string anywhere in a parsed file (steps,
    scenario turns, follow-ups), the case being the nearest mapping with ``steps``."""
    if isinstance(node, dict):
        case = node if isinstance(node.get("steps"), list) else case
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


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def messages(paths: Sequence[Path]) -> list[Message]:
    found = []
    for path in paths:
        try:
            data = _parse(path)
        except (ValueError, yaml.YAMLError) as exc:
            print(f"skipped {_shown(path)}: {exc}", file=sys.stderr)
            continue
        for case, text in _messages(data, {}):
            found.append(Message(f"{_shown(path)}::{case.get('name')}", case, text))
    return found


def case_files(folder: Path, pattern: str = "**/*") -> list[Path]:
    return sorted(p for p in folder.glob(pattern) if p.suffix in CASE_SUFFIXES and p.is_file()
                  and "tools" not in p.relative_to(folder).parts)


def similar(mine: Sequence[Message], others: Sequence[Message], threshold: float
            ) -> list[tuple[float, Message, Message]]:
    """Every (score, mine, other) at or above ``threshold``, best first."""
    hits = []
    for message in mine:
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(message.key)
        for other in others:
            if other is message:
                continue
            matcher.set_seq1(other.key)
            if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
                continue
            score = matcher.ratio()
            if score >= threshold:
                hits.append((score, message, other))
    return sorted(hits, key=lambda hit: (-hit[0], hit[1].ident, hit[2].ident))


def job_problems(mine: Sequence[Message]) -> list[str]:
    """Variants of one job without a register, or two with the same register."""
    registers: dict[str, list[str]] = defaultdict(list)
    for message in mine:
        if message.job:
            registers[message.job].append(str(message.case.get("register") or ""))
    problems = []
    for job, found in sorted(registers.items()):
        if "" in found:
            problems.append(f"{job}: a variant without a register")
        if len(set(found)) != len(found):
            problems.append(f"{job}: a register twice: {sorted(found)}")
    return problems


def load_failures(folder: Path) -> list[str]:
    from pytest_tooleval.cases.load import load_case_file

    failed = []
    for path in case_files(folder):
        try:
            load_case_file(path)
        except Exception as exc:  # every file is reported, whatever its error
            failed.append(_shown(path))
            print(f"LOAD FAIL {_shown(path)}: {exc}")
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="the evaluation folder, e.g. evals/router/3")
    parser.add_argument("--files", default="**/*",
                        help="the writer's own files in it (a glob; default: all)")
    parser.add_argument("--threshold", type=float, default=0.72)
    parser.add_argument("--show", type=float, help="also count matches at this lower figure")
    parser.add_argument("--reference", action="append",
                        help="reference folders (default: benchmarks, scenarios and every "
                             "other folder of evals/router)")
    options = parser.parse_args(argv)
    folder = (ROOT / options.folder).resolve()
    evaluation = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / EVALS).glob("*")
                        if p.is_dir() and p.resolve() != folder)
    names = options.reference or ["benchmarks", "scenarios", *evaluation]
    withheld = tuple(f"{name.rstrip('/')}/" for name in names if name.startswith(EVALS))
    refs = messages([p for name in names for p in case_files(ROOT / name)])
    everything = messages(case_files(folder))
    mine = messages(case_files(folder, options.files))

    hits = similar(mine, refs, options.threshold)
    for score, message, other in hits:
        shown = "[text withheld]" if other.ident.startswith(withheld) else repr(other.text)
        print(f"{score:.3f}  {message.ident}  {message.text!r}\n       ~ {other.ident}  {shown}")
    inner = [h for h in similar(mine, mine, options.threshold) if h[1].ident < h[2].ident]
    strays = [h for h in inner if not (h[1].job and h[1].job == h[2].job)]
    for score, message, other in strays:
        print(f"INSIDE {score:.3f}  {message.ident} {message.text!r}\n"
              f"       ~ {other.ident} {other.text!r}")
    by_key: dict[str, list[str]] = defaultdict(list)
    for message in everything:
        by_key[message.key].append(message.ident)
    shared = {key: ids for key, ids in by_key.items() if len(ids) > 1}
    for key, ids in shared.items():
        print(f"SAME KEY {key!r}: {', '.join(ids)}")
    exact = sorted({m.key for m in refs} & {m.key for m in mine})
    for key in exact:
        print(f"SAME KEY AS A REFERENCE MESSAGE: {key!r}")
    problems = job_problems(everything)
    for problem in problems:
        print(f"JOB PROBLEM {problem}")
    failed = load_failures(folder)

    best = f"{hits[0][0]:.3f}" if hits else "none"
    print(f"\n{len(mine)} messages checked against {len(refs)} reference messages; "
          f"{len(hits)} at or above {options.threshold} "
          f"({sum(1 for h in hits if h[2].ident.startswith(withheld))} withheld); "
          f"highest {best}")
    if options.show is not None:
        low = similar(mine, refs, options.show)
        print(f"{len(low)} at or above {options.show}; highest "
              f"{f'{low[0][0]:.3f}' if low else 'none'}")
    print(f"inside: {len(inner)} pairs at or above {options.threshold}, "
          f"{len(inner) - len(strays)} of them variants of one job")
    print(f"{len(shared)} shared keys in {options.folder}, {len(exact)} shared with a "
          f"reference; {len(problems)} job problems; {len(failed)} files failing to load")
    counts: dict[str, Counter[str]] = {"file": Counter(), "group": Counter(),
                                       "register": Counter()}
    for message in mine:
        counts["file"][message.ident.split("::")[0]] += 1
        counts["group"][str(message.case.get("group", "?"))] += 1
        counts["register"][str(message.case.get("register") or "none")] += 1
    for what, counter in counts.items():
        print(f"per {what}:", dict(sorted(counter.items())))
    return 1 if failed or shared or exact or problems else 0


if __name__ == "__main__":
    sys.exit(main())
