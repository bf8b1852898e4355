"""The classes added from router-eval-2's tuning half (docs/router.md, "The learned cue and
typo tolerance"), each with sentences in no evaluation set or corpus file, and what they
must leave alone."""

from __future__ import annotations

import pytest

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize

ROUTER = TriggerRouter(lexical=False, fuzzy=False)  # the triggers alone
CATALOGUE = list(builtin_specs())


def scored(message: str, language: str) -> dict[str, float]:
    return ROUTER.score(message, language, CATALOGUE)[0]


@pytest.mark.parametrize(
    ("typed", "written"),
    [("dont let me forget the bins", "don't let me forget the bins"),
     ("whats the time in Lima", "what's the time in Lima"),
     ("im out of milk, add it to the list", "i'm out of milk, add it to the list"),
     ("DONT FORGET MY KEYS", "DON'T FORGET MY KEYS")],
)
def test_english_contractions_without_the_apostrophe_route_like_with_it(
    typed: str, written: str
) -> None:
    assert normalize(typed, "en").words == normalize(written, "en").words
    assert ROUTER.route(typed, "en", CATALOGUE) == ROUTER.route(written, "en", CATALOGUE)


def test_words_that_look_like_contractions_are_left_alone() -> None:
    assert normalize("its wells were ill", "en").words == ("its", "wells", "were", "ill")
    assert normalize("dont", "tr").words == ("dont",)  # Turkish text is not English


@pytest.mark.parametrize(
    "message",
    ["mercimek çorbası nasıl yapılır", "balkondaki kireç lekesi nasıl silinir",
     "çiğ köfte nasıl yoğrulur"],
)
def test_a_turkish_how_to_question_votes_for_web_search(message: str) -> None:
    assert scored(message, "tr").get("web_search", 0.0) >= 1.0


def test_a_passive_form_without_a_question_word_is_no_how_to() -> None:
    why = ROUTER.score("toplantı yarın yapılır", "tr", CATALOGUE)[1]
    assert not any("how-to" in r for r in why.get("web_search", []))


@pytest.mark.parametrize(
    ("message", "language", "tool"),
    [
        ("kredi kartı borcumun asgari ödemesi ne kadar", "tr", "search_documents"),
        ("hesap özetinde son ödeme günü ne yazıyor", "tr", "search_documents"),
        ("2 çeyrek bugün kaça patlar", "tr", "web_search"),
        ("müze pazar günü kaçta kapılarını açıyor", "tr", "web_search"),
        ("yaz saati uygulaması bu sene var mı", "tr", "web_search"),
        ("when do the clocks go forward this year", "en", "web_search"),
        ("tips for keeping basil alive indoors", "en", "web_search"),
        ("how do i descale a kettle", "en", "web_search"),
        ("does main.go have local edits", "en", "git_diff"),
        ("what's the ip of the nas in the hallway", "en", "memory_search"),
        ("when did the pottery class kick off", "en", "calendar_list"),
        ("kuzey kutup ayısının boyu ne kadar olur", "tr", "web_search"),
    ],
)
def test_the_classes_fire_on_new_sentences(message: str, language: str, tool: str) -> None:
    assert scored(message, language).get(tool, 0.0) > 0, ROUTER.score(message, language, CATALOGUE)


def test_how_do_i_reach_someone_stays_a_contact_question() -> None:
    scores = scored("how do i reach Deniz", "en")
    assert scores["contacts_lookup"] > scores.get("web_search", 0.0)


def test_a_quarter_past_the_hour_is_no_gold_price() -> None:
    # "çeyrek" is a weak topic: without a time word or a second topic it is no question
    # about now, and the clock's "çeyrek geçe" stays with the time tools.
    scores = scored("toplantı üçü çeyrek geçe", "tr")
    assert scores.get("web_search", 0.0) <= 1.0
