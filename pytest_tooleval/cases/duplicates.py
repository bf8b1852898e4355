"""Near-duplicate questions across a corpus: two cases that ask the same thing, so one
measurement counts twice. Texts are compared after the router's normalisation, with
rapidfuzz's ratio; each question that nearly repeats an earlier one is named once, with
the first earlier question it repeats (n copies of one question give n - 1 pairs).

Not duplicates: questions of two languages (two measurements, one per language), and the
register variants of one job (``Question.variant_of``). A text shorter than
``MIN_FUZZY_LENGTH`` is a duplicate only when its normalised form is identical: one letter
changes a short text's meaning ("git log" vs "git tag").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_tooleval.text.normalize import normalize

# rapidfuzz is imported where it is used: a cached ``tooleval check`` does not need it.

DEFAULT_SIMILARITY = 92.0
MIN_FUZZY_LENGTH = 16


@dataclass(frozen=True)
class Question:
    """One case's question: its messages, joined for a chain."""

    file: str
    case: str
    language: str
    text: str
    job: str | None = None
    register: str | None = None

    def variant_of(self, other: Question) -> bool:
        """The same job in another register, typed differently: a designed variant, each
        counted in its own register's recall. The same text under two registers is a copy."""
        return (self.job is not None and self.job == other.job
                and self.register is not None and other.register is not None
                and self.register != other.register and self.text != other.text)

    @property
    def key(self) -> str:
        key = normalize(self.text, self.language).text
        return key or " ".join(self.text.split())  # all-emoji text: compare as typed


@dataclass(frozen=True)
class DuplicatePair:
    first: Question
    second: Question
    score: float

    def describe(self) -> str:
        return (
            f"{self.score:.0f}% similar to {self.second.file} case {self.second.case!r}: "
            f"{self.first.text!r} ~ {self.second.text!r}"
        )


def find_near_duplicates(
    questions: Iterable[Question], threshold: float = DEFAULT_SIMILARITY
) -> list[DuplicatePair]:
    """Each question at or above ``threshold`` (0-100) with an earlier one, paired with
    the first such earlier question that is not its register variant; in corpus order."""
    by_language: dict[str, list[tuple[Question, str]]] = defaultdict(list)
    for question in questions:
        by_language[question.language].append((question, question.key))
    pairs: list[DuplicatePair] = []
    for items in by_language.values():
        pairs.extend(_exact_pairs(items))
        pairs.extend(_fuzzy_pairs(items, threshold))
    return pairs


def _fuzzy_pairs(items: list[tuple[Question, str]], threshold: float) -> list[DuplicatePair]:
    """Each long key against the earlier ones, in blocks of doubling size from the first:
    the search for a question stops at the block holding its first earlier duplicate."""
    from rapidfuzz import fuzz, process

    long_items = [(q, key) for q, key in items if len(key) >= MIN_FUZZY_LENGTH]
    keys = [key for _, key in long_items]
    found: list[tuple[int, int, float]] = []  # (earlier, later, score)
    for later, (question, key) in enumerate(long_items):
        start, size = 0, 64
        while start < later:
            stop = min(later, start + size)
            hits = process.extract(
                key, keys[start:stop], scorer=fuzz.ratio, score_cutoff=threshold, limit=None
            )
            earlier = [(start + offset, score) for _, score, offset in hits
                       if not long_items[start + offset][0].variant_of(question)]
            if earlier:
                first, score = min(earlier)
                found.append((first, later, score))
                break
            start, size = stop, size * 2
    return [DuplicatePair(long_items[first][0], long_items[later][0], score)
            for first, later, score in sorted(found)]


def _exact_pairs(items: list[tuple[Question, str]]) -> list[DuplicatePair]:
    """Identical short keys: each later occurrence paired with the first one before it
    that is not its own register variant."""
    seen: dict[str, list[Question]] = defaultdict(list)
    pairs: list[DuplicatePair] = []
    for question, key in items:
        if len(key) >= MIN_FUZZY_LENGTH:
            continue
        earlier = next((q for q in seen[key] if not q.variant_of(question)), None)
        if earlier is not None:
            pairs.append(DuplicatePair(earlier, question, 100.0))
        seen[key].append(question)
    return pairs
