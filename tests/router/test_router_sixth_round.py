"""The sixth round's mechanisms (docs/router.md, "Sixth round"), with sentences written for
these tests and found in no case file (checked below): each helps where it should and stays
silent where it should not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.lexical_train import gather
from pytest_tooleval.router.removal import calendar_removal
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize

CATALOGUE = list(builtin_specs())
PLAIN = TriggerRouter(9, lexical=False)
NAMES = {spec.name for spec in CATALOGUE}


@pytest.fixture(scope="module")
def known_texts() -> set[str]:
    return {normalize(s.example.message, s.example.language).text for s in gather()}


def _removal(message: str) -> list[str]:
    return [r for r in PLAIN.route(message, "tr", CATALOGUE).reasons.get("calendar_delete", [])
            if r.startswith("removal")]


# -- removal from the calendar said with the ablative (router/removal.py) ------------------

REMOVALS = [
    "perşembe akşamki konseri ajandamdan çıkarıver yavrum",
    "PAZAR GÜNKÜ PİKNİĞİ PROGRAMIMIZDAN ÇIKARIN",
    "yoga dersi iptal oldu onu takvimimden kaldirsana",
    "kuaför randevusu artık yok, programdan bi silsene",
    "dişçiyi takvimden de çıkarır mısın, gitmiyorum",
]


@pytest.mark.parametrize("message", REMOVALS)
def test_a_calendar_noun_in_the_ablative_with_a_removing_verb_is_a_deletion(
    message: str, known_texts: set[str]
) -> None:
    assert normalize(message, "tr").text not in known_texts
    assert _removal(message)
    routing = PLAIN.route(message, "tr", CATALOGUE)
    # shown, with its companion: the entry's id comes from the listing
    assert {"calendar_delete", "calendar_list"} <= set(routing.tools)


NOT_REMOVALS = [
    "ajandamdan bakar mısın bu hafta ne var",  # read from the calendar: no removing verb
    "takvimden kontrol et, cuma boş muyum",
    "zipten çıkar şu fotoğrafları",  # an extraction: no calendar noun
    "250'den 75'i çıkar",  # a subtraction
    "programı çıkar bana, hafta sonu ne yapıyoruz",  # accusative: draw the plan up
    "takvim uygulamasını telefondan sil",  # the app off the phone: no ablative calendar
]


@pytest.mark.parametrize("message", NOT_REMOVALS)
def test_no_ablative_calendar_or_no_removing_verb_is_no_removal(message: str) -> None:
    assert not _removal(message)


def test_the_removal_needs_the_tool_offered_and_two_words() -> None:
    words = normalize("onu ajandadan çıkar", "tr").words
    assert calendar_removal(words, NAMES)
    assert calendar_removal(words, NAMES - {"calendar_delete"}) == []
    # one word cannot be both the noun and the verb
    assert calendar_removal(("takvimden",), NAMES) == []
    # never a weapon, a faded ink or an eraser
    for word in ("silah", "silik", "silgi"):
        assert calendar_removal(("takvimden", word), NAMES) == []


def test_english_messages_are_not_read_for_the_turkish_ablative() -> None:
    message = "programdan cikar"  # typed in an English conversation: no Turkish case reading
    routing = PLAIN.route(message, "en", CATALOGUE)
    assert not any(r.startswith("removal") for r in routing.reasons.get("calendar_delete", []))


NOUNS = ["takvim", "ajanda", "program"]
POSSESSIVES = {"takvim": ["", "im", "imiz"], "ajanda": ["", "m", "miz"],
               "program": ["", "ım", "ımız"]}
ABLATIVE = {"takvim": "den", "ajanda": "dan", "program": "dan"}
VERBS = ["çıkar", "çıkarıver", "çıkartır mısın", "sil", "silebilir misin", "kaldır",
         "kaldırıver"]
FILLER = ["bi", "onu", "şunu", "lütfen", "yavrum", "artık", "de"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(NOUNS), st.data(), st.sampled_from(VERBS),
       st.lists(st.sampled_from(FILLER), max_size=3), st.booleans(),
       st.sampled_from(["formal", "caps", "ascii"]))
def test_the_removal_holds_in_any_register_and_word_order(
    noun: str, data: st.DataObject, verb: str, filler: list[str], verb_first: bool,
    register: str,
) -> None:
    possessive = data.draw(st.sampled_from(POSSESSIVES[noun]))
    word = noun + possessive + ABLATIVE[noun]  # vowel harmony follows the noun
    parts = [word, *filler, verb] if not verb_first else [verb, *filler, word]
    message = " ".join(parts)
    if register == "caps":
        message = message.replace("i", "İ").upper()
    elif register == "ascii":
        message = message.translate(str.maketrans("çıİşğöü", "ciIsgou"))
    assert _removal(message), message
