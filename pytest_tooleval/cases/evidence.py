"""Evidence matching: plain text on both sides normalised the same way, matched on
boundaries.

A plain substring test made "6 Ocak" pass inside "26 Ocak", "18" inside "18000" and the
folded "aşı" inside "yapması". So an occurrence only counts when:

- a value that starts with a letter or digit starts a word (no letter or digit before it),
  and one that starts with a digit does not continue a number ("5" is not in "1.5");
- a value that ends with a digit ends its number: no digit after it, nor a decimal or
  thousands separator followed by a digit ("3.7" is not in "3.75" nor in "3.7.1", "18"
  is not in "18:30"); the ISO "T" before a time is a boundary (2026-03-27T18:30);
- a value whose last word is short (three letters or fewer) ends at the word's end, so
  "aşı" does not match "aşısı": list suffixed forms as alternatives; longer words may
  take suffixes (invoice → invoices, fatura → faturası);
- a value written in spaced digit groups (611 482 309) may begin or end at a space
  between the answer's digit groups (+34 611 482 309), as phone numbers are written;
- folding never merges two Turkish words: where the value and the answer differ only by a
  Turkish letter and its ASCII twin (ş/s, ğ/g, ç/c, ö/o, ü/u), the occurrence counts only
  when that side was written without Turkish letters at all ("asi" typed for "aşı" is
  accepted; "asıl" in a Turkish answer is not "aşı").

Nothing fuzzier than this, and no judge model; no regular expressions in the format.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from pytest_tooleval.text.normalize import turkish_lower

# A digit group separator between groups of exactly three digits: 18.000, 18,000, 18 000.
_GROUP_SEPARATOR = re.compile(r"(?<=\d)[.,\u00a0\u202f ](?=\d{3}(?!\d))")
#: Characters that continue a number when a digit follows: 3.75, 1,5, 18:30.
NUMBER_JOINERS = ".,:"
TURKISH_LETTERS = frozenset("çşğöü")
SHORT_WORD = 3


@dataclass(frozen=True)
class Keyed:
    """A text's matching key (``loose``), with a parallel key that keeps the Turkish
    letters (``strict``) and whether the text used any."""

    loose: str
    strict: str
    turkish: bool
    #: Positions in ``loose`` where a space between digit groups was removed (34 611 → 34611).
    spaced: frozenset[int] = frozenset()


def _strip_marks(ch: str) -> str:
    return unicodedata.normalize(
        "NFC", "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    )


@lru_cache(maxsize=4096)
def keyed(text: str) -> Keyed:
    """NFKC; Turkish lowercasing; marks dropped (Turkish letters kept in ``strict``);
    whitespace collapsed; three-digit groups joined (18.000 → 18000)."""
    loose: list[str] = []
    strict: list[str] = []
    turkish = False
    for original in unicodedata.normalize("NFKC", text):
        turkish = turkish or original in "ıİ"
        for ch in turkish_lower(original):
            if ch.isspace():
                if loose and loose[-1] != " ":
                    loose.append(" ")
                    strict.append(" ")
                continue
            if ch == "ı":  # also an English capital I, lowered the Turkish way
                ch_loose = ch_strict = "i"
            elif ch in TURKISH_LETTERS:
                ch_loose, ch_strict = _strip_marks(ch), ch
                turkish = True
            else:
                ch_loose = ch_strict = _strip_marks(ch)
            if len(ch_loose) != len(ch_strict):  # never for the letters above; be safe
                ch_strict = ch_loose
            loose.extend(ch_loose)
            strict.extend(ch_strict)
    while loose and loose[-1] == " ":
        loose.pop()
        strict.pop()
    joined = "".join(loose)
    spaced = [False] * len(loose)
    while True:
        cuts = [m.start() for m in _GROUP_SEPARATOR.finditer(joined)]
        if not cuts:
            break
        for index in reversed(cuts):
            if loose[index] == " ":
                spaced[index + 1] = True
            del loose[index]
            del strict[index]
            del spaced[index]
        joined = "".join(loose)
    marks = frozenset(i for i, flag in enumerate(spaced) if flag)
    return Keyed(joined, "".join(strict), turkish, marks)


def evidence_key(text: str) -> str:
    """The normalised form evidence and answers are compared in."""
    return keyed(text).loose


def _continues_number_before(a: str, i: int) -> bool:
    return i >= 2 and a[i - 1] in NUMBER_JOINERS and a[i - 2].isdigit()


def _continues_number_after(a: str, j: int, v: str) -> bool:
    """A separator and a digit follow: 3.7|5, 1|,5, 18|:30 (but 18:30|:00 is the same time)."""
    if j + 1 >= len(a) or a[j] not in NUMBER_JOINERS or not a[j + 1].isdigit():
        return False
    return not (a[j] == ":" and ":" in v)


def _glued_before(a: str, i: int, v: str) -> bool:
    """A letter or digit runs into the value's start; the ISO 'T' of 2026-03-27T18:30 is a
    boundary for a time."""
    if i == 0 or not v[0].isalnum() or not a[i - 1].isalnum():
        return False
    return not (a[i - 1] == "t" and v[0].isdigit() and i >= 2 and a[i - 2].isdigit())


def _short_last_word(v: str) -> bool:
    run = re.search(r"[^\W\d_]+$", v)
    return run is not None and len(run.group()) <= SHORT_WORD


def _letters_agree(value: Keyed, answer: Keyed, start: int) -> bool:
    for offset, want in enumerate(value.strict):
        got = answer.strict[start + offset]
        if want == got:
            continue
        # A Turkish letter against its ASCII twin: fine only where that side never
        # writes Turkish letters (typed on an ASCII keyboard).
        if got.isascii() and not answer.turkish:
            continue
        if want.isascii() and not value.turkish:
            continue
        return False
    return True


def occurs(value: Keyed, answer: Keyed) -> bool:
    """Whether ``value`` occurs in ``answer`` on boundaries (see the module docstring)."""
    v, a = value.loose, answer.loose
    if not v:
        return False
    start = a.find(v)
    while start >= 0:
        end = start + len(v)
        after = a[end] if end < len(a) else ""
        # A value written in spaced digit groups (a phone number: 611 482 309) may start
        # or end where the answer had a space between groups (+34 611 482 309).
        spaced_start = bool(value.spaced) and start in answer.spaced
        spaced_end = bool(value.spaced) and end in answer.spaced
        bounded = not (
            (not spaced_start and _glued_before(a, start, v))
            or (v[0].isdigit() and _continues_number_before(a, start))
            or (not spaced_end and v[-1].isdigit()
                and (after.isdigit() or _continues_number_after(a, end, v)))
            or (v[-1].isalpha() and _short_last_word(v) and after.isalnum())
        )
        if bounded and _letters_agree(value, answer, start):
            return True
        start = a.find(v, start + 1)
    return False


def evidence_found(alternatives: list[str], answer: str, language: str = "en") -> bool:
    """Whether any alternative occurs in ``answer``.

    ``language`` is the file's; the separators and folding rules above hold for both
    English and Turkish, so it only documents intent for now.
    """
    answer_key = keyed(answer)
    return any(occurs(keyed(alt), answer_key) for alt in alternatives if alt.strip())


def evidence_fraction(items: list[list[str]], answer: str, language: str = "en") -> float:
    """Share of evidence items (each a list of alternatives) found in the answer."""
    if not items:
        return 1.0
    found = sum(1 for alternatives in items if evidence_found(alternatives, answer, language))
    return found / len(items)
