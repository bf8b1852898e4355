"""Text normalisation shared by the router and evidence matching.

Python's own ``lower()`` turns İ into i plus a combining dot and ``casefold()`` knows no
Turkish rules, so case folding is done here explicitly. ``fold`` is the evidence key;
``normalize`` is the router's full recipe (docs/router.md, spec/router.md).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

from pytest_tooleval.text.dialect import standardize
from pytest_tooleval.text.emoji import DOLLAR_HINT, OPERATOR_EMOJI, hint_table, hint_word
from pytest_tooleval.text.shorthand import ENGLISH_SHORTHAND

_TURKISH_FOLD = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})
_COMBINING_DOT = "\u0307"
_WHITESPACE = re.compile(r"\s+")

# ' ’ ‘ ´ ʼ and the backtick: Turkish suffixes follow an apostrophe (Ankara'da, git'te).
_APOSTROPHES = str.maketrans({c: " " for c in "'\u2019\u2018\u00b4\u02bc`\u02bb\u2032"})
# Pictographs, skin tones, flags, variation selectors, joiners, keycap and tag characters.
_PICTOGRAPHS = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}"
    r"\uFE0E\uFE0F\u200D\u20E3\U000E0020-\U000E007F]+"
)
# A dollar sign beside a number ($25, 25 $): money; elsewhere ($HOME, $PATH) it is code.
_DOLLAR = re.compile(r"\$(?=\s?\d)|(?<=\d)\s?\$")
_REPEATS = re.compile(r"([^\W\d_])\1{2,}")
_WORDS = re.compile(r"[^\W_]+")
_DIGIT = re.compile(r"\d")
# An operator between numbers: 18*1000, 3 x 4, 12/4, 7 − 2, %18, 18%.
_OPERATOR = re.compile(r"\d\s*[-+*/×÷^x−–]\s*\d|%\s*\d|\d\s*%", re.IGNORECASE)
# A web address, with or without a scheme: https://…, www.…, haber.example.tr/egitim/….
# A bare host needs a common top-level domain and either a path or a scheme-free "www";
# file names (cli.py, ideas.md, rapor.pdf) do not look like this.
_URL = re.compile(
    r"(?:https?://|www\.)\S+"
    r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|dev|info|tr|de|uk|eu|fr|nl)"
    r"(?:\.[a-z]{2})?/\S*",
    re.IGNORECASE,
)
# A file name as people type it: a name, a dot and a common extension (hafta_sonu.txt,
# Notes/todo.md, budget_2025.xlsx, kestrel-0.3.2.tar.gz); not a web address (checked first),
# and not source code (geo.py is the repository's: the git and code tools).
_FILENAME = re.compile(
    r"(?<![\w.])[\w][\w.+-]*\.(?:txt|md|csv|json|ya?ml|toml|ini|log|pdf|docx?|xlsx?|pptx?|odt"
    r"|rtf|png|jpe?g|gif|heic|mp3|mp4|zip|rar|7z|tar|gz|tgz|bz2|xz|html?|xml)"
    r"(?![\w.])",
    re.IGNORECASE,
)
# A number typed against its unit (183cm, 3.5kg, 10km, 6pm): read as two words, the number
# and the unit, so the unit's trigger fires. Not inside a name (budget2025x, v0.4.0, a3f9c21).
_GLUED_UNIT = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)([^\W\d_]{1,5})(?!\w)")
# A commit id as people paste it: 7 to 40 lowercase hex characters with a digit and a letter.
_COMMIT_ID = re.compile(r"(?<![\w.])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w.])")
# A code identifier as people paste it: snake_case (_safe_load, MAX_RETRIES), camelCase
# (loadConfig) or a call (parse()); not a file name (budget_2025.xlsx) or a path part.
_IDENTIFIER = re.compile(
    r"(?<![\w./\\-])(?:_*[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]|_+[A-Za-z][A-Za-z0-9]+"
    r"|[a-z]{3,}[A-Z][a-z]+[A-Za-z0-9]*)(?![\w./\\-])|\b[A-Za-z_]\w*\(\)"
)
# A path (a slash between names) or a file name (a name, a dot, an extension of letters).
_PATH = re.compile(r"[\w~.-][/\\][\w.-]|\b[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b")
# The whole whitespace-delimited token of a path or file name: its digits (budget_2025.xlsx,
# slides_berlin_2025.zip) are part of a name, not a number of the question.
_PATH_TOKEN = re.compile(r"\S*(?:[\w~.-][/\\][\w.-]|\b[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b)\S*")
# English contractions typed without the apostrophe ("dont", "whats", "im"), split the way
# the apostrophe would split them, so "dont let me forget" reads as "don t let me forget".
# Only forms that are no other word: not "its", "well", "were", "ill", "id", "lets", "wont".
# With them, chat shorthand (text/shorthand.py: tmrw → tomorrow); both word by word.
_SHORT: dict[str, tuple[str, ...]] = ENGLISH_SHORTHAND | {
    word: tuple(expanded.split())
    for word, expanded in {
        "dont": "don t", "doesnt": "doesn t", "didnt": "didn t", "cant": "can t",
        "couldnt": "couldn t", "wouldnt": "wouldn t", "shouldnt": "shouldn t",
        "isnt": "isn t", "arent": "aren t", "wasnt": "wasn t", "werent": "weren t",
        "havent": "haven t", "hasnt": "hasn t", "hadnt": "hadn t", "im": "i m", "ive": "i ve",
        "youre": "you re", "youve": "you ve", "theyre": "they re", "weve": "we ve",
        "whats": "what s", "wheres": "where s", "whos": "who s", "hows": "how s",
        "thats": "that s", "theres": "there s", "whens": "when s",
    }.items()
}


def _expand_contractions(
    words: list[str], lower: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The folded words and their lowercase forms with the contractions and shorthand
    split (a split word's lowercase parts are its folded parts: both are ASCII)."""
    if not any(word in _SHORT for word in words):
        return tuple(words), lower
    if len(lower) != len(words):
        lower = tuple(words)
    out: list[str] = []
    out_lower: list[str] = []
    for word, lower_word in zip(words, lower, strict=True):
        parts = _SHORT.get(word)
        out += parts or (word,)
        out_lower += parts or (lower_word,)
    return tuple(out), tuple(out_lower)


# A release tag: v0.4.0, v2.1 (a "v" and dotted numbers), which only repositories have.
_VERSION = re.compile(r"(?<![\w.])v\d+(?:\.\d+)+(?![\w])", re.IGNORECASE)


def turkish_lower(text: str) -> str:
    """Lowercase with Turkish rules for the dotted and dotless I (safe for English too).

    I → ı and İ → i would be wrong for English words ("IT" → "ıt"), but every caller
    folds to an ASCII key afterwards, where ı and i meet again. Composed first: a
    decomposed İ (I and a combining dot) is i, not ı.
    """
    text = unicodedata.normalize("NFC", text).replace("I", "ı").replace("İ", "i")
    return text.lower().replace(_COMBINING_DOT, "")


class _Combining(dict[int, int | None]):
    """A ``str.translate`` table deleting combining marks, filled as characters appear."""

    def __missing__(self, code: int) -> int | None:
        value = self[code] = None if unicodedata.combining(chr(code)) else code
        return value


_DROP_COMBINING = _Combining()


def fold(text: str) -> str:
    """An ASCII-leaning lowercase key: NFKC, Turkish lowercasing, diacritics dropped.

    İstanbul, Istanbul and ISTANBUL give the same key; so do faturamı and faturami.
    """
    if text.isascii():  # every step below leaves ASCII as it is, but for lowercasing
        return _WHITESPACE.sub(" ", text.lower()).strip()
    text = unicodedata.normalize("NFKC", text)
    text = turkish_lower(text).translate(_TURKISH_FOLD)
    stripped = unicodedata.normalize("NFKD", text).translate(_DROP_COMBINING)
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", stripped)).strip()


def squeeze(text: str) -> str:
    """Runs of three or more identical letters become one: çoooook → çok, pleeease → plese.

    One rather than two because Turkish elongation is mostly on single letters
    (lütfeeen, yaaa); the rare loss (saaaat → sat) is accepted.
    """
    # Most text has no such run: one search, and the substitution only when it finds one.
    return _REPEATS.sub(r"\1", text) if _REPEATS.search(text) else text


@dataclass(frozen=True)
class Normalized:
    """A message as the router sees it."""

    words: tuple[str, ...]
    has_number: bool
    has_operator: bool
    has_url: bool = False
    has_version: bool = False
    has_commit_id: bool = False
    has_identifier: bool = False
    # The same words before the ASCII fold (Turkish lowercase, letters kept: "faturamı"),
    # for stemmers that need the real letters; empty when the two do not align.
    lower_words: tuple[str, ...] = ()
    # A path or a file name (Downloads/x.zip, ~/notes, rapor.pdf, cli.py): the message says
    # where its file is, so a reader needs no finder (router/companions.py).
    has_path: bool = False
    has_filename: bool = False  # a file name with a common extension (notes.txt)

    @property
    def text(self) -> str:
        """The words joined by single spaces: the key for near-duplicate detection."""
        return " ".join(self.words)


@lru_cache(maxsize=65536)
def _fold_word(word: str) -> str:
    return squeeze(fold(word))


@lru_cache(maxsize=8192)
def normalize(text: str, language: str | None = None) -> Normalized:
    """NFKC, emoji → hint words, pictographs stripped, Turkish lowercase, ASCII fold,
    apostrophes split, repeats squeezed, punctuation dropped, split into words.

    ``language`` chooses the emoji hints' language (both when None); Turkish ("tr") also
    puts chat and dialect spellings in their standard form (text/dialect.py). Cached: the
    check normalises each message twice (routing, near-duplicates).
    """
    text = unicodedata.normalize("NFKC", text.translate(_APOSTROPHES))
    text = text.translate(_APOSTROPHES)  # NFKC can produce a fresh apostrophe-like mark
    # Caps lock on a Turkish keyboard types the i of a code or a file name as İ
    # (MAX_RETRİES, ARŞİV.ZİP): the patterns below read it as I.
    plain = text.replace("İ", "I")
    flags = _flags(plain)
    # Every path or file name needs a slash or a dot: try the pattern only then.
    has_path = ("/" in text or "\\" in text or "." in text) and _PATH.search(plain) is not None
    if has_path and flags[0]:
        # Digits inside a path or file name are part of a name, not a number of the question.
        flags = (_DIGIT.search(_PATH_TOKEN.sub(" ", plain)) is not None, *flags[1:])
    if "$" in text:
        text = _DOLLAR.sub(f" {hint_word(DOLLAR_HINT, language)} ", text)
    # A file name needs a dot; a glued unit, a digit (flags[0]: has_number).
    has_filename = "." in text and _FILENAME.search(_URL.sub(" ", text)) is not None
    if flags[0] and _GLUED_UNIT.search(text):
        text = _GLUED_UNIT.sub(r"\1 \2", text)
    text = text.translate(hint_table(language))
    if not text.isascii():  # no ASCII character is a pictograph, a modifier or a joiner
        text = _PICTOGRAPHS.sub(" ", text)
    lower = tuple(_WORDS.findall(squeeze(unicodedata.normalize("NFC", turkish_lower(text)))))
    if language == "tr":
        # Chat, colloquial and dialect spellings in their standard form (text/dialect.py).
        lower = standardize(lower)
        words = tuple(_fold_word(word) for word in lower)
    else:
        words, lower = _expand_contractions(_WORDS.findall(squeeze(fold(text))), lower)
    if len(lower) != len(words):
        lower = ()
    return Normalized(words, *flags, lower, has_path, has_filename)


# A lowercase letter before a capital: what a camelCase identifier needs.
_CAMEL_STEP = re.compile(r"[a-z][A-Z]")


def _flags(text: str) -> tuple[bool, bool, bool, bool, bool, bool]:
    """has_number, has_operator, has_url, has_version, has_commit_id, has_identifier.

    Each pattern is tried only where the text holds what every match of it needs (a digit
    for operators, commit ids and release tags; a dot or "//" for an address; "_", "()"
    or a lower-to-upper step for an identifier): the same answers, fewer searches.
    """
    has_number = _DIGIT.search(text) is not None
    has_operator = (has_number and _OPERATOR.search(text) is not None) or (
        not OPERATOR_EMOJI.isdisjoint(text))
    has_url = ("." in text or "//" in text) and _URL.search(text) is not None
    has_version = has_number and "." in text and _VERSION.search(text) is not None
    # A message in capitals (caps lock) writes its commit id in capitals too.
    has_commit_id = has_number and _COMMIT_ID.search(
        text.lower() if text.isupper() else text) is not None
    has_identifier = ("_" in text or "()" in text or _CAMEL_STEP.search(text) is not None) \
        and _IDENTIFIER.search(text) is not None
    return has_number, has_operator, has_url, has_version, has_commit_id, has_identifier


