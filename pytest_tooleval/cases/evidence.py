"""Evidence matching: a substring test on both sides normalised the same way.

Nothing fuzzier than the normalisation in docs/format.md: no judge model.
"""

from __future__ import annotations

import re

from pytest_tooleval.text.normalize import fold

# A digit group separator between groups of exactly three digits: 18.000, 18,000, 18 000.
_GROUP_SEPARATOR = re.compile(r"(?<=\d)[.,\u00a0\u202f ](?=\d{3}(?!\d))")


def evidence_key(text: str) -> str:
    """The normalised form evidence and answers are compared in."""
    folded = fold(text)
    previous = None
    while previous != folded:  # 1.234.567 needs one pass per separator
        previous = folded
        folded = _GROUP_SEPARATOR.sub("", folded)
    return folded


def evidence_found(alternatives: list[str], answer: str, language: str = "en") -> bool:
    answer_key = evidence_key(answer)
    return any(evidence_key(alt) in answer_key for alt in alternatives if alt.strip())


def evidence_fraction(items: list[list[str]], answer: str) -> float:
    """Share of evidence items (each a list of alternatives) found in the answer."""
    if not items:
        return 1.0
    found = sum(1 for alternatives in items if evidence_found(alternatives, answer))
    return found / len(items)
