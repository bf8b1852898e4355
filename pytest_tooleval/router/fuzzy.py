"""Typo tolerance for the trigger sets: a message word respelt as the trigger word or stem
one edit away (rapidfuzz's optimal string alignment distance), its first letters kept."""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import process
from rapidfuzz.distance import OSA

# Typo tolerance: a message word of at least FUZZY_MIN_WORD letters that starts no match and
# is no word the corpus knows, nor the start of one, is respelt as the trigger word (or stem,
# FUZZY_MIN_TRIGGER letters or more) one edit away (a letter added, dropped, changed, or two
# neighbours swapped: "hatrılat" → hatırlat*), the first two letters kept (people rarely
# mistype them, and real words a letter apart mostly differ there: please/lease, levent/event).
FUZZY_MIN_WORD = 6
FUZZY_SAME_START = 2
FUZZY_MIN_TRIGGER = 6
#: (whole trigger words, stems): first letters → length → words
FuzzyIndex = tuple[dict[str, dict[int, list[str]]], dict[str, dict[int, list[str]]]]


def respell(
    word: str, whole: dict[str, dict[int, list[str]]], stems: dict[str, dict[int, list[str]]]
) -> str:
    """The trigger word or stem one edit from ``word`` (its start, for a stem), or ""."""
    start = word[:FUZZY_SAME_START]

    def best(query: str, choices: Sequence[str]) -> str:
        hit = process.extractOne(query, choices, scorer=OSA.distance, score_cutoff=1)
        return str(hit[0]) if hit and hit[0] != query else ""

    by_size = whole.get(start, {})
    for size in (len(word), len(word) - 1, len(word) + 1):
        found = best(word, by_size.get(size, ()))
        if found:
            return found
    for size, choices in stems.get(start, {}).items():  # longest stems first
        for cut in (size, size - 1, size + 1):
            if cut > len(word):
                continue
            found = best(word[:cut], choices)
            if found:
                return found + word[cut:]
    return ""
