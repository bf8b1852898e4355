"""Values in text as people write them in English and Turkish: numbers (either decimal
mark, grouped, with a unit, a currency or a scale word: 5.878,13 TL, 1 milyon 742 bin 500,
486 lira 72 kuruş, 18k), dates (2026-03-11, 11th March 2026, Mar 11, Nisan'ın 17'si,
24/01/2026), times (18:15, 6:15 pm, akşam 6'da, quarter past six), phone numbers, scores
(3-1, 3 to 1) and a person's name.

``evidence_values`` reads an evidence item that is wholly one value; ``answer_values``
reads every value an answer states. Comparing the two is cases/evidence.py's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property, lru_cache

import regex

from pytest_tooleval.text.normalize import fold


@dataclass(frozen=True)
class Number:
    value: Decimal
    #: The unit of the last digit shown: 233 → 1, 22.41 → 0.01, "1,25 milyon" → 10000.
    quantum: Decimal
    #: The unit or currency beside it, canonical ("%", "TRY", "g"), or None.
    unit: str | None = None


@dataclass(frozen=True)
class Date:
    year: int | None
    month: int
    day: int


@dataclass(frozen=True)
class Time:
    hour: int
    minute: int


@dataclass(frozen=True)
class Phone:
    digits: str
    #: Written with + or 00: the first digits are a country code.
    international: bool


@dataclass(frozen=True)
class Score:
    first: int
    second: int


@dataclass(frozen=True)
class Person:
    given: str  # folded
    surname: str  # folded


@dataclass(frozen=True)
class Word:
    """A word of an answer, for names: folded, and how it was written."""

    folded: str
    capital: bool
    initial: bool  # one letter and a dot: "S."
    sentence_start: bool


Value = Number | Date | Time | Phone | Score | Person


# ---------------------------------------------------------------- vocabulary (folded)
_MONTHS = {
    name: number
    for number, names in enumerate([
        "january jan ocak oca", "february feb subat sub", "march mar mart",
        "april apr nisan nis", "may mayis", "june jun haziran haz", "july jul temmuz tem",
        "august aug agustos agu", "september sept sep eylul eyl", "october oct ekim eki",
        "november nov kasim kas", "december dec aralik ara",
    ], 1)
    for name in names.split()
}
_MONTH = "(?<![a-z])(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + \
    r")(?:\.|'[a-z]+)?(?![a-z])"
_SCALES = {"bin": 3, "thousand": 3, "k": 3, "milyon": 6, "million": 6, "mn": 6,
           "milyar": 9, "billion": 9, "bn": 9}
_UNITS = {
    "%": "%", "percent": "%", "per cent": "%", "yuzde": "%",
    "tl": "TRY", "try": "TRY", "lira": "TRY", "liras": "TRY", "₺": "TRY",
    "$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "dolar": "USD",
    "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "avro": "EUR",
    "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "sterlin": "GBP",
    "g": "g", "gr": "g", "gram": "g", "grams": "g", "kg": "kg", "kilo": "kg",
    "kilogram": "kg", "kilograms": "kg", "km": "km", "cm": "cm", "mm": "mm",
    "°c": "°C", "°": "°C", "derece": "°C", "degrees": "°C", "celsius": "°C",
    "ml": "ml", "l": "l", "lt": "l", "litre": "l", "litres": "l", "liter": "l", "liters": "l",
    "kwh": "kWh", "saat": "h", "h": "h", "hour": "h", "hours": "h", "hrs": "h",
    "dakika": "min", "dk": "min", "min": "min", "mins": "min", "minutes": "min",
    "gun": "day", "day": "day", "days": "day", "byte": "B", "bytes": "B", "bayt": "B",
    "kb": "kB", "mb": "MB", "gb": "GB",
}
_PREFIX_UNITS = ("%", "yuzde", "$", "€", "£", "₺")
_MINOR = regex.compile(r"\s?(?:kurus|cents?|penny|pence)(?![a-z])")
_MONEY = ("TRY", "USD", "EUR", "GBP")
_JOIN = regex.compile(r"\s(?:(?:ve|and)\s)?")
_WORD_HOURS = {word: n for n, word in enumerate(["one", "two", "three", "four", "five", "six",
                                                 "seven", "eight", "nine", "ten", "eleven",
                                                 "twelve"], 1)}
# What a day-part word says of the hour beside it (saat: nothing).
_HALVES = {"p": "pm", "a": "am", "aksam": "pm", "ogleden sonra": "pm", "ogle": "pm",
           "ikindi": "pm", "in the afternoon": "pm", "in the evening": "pm", "tonight": "pm",
           "sabah": "am", "in the morning": "am", "gece": "night", "at night": "night",
           "saat": "any"}
#: Words before a surname that are no given name.
TITLES = frozenset(["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "sayin", "bay",
                    "bayan"])


def _alternation(words: Iterable[str]) -> str:
    return "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))


# ---------------------------------------------------------------- patterns (on folded text)
# A number not inside a longer token: grouped (1.742.500, 2 914,62) or plain (0,21).
_NUM = r"(?:\d{1,3}(?P<g>[.,\u00a0\u202f ])\d{3}(?:(?P=g)\d{3})*(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
_NUMBER = regex.compile(
    rf"(?<![\w.,:/-]|\d[.,])(?P<pre>(?:{_alternation(_PREFIX_UNITS)})\s?)?(?P<sign>[-−])?"
    rf"(?P<num>{_NUM})"
    rf"(?!\d|[.,:/-]\d)(?:\s?(?P<scale>{_alternation(_SCALES)})(?![a-z]))?"
    rf"(?:\s?(?P<unit>{_alternation(_UNITS)})(?![a-z]))?"
)
_ISO = regex.compile(r"(?<![\d.])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d)")
_NUMERIC_DATE = regex.compile(r"(?<![\d.,/:])(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?!\d)")
_SLASH_DATE = regex.compile(r"(?<![\d.,/:])(\d{1,2})/(\d{1,2})(?![\d/.,]\d|\d)")
_DAY_MONTH = regex.compile(
    rf"(?<![\d.,/:-])(?P<day>\d{{1,2}})(?:st|nd|rd|th|\.)?[\s-](?:of\s)?{_MONTH}"
    r"(?:(?:,?\s|-)(?P<year>\d{4})(?!\d))?")
_MONTH_DAY = regex.compile(
    rf"{_MONTH}\s(?:the\s)?(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?!\d|[.,:]\d)"
    r"(?:,?\s(?P<year>\d{4})(?!\d))?")
_MONTH_GENITIVE = regex.compile(
    r"(?<![a-z])(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) +
    r")'?(?:in|nin|un|nun)\s(?P<day>\d{1,2})(?!\d)")
_DAY_PART = r"(?P<pre>aksam|gece|sabah|ogleden sonra|ogle|ikindi|saat)\s(?:saat\s)?"
_AFTER = r"(?:\s(?P<post>in the (?:morning|afternoon|evening)|tonight|at night|aksam))?"
_AMPM = r"(?:\s?(?P<ampm>[ap])\.?\s?m\b\.?)"
_CLOCK = regex.compile(
    rf"(?:{_DAY_PART})?(?<![\d.,:/])(?P<h>\d{{1,2}})[:.](?P<m>\d{{2}})(?::\d{{2}})?"
    rf"(?!\d|[.,:/-]\d){_AMPM}?{_AFTER}")
_HOUR = regex.compile(
    rf"(?:{_DAY_PART}(?<![\d.,:/])(?P<h>\d{{1,2}})(?!\d|[.,:]\d)(?P<half>\s?bucuk)?{_AMPM}?"
    rf"|(?<![\d.,:/])(?P<h>\d{{1,2}}){_AMPM}"
    rf"|(?<![\d.,:/])(?P<h>\d{{1,2}}|{'|'.join(_WORD_HOURS)})\so'?clock){_AFTER}")
_QUARTER = regex.compile(
    rf"(?P<q>quarter|half)\s(?P<dir>past|to)\s(?P<h>\d{{1,2}}|{'|'.join(_WORD_HOURS)})"
    rf"(?![\d:.]){_AMPM}?{_AFTER}")
_SCORE = regex.compile(
    r"(?<![\w.,:/-])(\d{1,2})(?:\s?[-–—]\s?|\sto\s|'(?:e|a|ye|ya)\s)(\d{1,2})"
    r"(?![\w–—-]|[.,:/]\d)")
_DATE_PATTERNS = (_ISO, _NUMERIC_DATE, _DAY_MONTH, _MONTH_DAY, _MONTH_GENITIVE)
_PHONE = regex.compile(r"(?<![\w+]|\d[.,])(?P<plus>\+)?\(?\d++\)?(?:[ .-]?+\(?\d++\)?)*+")
_WORDS = regex.compile(r"\p{L}+\.?")
_SENTENCE_END = regex.compile(r"[.!?]\s*$")


def _readings(token: str, language: str | None) -> list[tuple[Decimal, Decimal]]:
    """(value, quantum) for each way ``token`` can be read. A lone separator before
    exactly three digits (5.878, 1,500) is a thousands mark or a decimal mark: both for an
    answer (``language`` None; 18.000 only a thousands mark), the language's for evidence
    (tr: 5.878 = 5878, 26,531 decimal; en: 1,500 = 1500, 5.878 decimal)."""
    s = regex.sub(r"[\u00a0\u202f ]", "", token)
    marks = [c for c in s if c in ".,"]
    if not marks:
        return [(Decimal(s), Decimal(1))]
    if len(set(marks)) == 2:
        point = s[max(s.rfind("."), s.rfind(","))]
        if marks.count(point) > 1 or marks[-1] != point:
            return []
        whole, fraction = s.split(point)
        groups = whole.split(marks[0])
        if any(len(g) != 3 for g in groups[1:]) or len(groups[0]) > 3:
            return []
        return [_fractional("".join(groups), fraction)]
    mark = marks[0]
    parts = s.split(mark)
    if len(parts) > 2:
        if len(parts[0]) > 3 or any(len(p) != 3 for p in parts[1:]):
            return []
        return [(Decimal("".join(parts)), Decimal(1))]
    whole, fraction = parts
    decimal = _fractional(whole, fraction)
    if len(fraction) != 3 or len(whole) > 3 or whole == "0":
        return [decimal]
    grouped = (Decimal(whole + fraction), Decimal(1))
    if language is None:  # 18.000 is eighteen thousand: no one writes 18 so
        return [grouped] if fraction == "000" else [grouped, decimal]
    return [grouped] if (mark == ".") == (language == "tr") else [decimal]


def _fractional(whole: str, fraction: str) -> tuple[Decimal, Decimal]:
    return Decimal(f"{whole or 0}.{fraction}"), Decimal(1).scaleb(-len(fraction))


def _unit(match: regex.Match[str]) -> str | None:
    pre, unit = match.group("pre"), match.group("unit")
    name = (unit or pre or "").strip()
    return _UNITS.get(name)


def _numbers(text: str, language: str | None) -> list[tuple[regex.Match[str], Number]]:
    found = []
    for match in _NUMBER.finditer(text, overlapped=False):
        scale = match.group("scale")
        factor = Decimal(1).scaleb(_SCALES[scale]) if scale else Decimal(1)
        sign = -1 if match.group("sign") else 1
        for value, quantum in _readings(match.group("num"), language):
            found.append((match, Number(sign * value * factor, quantum * factor, _unit(match))))
    return found


def _compound(text: str, numbers: list[tuple[regex.Match[str], Number]]
              ) -> tuple[list[Number], set[int]]:
    """Amounts said in parts (1 milyon 742 bin 500, 486 lira 72 kuruş, 12 dollars and 5
    cents, 7 buçuk), and the starts of the parts they consumed: a part alone is not what
    the answer said ("12 dollars" of "12 dollars and 50 cents" is no rounding of 12.05)."""
    out: list[Number] = []
    used: set[int] = set()
    whole = [(m, n) for m, n in numbers if n.quantum >= 1]
    for index, (match, number) in enumerate(whole):
        if match.start() in used:
            continue
        if regex.match(r"\s?bucuk", text[match.end():]):
            out.append(Number(number.value + Decimal("0.5"), Decimal("0.1"), number.unit))
            used.add(match.start())
            continue
        parts = [(match, number)]
        for follow, part in whole[index + 1:]:
            last_match, last = parts[-1]
            if not _JOIN.fullmatch(text[last_match.end():follow.start()]):
                break
            if last.quantum > 1 and part.value < last.quantum and part.quantum < last.quantum:
                parts.append((follow, part))  # 1 milyon | 742 bin | 500
            elif len(parts) == 1 and number.unit in _MONEY and part.value < 100 and \
                    _MINOR.match(text, follow.end()):  # 486 lira | 72 kuruş
                parts.append((follow, Number(part.value / 100, Decimal("0.01"))))
                break
            else:
                break
        if len(parts) > 1:
            unit = next((n.unit for _, n in parts if n.unit), None)
            out.append(Number(sum((n.value for _, n in parts), Decimal(0)),
                              parts[-1][1].quantum, unit))
            used |= {m.start() for m, _ in parts}
    return out, used


def _date(year: str | None, month: int, day: str) -> Date | None:
    if not (1 <= month <= 12 and 1 <= int(day) <= 31):
        return None
    return Date(int(year) if year else None, month, int(day))


def _dates(text: str, english: bool) -> list[Date]:
    found: list[Date | None] = []
    for y, _, m, d in _ISO.findall(text):
        found.append(_date(y, int(m), d))
    for d, separator, m, y in _NUMERIC_DATE.findall(text):
        found.append(_date(y, int(m), d))
        if english and separator != ".":  # 05.08.2020 is day-first everywhere; 05/08 is not
            found.append(_date(y, int(d), m))
    for a, b in _SLASH_DATE.findall(text):
        found += [_date(None, int(b), a), _date(None, int(a), b)]
    for pattern in (_DAY_MONTH, _MONTH_DAY, _MONTH_GENITIVE):
        for match in pattern.finditer(text):
            found.append(_date(match.groupdict().get("year"), _MONTHS[match.group("month")],
                               match.group("day")))
    return [d for d in found if d is not None]


def _hour(h: str) -> int:
    return _WORD_HOURS[h] if h in _WORD_HOURS else int(h)


def _day_time(hour: int, minute: int, match: regex.Match[str]) -> Time | None:
    """A clock reading in 24 hours, with its day part (pm, akşam, in the evening, gece)."""
    groups = match.groupdict()
    halves = {_HALVES[w] for w in (groups.get("ampm"), groups.get("pre"), groups.get("post"))
              if w}
    if groups.get("ampm") and not 1 <= hour <= 12:
        return None
    if "pm" in halves and hour < 12:
        hour += 12
    elif groups.get("ampm") == "a" and hour == 12:
        hour = 0
    elif "night" in halves and 8 <= hour <= 12:
        hour = (hour + 12) % 24
    return Time(hour, minute) if 0 <= hour <= 23 and 0 <= minute <= 59 else None


def _times(text: str) -> list[Time]:
    found: list[Time | None] = []
    for match in _CLOCK.finditer(text):
        found.append(_day_time(int(match.group("h")), int(match.group("m")), match))
    for match in _HOUR.finditer(text):
        half = 30 if match.groupdict().get("half") else 0
        found.append(_day_time(_hour(match.group("h")), half, match))
    for match in _QUARTER.finditer(text):
        minutes = 15 if match.group("q") == "quarter" else 30
        hour = _hour(match.group("h"))
        if match.group("dir") == "to":
            hour, minutes = hour - 1, 60 - minutes
        found.append(_day_time(hour, minutes, match))
    return [t for t in found if t is not None]


def _phones(text: str) -> list[Phone]:
    out = []
    for match in _PHONE.finditer(text):
        digits = regex.sub(r"\D", "", match.group())
        if len(digits) >= 7:
            international = bool(match.group("plus")) or digits.startswith("00")
            out.append(Phone(digits[2:] if digits.startswith("00") else digits, international))
    return out


def _words(text: str) -> list[Word]:
    words: list[Word] = []
    for match in _WORDS.finditer(text):
        raw = match.group()
        before = text[max(0, match.start() - 8):match.start()]
        previous = words[-1] if words else None
        start = previous is None or (_SENTENCE_END.search(before) is not None
                                     and not previous.initial
                                     and previous.folded not in TITLES)
        letters = raw.rstrip(".")
        words.append(Word(fold(letters), letters[0].isupper(),
                          len(letters) == 1 and raw.endswith("."), start))
    return words


def _prepare(text: str) -> str:
    return fold(regex.sub(r"['\u2019\u2018\u00b4\u02bc`]", "'", text))


class Values:
    """Every value a text states, each in every reading it allows; each kind is read when
    first asked for."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = _prepare(text)

    @cached_property
    def numbers(self) -> tuple[Number, ...]:
        numbers = _numbers(self.folded, None)
        compounds, parts = _compound(self.folded, numbers)
        return tuple([n for m, n in numbers if m.start() not in parts] + compounds)

    @cached_property
    def dates(self) -> tuple[Date, ...]:
        return tuple(_dates(self.folded, english=True))

    @cached_property
    def times(self) -> tuple[Time, ...]:
        return tuple(_times(self.folded))

    @cached_property
    def phones(self) -> tuple[Phone, ...]:
        return tuple(_phones(self.folded))

    @cached_property
    def scores(self) -> tuple[Score, ...]:
        return tuple(Score(int(a), int(b)) for a, b in _SCORE.findall(self.folded))

    @cached_property
    def words(self) -> tuple[Word, ...]:
        return tuple(_words(self.text))


@lru_cache(maxsize=4096)
def answer_values(text: str) -> Values:
    """The values ``text`` states (read lazily, kept for the text's next evidence item)."""
    return Values(text)


_PERSON = regex.compile(r"(\p{Lu}\p{Ll}+) (\p{Lu}\p{Ll}+)")
_EVIDENCE_TIME = regex.compile(r"(\d{1,2})[:.](\d{2})")
_EVIDENCE_SCORE = regex.compile(r"(\d{1,2})\s?[-–—]\s?(\d{1,2})")
_EVIDENCE_PHONE = regex.compile(r"\+?[\d\s().-]+")


@lru_cache(maxsize=4096)
def evidence_values(text: str, language: str) -> tuple[Value, ...]:
    """The values an evidence item is, when it is wholly one (a number with its unit, a
    date, a time, a phone number, a score, a two-word name); empty for plain text."""
    stripped = " ".join(text.split())
    folded = _prepare(stripped)
    values: list[Value] = []
    if (person := _PERSON.fullmatch(stripped)) is not None:
        values.append(Person(fold(person.group(1)), fold(person.group(2))))
    if any(pattern.fullmatch(folded) for pattern in _DATE_PATTERNS):
        values += _dates(folded, english=False)[:1]
    if (time := _EVIDENCE_TIME.fullmatch(folded)) is not None and \
            int(time.group(1)) <= 23 and int(time.group(2)) <= 59:
        values.append(Time(int(time.group(1)), int(time.group(2))))
    if (score := _EVIDENCE_SCORE.fullmatch(folded)) is not None:
        values.append(Score(int(score.group(1)), int(score.group(2))))
    if _EVIDENCE_PHONE.fullmatch(folded) and len(digits := regex.sub(r"\D", "", folded)) >= 7:
        international = folded.startswith("+") or digits.startswith("00")
        values.append(Phone(digits[2:] if digits.startswith("00") else digits, international))
    for match, number in _numbers(folded, language):
        if match.span() == (0, len(folded)):
            values.append(number)
    return tuple(values)

