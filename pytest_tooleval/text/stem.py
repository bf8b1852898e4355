"""Stemming for the router's trigger and cue matching, behind one switch.

- ``light``: the router's own rule (strip one English ending, keep four letters; cues are
  then cut to six letters, which also covers most Turkish suffixes).
- ``snowball``: the Snowball stemmers (Turkish, English and the other languages Snowball
  has), through PyStemmer (C) when it is installed, else the pure-Python
  ``snowballstemmer``. The Turkish stemmer needs the real letters (``faturamı`` → fatura;
  folded ``faturami`` stays as it is), so it stems the Turkish-lowercased word and the
  result is folded to ASCII afterwards, like every router key.

docs/router.md records the measurement of one against the other.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from pytest_tooleval.text.normalize import fold

STEMMERS = ("light", "snowball")
#: Which morphology the router's trigger and cue matching use (docs/router.md has the
#: measurement that chose it). Here, not in the router, so the command line can name it
#: without importing the router.
DEFAULT_STEMMER = "light"
_SUFFIXES = ("ies", "ing", "ed", "es", "s")
# ISO 639-1 → Snowball's algorithm names (the ones the router is likely to meet).
SNOWBALL_LANGUAGES = {
    "en": "english", "tr": "turkish", "de": "german", "fr": "french", "es": "spanish",
    "it": "italian", "nl": "dutch", "pt": "portuguese", "ru": "russian", "sv": "swedish",
}


def light_stem(word: str) -> str:
    """Strip one English plural or verb ending, keeping at least four letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


class StemmerUnavailable(RuntimeError):
    pass


@lru_cache(maxsize=16)
def _snowball(algorithm: str) -> Callable[[str], str]:
    try:
        import Stemmer  # PyStemmer

        stem: Callable[[str], str] = Stemmer.Stemmer(algorithm).stemWord
        return stem
    except ImportError:
        pass
    try:
        import snowballstemmer
    except ImportError:
        raise StemmerUnavailable(
            "the snowball stemmer needs PyStemmer or snowballstemmer: "
            "pip install 'PyStemmer>=2.2' (or 'snowballstemmer>=2.2')"
        ) from None
    stem = snowballstemmer.stemmer(algorithm).stemWord
    return stem


@lru_cache(maxsize=1)
def snowball_installed() -> bool:
    try:
        _snowball("english")
    except StemmerUnavailable:
        return False
    return True


def has_snowball(language: str) -> bool:
    """A Snowball stemmer for this language is installed."""
    return language in SNOWBALL_LANGUAGES and snowball_installed()


@lru_cache(maxsize=65536)
def snowball_stem(word: str, language: str) -> str:
    """The Snowball stem of a lowercase word (letters kept), folded to the router's ASCII
    key; the folded word itself for a language Snowball does not have."""
    algorithm = SNOWBALL_LANGUAGES.get(language)
    if algorithm is None:
        return fold(word)
    return fold(_snowball(algorithm)(word))


def check_stemmer(name: str) -> None:
    """Raise ``ValueError`` for an unknown name, ``StemmerUnavailable`` when missing."""
    if name not in STEMMERS:
        raise ValueError(f"unknown stemmer {name!r}; use one of {', '.join(STEMMERS)}")
    if name == "snowball":
        _snowball("english")
