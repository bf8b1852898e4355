"""Text normalisation shared by the router and evidence matching.

Python's own ``lower()`` turns İ into i plus a combining dot and ``casefold()`` knows no
Turkish rules, so case folding is done here explicitly.
"""

from __future__ import annotations

import re
import unicodedata

_TURKISH_FOLD = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})
_COMBINING_DOT = "\u0307"
_WHITESPACE = re.compile(r"\s+")


def turkish_lower(text: str) -> str:
    """Lowercase with Turkish rules for the dotted and dotless I (safe for English too).

    I → ı and İ → i would be wrong for English words ("IT" → "ıt"), but every caller
    folds to an ASCII key afterwards, where ı and i meet again.
    """
    text = text.replace("I", "ı").replace("İ", "i")
    return text.lower().replace(_COMBINING_DOT, "")


def fold(text: str) -> str:
    """An ASCII-leaning lowercase key: NFKC, Turkish lowercasing, diacritics dropped.

    İstanbul, Istanbul and ISTANBUL give the same key; so do faturamı and faturami.
    """
    text = unicodedata.normalize("NFKC", text)
    text = turkish_lower(text).translate(_TURKISH_FOLD)
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", stripped)).strip()
