"""Saved things (router/saved_things.py): a note, a list or a plan named by what it holds
("read my shopping list", "alışveriş listemi oku", "günlüğüme ne yazmıştım") brings the
tools that find and read it; verbs, bare nouns and false friends do not. The sentences
are written for these tests and found in no case file (checked)."""

from __future__ import annotations

import pytest

from pytest_tooleval.router.saved_things import SavedThings
from pytest_tooleval.text.normalize import normalize
from tests.router.routing import CATALOGUE, PLAIN, plain_reasons


def route_reasons(message: str, language: str, tool: str) -> list[str]:
    return PLAIN.route(message, language, CATALOGUE).reasons.get(tool, [])


SAVED = [
    ("bavul listemde neler kalmış bakar mısın", "tr", "read_file"),
    ("TATİL PLANIMIZDA İKİNCİ GÜN NE VAR", "tr", "search_documents"),
    ("hediye notumda kime ne alacaktık", "tr", "read_file"),
    ("read me my grocery list before i go out", "en", "read_file"),
    ("whats on our camping checklist", "en", "search_documents"),
]


@pytest.mark.parametrize(("message", "language", "tool"), SAVED)
def test_a_saved_thing_named_by_what_it_holds_brings_the_readers(
    message: str, language: str, tool: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    routing = PLAIN.route(message, language, CATALOGUE)
    assert tool in routing.tools
    assert any(r.startswith("saved thing") for r in routing.reasons[tool])
    for reader in ("read_file", "search_documents"):
        assert reader in routing.tools


NOT_SAVED = [
    ("downloads klasörünü listele", "tr"),  # the verb
    ("kaç dosya var liste ver", "tr"),  # the bare noun: a request
    ("noterde hangi evraklar lazım", "tr"),  # a false friend
    ("haftayı planlayalım", "tr"),  # the verb planla-
    ("list the files in Projects", "en"),  # the verb
    ("make a note that the boiler was serviced", "en"),  # no possessive: memory_save
    ("i love making lists, honestly", "en"),  # no possessive
]


@pytest.mark.parametrize(("message", "language"), NOT_SAVED)
def test_the_saved_thing_rule_leaves_verbs_bare_nouns_and_false_friends(
    message: str, language: str
) -> None:
    for tool in ("read_file", "search_documents", "find_files"):
        assert not any(r.startswith("saved thing") for r in route_reasons(message, language, tool))


def test_saved_things_data_is_checked_and_deterministic() -> None:
    saved = SavedThings()
    saved.load({"nouns": ["liste"], "exceptions": ["listele"], "inflected": True,
                "tools": {"read_file": 1.5}}, "tr")
    assert saved.match(("alisveris", "listemi", "oku")) == "listemi"
    assert saved.match(("listele",)) == "" and saved.match(("liste", "ver")) == ""
    english = SavedThings()
    english.load({"nouns": ["list"], "determiners": ["my"], "window": 1,
                  "tools": {"read_file": 1}}, "en")
    assert english.match(("read", "my", "shopping", "list")) == "list"
    assert english.match(("my", "long", "shopping", "list")) == ""  # outside the window
    with pytest.raises(ValueError, match="positive weight"):
        SavedThings().load({"nouns": ["x"], "tools": {"read_file": "high"}}, "en")
    message = "alışveriş listemi oku"
    assert PLAIN.route(message, "tr", CATALOGUE) == PLAIN.route(message, "tr", CATALOGUE)


def test_a_diary_is_a_saved_thing_but_daily_is_not(known_texts: set[str]) -> None:
    message = "geçen salı günlüğüme ne yazmıştım"
    assert normalize(message, "tr").text not in known_texts
    assert any(r.startswith("saved thing") for r in plain_reasons(message, "tr", "read_file"))
    assert not any(r.startswith("saved thing")
                   for r in plain_reasons("günlük hava durumu nasıl", "tr", "read_file"))
    assert any(r.startswith("saved thing")
               for r in plain_reasons("read back my journal from sunday", "en", "read_file"))
