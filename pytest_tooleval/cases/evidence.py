"""Evidence matching: plain text on both sides normalised the same way, matched on
boundaries.

A plain substring test made "6 Ocak" pass inside "26 Ocak", "18" inside "18000" and the
folded "aşı" inside "yapması". So an occurrence only counts when:

- a value that starts with a letter or digit starts a word (no letter or digit before it),
  and one that starts with a digit does not continue a number ("5" is not in "1.5");
- a value that ends with a digit ends its number: no digit after it, nor a decimal or
  thousands separator followed by a digit ("3.7" is not in "3.75" nor in "3.7.1", "18"
  is not in "18:30"); the ISO "T" before a time is a boundary (2026-03-27T18:30);
- a value that is one short word (three letters or fewer) matches only as a whole word,
  so "aşı" does not match "aşısı": list suffixed forms as alternatives; longer words may
  take suffixes (invoice → invoices, fatura → faturası), and so may the last word of a
  longer value (96 h 33 min → 96 h 33 minutes);
- a commit id (7 to 40 hex characters) matches the start of a longer id;
- a code (capital letters, then digits: B214) matches it joined by a hyphen or a space
  (B-214, B 214), and the other way round;
- a value written in spaced digit groups (611 482 309, 418 33 27) may begin or end at a
  space between the answer's digit groups (+34 611 482 309), as phone numbers are written;
- a number may be followed by zeros that do not change it (81.5 matches 81.50, 81
  matches 81.00);
- a hyphen between letters is a space (sugar-free, sugar free); in English a negative
  contraction is its "not" form (isn't refundable, is not refundable); in Turkish a verb's -DI
  past is its -mIş past (ödendi, ödenmiş), a negated one stays negated;
- a number the answer denies does not count ("isn't 250, it's 180", "30 kişi değil"), nor
  the old value of a change ("moved from 3 May to 5 May", "450 TL'den 520 TL'ye yükseldi",
  "down from £64", "used to run 12", "formerly", "eskiden 450 TL'ydi", "önceden 47 olan"),
  nor one another of its kind replaces ("was 10:00, but they've moved it to 11:30", "would
  have been ready on 12 April; it's now due on 19 April"),
  nor one hedged with another ("maybe 42 or 43", "belki 3,6 ya da 3,8", or its misreading:
  "4.3 or 4.4", "486,72 ya da 468,72", "March 16 or 17");
  a comparison does ("not more than 250", "15 dakikadan fazla değil"), and so does a range
  ("open from 9:00 to 17:00"); nor text a negation denies ("not pet-friendly",
  "Görsel Sanatlar değil");
- folding never merges two Turkish words: where the value and the answer differ only by a
  Turkish letter and its ASCII twin (ş/s, ğ/g, ç/c, ö/o, ü/u), the occurrence counts only
  when that side was written without Turkish letters at all ("asi" typed for "aşı" is
  accepted; "asıl" in a Turkish answer is not "aşı").

An item that is wholly one value (a number, date, time, duration, phone number, score or
person: text/values.py reads it) also matches the same value written another way
(``value_found``).
German spelling counts both ways (Müller/Mueller, Straße/Strasse) for an item without a
Turkish letter ç ğ ı ş.
Nothing fuzzier than this, and no judge model; no regular expressions in the format.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cached_property, lru_cache

from pytest_tooleval.text.normalize import fold, turkish_lower
from pytest_tooleval.text.values import (
    HONORIFIC,
    MINUS_WORD,
    TITLES,
    WEEKDAYS,
    Date,
    Duration,
    Number,
    Person,
    Phone,
    Time,
    Values,
    Word,
    answer_values,
    evidence_values,
    vulgar_fractions,
)

# A digit group separator between groups of exactly three digits: 18.000, 18,000, 18 000,
# the Swiss 18'000 (a Turkish suffix follows its apostrophe with letters: 1.240'a).
_GROUP_SEPARATOR = re.compile(r"(?<=\d)[.,\u00a0\u202f' ](?=\d{3}(?!\d))")
#: Characters that continue a number when a digit follows: 3.75, 1,5, 18:30.
NUMBER_JOINERS = ".,:"
TURKISH_LETTERS = frozenset("çşğöü")
#: Apostrophes as people type them (O’Connor, İstanbul’da), read as the plain one.
APOSTROPHES = str.maketrans({c: "'" for c in "\u2019\u2018\u02bc\u02bb\u2032\u00b4`"})
#: A hyphen between two letters, read as a space (sugar-free is sugar free).
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011](?=[^\W\d_])")
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


@lru_cache(maxsize=8192)
def _char_pieces(original: str) -> tuple[tuple[tuple[str, str] | None, ...], bool]:
    """One character's contribution to ``keyed``: its lowered pieces as (loose, strict)
    pairs (None for whitespace), and whether it shows the text is Turkish. A pure function
    of the character, so computed once per distinct character, not once per occurrence."""
    pieces: list[tuple[str, str] | None] = []
    turkish = original in "ıİ"
    for ch in turkish_lower(original).replace("ς", "σ"):  # Σ lowered alone is σ
        if ch.isspace():
            pieces.append(None)
            continue
        if ch == "ı":  # also an English capital I, lowered the Turkish way
            ch_loose = ch_strict = "i"
        elif ch in TURKISH_LETTERS:
            ch_loose, ch_strict = _strip_marks(ch), ch
            turkish = True
        else:
            ch_loose = ch_strict = _strip_marks(ch)
        pieces.append((ch_loose, ch_strict))
    return tuple(pieces), turkish


@lru_cache(maxsize=4096)
def keyed(text: str) -> Keyed:
    """Every apostrophe as '; a vulgar fraction as a decimal (1½ 1.5); NFKC; a hyphen
    between letters as a space; Turkish lowercasing; marks dropped (Turkish letters kept in
    ``strict``); whitespace collapsed; three-digit groups joined (18.000 → 18000)."""
    loose: list[str] = []
    strict: list[str] = []
    turkish = False
    text = _WORD_HYPHEN.sub(" ", unicodedata.normalize(
        "NFKC", vulgar_fractions(text.translate(APOSTROPHES))))
    for original in text:
        pieces, marks_turkish = _char_pieces(original)
        turkish = turkish or marks_turkish
        for piece in pieces:
            if piece is None:  # whitespace
                if loose and loose[-1] != " ":
                    loose.append(" ")
                    strict.append(" ")
                continue
            loose.extend(piece[0])
            strict.extend(piece[1])
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


_DAY_MONTH = re.compile(r"\d{1,2}[./]\d{1,2}")
_YEAR_AFTER = re.compile(r"[./]\d{4}(?!\d)")


def _continues_number_after(a: str, j: int, v: str) -> bool:
    """A separator and a digit follow: 3.7|5, 1|,5, 18|:30. Not for the same time with
    seconds (18:30|:00), nor for a day and month before the year (27.03|.2026)."""
    if j + 1 >= len(a) or a[j] not in NUMBER_JOINERS or not a[j + 1].isdigit():
        return False
    if a[j] == ":" and ":" in v:
        return False
    return not (_DAY_MONTH.fullmatch(v) and _YEAR_AFTER.match(a, j))


def _glued_before(a: str, i: int, v: str) -> bool:
    """A letter or digit runs into the value's start; the ISO 'T' of 2026-03-27T18:30 is a
    boundary for a time."""
    if i == 0 or not v[0].isalnum() or not a[i - 1].isalnum():
        return False
    return not (a[i - 1] == "t" and v[0].isdigit() and i >= 2 and a[i - 2].isdigit())


def _short_word(v: str) -> bool:
    """The value is one short word ("aşı", "cat"): letters only, three or fewer."""
    return len(v) <= SHORT_WORD and v.isalpha()


# A commit id as people paste it: 7 to 40 hex characters. It matches the start of the full
# id (a753091 in a75309138dd…, 3339140 in 33391407af5…) when the answer's run of hex
# characters there is longer and holds a letter, so that it is an id and not a number.
_HEX_VALUE = re.compile(r"[0-9a-f]{7,40}")
_HEX_RUN = re.compile(r"[0-9a-f]+")
_SPACED_GROUPS = re.compile(r"\d \d")
_ZEROS = re.compile(r"0+(?!\d)")
_DECIMAL = re.compile(r"\d[.,]\d+$")


def _abbreviates_id(a: str, start: int, v: str) -> bool:
    if not _HEX_VALUE.fullmatch(v):
        return False
    run = _HEX_RUN.match(a, start)
    return run is not None and len(run.group()) > len(v) and \
        any(ch in "abcdef" for ch in run.group())


_POINT_ZEROS = re.compile(r"[.,]0+(?!\d)")


def _trailing_zeros(a: str, end: int, v: str) -> bool:
    """The same number with zeros after it: 81.5 in 81.50, 81 in 81.00 (three-digit
    groups were joined before, so 81.000 reads 81000 and is another number)."""
    if _DECIMAL.search(v) is not None and _ZEROS.match(a, end) is not None:
        return True
    return _POINT_ZEROS.match(a, end) is not None


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


def occurs(value: Keyed, answer: Keyed, whole_word: bool = False) -> bool:
    """Whether ``value`` occurs in ``answer`` on boundaries (see the module docstring);
    ``whole_word``: no letter or digit may follow it (a name: Demir is not in Demirci)."""
    v, a = value.loose, answer.loose
    if not v:
        return False
    spaced_value = bool(value.spaced) or _SPACED_GROUPS.search(v) is not None
    start = a.find(v)
    while start >= 0:
        end = start + len(v)
        after = a[end] if end < len(a) else ""
        # A value written in spaced digit groups (a phone number: 611 482 309) may start
        # or end where the answer had a space between groups (+34 611 482 309).
        spaced_start = spaced_value and start in answer.spaced
        spaced_end = (spaced_value and end in answer.spaced) or _abbreviates_id(a, start, v) \
            or _trailing_zeros(a, end, v)
        bounded = not (
            (not spaced_start and _glued_before(a, start, v))
            or (v[0].isdigit() and _continues_number_before(a, start))
            or (not spaced_end and v[-1].isdigit()
                and (after.isdigit() or _continues_number_after(a, end, v)))
            or ((whole_word or _short_word(v)) and after.isalnum())
        )
        if bounded and _letters_agree(value, answer, start):
            return True
        start = a.find(v, start + 1)
    return False


#: Characters that show nothing (zero-width spaces and joiners, direction marks, soft hyphen,
#: byte order mark): read as the text shows, 1\u200f7.4 is 17.4 and 17\u200e4 is 174.
_INVISIBLE = re.compile("[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def evidence_found(alternatives: list[str], answer: str, language: str = "en",
                   today: date | None = None, asked: Sequence[str] = ()) -> bool:
    """Whether any alternative occurs in ``answer``: as text on boundaries, or as the same
    value written another way (``value_found``), or, for a date, as the word the case's
    clock makes exact ("tomorrow", "yarın" for the day after ``today``). ``asked``: the
    step's other evidence items; a hedge between two asked values lists them.

    ``language`` is the file's: it reads a lone separator before three digits in the
    evidence (tr: 5.878 is 5878; en: 5.878 is a decimal), English negative contractions
    (en: isn't is "is not") and a Turkish verb's other past (tr: ödendi is ödenmiş).
    """
    return _states(alternatives, _Read(answer, language), today, asked)


class _Read:
    """What of an answer every item reads alike, worked out once: the text (without
    invisible characters; English "not" forms), the values it denies, the text without
    them or the former values, and the hedges in that."""

    def __init__(self, answer: str, language: str) -> None:
        self.language = language
        self.text = _INVISIBLE.sub("", answer)
        if language == "en":
            self.text = _not_forms(self.text)
        self.denials = [m for pattern in _DENIED.get(language, ())
                        for m in pattern.finditer(self.text)]
        self.rest = self.text
        for left_out in _DENIED.get(language, ()) + _FORMER.get(language, ()):
            self.rest = left_out.sub(r"\g<pre> ", self.rest)

    @cached_property
    def hedges(self) -> list[re.Match[str]]:
        return list(_HEDGE.finditer(self.rest))


def _states(alternatives: list[str], read: _Read, today: date | None,
            asked: Sequence[str]) -> bool:
    """``evidence_found`` on an answer already read."""
    language = read.language
    if language == "en":
        alternatives = [_not_forms(alt) for alt in alternatives]
    if any(_found(alternatives, m[0], language, today) and not m.groupdict().get("idiom")
           and not ("kadar" in m[0].lower()
                    and (bound := _OTHER_BOUND.match(read.text, m.end()))
                    and _found(alternatives, bound["again"], language, today))
           for m in read.denials):  # denied once: taken back, even if said again
        return False
    answer = read.rest
    if language in _DENIED_TEXT:
        answer = _without_denied_text(answer, alternatives, language)
    hedges = read.hedges if answer == read.rest else list(_HEDGE.finditer(answer))
    values = [alt for alt in alternatives if alt.strip()]
    values += [_CODE.sub(rf"\1{mark}\2", alt) for alt in values if _CODE.search(alt)
               for mark in ("", "-", " ")]
    if language == "tr":
        values += [past for alt in values if (past := _other_past(alt.strip())) != alt.strip()]
    kept, at = [], 0  # the answer less each hedge between two values: a space
    for m in hedges:
        if (m["before"] or m["after"] or _misread(m, language)) and _hedged(
                m, [*values, *asked], language):
            kept += [answer[at:m.start()], " "]
            at = m.end()
    answer = "".join(kept) + answer[at:]
    if _found(values, answer, language, today):
        return True
    # German spelling (Müller as Mueller, Straße as Strasse), both ways; not for an item
    # with a Turkish letter, nor for one without ä ö ü ß ae oe ue ss ("yüz iki" stays 102).
    german = [alt.translate(_GERMAN) for alt in values
              if not _TURKISH_ONLY & set(alt) and _DIGRAPH.search(alt.translate(_GERMAN))]
    return bool(german) and _found(german, answer.translate(_GERMAN), language, today)


#: A Turkish suffix after an apostrophe: 10'da, Ekim'de, TL'lik.
_APOSTROPHE = "[" + "".join(map(chr, APOSTROPHES)) + "']"
_SUFFIX = rf"(?:{_APOSTROPHE}\w+)"
#: An English month, written out or shortened.
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
#: A value the answer says it is not, left out of it: "not 250" (isn't 250: is not),
#: "not at 9:00", "no longer on April 30", "never 250", "$300 instead of $500" (the $300
#: stays); "30 kişi değil", "Pınar Hanım'ın numarası değil" (``_WHOSE``), "10'da değil",
#: "28 Ekim'de değil", "28 Ekim 2026'da değil"; "3 Kasım yerine 5 Kasım'da", "1.200 €
#: yerine 1.350 €" (the second stays; not "yerine getirildi", carried out, nor "yerine
#: geçti", replaced). Not a comparison: "not
#: more than 250", "not until 17:00", "15 dakikadan fazla değil" (a word other than the
#: unit before değil); nor a value with its suffix, which ends its phrase, before another
#: word ("14:00'te online değil": online is denied; but "14:00'teki toplantı değil" denies
#: the 14:00 meeting); nor a question that confirms it ("150 TL değil mi?": it is 150 TL,
#: isn't it?); nor one a comma ends ("10:30, online değil"). "not 100% sure" (certain,
#: confident, positive) states and denies nothing. A value denied once is not stated, even
#: said again; "17 Nisan'a kadar değil" denies 17 Nisan (not with 17 Nisan at once as the other
#: bound: ``_OTHER_BOUND``). "441.17 EUR, but that's not the amount your bank charges" denies
#: nothing: what the caveat is about, the matcher cannot tell from what was asked.
#: A genitive before the noun that değil denies, the value's owner: "0216 418 33 27 Pınar
#: Hanım'ın numarası değil" (not after a conjunction, nor "not only": "27 ama Selin'in cebi
#: değil", "27 sadece Selin'in numarası değil").
_WHOSE = (r"(?:(?!(?:ama|fakat|ancak|ve|sadece|sırf|yaln[ıiIİ]z(?:ca)?)\b)[^\W\d_]+\s+)?[^\W\d_]+"
          rf"(?:{_APOSTROPHE}[^\W\d_]+)?(?<=[ıiuü]n)\s+")
_DENIED = {
    "en": (re.compile(r"(?P<pre>)\b(?:not|never|no\s+longer|instead\s+of)\s+(?:(?:at|on|in|for)"
                      rf"\s+)?(?:{_MONTH}\.?\s+)?[$€£₺]?\d[\d.,:]*+"
                      r"(?P<idiom>\s?(?:%|percent)\s+(?:sure|certain|confident|positive))?",
                      re.IGNORECASE),),
    "tr": (re.compile(r"(?P<pre>)(?=[$€£₺\d])(?<![\d.,:])[$€£₺]?\d(?:[\d.,:]*\d)?+"
                      rf"(?:{_SUFFIX}|(?:{_APOSTROPHE}\w*ki)?\s+"
                      rf"(?:[$€£₺]|(?:{_WHOSE})?(?!(?:fazla|az|çok|geç|erken|önce|sonra|daha|aşkın|üstü|altı)\b)\w+(?:\s+\d{{4}})?"
                      rf"{_SUFFIX}?))?(?:\s+kadar)?\s+(?:de[ğgĞG][iıİI]l\b(?!\s+m[iıİI]\b)"
                      r"|yerine\b(?!\s+(?:getir|geç)))", re.IGNORECASE),),
}
#: After "X'e kadar değil", the same X at once as the other bound: "Başvurular 1 Mayıs'a kadar
#: değil, 1 Mayıs'tan itibaren açık" denies the bound, not 1 Mayıs (group ``again``).
_OTHER_BOUND = re.compile(rf"\s*[,;—–-]\s*(?:[^\W\d_]+\s+){{0,2}}?(?P<again>[$€£₺]?\d"
                          rf"(?:[\d.,:]*\d)?(?:\s+[^\W\d_]+)?{_SUFFIX})\s+"
                          r"(?:itibaren|sonra|başlayarak)\b",
                          re.IGNORECASE)
#: A number, a phone number in groups, a date or a time, as a change's old value: £64,
#: (415) 555-0134, 3 May 2026, September 12, 8 pm, 0312 555 18 07.
_NUMBER = r"(?=[$€£₺+(\d])(?<![\d.,:])(?<!\d\s)[$€£₺+(]?\d(?:[\d.,:)-]|\s(?=\(?\d)){0,40}+"
_EN_VALUE = (rf"(?:{_MONTH}\.?\s+)?{_NUMBER}(?:st|nd|rd|th)?(?:\s*[ap]\.?m\b\.?)?"
             rf"(?:\s+{_MONTH}\b\.?)?(?:,?\s+\d{{4}})?")
#: ... and in Turkish, with the word after it (a unit, a month) and a year: 450 TL, 2 Mart 2026.
_TR_VALUE = rf"{_NUMBER}(?:\s+(?:[$€£₺]|[^\W\d_]+(?:\s+\d{{4}})?))?"
#: A value the answer says is a change's old one, left out (group ``old``; ``pre`` stays):
#: "moved from 3 May to 5 May", "I've raised the fee from £64 to £70" (3 May, £64), after
#: a change verb in the past; not a range ("open from 9:00 to 17:00", "moved to summer hours
#: from 1 June to 31 August"), a change to come ("will be raised from £64") or one with no
#: end ("has not changed from £64"); "14 Nisan'dan 16 Nisan'a ertelendi", "8,75 TL'den
#: indirilerek 7,90 TL'ye çekildi" (not "09:00'dan 17:00'ye kadar", "1 Haziran'dan
#: itibaren"). The new value stays. And a value marked as old: "down from £64", "up from",
#: "it was 17:00 until last month", "used to run 12 lifts" (not "can be used to seat 12"),
#: "formerly/previously/originally £64", "the old number 020 7946 0011"; "eskiden 450
#: TL'ydi" (not "eskiden beri"), "önceden 47 olan", "daha önce 18:00'di" (not "önceden 50
#: TL kapora": in advance), "eski numarası 0216 …", "14:00 olarak planlanmıştı ama",
#: "19:30'da başlayacaktı ama", "was going to start at 20:00, but".
_CHANGED_EN = (r"(?:mov|chang|shift|reschedul|postpon|push|reduc|lower|rais|increas|decreas"
               r"|dropp|updat|revis|adjust|bump|slash|hik)ed|brought|fell|fallen|rose|risen")
_CHANGED_TR = (r"(?:kaydır|ertele|düzelt|indir|düş|yüksel|çık|değiş|çek|alın|art|azal|güncelle|taşı"
               r"|uzat|kısal|in(?=di|miş))\w*?(?<!m[ae])(?:[dt][ıiuü](?:k|m|n|n[ıiuü]z|l[ae]r)?"
               r"|m[ıiuü]ş(?:t[ıiuü]r|l[ae]r)?|[ae]r[ae]k)\b")
_LIMIT_TR = r"(?!(?:kadar|itibaren|sonra|önce|beri|başlayarak|fazla|az|daha|geç|erken)\b)"
#: A value the answer corrects itself from, another number following in the sentence: "42 —
#: sorry, 43", "2.8 — no wait, 3.8" (not the noun: "a 25 minute wait, 40 at peak"), "549.57
#: TL... actually, let me redo that: 594.57", "43 TL, pardon, 34 TL";
#: after an apology the number comes at once, one word or "I mean" / "make that" / "I misread
#: …:" on ("sorry,
#: until 08:00"; "18:30'da, pardon, 19:30'da"; not "sorry for the 2 delays", "sorry, it's
#: already 17:40"); a clock time is corrected only by a clock time (not "19:20 — sorry, 2
#: bookings show up": 19:20, 20.20 or 8 pm).
_CORRECTED_TO = r"(?(clock)(?=\d{1,2}(?:[:.]\d\d|\s?[ap]\.?m\b)))\d"
_CORRECTED = (r"(?P<pre>)(?=[$€£₺\d])(?P<old>(?<![\d.,:])[$€£₺]?"
              r"(?>(?P<clock>\d{1,2}:\d\d(?![\d.,:]?\d))"
              rf"|\d(?:[\d.,:]*\d)?))(?={_SUFFIX}?(?:\s+[^\W\d_]+){{0,4}}"
              r"\s*(?:[,;:—–-]|\.\.\.|…)?\s*(?:(?:sorry|oops|no,?\s+wait|(?<![^\W\d_]\s)wait|pardon|özür\s+dilerim)\s*[,;:—–-]"
              rf"\s*(?:(?:I\s+meant?|make\s+that|I\s+misread\b[^\d.!?]*?|[^\W\d_]\S*)\s+)?[$€£₺]?{_CORRECTED_TO}"
              r"|(?:I\s+mean\b|actually,?\s+let\s+me\s+(?:redo|recalculate|recheck|correct)\b"
              rf"|düzeltiyorum\b)[^.!?\n]*?{_CORRECTED_TO}))")
#: A value taken back by another of the same kind that replaces it (group ``old``, its kind
#: ``clock``, ``score`` or ``day``, else a number; ``_OTHER``: not the same value) later in
#: its sentence or the next (``_LATER``, 40 words of each; a clause 200 characters, so a
#: line with no full stop is read in time): a change to it ("was 10:00, but they've moved it
#: to 11:30", "corrected to 2-1", "after the rota change … now open at 7:30", "make that 54.20";
#: "14:00'tü ama 16:00'ya değiştirdi", "11:00 olarak duyuruldu, sonra 12:30'a kaydırıldı"; not
#: "bitişi 16:00'ya uzatıldı", the end; in Turkish within the value's sentence: "Toplantınız
#: 15:00'te. Spor salonu 18:00'e kaydırıldı" names no pronoun to tie it back), a
#: counterfactual ("if … had …, would have been ready on 12 April; it's now due on 19 April",
#: "if … you'd pay 980 TL, but … 1,150 TL";
#: "09:15'e gelebilseydiniz …; şu an 11:40", "sürseydi 250 TL öderdiniz; şimdi 320 TL"), or a
#: denial of a suffixed value's phrase that gives another ("08:10'da durakta değil, 08:25'te").
#: Not "opens at 9:00 now", "it's now 17:40" (no change), "was 10:00 and still 10:00", "if
#: you leave at 17:00 you'll make the 18:30", "bir tarif 4 kişilik olursa"; nor another
#: thing's change (the verb takes back the value's thing only through a pronoun, "moved it
#: to", "it was moved to": not "the gym was moved to 18:00", "the class, which was moved to";
#: and before "now" only a change: not "the gym was moved and now starts at", "the movie
#: now starts at"), nor an offer ("if you want,
#: I'd book the 18:30, but": a present counterfactual has a past verb after "if").
_TR_MONTH = r"(?:ocak|şubat|mart|nisan|mayıs|haziran|temmuz|ağustos|eylül|ekim|kasım|aralık)"
_DAY = rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTH}|{_TR_MONTH})\b"
_KIND = (r"(?P<old>(?<![\d.,:])[$€£₺]?(?>(?P<clock>\d{1,2}(?::\d\d(?![\d.,:]?\d)|\s?[ap]\.?m\b))"
         r"|(?P<score>\d{1,2}\s?[-–]\s?\d{1,2}(?![\d.,:]?\d))"
         rf"|(?P<day>{_DAY})|\d(?:[\d.,:]*\d)?))")
_OTHER = (r"(?=[$€£₺\d])(?<![\d.,:])(?!(?P=old)(?![\d.,:]?\d))[$€£₺]?"
          r"(?(clock)\d{1,2}(?:[:.]\d\d|\s?[ap]\.?m\b)"
          rf"|(?(score)\d{{1,2}}\s?[-–]\s?\d{{1,2}}|(?(day)(?:{_DAY}|{_MONTH}\.?\s+\d)|(?!\d{{1,2}}:\d\d)\d)))")
_WORDS = r"[^\S\n]*+(?:[^.!?\s]++[^\S\n]*+|[.!?](?=\S)){0,40}?"
_LATER = rf"{_WORDS}(?:[.!?]\s+{_WORDS})??"
_FORMER = {
    "en": tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
        _CORRECTED,
        rf"(?=[$€£₺\d])(?P<pre>){_KIND}(?={_LATER}\b(?:(?P<subject>(?:it|this|they)"
        rf"(?:{_APOSTROPHE}(?:s|ve)|\s+(?:was|were|is|are|has|have|had|got))?\s+(?:been\s+)?)?"
        r"(?:chang|mov|correct|updat"
        r"|reschedul|revis|amend|shift|push|postpon)\w*(?:(?:\s+(?:back|forward|again))*"
        r"(?(subject)|\s+(?:it|this|that|them))(?:\s+(?:back|forward|again))*\s+(?:to|until)\s+"
        rf"(?:(?:at|on)\s+)?|(?<=chang\w)[^.!?]{{0,200}}?\bnow\s+(?:[^\W\d_]+\s+){{0,2}}?)"
        rf"|make\s+that\s+){_OTHER})",
        # a present counterfactual has a past verb in its if-clause ("if the till applied
        # …, you'd pay"), an offer none ("if you want, I'd book the 18:30, but …") or one of
        # wanting ("if you wanted, I could book the 18:30, but …")
        rf"(?P<pre>\bif\b(?=[^.!?;]{{0,200}}?\b(?:[^\W\d_]+(?<!e)(?<!want)(?<!lik)(?<!preferr)(?<!need)"
        rf"(?<!wish)ed|were|was|did|had|went|came|took|made|got"
        rf"|paid|knew|cost|sold|bought|left)\b[^.!?;]{{0,200}}?\b(?:would|could|might|{_APOSTROPHE}d)\b)"
        rf"[^.!?;]{{0,200}}?\b(?:(?P<past>had|(?:would|could|might"
        rf"|{_APOSTROPHE}d)\s+have)"
        rf"|would|could|{_APOSTROPHE}d)\s+(?:[^\W\d_]+\s+){{0,4}}?){_KIND}"
        rf"(?=(?(past)|[^.!?]{{0,200}}?\b(?:but|however|instead)\b){_LATER}{_OTHER})",
        r"(?P<pre>\b(?<!\bbe\s)(?<!\bis\s)(?<!\bare\s)(?<!\bam\s)(?<!\bwill\s)(?<!\bto\s)"
        rf"(?:{_CHANGED_EN})(?:\s+(?!(?:and|but|or|so|now|then|to|into|which|that|who|where"
        r"|when|while|is|are|was|were|be|will|open\w*|run\w*)\b)[^\W\d_][\w']*){0,3}"
        rf"\s+from\s+)(?P<old>{_EN_VALUE})(?=(?:\s+[^\W\d_]+){{0,2}}\s+to\b)",
        rf"(?P<pre>\b(?:down|up)\s+from\s+)(?P<old>{_EN_VALUE})",
        rf"(?P<pre>\b(?:was|were|had\s+been)\s+(?:(?:at|on|in|for)\s+)?)(?P<old>{_EN_VALUE})"
        rf"(?=\s+(?:until|till)\s+(?:last|recently|the|this|a|an|earlier|yesterday|{_MONTH}\b"
        r"|[^\W\d_]+\s+ago))",
        r"(?P<pre>\b(?<!\bbe\s)(?<!\bis\s)(?<!\bare\s)(?<!\bwas\s)(?<!\bwere\s)(?<!\bbeen\s)"
        r"used\s+to\s+(?:be|cost|charge|run|have|take|open|close|start|begin|end|finish|leave"
        r"|depart|arrive|last|hold|seat|weigh|operate|offer|sell|allow)\b(?:\s+[^\W\d_]+){0,2}?"
        rf"\s+)(?P<old>{_EN_VALUE})",
        r"(?P<pre>\b(?:was|were)\s+(?:going|supposed|meant)\s+to\s+[^\W\d_]+(?:\s+[^\W\d_]+){0,3}?\s+"
        r"(?:(?:at|on|in|for|by)\s+)?)"
        rf"(?P<old>{_EN_VALUE})(?=[^.!?;]{{0,200}}?\bbut\b)",
        rf"(?P<pre>\b(?:formerly|previously|originally)(?:\s+[^\W\d_]+){{0,2}}?\s+)"
        rf"(?P<old>{_EN_VALUE})",
        r"(?P<pre>\b(?:the|its|your|our|their|his|her|my)\s+old(?:\s+[^\W\d_][\w']*){1,2}\s+"
        rf"(?:(?:of|was|were)\s+)?)(?P<old>{_EN_VALUE})",
    )),
    "tr": tuple(re.compile(pattern, re.IGNORECASE) for pattern in (
        _CORRECTED,
        rf"(?=[$€£₺\d])(?P<pre>){_KIND}(?={_SUFFIX}?(?:(?:\s+[^\W\d_]+){{0,2}}?\s+[^\W\d_]*s[ae]yd[ıi]\w*"
        rf"{_LATER}|\s+[^\W\d_]+\s+de[ğg][iı]l\s*,\s*(?:[^\W\d_]+\s+){{0,2}}){_OTHER}|{_WORDS}{_OTHER}"
        rf"(?:{_SUFFIX}|\s+olarak)\s+(?:[^\W\d_]+\s+)?(?!uzat|kısal){_CHANGED_TR})",
        rf"(?P<pre>s[ae]yd[ıi](?:n[ıi]z|k|m|n)?\b,?\s+(?:[^\W\d_]+\s+){{0,3}}?){_KIND}"
        rf"(?={_LATER}{_OTHER})",
        rf"(?P<pre>)(?P<old>{_TR_VALUE})(?=(?:{_APOSTROPHE}|(?<=[^\W\d_]))[dt][ae]n\b"
        rf"(?:\s+{_LIMIT_TR}\S*[^\s,.;:!?]){{0,3}}?\s+\S*(?:{_APOSTROPHE}y?|[aeıioöuü]y)[ae]"
        rf"(?:\s+{_LIMIT_TR}[^\W\d_]+){{0,2}}?\s+{_CHANGED_TR})",
        rf"(?P<pre>\beskiden\s+(?!beri\b)(?:[^\W\d_]+\s+){{0,2}}?)(?P<old>{_TR_VALUE})",
        rf"(?P<pre>\b(?:önceden|daha\s+önce)\s+(?:[^\W\d_]+\s+){{0,2}}?)(?P<old>{_TR_VALUE})"
        rf"(?=\s+(?:olan|iken|idi)\b|(?:{_APOSTROPHE}\w*?)?[dt][ıiuü]\b)",
        rf"(?P<pre>\beski\s+[^\W\d_]*[ıiuü]\s+)(?P<old>{_TR_VALUE})",
        rf"(?P<pre>)(?P<old>{_TR_VALUE})(?={_SUFFIX}?\s+(?:olarak\s+(?:[^\W\d_]+\s+)?[^\W\d_]+"
        r"m[ıiuü]ş|(?:olarak\s+)?(?:[^\W\d_]+\s+)?[^\W\d_]+[ae]c[ae]k)t[ıiuü],?\s+(?:ama|fakat|ancak)\b)",
    )),
}
#: An English word that denies the text right after it: "not pet-friendly", "never
#: cancelled", "no longer available", "has not been cancelled" (not "not only", "not yet":
#: another word between).
_NEGATION = re.compile(r"(?:not|never|no\s+longer)\s", re.IGNORECASE)
#: Where a negation denies a text item (``{text}``): in English right before it, in Turkish
#: değil right after it, suffixed or not ("Görsel Sanatlar değil", "Müzik'te değildi"); not
#: a tag question ("Görsel Sanatlar, değil mi?") nor "sadece X değil", "bir tek X değil" (not
#: only X); "no" before a code is a number sign ("invoice no INV-2291").
_DENIED_TEXT = {
    "en": r"\b(?:(?:not|never|no(?:\s+longer|(?!\s+\S*\d)))\s+(?:been?\s+)?|non-){text}"
          r"(?:e?s)?(?!\w)",
    "tr": r"(?<!sadece\s)(?<!yalnızca\s)(?<!yalnız\s)(?<!sırf\s)(?<!bir\stek\s)\b{text}"
          rf"{_APOSTROPHE}?\w*\s+de[ğg][iı]l(?!\s+m[iı])",
}


def _without_denied_text(answer: str, alternatives: list[str], language: str) -> str:
    """``answer`` less each text alternative that a negation denies ("the flat is not
    pet-friendly" does not state "pet-friendly", nor "non-refundable" "refundable", nor
    "Görsel Sanatlar değil" "Görsel Sanatlar"); an alternative that begins with a negation
    itself ("not covered") or with a digit (values: ``_DENIED``, ``_FORMER``) is left."""
    for alt in alternatives:
        words = re.findall(r"[^\W_]+", alt)
        if not words or not alt.strip()[0].isalpha() or _NEGATION.match(alt.strip() + " "):
            continue
        text = r"[\W_]+".join(map(re.escape, words))
        answer = re.sub(_DENIED_TEXT[language].replace("{text}", text), " ", answer,
                        flags=re.IGNORECASE)
    return answer


#: Two numbers or times joined by "or", "ya da", "veya", "yoksa" with a word of doubt
#: ("maybe 42 or 43", "63.5 mm, or possibly 65.3 mm", "belki 3,6 ya da 3,8"), or one figure
#: read two ways (``_misread``: "4.3 or 4.4", "6.482,15 TL ya da 6.842,15 TL", "March 16 or
#: (March) 17": a month before a day, groups ``month``, ``ymonth``): a hedge when
#: ``_hedged``, left out, as it states neither. Else it may be a choice ("128 GB or 256 GB",
#: "the 09:00 or 09:30 bus", "call 112 or 155", "either 18:30 or 21:45", "ya 18:30 ya da
#: 21:45"), which states both.
_SIDE = r"[$€£₺%]?\d[\d.,:]*(?:\s?(?:[^\W\d_]+|[$€£₺%]))?"
_DOUBT = r"\b(?:maybe|possibly|perhaps|probably|belki|muhtemelen|galiba)\s+"
_HEDGE = re.compile(rf"(?:(?P<before>{_DOUBT})|(?<![\w.,:])(?<!\d\s))(?P<month>{_MONTH}\.?\s+)?"
                    rf"(?P<x>{_SIDE}),?\s+"
                    r"(?:m[ıiuü]\s+)?(?:or|ya\s+da|veya|yoksa|maybe|belki(?:\s+de)?)\s+"
                    rf"(?P<after>{_DOUBT})?(?P<ymonth>{_MONTH}\.?\s+)?(?P<y>{_SIDE})(?!\s?\d)",
                    re.IGNORECASE)


def _misread(match: re.Match[str], language: str) -> bool:
    """The two sides of a ``_HEDGE`` match are one figure read two ways: the same digits in
    another order (6.482,15 or 6.842,15; 4719 or 4791) or one apart in the last (4.3 or 4.4,
    07:41 or 07:42, March 16 or 17). Nobody offers a choice between a figure and its
    misreading; but a whole number under 1000 that is no day of a month is a choice ("gate
    12 or 13", "3 or 4 people", "bus 12 or 21")."""
    x, y = (re.sub(r"\D", "", match[side]) for side in "xy")
    return (len(x) > 3 or re.search(r"\d[.,:]\d", match["x"]) is not None or bool(
        match["month"] or answer_values(match["x"], language).dates)) and (
        sorted(x) == sorted(y) or abs(int(x) - int(y)) == 1)


def _hedged(match: re.Match[str], values: list[str], language: str) -> bool:
    """Whether the two sides of a ``_HEDGE`` match are a hedge: two times, or two numbers
    shown to the same digit in the same unit, or with it written once ("4.37 or 4.52 kg",
    "$42 or 43"; not a restatement: "232.78 °C, or about 233 °C", "4.37 kg, or 9.63 lb"),
    that differ in every reading and are not both the evidence's (a buying or a selling
    rate)."""
    sides = [f"{match['month'] or ''}{match['x']}",  # March 16 or (March) 17
             f"{match['ymonth'] or match['month'] or ''}{match['y']}"]
    x, y = (answer_values(side, language) for side in sides)
    if x.numbers or y.numbers:
        differ = len(x.numbers) == len(y.numbers) and all(
            a.value != b.value and a.quantum == b.quantum
            and (a.unit == b.unit or None in (a.unit, b.unit))
            for a, b in zip(x.numbers, y.numbers, strict=True))
    else:
        differ = len(x.times) == len(y.times) == 1 and x.times != y.times
    return differ and not all(any(value_found(alt, side, language) for alt in values)
                              for side in sides)


#: A code: one to three capital letters, then digits, joined by nothing, a hyphen or a
#: space (B214, B-214, B 214, TK 1982); an item with one matches it written any of the ways.
_CODE = re.compile(r"(?<![\w-])([A-ZÇĞİÖŞÜ]{1,3})[- ]?(\d+)(?![\w-]|[.,]\d)")
#: An English negative contraction (isn't, can't, won't, with any apostrophe) or "cannot".
_CONTRACTION = re.compile(
    r"\b(?:(is|are|was|were|does|do|did|has|have|had|should|could|would|must|need|ca|wo)"
    r"n[" + "".join(map(chr, APOSTROPHES)) + r"']t|(can)not)\b", re.IGNORECASE)
_IRREGULAR = {"ca": "can", "wo": "will"}


def _not_forms(text: str) -> str:
    """``text`` with its negative contractions as "not" forms: isn't is not, can't and
    cannot can not, won't will not."""
    return _CONTRACTION.sub(
        lambda m: f"{_IRREGULAR.get(m[1].lower(), m[1]) if m[1] else m[2]} not", text)


#: A Turkish verb in the -DI past (ödendi, gitti) or the -mIş past (ödenmiş, gitmiş) at
#: the end of an item; the vowel, in harmony with the stem, is the same in both.
_DI_PAST = re.compile(r"(?<=\w\w)[dt]([ıiuü])$")
_MIS_PAST = re.compile(r"(?<=\w\w)m([ıiuü])ş$")
#: Consonants after which -DI is -tI (gitti, yaptı; geldi, ödendi).
_VOICELESS = "fstkçşhp"


def _other_past(text: str) -> str:
    """The same verb in the other past: ödendi ↔ ödenmiş, gitti ↔ gitmiş; a negated one
    stays negated (ödenmedi ↔ ödenmemiş). ``text`` itself when it ends in neither."""
    if (mis := _MIS_PAST.search(text)) is not None:
        stem = text[:mis.start()]
        return f"{stem}{'t' if stem[-1] in _VOICELESS else 'd'}{mis[1]}"
    return _DI_PAST.sub(r"m\1ş", text)


#: ä ö ü ß as German writes them without the letters.
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe",
                         "Ü": "Ue", "ẞ": "SS"})
#: Letters only Turkish has: an item with one is Turkish, and ü/ö in it are no German.
_TURKISH_ONLY = frozenset("çğışÇĞİŞ")
_DIGRAPH = re.compile("ae|oe|ue|ss", re.IGNORECASE)


def _found(values: list[str], answer: str, language: str, today: date | None) -> bool:
    """``evidence_found`` without the German spelling."""
    if _other_year(values, answer, language):
        return False
    answer_key = keyed(answer)
    return any(occurs(keyed(alt), answer_key, _is_person(alt, language))
               and not _read_otherwise(alt, answer, language, values) for alt in values) or any(
        value_found(alt, answer, language)
        or (today is not None and _relative_day_found(alt, answer, language, today))
        for alt in values)


def _other_year(item: list[str], answer: str, language: str) -> bool:
    """The answer gives the item's day and month only in years the item does not: "6 Ocak
    2025" for an item of "6 Ocak" and "2026-01-06" (the year-less form is for an answer that
    leaves the year out, not for one that gives another)."""
    wanted = [d for alt in item for d in evidence_values(alt, language) if isinstance(d, Date)]
    years = {d.year for d in wanted if d.year is not None}
    said = [d for d in answer_values(answer, language).dates
            if any((d.month, d.day) == (w.month, w.day) for w in wanted)]
    return bool(years and said) and all(d.year is not None and d.year not in years
                                        for d in said)


def _is_person(value: str, language: str) -> bool:
    """A person's name takes a suffix only after an apostrophe (Demir'e; Demirci is
    another name)."""
    return any(isinstance(want, Person) for want in evidence_values(value, language))


#: Words that name a day relative to the clock: exact only where the case's clock is known
#: (folded: dün, bugün, yarın typed either way).
RELATIVE_DAYS = {"yesterday": -1, "today": 0, "tomorrow": 1, "dun": -1, "bugun": 0,
                 "yarin": 1}
_RELATIVE_DAY = re.compile(r"(?<!\w)(" + "|".join(RELATIVE_DAYS) + r")(?!\w)")
#: Where a sentence ends (not the point of 12.03): a day of the month in the day word's
#: sentence is beside it ("today is the 13th"), one in another is another day's.
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+|\n")
#: The next such weekday after the clock's day (önümüzdeki çarşamba, this coming Wednesday);
#: "this Monday", "bu pazartesi", "next Monday" may mean another week's: not read.
_COMING_WEEKDAY = re.compile(r"(?<![a-z])(?:onumuzdeki|this coming)\s(" + "|".join(WEEKDAYS)
                             + r")(?![a-z])")


def _relative_day_found(value: str, answer: str, language: str, today: date) -> bool:
    """The evidence is a date, and the answer names that day by its distance from
    ``today``: "tomorrow" or "yarın" for today + 1, "today"/"bugün", "yesterday"/"dün",
    "önümüzdeki çarşamba" for the next Wednesday; or, for a date without a year, by its
    weekday and number in ``today``'s year ("Monday the 16th")."""
    folded = fold(answer)
    days = {today + timedelta(days=RELATIVE_DAYS[m.group(1)])
            for m in _RELATIVE_DAY.finditer(folded)}
    days |= {today + timedelta(days=(WEEKDAYS[m.group(1)] - today.weekday() - 1) % 7 + 1)
             for m in _COMING_WEEKDAY.finditer(folded)}
    stated = answer_values(answer, language)
    beside = set().union(*(answer_values(part, language).month_days
                           for part in _SENTENCE_END.split(answer)
                           if _RELATIVE_DAY.search(f := fold(part)) or _COMING_WEEKDAY.search(f)))
    if any((d.month, d.day) not in {(x.month, x.day) for x in days} for d in stated.dates) \
            or beside - {x.day for x in days}:
        days = set()  # a day stated beside them that they do not name: "bugün 11 Mart", "ayın 13'ü"
    return any(isinstance(want, Date) and (any(
        (day.month, day.day) == (want.month, want.day)
        and want.year in (None, day.year) for day in days)
        or (want.year is None and _weekday_found(want, today.year, stated)))
        for want in evidence_values(value, language))


def _weekday_found(want: Date, year: int, stated: Values) -> bool:
    """The answer names the day by its weekday and number, no month ("Monday the 16th",
    "Pazartesi, 16'sında"), and that is ``want``'s weekday in ``year``."""
    try:
        return (date(year, want.month, want.day).weekday(), want.day) in stated.weekdays
    except ValueError:  # 29 February in another year
        return False


def _read_otherwise(value: str, answer: str, language: str, item: list[str]) -> bool:
    """The answer holds the evidence's text as another value: "10:00 pm" holds "10:00" but
    is 22:00; "eksi 12,4" holds 12,4 but is below zero (a minus in words: "-0,75" still
    holds 0,75); "99 cents" is 0.99; "0533 418 27 63" holds "418 27 63" but is not the
    item's whole number, "+90 532 418 27 63". And any answer, where the evidence's key
    joined its decimal mark as a group's ("532,125" in tr is 532.125, its key the 532125 of
    "532125 TL", "532 125"), unless the answer writes its digits with a mark where the item
    has one ("532,125", "532.125"): the value is matched by value."""
    stated = answer_values(answer, language)
    for want in evidence_values(value, language):
        if isinstance(want, Number) and want.quantum < 1 and \
                not re.search(r"\d[.,]\d", keyed(value).loose) and \
                not re.search(r"(?<![\d.,])" + re.sub(r"\\[.,]|,", "[.,]", re.escape(
                    value.strip())) + r"(?![\d]|[.,]\d)", answer):
            return True  # its digits with a mark where it has one state it: "532.125"
        if isinstance(want, Time) and _other_half(want, stated):
            return True
        if isinstance(want, Phone):
            size = len(want.digits)
            whole = [p for alt in item for p in evidence_values(alt, language)
                     if isinstance(p, Phone) and len(p.digits) > size]
            if whole and any(len(got.digits) > size and got.digits.endswith(want.digits) and
                             not any(same_phone(p, got) for p in whole) for got in stated.phones):
                return True
        if isinstance(want, Number) and want.value and \
                not any(same_number(want, got) for got in stated.numbers) and \
                any(got.value == want.value / 100 or (got.value == -want.value and
                    MINUS_WORD.search(stated.spoken)) for got in stated.numbers):
            return True
    return False


def _other_half(want: Time, stated: Values) -> bool:
    """The answer states ``want``'s hour only in the other half of the day (15:00, öğlen 3,
    3 pm for 03:00)."""
    return want not in stated.times and any(
        (got.hour % 12, got.minute) == (want.hour % 12, want.minute) for got in stated.times)


def value_found(value: str, answer: str, language: str = "en") -> bool:
    """Whether ``answer`` states the value that ``value`` is (text/values.py reads both):
    a number by value (rounded by the answer to the digits it shows, keeping two
    significant digits, never into the integer part), a date by day and month (and year
    when both give one) or, with its year, by weekday and day ("Monday the 16th"), a time
    in 24 hours, a duration by its length, a phone number by its digits (country code
    or trunk zero optional), a score in order, a person by surname or initial and surname
    or by given name and honorific; numbers said in words are read in ``language``."""
    wanted = evidence_values(value, language)
    if not wanted:
        return False
    stated = answer_values(answer, language)
    if any(isinstance(want, Time) and _other_half(want, stated) for want in wanted):
        return False  # 03.00 is 03:00, not the 3 of "öğlen 3"
    for want in wanted:
        if isinstance(want, Number):
            percent = _as_percent(want)
            if any(same_number(want, got) or (percent is not None and got.unit == "%"
                                              and same_number(percent, got))
                   for got in stated.numbers):
                return True
        elif isinstance(want, Date):
            if any(got.month == want.month and got.day == want.day and
                   (got.year is None or want.year is None or got.year == want.year)
                   for got in stated.dates) or (
                    want.year is not None and _weekday_found(want, want.year, stated)):
                return True
        elif isinstance(want, Duration):
            if want in stated.durations:
                return True
        elif isinstance(want, Phone):
            if any(same_phone(want, got) for got in stated.phones):
                return True
        elif isinstance(want, Person):
            if _person_found(want, stated.words, language):
                return True
        elif want in (stated.times if isinstance(want, Time) else stated.scores):
            return True
    return False


def same_number(want: Number, got: Number) -> bool:
    """``got`` states ``want``: the same value; or ``want`` as the answer rounded it to the
    digits it shows (232.8 as 233, 5.878,125 as 5.878,13; not 5.87, not 0.2 for 0.21, not
    1 milyon 742 bin for 1742500); or ``got`` rounded the way the evidence was (5.878,13
    for 5.878,1; an integer evidence value is a count, exact); or, where the answer marks
    it approximate (about, yaklaşık, civarı), a ``want`` with decimals, or any ``want``
    when the answer gives a unit or currency (about 410 km), rounded to the answer's last
    non-zero digit and at most ``APPROXIMATE`` off (26.196,64 as "yaklaşık 26.200"; not
    "about 230" for 232.8). Units must agree where both give one."""
    if want.unit and got.unit and want.unit != got.unit:
        return False
    if got.value == want.value:
        return True
    if got.approximate and (want.quantum < 1 or got.unit) and got.value and \
            abs(got.value - want.value) <= abs(want.value) * APPROXIMATE:
        exponent = got.value.normalize().as_tuple().exponent  # its last non-zero digit
        step = Decimal(1).scaleb(exponent if isinstance(exponent, int) else 0)
        if got.value in _rounded(want.value, step, ROUND_HALF_UP, ROUND_HALF_EVEN):
            return True
    if got.quantum < want.quantum:
        return want.quantum != 1 and \
            want.value in _rounded(got.value, want.quantum, ROUND_HALF_UP)
    units = abs((got.value / got.quantum).to_integral_value())  # digits: never str(int)
    significant = units.adjusted() + 1 if units else 1
    return got.quantum <= 1 and significant >= MIN_SIGNIFICANT and \
        got.value in _rounded(want.value, got.quantum, ROUND_HALF_UP, ROUND_HALF_EVEN)


def _rounded(value: Decimal, step: Decimal, *roundings: str) -> set[Decimal]:
    """``value`` rounded to ``step`` each way; none where that takes more digits than
    Decimal's precision (a 29-digit reference number rounded to units)."""
    try:
        return {value.quantize(step, rounding) for rounding in roundings}
    except InvalidOperation:
        return set()


def _as_percent(number: Number) -> Number | None:
    """A fraction (0 < x ≤ 1, no unit) as the percentage it is, to the digits it shows:
    0.3 is 30 % (not 25 % rounded up), 0.347 is 34.7 % (or 35 %)."""
    if number.unit or not 0 < number.value <= 1:
        return None
    return Number(number.value.scaleb(2), min(number.quantum.scaleb(2), Decimal(1)), "%")


#: An answer may round a number, but keep at least this many significant digits.
MIN_SIGNIFICANT = 2
#: How far off (relative) a number marked approximate may be: a reader takes "about
#: 26,200" for 26,196.64 (0.01 %), not "about 230" for 232.8 (1.2 %) nor "about 150"
#: for 145 (3.4 %), a figure of its own.
APPROXIMATE = Decimal("0.01")


def _national(phone: Phone) -> set[tuple[str, str]]:
    """The ways ``phone`` may read, as (country code, the rest): as written, with no code
    (""), and, when it has one (+, 00, North America's 1), its first one to three digits
    as the code."""
    digits = phone.digits
    forms = {(digits[:cut], digits[cut:]) for cut in (1, 2, 3)} if phone.international \
        else set()
    return {(code, rest) for code, rest in forms | {("", digits)} if len(rest) >= 7}


def _person_found(person: Person, words: tuple[Word, ...], language: str) -> bool:
    """The surname, capitalised, not after another given name or initial ("Jonas Keller",
    "J. Keller" are someone else; in English the given name may be shortened: "Dan" for
    Daniel). A Turkish sentence may start with any capitalised word
    ("Faturayı Tunç Hanım gönderdi"), so there the first word is not taken for a name.
    Or the given name, capitalised, with a Turkish honorific ("Elif Hanım'a", "Kerem
    Bey"); a given name alone is not enough: many people share one."""
    for index, word in enumerate(words):
        if word.folded == person.given and word.capital and index + 1 < len(words) and \
                HONORIFIC.fullmatch(words[index + 1].folded):
            return True
        if word.folded != person.surname or not word.capital:
            continue
        if index == 0:
            return True
        before = words[index - 1]
        if before.initial:
            if before.folded == person.given[0]:
                return True
            continue
        if before.folded == person.given or before.folded in TITLES or not before.capital \
                or (before.sentence_start and language == "tr") \
                or (language == "en" and (_shortened(before.folded, person.given)
                                          or before.folded in _NO_GIVEN_NAME)):
            return True
    return False


#: English words that are no given name, capitalised or not: "THE INVITE CAME FROM YILDIZ",
#: where capitals tell no name ("FROM" is no "Jonas"); not "an" (An Nguyen).
_NO_GIVEN_NAME = frozenset(["a", "the", "and", "or", "but", "of", "by", "from", "to", "with",
                            "for", "at", "on", "in", "via", "than", "as", "is", "was", "are",
                            "were"])


#: A given name shortened to its first letters (Dan for Daniel, Chris for Christopher):
#: at least this many, and at least two fewer than the name (Paul is not Paula).
SHORT_NAME = 3


def _shortened(short: str, given: str) -> bool:
    return SHORT_NAME <= len(short) <= len(given) - 2 and given.startswith(short)


def claims_found(items: list[str], answer: str, language: str = "en") -> list[str]:
    """The items of a step's ``wrong`` list (or any list of claims) that ``answer``
    states, matched as evidence is (boundaries, values written another way)."""
    read = _Read(answer, language)  # once for every item, not per item
    return [item for item in items if _states([item], read, None, ())]


def same_phone(first: Phone, second: Phone) -> bool:
    """The two numbers are one: where both give a country code, the same code and the same
    rest (+1 212 555 0148 is not +1 312 555 0148, though both end in 12 555 0148); else
    the same digits once a trunk zero is left out (0532 123 45 67 is +90 532 123 45 67)."""
    return any((code, rest) == (other_code, other) if code and other_code
               else rest.removeprefix("0") == other.removeprefix("0")
               for code, rest in _national(first) for other_code, other in _national(second))
