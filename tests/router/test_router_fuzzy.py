"""Typo-tolerant trigger matching (router/fuzzy.py): one edit in a long word still fires
its trigger, at half weight; real words the corpus knows and short words are left alone."""

from __future__ import annotations

from functools import partial

import pytest

from pytest_tooleval.router.trigger_router import FUZZY_WEIGHT, TriggerRouter
from tests.router import routing
from tests.router.routing import CATALOGUE

# Every tool's reasons, each call from a router of its own: TriggerRouter(9, **options).
reasons = partial(routing.reasons, fresh=True)


# Misspellings written for this test: a swap, a dropped letter, a doubled one, a wrong one.
@pytest.mark.parametrize(
    ("message", "language", "tool"),
    [
        ("yarın sabah beni aramayı hatrılat", "tr", "reminder_add"),  # swap
        ("remnid me to call mum at six", "en", "reminder_add"),  # swap
        ("what is on my calendqr tomorrow", "en", "calendar_list"),  # wrong letter
        ("kira sözlşmemi bulur musun", "tr", "search_documents"),  # dropped, then a suffix
        ("show me the diffrence since monday", "en", "git_diff"),  # dropped
        ("bu kapı kodunu hatrıla: 4471", "tr", "memory_save"),  # swap
    ],
)
def test_one_edit_in_a_long_word_still_fires_its_trigger(
    message: str, language: str, tool: str
) -> None:
    with_fuzzy = reasons(message, language)
    assert any("(typo of" in r for r in with_fuzzy.get(tool, [])), with_fuzzy.get(tool)
    without = reasons(message, language, fuzzy=False)
    assert not any("(typo of" in r for why in without.values() for r in why)


def test_a_typo_match_counts_half_an_exact_one() -> None:
    router = TriggerRouter(9, lexical=False)
    exact = router.score("hatırlat", "tr", CATALOGUE)[0]["reminder_add"]
    typo = router.score("hatrılat", "tr", CATALOGUE)[0]["reminder_add"]
    assert typo == pytest.approx(exact * FUZZY_WEIGHT)


@pytest.mark.parametrize(
    ("message", "language"),
    [
        ("please tell me a joke", "en"),  # please is one edit from lease*, a known word
        ("kardeşim nasılsın", "tr"),  # kardeş / karne: a known word, never respelt
        ("remnd me", "en"),  # shorter than six letters
        ("levent is coming over", "en"),  # the first two letters must be kept (event)
        # the start of a known word (hazırlayacağım) is a real word: no typo of hatırl*
        ("annemlere kısa bir kutlama mesajı hazırla", "tr"),
        ("SUNUMA BİR GİRİŞ PARAGRAFI HAZIRLA", "tr"),
        ("dün fenerle galatasaray karşılaştı mı", "tr"),  # not karşılaştır*
        # a listed false friend is a real word: hatıra (a memory, a keepsake) of hatırl*
        ("Kapadokya gezisi çok güzel bir hatıra oldu", "tr"),
        ("ÇOCUKLUK HATIRALARIM AKLIMA GELDİ", "tr"),
    ],
)
def test_known_words_short_words_and_first_letters_are_left_alone(
    message: str, language: str
) -> None:
    found = reasons(message, language)
    assert not any("(typo of" in r for why in found.values() for r in why), found


def test_without_the_lexical_model_every_long_unmatched_word_may_be_respelt() -> None:
    # The known words come from the model; without it only the letters' rules protect.
    router = TriggerRouter(9, lexical=False)
    assert router._known == frozenset()
    assert TriggerRouter(9)._known and "please" in TriggerRouter(9)._known


def test_a_draft_to_prepare_shows_no_memory_save() -> None:
    """"hazırla" (prepare) was read as a typo of hatırl* (remember): memory_save was shown."""
    message = "kardeşimin mezuniyeti için iki satırlık bir tebrik yazısı hazırla"
    assert "memory_save" not in routing.shown(message, "tr", fresh=True)


def test_a_keepsake_is_no_request_to_remember() -> None:
    """"hatıra" (a memory, a keepsake) was read as a typo of hatırla: memory_save was shown
    for a story; a request to keep one still shows it."""
    assert "memory_save" not in routing.shown("Kapadokya gezisi çok güzel bir hatıra oldu", "tr")
    assert "memory_save" in routing.shown("bu fotoğrafı hatıra olarak sakla", "tr")
