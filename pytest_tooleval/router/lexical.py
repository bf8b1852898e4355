"""A learned lexical cue: multinomial naive Bayes over a message's normalised words.

Trained from the corpus's and the router evaluation tuning halves' messages with their
expected tools (and each built-in's own name and description), it votes for a tool where no
hand-written trigger fired. Its class ``none`` is learned from the steps that expect no
tool, so "thanks, that's all" votes for nothing.

Features of a message (``text.normalize``): each word, its first five letters, for words
of six letters or more its last three (Turkish tense endings), each pair of neighbouring
words, and the letter trigrams inside each word of four letters or more, from its second
letter (docs/dev/router.md). The log-likelihood is divided by the square root of the
number of features present, so that a long message's posterior is not pushed to 0 or 1 by
word count alone. When the most probable class is ``none`` or the best tool's posterior is
below ``threshold``, the model gives no vote; otherwise the best tool votes, and with it up
to two more whose posterior reaches ``FLOOR``.

The model is a data file the package ships (``lexical_model.json``); the package only reads
it. ``scripts/build_lexical_model.py`` trains it deterministically from the repository's
case files, and ``tests/router/test_router_lexical.py`` checks they agree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
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


@dataclass
class LexicalModel:
    """Counts of features per class: ``counts[feature]`` is a flat tuple ``(class index,
    count, class index, count, …)`` (tuples, not lists: the garbage collector does not
    track tuples of numbers; docs/dev/concurrency.md)."""

    classes: tuple[str, ...]
    totals: tuple[int, ...]  # feature occurrences per class
    counts: dict[str, tuple[int, ...]]
    alpha: float = ALPHA
    threshold: float = THRESHOLD
    sources: list[str] = field(default_factory=list)
    # Words of training messages that teach no class (a step expecting only a user's own
    # tool): known words all the same, for the fuzzy matching.
    vocabulary: tuple[str, ...] = ()
    _base: tuple[float, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        size = len(self.counts)
        # log P(an unseen feature | class). A flat prior: the corpus's tool frequencies say
        # what its authors wrote most, not what users ask most.
        self._base = tuple(math.log(self.alpha / (t + self.alpha * size)) for t in self.totals)

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of the training messages (the fuzzy matching's known words)."""
        return frozenset(f[2:] for f in self.counts if f.startswith("w:")) | set(self.vocabulary)

    def posterior(self, message: str, language: str | None) -> dict[str, float]:
        """Each class's posterior for the message; empty when no feature is known."""
        known = [self.counts[f] for f in features(message, language) if f in self.counts]
        if not known:
            return {}
        logs = [base * len(known) for base in self._base]
        alpha = self.alpha
        for flat in known:
            for i, count in zip(flat[::2], flat[1::2], strict=True):
                logs[i] += math.log(count + alpha) - math.log(alpha)
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

    @classmethod
    def from_json(cls, text: str) -> LexicalModel:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError(f"lexical model format {data.get('format')!r}, expected {FORMAT}")
        return cls(
            tuple(data["classes"]),
            tuple(data["totals"]),
            {feature: tuple(flat) for feature, flat in data["features"].items()},
            float(data["alpha"]),
            float(data["threshold"]),
            list(data.get("sources", [])),
            tuple(data.get("vocabulary", ())),
        )


@lru_cache(maxsize=1)
def default_model() -> LexicalModel | None:
    """The committed model, or None when the file is absent (a trimmed install)."""
    if not MODEL_FILE.is_file():
        return None
    return LexicalModel.from_json(MODEL_FILE.read_text(encoding="utf-8"))
