"""The sixth round's mechanisms (docs/router.md, "Sixth round"), with sentences written for
these tests and found in no case file (checked below): each helps where it should and stays
silent where it should not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.lexical_train import gather
from pytest_tooleval.router.patterns import SKELETON_MIN_TRIGGER, TriggerSet
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize

CATALOGUE = list(builtin_specs())
PLAIN = TriggerRouter(9, lexical=False)
TR: TriggerSet = PLAIN.sets["tr"]
EN: TriggerSet = PLAIN.sets["en"]


@pytest.fixture(scope="module")
def known_texts() -> set[str]:
    return {normalize(s.example.message, s.example.language).text for s in gather()}


def _reasons(message: str, language: str, tool: str) -> list[str]:
    return PLAIN.route(message, language, CATALOGUE).reasons.get(tool, [])


# -- vowel-dropped shorthand read as the trigger word it stands for (patterns.py) ----------

@pytest.mark.parametrize(
    ("word", "reading"),
    [("kdr", "kadar"), ("zmn", "zaman"), ("hsp", "hesap"), ("hft", "hafta"),
     ("msj", "mesaj"), ("rndv", "randevu"), ("blt", "bilet"), ("ftr", "fatur"),
     ("nrd", "nerede")],
)
def test_a_turkish_shorthand_is_read_as_the_one_trigger_with_its_consonants(
    word: str, reading: str
) -> None:
    assert TR.skeleton_word(word) == reading


@pytest.mark.parametrize(
    "word",
    ["pdf", "ssh", "gps", "kdv", "mp3", "km", "prl", "kadar"],
)
def test_acronyms_vowels_digits_and_ambiguous_skeletons_are_left_alone(word: str) -> None:
    # no trigger has these consonants (pdf, ssh, gps, kdv), a digit or fewer than three
    # letters (mp3, km), a vowel-initial word's skeleton is never made (prl is no *april*),
    # a word with a vowel is no shorthand (kadar)
    assert TR.skeleton_word(word) == "" and EN.skeleton_word(word) == ""


@pytest.mark.parametrize(
    ("message", "tool"),
    [("bu ayki doğalgaz ftr geldi mi", "search_documents"),
     ("eczane kaça kdr açık bugün", "web_search"),
     ("doktor rndv perşembe ekle", "calendar_add")],
)
def test_shorthand_messages_reach_their_tools(
    message: str, tool: str, known_texts: set[str]
) -> None:
    assert normalize(message, "tr").text not in known_texts
    assert PLAIN.route(message, "tr", CATALOGUE).tools.count(tool) == 1
    assert any(not r.startswith("filler") for r in _reasons(message, "tr", tool))


def test_a_shorthand_match_is_named_and_counts_half() -> None:
    reasons = _reasons("şu ftr ne oldu", "tr", "search_documents")
    assert any("(shorthand of 'ftr')" in r for r in reasons)
    full, _ = PLAIN.score("şu fatura ne oldu", "tr", CATALOGUE)
    short, _ = PLAIN.score("şu ftr ne oldu", "tr", CATALOGUE)
    assert short["search_documents"] < full["search_documents"]


def test_the_fuzzy_switch_turns_shorthand_off_too() -> None:
    off = TriggerRouter(9, lexical=False, fuzzy=False)
    assert not any("shorthand" in r for r in off.route(
        "şu ftr ne oldu", "tr", CATALOGUE).reasons.get("search_documents", []))


def _consonant_triggers() -> list[str]:
    vowels = set("aeiou")
    elements = sorted({e for elements, _ in TR._patterns for e, _ in elements
                       if len(e) >= SKELETON_MIN_TRIGGER and e.isalpha() and e[0] not in vowels})
    return elements


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(_consonant_triggers()))
def test_a_trigger_written_without_its_vowels_reads_back_as_itself_or_nothing(
    element: str,
) -> None:
    skeleton = element[0] + "".join(c for c in element[1:] if c not in "aeiou")
    reading = TR.skeleton_word(skeleton)
    # the trigger itself, a shorter stem it starts with, or nothing when ambiguous
    assert reading == "" or element.startswith(reading)
    assert TR.skeleton_word(skeleton) == reading  # deterministic
