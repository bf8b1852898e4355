"""Values in text as people write them in English and Turkish: numbers (either decimal
mark, grouped, with a unit, a currency or a scale word: 5.878,13 TL, 1 milyon 742 bin 500,
486 lira 72 kuruş, 18k, 1½; in an answer also in words: twenty-one, iki buçuk milyon), dates
(2026-03-11, 11th March 2026, Mar 11, Nisan'ın 17'si, 24/01/2026; in an answer also 18.03,
Monday the 16th), times (18:15, 6:15 pm, akşam 6'da, quarter past six, ten to five, 7'yi
20 geçe), durations (3:12:48, 3 hours 12 minutes 48 seconds), phone numbers, scores (3-1,
3 to 1) and a person's name.

``evidence_values`` reads an evidence item that is wholly one value; ``answer_values``
reads every value an answer states. Comparing the two is cases/evidence.py's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property, lru_cache

import regex

from pytest_tooleval.text.normalize import fold, turkish_lower


@dataclass(frozen=True)
class Number:
    value: Decimal
    #: The unit of the last digit shown: 233 → 1, 22.41 → 0.01, "1,25 milyon" → 10000.
    quantum: Decimal
    #: The unit or currency beside it, canonical ("%", "TRY", "g"), or None.
    unit: str | None = None
    #: Marked as approximate by the answer (about 90, yaklaşık 26.200, 26.200 TL civarı).
    approximate: bool = False


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
class Duration:
    """A length of time (3:12:48, 3 hours 12 minutes 48 seconds), in seconds."""

    seconds: Decimal


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


Value = Number | Date | Time | Duration | Phone | Score | Person


def _alternation(words: Iterable[str]) -> str:
    return "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))


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
_MONTH_NAMES = _alternation(_MONTHS)
_MONTH = rf"(?<![a-z])(?P<month>{_MONTH_NAMES})(?:\.|'[a-z]+)?(?![a-z])"
#: Weekdays (folded), Monday 0.
WEEKDAYS = {name: number for number, names in enumerate([
    "monday pazartesi", "tuesday sali", "wednesday carsamba", "thursday persembe",
    "friday cuma", "saturday cumartesi", "sunday pazar"]) for name in names.split()}
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
    "°c": "°C", "°": "°C", "derece": "°C", "degrees": "°C", "celsius": "°C", "santigrat": "°C",
    "ml": "ml", "l": "l", "lt": "l", "litre": "l", "litres": "l", "liter": "l", "liters": "l",
    "kwh": "kWh", "saat": "h", "h": "h", "hour": "h", "hours": "h", "hrs": "h",
    "dakika": "min", "dk": "min", "min": "min", "mins": "min", "minutes": "min",
    "gun": "day", "day": "day", "days": "day", "byte": "B", "bytes": "B", "bayt": "B",
    "kb": "kB", "mb": "MB", "gb": "GB", "gib": "GiB",
    # Imperial units: another unit, so that 12 miles is not 12 km nor 25 °F 25 °C (not
    # "mi", the Turkish question particle: 12 mi?; not lb, which "pounds" also says).
    "mile": "mi", "miles": "mi", "mil": "mi", "oz": "oz", "ft": "ft", "feet": "ft",
    "°f": "°F", "° f": "°F", "fahrenheit": "°F", "fahrenhayt": "°F", "degrees f": "°F",
    "degrees fahrenheit": "°F", "derece f": "°F", "derece fahrenheit": "°F",
    "derece fahrenhayt": "°F", "mph": "mph",
    "knot": "kn", "knots": "kn", "kn": "kn", "kt": "kn",
    "m/s": "m/s", "km/h": "km/h", "kmh": "km/h", "kph": "km/h", "km/sa": "km/h",
}
_PREFIX_UNITS = ("%", "yuzde", "$", "€", "£", "₺")
_MINOR = regex.compile(r"\s?(?:kurus|cents?|penny|pence)(?![a-z])|p(?![a-z]|\.\s?m)")
#: The currency of a minor unit (cents: dollars or euros).
_MINOR_UNITS = {"kurus": "TRY", "penny": "GBP", "pence": "GBP", "p": "GBP"}
#: The currencies: their numbers are amounts of money.
MONEY = frozenset({"TRY", "USD", "EUR", "GBP"})
# A word that marks the number after it (about 90) or before it (26.200 TL civarında,
# 90 euro kadar) as approximate; markup may stand between.
_ROUGHLY_BEFORE = regex.compile(r"(?<![a-z])(?:about|around|roughly|approximately|approx\.?"
                                r"|nearly|almost|yaklasik|tahminen|asagi yukari|~|≈)[\s*_]*$")
_ROUGHLY_AFTER = regex.compile(r"[\s*_]*(?:civar|kadar(?![a-z]))")
#: A minus said in words (eksi 12,4, minus 3), on folded text.
MINUS_WORD = regex.compile(r"(?:eksi|minus|negative)\s")
_JOIN = regex.compile(r"\s(?:(?:ve|and)\s)?")
_WORD_HOURS = {word: n for n, word in enumerate(["one", "two", "three", "four", "five", "six",
                                                 "seven", "eight", "nine", "ten", "eleven",
                                                 "twelve"], 1)}
# What a day-part word says of the hour beside it (saat: nothing).
_HALVES = {"p": "pm", "a": "am", "aksam": "pm", "ogleden sonra": "pm", "oglen": "pm",
           "ogle": "pm",
           "ikindi": "pm", "afternoon": "pm", "evening": "pm", "tonight": "pm",
           "sabah": "am", "sabaha karsi": "am", "morning": "am", "gece": "night",
           "at night": "night", "saat": "any"}
#: Words before a surname that are no given name.
TITLES = frozenset(["mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam", "sayin", "bay",
                    "bayan", "captain", "capt", "coach", "officer", "judge", "professor",
                    "nurse"])
#: A Turkish honorific after a given name, with its case suffix (Elif Hanım'a, Kerem Beye).
HONORIFIC = regex.compile(r"(?:hanim|bey)(?:efendi)?(?:n?in|y?[aei]|d[ae]n?|l[ae])?")


# ---------------------------------------------------------------- patterns (on folded text)
# A number not inside a longer token: grouped (1.742.500, 2 914,62, 1'240.50) or plain (0,21).
_NUM = r"(?:\d{1,3}(?P<g>[.,\u00a0\u202f' ])\d{3}(?:(?P=g)\d{3})*(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
_NUMBER = regex.compile(
    rf"(?<![\w.,:/-]|\d[.,])(?P<pre>(?:{_alternation(_PREFIX_UNITS)})\s?)?(?P<sign>[-−]|(?<!\d\s){MINUS_WORD.pattern})?"
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
    rf"(?<![a-z])(?P<month>{_MONTH_NAMES})'?(?:in|nin|un|nun)\s(?P<day>\d{{1,2}})(?!\d)")
_DAY_PART = r"(?P<pre>aksam|gece|sabah(?:a karsi)?|ogleden sonra|oglen|ogle|ikindi|saat)" \
    r"\s(?:saat\s)?"
# An English day part after the time, markup allowed between (**4:30** in the afternoon).
_EN_PART = r"[*_]*\s[*_]*(?:(?:in the|this|tomorrow)\s(?P<post>morning|afternoon|evening)" \
    r"|(?P<post>tonight|at night))(?![a-z])"
_AFTER = rf"(?:{_EN_PART}|\s(?P<post>aksam))?"
# am or pm after the time, markup allowed between (**6:30** pm, 8:00 **PM**).
_AMPM = r"(?:[*_]*\s?[*_]*(?P<ampm>[ap])\.?\s?m\b\.?)"
_CLOCK = regex.compile(
    rf"(?:{_DAY_PART})?(?<![\d.,:/])(?P<h>\d{{1,2}})[:.](?P<m>\d{{2}})(?::\d{{2}})?"
    rf"(?!\d|[.,:/-]\d){_AMPM}?{_AFTER}")
# Minutes past or to the hour in Turkish (on folded, spoken text): 7'yi 20 geçe, dokuza
# çeyrek kala ("dokuza" 9a, "on" and "bir" stay words before a case suffix).
_TR_OFFSET = r"'?\s?(?:y?[iu]\s(?P<m>\d{1,2}|ceyrek)\s(?P<dir>gece)" \
    r"|y?[ae]\s(?P<m>\d{1,2}|ceyrek)\s(?P<dir>kala))(?![a-z])"
_TR_PAST_TO = regex.compile(
    rf"(?:{_DAY_PART})?(?<![\w.,:/])(?P<h>\d{{1,2}}|on|bir){_TR_OFFSET}")
_HOUR = regex.compile(
    rf"(?:{_DAY_PART}(?<![\d.,:/])(?P<h>\d{{1,2}})(?!\d|[.,:]\d|{_TR_OFFSET})(?P<half>\s?bucuk)?{_AMPM}?"
    rf"|(?<![\d.,:/])(?P<h>\d{{1,2}})\s(?P<half>bucu(?:kta|ga))(?![a-z])"
    rf"|(?<![\d.,:/])(?P<h>\d{{1,2}}){_AMPM}"
    rf"|(?<![\d.,:/])(?P<h>\d{{1,2}}|{'|'.join(_WORD_HOURS)})\so'?clock"
    rf"|(?<![\w.,:/]|(?:past|to)\s)(?P<h>\d{{1,2}}|{'|'.join(_WORD_HOURS)})(?={_EN_PART})){_AFTER}")
_QUARTER = regex.compile(
    rf"(?<![\d.,:/])(?P<m>quarter|half|\d{{1,2}})(?:\sminutes?)?\s(?P<dir>past|to)\s(?P<h>\d{{1,2}}|{'|'.join(_WORD_HOURS)})"
    rf"(?!\d|[:.]\d){_AMPM}?{_AFTER}")
#: Times said by name; "gece yarısı" with any suffix (gece yarısında).
_NAMED_TIMES = {"noon": Time(12, 0), "midday": Time(12, 0), "midnight": Time(0, 0),
                "gece yarisi": Time(0, 0)}
_NAMED_TIME = regex.compile(r"(?<![a-z])(?:(?:noon|midday|midnight)(?![a-z])|gece yarisi)")
_SCORE = regex.compile(
    r"(?<![\w.,:/-])(\d{1,2})(?:\s?[-–—]\s?|\sto\s|'(?:e|a|ye|ya)\s)(\d{1,2})"
    r"(?![\w–—-]|[.,:/]\d)")
_DATE_PATTERNS = (_ISO, _NUMERIC_DATE, _DAY_MONTH, _MONTH_DAY, _MONTH_GENITIVE)
#: In an answer, a day and a two-digit month with a dot, day first (18.03, 18.03'te); not a
#: time (saat 10.05, sabah 7.05, at 10.05, 10.05 pm) nor an amount ($10.05, 10.05 %).
_DOTTED_DATE = regex.compile(
    r"(?<![\w.,/:$€£₺%]|(?:saat|at|aksam|gece|sabah(?:a karsi)?|ogleden sonra|ogle|oglen"
    r"|ikindi)\s)"
    r"(\d{1,2})\.(0[1-9]|1[0-2])"
    r"(?![\d%]|[.,:/-]\d|\s?(?:%|[ap]\.?\s?m(?![a-z])))")
_WEEKDAY = f"(?P<weekday>{_alternation(WEEKDAYS)})"
#: What marks a number as a day of the month: the 16th, 16'sı, 16'sında (not 16'da: a time).
_DAY_MARK = r"(?:st|nd|rd|th|'s?[iu](?:n[a-z]*)?)"
#: A weekday with the day of the month and no month: Monday the 16th, Pazartesi, 16'sında,
#: ayın 16'sı, 16'sı pazartesi; not Monday 16 April, Nisan'ın 16'sı pazartesi (that month's).
_WEEKDAY_DAY = regex.compile(
    rf"(?<![a-z]){_WEEKDAY}(?:'[a-z]+)?,?\s(?:gunu,?\s)?"
    rf"(?:(?:the|ayin)\s(?P<day>\d{{1,2}}){_DAY_MARK}?|(?P<day>\d{{1,2}}){_DAY_MARK})"
    rf"(?!\d|[a-z]|[.,/:-]\d|,?\s(?:of\s)?(?:{_MONTH_NAMES})(?![a-z]))"
    rf"|(?<![\d.,/:]|(?:{_MONTH_NAMES})(?:'[a-z]+)?\s)(?P<day>\d{{1,2}}){_DAY_MARK},?\s"
    rf"{_WEEKDAY}(?![a-z])")
#: A day of the month alone: ayın 13'ü, the 13th (not the 2nd floor; the 13th of March is a date).
_DAY_ALONE = regex.compile(rf"(?<![a-z])(?:ayin\s(?P<day>\d{{1,2}}){_DAY_MARK}(?![a-z])"
                           r"|the\s(?P<day>\d{1,2})(?:st|nd|rd|th)(?!\s?[a-z\d]))")
#: A duration said in units (3 hours, 12 minutes and 48 seconds; 3h 12m 48s; 3 saat 12
#: dakika 48 saniyede; an hour), each part optional but in this order; or written 3:12:48.
#: A unit's letter only glued to its digits (not 142 m², 12m/s); a word count only for hours.
_COUNT = r"\d+(?:[.,]\d+)?"
_HOURS = rf"(?:(?P<h>{_COUNT})(?:\s?(?:saat[a-z]*|hours?|hrs?|sa)|h)" \
    r"|(?P<h>an?|one|bir)\s(?:saat[a-z]*|hours?))(?![a-z\d/])"
_MINUTES = rf"(?P<m>{_COUNT})(?:\s?(?:dakika[a-z]*|minutes?|mins?|dk)|m)(?![a-z\d/])"
_SECONDS = rf"(?P<s>{_COUNT})(?:\s?(?:saniye[a-z]*|seconds?|secs?|sn)|s)(?![a-z\d/])"
_THEN = r",?\s?(?:(?:and|ve)\s)?"
_DURATION = regex.compile(
    rf"(?<![\w.,:])(?:{_HOURS}(?:{_THEN}{_MINUTES})?(?:{_THEN}{_SECONDS})?"
    rf"|{_MINUTES}(?:{_THEN}{_SECONDS})?|{_SECONDS})")
_CLOCK_DURATION = r"(\d{1,3}):([0-5]\d):([0-5]\d)"
_WRITTEN_DURATION = regex.compile(rf"(?<![\d.,:]){_CLOCK_DURATION}(?!\d|[.,:]\d)")
#: A half said with a count of time, in the digits a duration reads: "2 buçuk saat" (the
#: Turkish half stays a word after its count: ``_spell``) 2.5 saat; "half an hour" ("0.5 an
#: hour" once the English half is in digits) 0.5 hour.
_SAID_HALF = regex.compile(r"(?<![\d.,])(\d+)\sbucuk(?=\s(?:saat|dakika|saniye))"
                           r"|(?<![\w.,])(?:half|0\.5)\san\s(?=hour)")
#: A phone number's digit groups; a bracketed group ("(0212)", "(0 212)") must close, so
#: "444 88 99 (7/24 open)" ends before the bracket.
_PHONE_GROUP = r"(?:\(\d++(?:[ .-]?+\d++)*+\)|\d++)"
_PHONE = regex.compile(
    rf"(?<![\w+]|\d[.,])(?P<plus>\+)?{_PHONE_GROUP}(?:[ .-]?+{_PHONE_GROUP})*+")
_WORDS = regex.compile(r"\p{L}+\.?")
_SENTENCE_END = regex.compile(r"[.!?]\s*$")


# Cardinal numbers in words, in the answer's language (written as lowered, Turkish letters
# kept: "on" is ten only in Turkish, and "ön" is no number).
_EN_SMALL = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
             "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
             "seventeen", "eighteen", "nineteen"]
_EN_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
#: A score said in words: "three–one", "two-all", "one-nil", "nil-nil"; a goalless draw.
_SAID_SCORE = regex.compile(
    rf"(?<![\w-])(nil|{_alternation(_EN_SMALL)})\s?[-–—]\s?(nil|all|{_alternation(_EN_SMALL)})"
    r"(?![\w-])|(?<!\w)(?:goalless\sdraw|golsuz\sberabere?)")
# The Turkish number words with ı written i, as ``_spelled_out`` reads them: capitals
# written with I for İ ("ON IKI", a model's upper() that knows no Turkish) lower to ı.
_TR_ONES = [w.replace("ı", "i") for w in
            ["sıfır", "bir", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz"]]
_TR_TENS = [w.replace("ı", "i") for w in
            ["on", "yirmi", "otuz", "kırk", "elli", "altmış", "yetmiş", "seksen", "doksan"]]
_WORD_VALUES = {"a": 1} | \
    {w: n for n, w in enumerate(_EN_SMALL)} | {w: 10 * n for n, w in enumerate(_EN_TENS, 2)} | \
    {w: n for n, w in enumerate(_TR_ONES)} | {w: 10 * n for n, w in enumerate(_TR_TENS, 1)} | \
    {"dörd": 4}
_EN_SUB = rf"(?:(?:{_alternation(_EN_TENS)})(?:[-\s](?:{_alternation(_EN_SMALL[1:10])}))?" \
    rf"|{_alternation(_EN_SMALL)})"
_TR_SUB = rf"(?:(?:{_alternation(_TR_TENS)})(?:\s(?:{_alternation(_TR_ONES[1:])}))?" \
    rf"|{_alternation(_TR_ONES)}|dörd(?=[eü]))"
_TR_HUNDREDS = rf"(?:(?:{_alternation(_TR_ONES[2:])})\s)?yüz(?:\s{_TR_SUB})?"
#: Fractions said alone; not "a quarter past six", "dokuzu çeyrek geçe" (a time).
_FRACTIONS = {"half": "0.5", "a half": "0.5", "one half": "0.5", "a quarter": "0.25",
              "one quarter": "0.25", "three quarters": "0.75", "yarim": "0.5", "çeyrek": "0.25"}
_SPELLED = {
    "en": regex.compile(
        rf"(?<![\w-])(?:(?P<alone>(?:(?:a|one)\s)?half|(?:a|one)\squarter|three\squarters)"
        rf"(?!\s(?:past|to)(?!\w))|(?P<n>(?:(?:a|{_EN_SUB})[\s-]hundred"
        rf"(?:\s(?:and\s)?{_EN_SUB})?|{_EN_SUB}|a))(?P<half>\sand\sa\shalf)?)(?!\w|-\w)"),
    "tr": regex.compile(
        r"(?<!\w)(?:(?P<alone>yarim|çeyrek(?!\s(?:kala|geçe)))"
        rf"|(?P<n>(?:(?:{_TR_HUNDREDS}|{_TR_SUB})\s)?bin"
        rf"|{_TR_HUNDREDS}|{_TR_SUB})(?:(?P<half>\sbuçuk)|(?P<case>[dt][ae]|y?[aeiuü]))?)(?!\w)"),
}
# "an hour and a half", "two days and a half": the half belongs to the count.
_UNIT_HALF = regex.compile(
    rf"(?<![\w-])(an?|{_EN_SUB})\s(hours?|days?|weeks?|months?|years?|minutes?)\sand\sa\shalf"
    r"(?!\w)")
_EN_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh " \
    "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
_ORDINALS = {w: n for n, w in enumerate(_EN_ORDINALS.split(), 1)} | \
    {"twentieth": 20, "thirtieth": 30} | \
    {f"{tens} {w}": 10 * t + n for t, tens in ((2, "twenty"), (3, "thirty"))
     for n, w in enumerate(_EN_ORDINALS.split()[:9], 1)}
_ORDINAL = regex.compile(r"(?<![\w-])(?:" + "|".join(
    w.replace(" ", r"[-\s]") for w in sorted(_ORDINALS, key=len, reverse=True)) + r")(?![\w-])",
    regex.IGNORECASE)
_SCALE_WORDS = "thousand|million|billion|bin|milyon|milyar"
_SCALE_NEXT = regex.compile(rf"\s(?:{_SCALE_WORDS})(?!\w)")
_SCALE_BEFORE = regex.compile(rf"(?<!\w)(?:{_SCALE_WORDS})\s(?:and\s)?$")
_COUNTED_BEFORE = regex.compile(r"(?:\d|buçuk)\s?$")
#: A day part before a lone "bir" or "on" with a locative or a half after it makes it an
#: hour (saat birde, sabah onda, öğleden sonra bir buçukta), as _DAY_PART reads digits.
_DAY_PART_BEFORE = regex.compile(
    r"(?<!\w)(?:akşam|gece|sabah(?:a karş[ıi])?|öğleden sonra|öğlen|öğle|ikindi|saat)"
    r"\s(?:saat\s)?$")
_HALF_NEXT = regex.compile(r"\sbuçuk")


def _spell(match: regex.Match[str]) -> str:
    """A number said in words as digits: "twenty-one" 21, "iki yüz elli" 250, "three and a
    half" 3.5, "yarım" 0.5, "a quarter" 0.25; before a scale word only the factor ("iki
    buçuk milyon" 2.5 milyon, bare "bin" 1 bin), which the digit reading then scales. A lone
    "one", "bir" or "a" is an article or pronoun ("one of the files", "bir dosya"), no
    count: it is read only before a scale word ("a million"), and one/bir also after one
    ("bin bir", "a thousand and one"), and bir/on after a day part with a locative or a half
    (``_DAY_PART_BEFORE``: "saat birde", "sabah onda"). A Turkish case suffix stays on the
    digits ("on ikide" 12de, "dördü" 4ü), except on a pronoun ("ona", "onda") or yüz/bin
    ("yüzde" is per cent); a Turkish half stays a word ("dokuz buçuk" 9 buçuk), for the
    clock reading."""
    if match.group("alone"):
        return _FRACTIONS[" ".join(match.group("alone").split())]
    words = match.group("n").replace("-", " ").split()
    text, start, end = match.string, match.start(), match.end()
    half = ".5" if match.group("half") else ""
    case = match.groupdict().get("case") or ""
    if words == ["bin"] and _COUNTED_BEFORE.search(text, 0, start):
        return match.group()  # 18 bin, iki buçuk bin: the digit reading scales it
    hour = words in (["bir"], ["on"]) and (case in ("da", "de") or _HALF_NEXT.match(text, end)) \
        and _DAY_PART_BEFORE.search(text, 0, start) is not None
    if words in (["one"], ["bir"], ["a"]) and not half and not hour \
            and not _SCALE_NEXT.match(text, end) \
            and (words == ["a"] or not _SCALE_BEFORE.search(text, 0, start)):
        return match.group()
    if case and ((words == ["on"] and not hour) or words[-1] in ("yüz", "bin")):
        return match.group()
    value = 0
    for word in words:
        if word in ("hundred", "yüz"):
            value = (value or 1) * 100
        elif word != "bin" and word != "and":
            value += _WORD_VALUES[word]
    if words[-1] == "bin":  # iki yüz bin: 200 bin, bin buçuk: 1.5 bin
        return f"{value or 1}{half} bin"
    if half and match.group("half") == " buçuk" and not _SCALE_NEXT.match(text, end):
        return f"{value} buçuk"
    return f"{value}{half}{case}"


def _day_number(match: regex.Match[str]) -> str:
    """An ordinal word as a day: "twenty-first" 21th (the date patterns take any suffix)."""
    # folded, not lower(): the pattern ignores case, and an İ (FİRST) lowers to two characters
    return f"{_ORDINALS[' '.join(fold(match[0]).replace('-', ' ').split())]}th"


def _spelled_out(text: str, language: str) -> str:
    """``text`` folded, with its numbers said in words (in ``language``) written in digits."""
    # An English İ (capitals made by Turkish rules: FİFTEEN) lowers to i and a combining dot.
    lowered = turkish_lower(text).replace("ı", "i") if language == "tr" else \
        text.lower().replace("\u0307", "")
    if language == "en":
        lowered = _UNIT_HALF.sub(lambda m: f"{'one' if m[1] in ('a', 'an') else m[1]} and a "
                                 f"half {m[2]}", lowered)
    return _prepare(_SPELLED[language].sub(_spell, lowered))


def _readings(token: str, language: str | None) -> list[tuple[Decimal, Decimal]]:
    """(value, quantum) for each way ``token`` can be read. A lone separator before
    exactly three digits (5.878, 1,500) is a thousands mark or a decimal mark: both for an
    answer (``language`` None; 18.000 only a thousands mark), the language's for evidence
    (tr: 5.878 = 5878, 26,531 decimal; en: 1,500 = 1500, 5.878 decimal)."""
    s = regex.sub(r"[\u00a0\u202f' ]", "", token)
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


def _numbers(text: str, language: str | None) -> list[tuple[regex.Match[str], Number]]:
    found = []
    for match in _NUMBER.finditer(text, overlapped=False):
        scale = match.group("scale")
        factor = Decimal(1).scaleb(_SCALES[scale]) if scale else Decimal(1)
        sign = -1 if match.group("sign") else 1
        unit = _UNITS.get((match.group("unit") or match.group("pre") or "").strip())
        approximate = bool(_ROUGHLY_BEFORE.search(text, max(0, match.start() - 20),
                                                  match.start())
                           or _ROUGHLY_AFTER.match(text, match.end()))
        for value, quantum in _readings(match.group("num"), language):
            found.append((match, Number(sign * value * factor, quantum * factor, unit,
                                        approximate)))
    return found


def _compound(text: str, numbers: list[tuple[regex.Match[str], Number]]
              ) -> tuple[list[Number], set[int]]:
    """Amounts said in parts (1 milyon 742 bin 500, 486 lira 72 kuruş, 12 dollars and 5
    cents, 7 buçuk; the minor unit left out after a currency word only with two digits:
    42 pounds 80, 486 lira 72), and the starts of the parts they consumed: a part alone is not what
    the answer said ("12 dollars" of "12 dollars and 50 cents" is no rounding of 12.05)."""
    out: list[Number] = []
    used: set[int] = set()
    whole = [(m, n) for m, n in numbers if n.quantum >= 1]
    for index, (match, number) in enumerate(whole):
        if match.start() in used:
            continue
        if regex.match(r"\s?bucuk", text[match.end():]):
            out.append(Number(number.value + Decimal("0.5"), Decimal("0.1"), number.unit,
                              number.approximate))
            used.add(match.start())
            continue
        parts = [(match, number)]
        for follow, part in whole[index + 1:]:
            last_match, last = parts[-1]
            if not _JOIN.fullmatch(text[last_match.end():follow.start()]):
                break
            if last.quantum > 1 and part.value < last.quantum and part.quantum < last.quantum:
                parts.append((follow, part))  # 1 milyon | 742 bin | 500
            elif last.unit in MONEY and part.value < 100 and (
                    _MINOR.match(text, follow.end())  # (2 bin) 486 lira | 72 kuruş
                    or (last_match.group("unit") and text[follow.start() - 1:follow.end()]
                        == f" {part.value:02}")):  # 42 pounds | 80
                parts.append((follow, Number(part.value / 100, Decimal("0.01"))))
                break
            else:
                break
        if len(parts) > 1:
            unit = next((n.unit for _, n in parts if n.unit), None)
            out.append(Number(sum((n.value for _, n in parts), Decimal(0)),
                              parts[-1][1].quantum, unit, any(n.approximate for _, n in parts)))
            used |= {m.start() for m, _ in parts}
    return out, used


def _minor(text: str, match: regex.Match[str], number: Number) -> Number:
    """A count of a minor currency unit as the amount: 99 cents 0.99, 50 kuruş 0.50 TL."""
    minor = _MINOR.match(text, match.end())
    if minor is None or number.unit or number.quantum < 1:
        return number
    return Number(number.value / 100, number.quantum / 100,
                  _MINOR_UNITS.get(minor.group().strip()), number.approximate)


def _date(year: str | None, month: int, day: str) -> Date | None:
    if not (1 <= month <= 12 and 1 <= int(day) <= 31):
        return None
    return Date(int(year) if year else None, month, int(day))


def _dates(text: str, english: bool) -> list[Date]:
    found: list[Date | None] = [_date(y, int(m), d) for y, _, m, d in _ISO.findall(text)]
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


#: Minutes and hours said in words in a past/to phrase.
_OFFSETS = {"quarter": 15, "ceyrek": 15, "half": 30, "on": 10, "bir": 1}


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
    for match in (*_QUARTER.finditer(text), *_TR_PAST_TO.finditer(text)):
        minutes = _OFFSETS.get(match.group("m")) or int(match.group("m"))
        hour = _OFFSETS.get(match.group("h")) or _hour(match.group("h"))
        if match.group("dir") in ("to", "kala"):  # ten to one: 12:50
            hour, minutes = (hour - 1) or 12, 60 - minutes
        found.append(_day_time(hour, minutes, match) if 0 < minutes < 60 else None)
    found += [_NAMED_TIMES[match[0]] for match in _NAMED_TIME.finditer(text)]
    return [t for t in found if t is not None]


#: North America's country code 1 written without +, as its own group before the ten
#: digits of the number (1-415-555-0132, 1 (415) 555-0132).
_NORTH_AMERICAN = regex.compile(r"1[^\d+]")
_NORTH_AMERICAN_DIGITS = 11


def _phone(written: str) -> Phone | None:
    """A phone number (seven digits or more) as written; + or 00 before it, or North
    America's 1 as its own group, mark a country code; "(0)" after one is a trunk zero
    left out (+44 (0)20 7946 0958)."""
    digits = regex.sub(r"\D", "", written.replace("(0)", ""))
    if len(digits) < 7:
        return None
    international = written.startswith("+") or digits.startswith("00") or (
        len(digits) == _NORTH_AMERICAN_DIGITS and _NORTH_AMERICAN.match(written) is not None)
    return Phone(digits[2:] if digits.startswith("00") else digits, international)


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


#: A Unicode vulgar fraction (¾, ½, ⅓), after a whole number or not (1½, 2 ½).
_VULGAR = regex.compile(r"(?:(?<![\d.,])(\d+)\s?)?([\u00bc-\u00be\u2150-\u215e])")


def vulgar_fractions(text: str) -> str:
    """``text`` with its vulgar fractions as decimals: ¾ 0.75, 1½ and 1 ½ 1.5 (NFKC would
    make 1½ "11⁄2", holding an 11)."""
    return _VULGAR.sub(lambda m: str(int(m[1] or 0) + Decimal(str(unicodedata.numeric(m[2])))),
                       text)


def _prepare(text: str) -> str:
    return fold(regex.sub(r"['\u2019\u2018\u00b4\u02bc`\u02bb\u2032]", "'",
                          vulgar_fractions(text)))


#: One capital letter glued to a decimal is a notation, not a code (M4.3, a magnitude).
_NOTATION = regex.compile(r"(?<![\w-])(\p{Lu})(?=\d+[.,]\d)")


def _duration(hours: str | None, minutes: str | None, seconds: str | None) -> Duration:
    """A length from its parts' counts (digits; "an", "one" or "bir" is 1)."""
    counts = [Decimal(1) if part[0].isalpha() else Decimal(part.replace(",", "."))
              for part in (hours or "0", minutes or "0", seconds or "0")]
    return Duration(counts[0] * 3600 + counts[1] * 60 + counts[2])


class Values:
    """Every value a text states, each in every reading it allows; each kind is read when
    first asked for."""

    def __init__(self, text: str, language: str | None = None) -> None:
        # Composed: a decomposed letter (ş as s and a cedilla) would split its word.
        self.text = unicodedata.normalize("NFC", text)
        self.language = language
        self.folded = _prepare(text)

    def _spoken(self, text: str) -> str:
        """``text`` folded, numbers in words in digits where the language is known; a
        letter's notation apart from its number (M4.3 as M 4.3)."""
        text = _NOTATION.sub(r"\1 ", text)
        return _spelled_out(text, self.language) if self.language in _SPELLED \
            else _prepare(text)

    @cached_property
    def spoken(self) -> str:
        return self._spoken(self.text)

    @cached_property
    def numbers(self) -> tuple[Number, ...]:
        numbers = _numbers(self.spoken, None)
        compounds, parts = _compound(self.spoken, numbers)
        return tuple([_minor(self.spoken, m, n) for m, n in numbers if m.start() not in parts]
                     + compounds)

    @cached_property
    def _dated(self) -> str:
        """The text dates are read in: a day also as an ordinal word (the fourteenth)."""
        return self._spoken(_ORDINAL.sub(_day_number, self.text))

    @cached_property
    def dates(self) -> tuple[Date, ...]:
        """Dates (the fourteenth of May, May fourteenth), and a dotted day and month."""
        dotted = [_date(None, int(m[2]), m[1]) for m in _DOTTED_DATE.finditer(self._dated)]
        return tuple(_dates(self._dated, english=True) + [d for d in dotted if d is not None])

    @cached_property
    def weekdays(self) -> tuple[tuple[int, int], ...]:
        """(weekday, day of the month) where a day is named so without a month: Monday the
        16th is (0, 16)."""
        return tuple((WEEKDAYS[m["weekday"]], int(m["day"]))
                     for m in _WEEKDAY_DAY.finditer(self._dated))

    @cached_property
    def month_days(self) -> frozenset[int]:
        """Days of the month named without a month: the 13th, ayın 13'ü, Monday the 16th."""
        return frozenset([int(m["day"]) for m in _DAY_ALONE.finditer(self._dated)]
                         + [day for _, day in self.weekdays])

    @cached_property
    def durations(self) -> tuple[Duration, ...]:
        spoken = _SAID_HALF.sub(lambda m: f"{m[1]}.5" if m[1] else "0.5 ", self.spoken)
        return tuple([_duration(m["h"], m["m"], m["s"]) for m in _DURATION.finditer(spoken)]
                     + [_duration(*parts) for parts in _WRITTEN_DURATION.findall(spoken)])

    @cached_property
    def times(self) -> tuple[Time, ...]:
        return tuple(_times(self.spoken))

    @cached_property
    def phones(self) -> tuple[Phone, ...]:
        return tuple(phone for match in _PHONE.finditer(self.folded)
                     if (phone := _phone(match.group())))

    @cached_property
    def scores(self) -> tuple[Score, ...]:
        goals = {"nil": 0, "": 0} | {w: n for n, w in enumerate(_EN_SMALL)}  # "all": the same
        return tuple(Score(int(a), int(b)) for a, b in _SCORE.findall(self.folded)) + tuple(
            Score(goals[a], goals.get(b, goals[a])) for a, b in _SAID_SCORE.findall(self.folded))

    @cached_property
    def words(self) -> tuple[Word, ...]:
        return tuple(_words(self.text))


@lru_cache(maxsize=4096)
def answer_values(text: str, language: str | None = None) -> Values:
    """The values ``text`` states (read lazily, kept for the text's next evidence item);
    numbers said in words are read in ``language`` ("en", "tr") when it is given."""
    return Values(text, language)


_PERSON = regex.compile(r"(\p{Lu}\p{Ll}+) (\p{Lu}\p{Ll}+)")
_EVIDENCE_TIME = regex.compile(r"(\d{1,2})[:.](\d{2})")
#: Digits glued to one capital letter name a line, a seat or a network (bus 3G, 12B, 5G), not
#: a quantity (units are written in lower case: 62g): "3G" is no 3 grams, "bus 3" no 3G.
_NUMBERED_NAME = regex.compile(r"\d+\p{Lu}")
_EVIDENCE_SCORE = regex.compile(r"(\d{1,2})\s?[-–—]\s?(\d{1,2})")
_EVIDENCE_PHONE = regex.compile(r"\+?[\d\s().-]+")


@lru_cache(maxsize=4096)
def evidence_values(text: str, language: str) -> tuple[Value, ...]:
    """The values an evidence item is, when it is wholly one (a number with its unit, a
    date, a time or an hour with its day part, a duration written H:MM:SS, a phone number,
    a score, a two-word name); empty for plain text."""
    stripped = " ".join(text.split())
    if _NUMBERED_NAME.fullmatch(stripped):
        return ()
    folded = _prepare(stripped)
    values: list[Value] = []
    name = stripped.split()
    while len(name) > 2 and fold(name[0].rstrip(".")) in TITLES:  # Dr. Elena Petrova
        name.pop(0)
    if (person := _PERSON.fullmatch(" ".join(name))) is not None:
        values.append(Person(fold(person.group(1)), fold(person.group(2))))
    if any(pattern.fullmatch(folded) for pattern in _DATE_PATTERNS):
        values += _dates(folded, english=False)[:1]
    if (time := _EVIDENCE_TIME.fullmatch(folded)) is not None and \
            int(time.group(1)) <= 23 and int(time.group(2)) <= 59:
        values.append(Time(int(time.group(1)), int(time.group(2))))
    elif _HOUR.fullmatch(folded):  # an hour with its day part: gece 3, saat 3, 9 am
        values += _times(folded)[:1]
    if (length := regex.fullmatch(_CLOCK_DURATION, folded)) is not None:
        values.append(_duration(*length.groups()))
    if (score := _EVIDENCE_SCORE.fullmatch(folded)) is not None:
        values.append(Score(int(score.group(1)), int(score.group(2))))
    if _EVIDENCE_PHONE.fullmatch(folded) and (phone := _phone(folded)) is not None:
        values.append(phone)
    for match, number in _numbers(folded, language):
        if match.span() == (0, len(folded)):
            values.append(number)
    return tuple(values)

