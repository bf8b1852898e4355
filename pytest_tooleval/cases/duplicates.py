"""Near-duplicate questions across a corpus: two cases that ask the same thing.

A duplicate occupies two places in a denominator and measures one thing twice. Texts are
compared after the router's normalisation (case, Turkish letters, apostrophes, emoji,
punctuation), with rapidfuzz's ratio. Each question that nearly repeats an earlier one is
named once, with the first earlier question it repeats: a corpus of n copies of one
question gives n - 1 pairs, not n²/2, so the report and the time stay linear in them.

Register variants of one job are not duplicates: cases that share a ``job`` and differ in
``register`` ask the same thing on purpose, once per register ("kaydet" typed with and
without Turkish letters folds to nearly the same text), and each is counted in its own
register's recall. Two cases of one job in the same register, a case without a register,
and two registers holding the very same text (a copy) are compared as any others.

Two rules keep short texts honest:
- only questions of the same language are compared: "ok 👍" in the English and in the
  Turkish corpus are two measurements, one per language, not a duplicate;
- a text shorter than ``min_fuzzy_length`` characters is only a duplicate when its
  normalised form is identical ("hi!" and "Hi"), since one letter of difference on a
  short text already changes the meaning ("git log" vs "git tag").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_tooleval.text.normalize import normalize

# rapidfuzz and the normaliser are imported where they are used: the CLI reads
# DEFAULT_SIMILARITY without them (a cached ``tooleval check`` needs neither).

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
        """The same job in another register, typed differently: a designed variant, not a
        duplicate. The same text under two registers is a copy (the register axis would
        measure nothing), and a case without a register is compared as any other."""
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
    questions: Iterable[Question],
    threshold: float = DEFAULT_SIMILARITY,
    min_fuzzy_length: int = MIN_FUZZY_LENGTH,
) -> list[DuplicatePair]:
    """Each question at or above ``threshold`` (0-100) with an earlier one, paired with
    the first such earlier question that is not its register variant; in corpus order."""
    by_language: dict[str, list[tuple[Question, str]]] = defaultdict(list)
    for question in questions:
        by_language[question.language].append((question, question.key))
    pairs: list[DuplicatePair] = []
    for items in by_language.values():
        pairs.extend(_exact_pairs(items, min_fuzzy_length))
        pairs.extend(_fuzzy_pairs(items, threshold, min_fuzzy_length))
    return pairs


def _fuzzy_pairs(items: list[tuple[Question, str]], threshold: float,
                 min_fuzzy_length: int) -> list[DuplicatePair]:
    """Each long key against the earlier ones, in blocks of doubling size from the first:
    the search for a question stops at the block holding its first earlier duplicate."""
    from rapidfuzz import fuzz, process

    long_items = [(q, key) for q, key in items if len(key) >= min_fuzzy_length]
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


def _exact_pairs(items: list[tuple[Question, str]], min_fuzzy_length: int) -> list[DuplicatePair]:
    """Identical short keys: each later occurrence paired with the first one before it
    that is not its own register variant."""
    seen: dict[str, list[Question]] = defaultdict(list)
    pairs: list[DuplicatePair] = []
    for question, key in items:
        if len(key) >= min_fuzzy_length:
            continue
        earlier = next((q for q in seen[key] if not q.variant_of(question)), None)
        if earlier is not None:
            pairs.append(DuplicatePair(earlier, question, 100.0))
        seen[key].append(question)
    return pairs
