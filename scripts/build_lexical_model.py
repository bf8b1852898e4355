"""Build the router's learned lexical cue from the repository's case files.

    python scripts/build_lexical_model.py          # writes router/lexical_model.json
    python scripts/build_lexical_model.py --check  # exit 1 when the committed file is stale

The package ships the built model (``pytest_tooleval/router/lexical_model.json``) and never
reads the repository: the training set lives here. It is only what the router may learn
from: the corpus (``benchmarks``, ``scenarios``), the router evaluation sets whose frozen
half has been measured and is spent (``SPENT``: both halves are read), and, in any other
folder governed by a ``split.toml``, the *tuning* half only: a frozen half that is still a
test is never read into an example. Each step counts for the built-in tools it expects, a
step expecting no tool counts for ``none``, and each built-in's name and description is one
more example of its own class; a step expecting only a user's own tool teaches nothing
about built-ins: it adds its words to the known vocabulary and nothing else.

The build is deterministic, so the committed file must equal what this writes
(tests/router/test_router_lexical.py checks it). ``scripts/router_cv.py`` cross-validates
the same training set.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_tooleval.cases.files import is_case_path
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import Case, CaseFile
from pytest_tooleval.check.split import FROZEN, TUNING, Split, case_key, find_split
from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.lexical import (
    ALPHA,
    FORMAT,
    MODEL_FILE,
    NONE,
    THRESHOLD,
    LexicalModel,
    features,
)
from pytest_tooleval.tools.names import BUILTIN_TOOL_NAMES

ROOT = Path(__file__).resolve().parents[1]
#: The router evaluation sets, one numbered folder each, in the order they were written.
EVALS = "evals/router"
#: The folders the committed model is built from, relative to the repository root.
SOURCES: tuple[str, ...] = (
    "benchmarks", "scenarios", *(f"{EVALS}/{n}" for n in range(1, 6)),
)
#: Evaluation folders whose frozen half was measured once and whose misses were then read
#: (docs/dev/router.md): no longer a test, so both halves are training data. A folder with
#: a split that is not listed here gives its tuning half only.
SPENT: frozenset[str] = frozenset(f"{EVALS}/{n}" for n in range(1, 6))


@dataclass(frozen=True)
class Example:
    """One training message and the classes it counts for (tools, or ``none``)."""

    message: str
    language: str | None
    classes: tuple[str, ...]


def train(
    examples: Sequence[Example],
    *,
    alpha: float = ALPHA,
    threshold: float = THRESHOLD,
    sources: Sequence[str] = (),
) -> LexicalModel:
    """Count features per class; the same examples in any order give the same model."""
    by_feature: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    per_class: dict[str, int] = defaultdict(int)
    loose: set[str] = set()
    for example in examples:
        feats = features(example.message, example.language)
        if not example.classes:
            loose.update(f[2:] for f in feats if f.startswith("w:"))
        for name in example.classes:
            per_class[name] += 1
            for feature in feats:
                by_feature[feature][name] += 1
    classes = tuple(sorted(per_class))
    index = {name: i for i, name in enumerate(classes)}
    totals = [0] * len(classes)
    counts: dict[str, tuple[int, ...]] = {}
    for feature in sorted(by_feature):
        flat: list[int] = []
        for name in sorted(by_feature[feature], key=index.__getitem__):
            flat += [index[name], by_feature[feature][name]]
            totals[index[name]] += by_feature[feature][name]
        counts[feature] = tuple(flat)
    return LexicalModel(
        classes,
        tuple(totals),
        counts,
        alpha,
        threshold,
        list(sources),
        tuple(sorted(word for word in loose if f"w:{word}" not in counts)),
    )


def model_json(model: LexicalModel) -> str:
    """The model file's text (``LexicalModel.from_json`` reads it back)."""
    data = {
        "format": FORMAT,
        "about": "Naive-Bayes lexical cue of the router; regenerate with "
        "python scripts/build_lexical_model.py (docs/router.md)",
        "alpha": model.alpha,
        "threshold": model.threshold,
        "sources": model.sources,
        "classes": list(model.classes),
        "totals": list(model.totals),
        "features": {f: model.counts[f] for f in sorted(model.counts)},
        "vocabulary": list(model.vocabulary),
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


@dataclass(frozen=True)
class Sample:
    """A training example with where it came from (for cross-validation by job)."""

    example: Example
    unit: str  # "tr:job-id" or "file::case": a job's register variants share a unit
    source: str  # the SOURCES folder
    register: str
    half: str  # "tuning" or "frozen" under a split.toml, "" for the corpus
    has_expect: bool


def _case_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and is_case_path(p))


@dataclass(frozen=True)
class SourceCase:
    path: Path
    case_file: CaseFile
    case: Case
    unit: str
    source: str
    half: str = ""  # "tuning" or "frozen" under a split.toml


def iter_cases(
    root: Path = ROOT, sources: Sequence[str] = SOURCES, spent: Collection[str] = SPENT
) -> Iterator[SourceCase]:
    """The sources' cases in a fixed order; under a ``split.toml``, the tuning half only,
    unless the source is ``spent`` (then both halves, each case labelled with its half)."""
    splits: dict[Path, Split | None] = {}
    for source in sources:
        for path in _case_files(root / source):
            split = find_split(path, splits)
            case_file = load_case_file(path)
            relative = path.relative_to(root).as_posix()
            for case in case_file.cases:
                half = ""
                if split is not None:
                    half = split.half_of(case_key(split.folder, path, case)) or ""
                    if half != TUNING and (source not in spent or half != FROZEN):
                        continue
                unit = (
                    f"{case_file.language}:{case.job}" if case.job else f"{relative}::{case.name}"
                )
                yield SourceCase(path, case_file, case, unit, source, half)


def gather(
    root: Path = ROOT, sources: Sequence[str] = SOURCES, spent: Collection[str] = SPENT
) -> list[Sample]:
    """Every usable step of the sources, in a fixed order (see ``iter_cases``)."""
    samples: list[Sample] = []
    for found in iter_cases(root, sources, spent):
        case_file, case, unit, source = found.case_file, found.case, found.unit, found.source
        for step in case.steps:
            expected = step.expected_tools
            tools = tuple(sorted({t for t in expected if t in BUILTIN_TOOL_NAMES}))
            # A step expecting only a user's own tool teaches no class, but its words are
            # known words (never respelt as typos) all the same: no classes.
            samples.append(
                Sample(
                    Example(
                        step.message,
                        case_file.language,
                        tools if tools or expected else (NONE,),
                    ),
                    unit,
                    source,
                    case.register or "unspecified",
                    found.half,
                    bool(expected),
                )
            )
    return samples


def tool_examples() -> list[Example]:
    """Each built-in's name and description, as one example of its own class."""
    return [
        Example(f"{spec.name.replace('_', ' ')}. {spec.description}", "en", (spec.name,))
        for spec in builtin_specs()
    ]


def build(
    root: Path = ROOT,
    sources: Sequence[str] = SOURCES,
    samples: Iterable[Sample] | None = None,
) -> LexicalModel:
    """The model from the sources (or the given samples) and the tools' descriptions."""
    chosen = list(samples) if samples is not None else gather(root, sources)
    examples = [*tool_examples(), *(s.example for s in chosen)]
    return train(examples, sources=list(sources))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    samples = gather()
    text = model_json(build(samples=samples))
    if args.check:
        current = MODEL_FILE.read_text(encoding="utf-8") if MODEL_FILE.is_file() else ""
        if current != text:
            print(f"{MODEL_FILE} is stale: run python scripts/build_lexical_model.py")
            return 1
        print(f"{MODEL_FILE} is up to date")
        return 0
    MODEL_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {MODEL_FILE}: {len(samples)} steps, {len(text)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
