"""A learned lexical cue: multinomial naive Bayes over a message's normalised words.

The triggers are written by hand and know the phrasings someone thought of; a message
that fires none of them is left to the look-up fallback. This scorer is trained from the
corpus's and the router evaluation tuning halves' messages with their expected tools (and
each built-in's own name and description), so it has seen many ways of asking for a tool
and can vote for one where no trigger fired. It has a class ``none`` learned from the
steps that expect no tool (greetings, thanks, chit-chat), so "thanks, that's all" votes
for nothing.

Features of a message, from ``text.normalize`` (folded, Turkish dialect standardised):
each word, its first five letters (a stem for Turkish suffixes and English plurals) and,
for words of six letters or more, its last three letters (Turkish tense endings:
*gitmiştik* → ``tik``, *neresiydi* → ``ydi``), each pair of neighbouring words, and the
letter trigrams inside each word of four letters or more, from its second letter
(*listemi* → ``ist ste tem emi``): shared pieces of words the model never saw whole
(abbreviations, dialect and ASCII spellings, other endings; docs/dev/router.md).
The log-likelihood is divided by the square root of the number of features present (a
temperature), so that the posterior of a long message is not pushed to 0 or 1 by word
count alone. When the most probable class
is ``none`` or the best tool's posterior is below ``threshold``, the model gives no vote
and the fallback applies; otherwise the best tool votes, and with it up to two more whose
posterior reaches ``FLOOR``.

The model is a data file the package ships (``lexical_model.json``); the package never
reads the repository. ``scripts/build_lexical_model.py`` (outside the package) rebuilds it
deterministically from the repository's case files, and
``tests/router/test_router_lexical.py`` checks they agree. docs/router.md says how it is
measured, docs/dev/router.md what each round measured.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import pairwise
from pathlib import Path

from pytest_tooleval.text.normalize import normalize

MODEL_FILE = Path(__file__).parent / "lexical_model.json"
NONE = "none"  # the class of messages that expect no tool
PREFIX = 5
SUFFIX = 3
MIN_SUFFIX_WORD = 6
NGRAM = 3  # letter n-grams inside a word, from its second letter (the prefix covers the first)
ALPHA = 0.1  # additive smoothing
# The log-likelihood is multiplied by n ** -SCALE_EXPONENT (n: the known features), a
# temperature that keeps long messages from pushing every posterior to 0 or 1.
SCALE_EXPONENT = 0.5
THRESHOLD = 0.4  # the best tool's posterior below this defers to the fallback
FLOOR = 0.15  # once the best passes, other tools at or above this also vote
MAX_VOTES = 3
FORMAT = 2  # 2: letter trigrams


def features(message: str, language: str | None) -> list[str]:
    """The model's features of one message (duplicates kept: the model is multinomial)."""
    words = normalize(message, language).words
    out: list[str] = []
    for word in words:
        if word.isdigit():
            continue
        out.append(f"w:{word}")
        if len(word) > PREFIX:
            out.append(f"p:{word[:PREFIX]}")
        if len(word) >= MIN_SUFFIX_WORD:
            out.append(f"s:{word[-SUFFIX:]}")
        out += [f"c:{word[i:i + NGRAM]}" for i in range(1, len(word) - NGRAM + 1)]
    out += [f"b:{first}_{second}" for first, second in pairwise(words)]
    return out


@dataclass(frozen=True)
class Example:
    """One training message and the classes it counts for (tools, or ``none``)."""

    message: str
    language: str | None
    classes: tuple[str, ...]


@dataclass
class LexicalModel:
    """Counts of features per class, kept as loaded: ``counts[feature]`` is a flat tuple
    ``(class index, count, class index, count, …)``. Loading parses the file and makes
    each feature's list a tuple (a tuple of numbers leaves the garbage collector's lists:
    30,000 lists were a fifth of a run's objects, traversed by every full collection, the
    exit's among them; docs/usage.md, "Concurrency"); a message's log-likelihoods cost
    one addition per (feature, class) seen."""

    classes: tuple[str, ...]
    class_counts: tuple[int, ...]  # training examples per class
    totals: tuple[int, ...]  # feature occurrences per class
    counts: dict[str, tuple[int, ...]]
    alpha: float = ALPHA
    threshold: float = THRESHOLD
    sources: list[str] = field(default_factory=list)
    # Words of training messages that teach no class (a step expecting only a user's own
    # tool): known words all the same, for the fuzzy matching.
    vocabulary: tuple[str, ...] = ()
    _base: tuple[float, ...] = field(default=(), repr=False)
    _gains: list[float] = field(default_factory=list, repr=False)
    _pairs: dict[str, tuple[tuple[int, float], ...]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        size = len(self.counts)
        # log P(an unseen feature | class). A flat prior: the corpus's tool frequencies say
        # what its authors wrote most, not what users ask most.
        self._base = tuple(math.log(self.alpha / (t + self.alpha * size)) for t in self.totals)

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of the training messages (the fuzzy matching's known words)."""
        return frozenset(f[2:] for f in self.counts if f.startswith("w:")) | set(self.vocabulary)

    def _pairs_of(self, feature: str) -> tuple[tuple[int, float], ...]:
        """(class index, gain) of a feature, computed on its first use."""
        flat = self.counts[feature]
        counts = flat[1::2]
        gains = self._gains
        if len(gains) <= max(counts):
            self._gain(max(counts))  # the table of gains up to the largest count
        found = tuple(zip(flat[::2], [gains[count] for count in counts], strict=True))
        self._pairs[feature] = found
        return found

    def _gain(self, count: int) -> float:
        """log((count + alpha) / alpha): what a feature seen ``count`` times adds."""
        gains = self._gains
        while len(gains) <= count:
            gains.append(math.log(len(gains) + self.alpha) - math.log(self.alpha))
        return gains[count]

    def posterior(self, message: str, language: str | None) -> dict[str, float]:
        """Each class's posterior for the message; empty when no feature is known."""
        pairs = self._pairs
        known = [pairs.get(f) or self._pairs_of(f) for f in features(message, language)
                 if f in self.counts]
        if not known:
            return {}
        logs = [base * len(known) for base in self._base]
        for found in known:
            for i, gain in found:
                logs[i] += gain
        scale = len(known) ** -SCALE_EXPONENT
        top = max(logs)
        weights = [math.exp((value - top) * scale) for value in logs]
        norm = sum(weights)
        return {name: weight / norm for name, weight in zip(self.classes, weights, strict=True)}

    def votes(
        self, message: str, language: str | None, allowed: Iterable[str]
    ) -> list[tuple[str, float]]:
        """(tool, posterior) votes among ``allowed``, best first: none when ``none`` is the
        most probable class or the best tool's posterior is below the threshold; else
        the best tool and up to ``MAX_VOTES - 1`` more at or above ``FLOOR``."""
        post = self.posterior(message, language)
        if not post:
            return []
        ranked = sorted(post.items(), key=lambda item: (-item[1], item[0]))
        if ranked[0][0] == NONE or ranked[0][1] < self.threshold:
            return []
        allowed = set(allowed)
        picked = [(n, p) for n, p in ranked[:MAX_VOTES] if n != NONE and p >= FLOOR]
        return [(n, p) for n, p in picked if n in allowed]

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            "about": "Naive-Bayes lexical cue of the router; regenerate with "
            "python scripts/build_lexical_model.py (docs/router.md)",
            "alpha": self.alpha,
            "threshold": self.threshold,
            "sources": self.sources,
            "classes": list(self.classes),
            "class_counts": list(self.class_counts),
            "totals": list(self.totals),
            "features": {f: self.counts[f] for f in sorted(self.counts)},
            "vocabulary": list(self.vocabulary),
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, text: str) -> LexicalModel:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError(f"lexical model format {data.get('format')!r}, expected {FORMAT}")
        return cls(
            tuple(data["classes"]),
            tuple(data["class_counts"]),
            tuple(data["totals"]),
            {feature: tuple(flat) for feature, flat in data["features"].items()},
            float(data["alpha"]),
            float(data["threshold"]),
            list(data.get("sources", [])),
            tuple(data.get("vocabulary", ())),
        )


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
        tuple(per_class[c] for c in classes),
        tuple(totals),
        counts,
        alpha,
        threshold,
        list(sources),
        tuple(sorted(word for word in loose if f"w:{word}" not in counts)),
    )


@lru_cache(maxsize=1)
def default_model() -> LexicalModel | None:
    """The committed model, or None when the file is absent (a trimmed install)."""
    if not MODEL_FILE.is_file():
        return None
    return LexicalModel.from_json(MODEL_FILE.read_text(encoding="utf-8"))
