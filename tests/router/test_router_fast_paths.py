"""The router's fast paths give what the plain computations give: normalisation's ASCII
fold and pattern pre-checks. Each is compared with the straightforward computation it
replaced, on generated text and on every message of the repository's corpus."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.cases.load import parse_text
from pytest_tooleval.check.files import collect_files
from pytest_tooleval.text import normalize as norm
from pytest_tooleval.text.emoji import hint_table
from tests.router.routing import CATALOGUE, REGISTERS, ROUTER

ROOT = Path(__file__).resolve().parents[2]
# Letters, digits, the marks the patterns look for, Turkish and accented letters, emoji.
ALPHABET = st.sampled_from(list(
    "abcdefvxyzABCDEFIVXZ0123456789 _.-/:()%*+^=×÷−–'’`\t\n"
    "çğıöşüÇĞİÖŞÜéèêñÅåﬁ①²\u0307\u0301\u200d\ufe0f➕➖✖➗😀👍🏽🇹🇷"
))
TEXT = st.text(ALPHABET, max_size=40) | st.sampled_from([
    "https://example.com/a", "www.Example.org", "haber.example.tr/egitim/x", "v0.4.0",
    "V2.1 çıktı", "abc1234 ile", "deadbeef1", "_safe_load()", "loadConfig", "parse()",
    "MAX_RETRIES", "budget_2025.xlsx", "18*1000", "3 x 4", "%18", "7 − 2",
])


def _fold_reference(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = norm.turkish_lower(text).translate(norm._TURKISH_FOLD)
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return norm._WHITESPACE.sub(" ", unicodedata.normalize("NFC", stripped)).strip()


def _flags_reference(text: str) -> tuple[bool, ...]:
    return (
        norm._DIGIT.search(text) is not None,
        norm._OPERATOR.search(text) is not None or any(c in norm.OPERATOR_EMOJI for c in text),
        norm._URL.search(text) is not None,
        norm._VERSION.search(text) is not None,
        norm._COMMIT_ID.search(text) is not None,
        norm._IDENTIFIER.search(text) is not None,
    )


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_fold_and_flags_equal_the_plain_computation(text: str) -> None:
    assert norm.fold(text) == _fold_reference(text)
    assert norm._flags(text) == _flags_reference(text)
    hinted = text.translate(hint_table(None))
    if hinted.isascii():
        assert norm._PICTOGRAPHS.sub(" ", hinted) == hinted


def test_no_ascii_character_is_a_pictograph_and_ascii_folds_to_lowercase() -> None:
    for code in range(128):
        char = chr(code)
        assert norm._PICTOGRAPHS.search(char) is None
        assert norm.fold(f"a{char}B") == _fold_reference(f"a{char}B")


def _corpus_messages() -> list[tuple[str, str]]:
    found = []
    for path in collect_files([ROOT / "benchmarks", ROOT / "scenarios"]):
        data = parse_text(path.read_text(encoding="utf-8-sig"), path)
        for case in data["cases"]:
            for step in case["steps"]:
                found.append((step["message"], data.get("language", "en")))
    return found


@pytest.fixture(scope="module")
def messages() -> list[tuple[str, str]]:
    return _corpus_messages()


def test_fold_and_flags_on_every_corpus_message(messages: list[tuple[str, str]]) -> None:
    assert len(messages) > 500
    for message, _ in messages:
        assert norm.fold(message) == _fold_reference(message)
        assert norm._flags(message) == _flags_reference(message)


# One job's Turkish registers (routing.REGISTERS), routed many times.
def test_route_is_fast() -> None:
    import time

    messages = [f"{text} {n}" for n in range(60) for text in REGISTERS.values()][:600]
    started = time.perf_counter()
    for message in messages:
        ROUTER.route(message, "tr", CATALOGUE)
    assert time.perf_counter() - started < 1.0

