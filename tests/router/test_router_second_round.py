"""The second round's mechanisms (docs/router.md, "Second round (generalisation)"), with
sentences written for these tests and found in no case file (checked below)."""

from __future__ import annotations

import pytest

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.lexical_train import gather
from pytest_tooleval.router.saved_things import SavedThings
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize

CATALOGUE = list(builtin_specs())
ROUTER = TriggerRouter(9)
PLAIN = TriggerRouter(9, lexical=False)  # no learned cue: the rule alone


@pytest.fixture(scope="module")
def known_texts() -> set[str]:
    return {normalize(s.example.message, s.example.language).text for s in gather()}


def _reasons(message: str, language: str, tool: str) -> list[str]:
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
        assert not any(r.startswith("saved thing") for r in _reasons(message, language, tool))


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


SHORTHAND = [
    ("when is my dentist appt", "en", "calendar_list", "appointment"),
    ("is ada's bday this month", "en", "calendar_list", "birthday"),
    ("kapıcıya bi msj atıver, paket gelecek", "tr", "send_message", "mesaj at"),
    ("dişçi rndv hangi gün", "tr", "calendar_list", "randevu"),
]


@pytest.mark.parametrize(("message", "language", "tool", "word"), SHORTHAND)
def test_chat_shorthand_reads_as_the_word_it_stands_for(
    message: str, language: str, tool: str, word: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    routing = PLAIN.route(message, language, CATALOGUE)
    assert tool in routing.tools
    assert any(word in reason for reason in routing.reasons[tool]), routing.reasons[tool]


def test_shorthand_leaves_real_words_file_names_and_the_other_language_alone() -> None:
    assert normalize("pls remind me abt the appt tmrw", "en").words == (
        "please", "remind", "me", "about", "the", "appointment", "tomorrow")
    assert normalize("open Notes/todo.txt", "en").words[-1] == "txt"  # a file extension
    assert "atm" in normalize("nearest atm to the hotel", "en").words  # a cash machine
    assert "tmr" in normalize("tmr", "tr").words  # English shorthand only in English
    assert normalize("MSJ AT", "tr").words == ("mesaj", "at")


def test_on_the_corpus_irrelevance_steps_the_mechanisms_show_no_more_harmful_tools() -> None:
    """The corpus's steps that expect no tool: the learned cue (beside stray scores, with
    trigrams) and the saved-thing class must not bring in more side-effecting tools than
    the router without the learned cue shows."""
    from pytest_tooleval.router.lexical_train import iter_cases
    from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS

    steps = [
        (step.message, found.case_file.language)
        for found in iter_cases(sources=("benchmarks",))
        for step in found.case.steps
        if not step.expected_tools
    ]
    assert len(steps) >= 100

    def harmful(router: TriggerRouter) -> int:
        return sum(
            tool in SIDE_EFFECTING_BUILTINS
            for message, language in steps
            for tool in router.route(message, language, CATALOGUE).tools
        )

    assert harmful(ROUTER) <= harmful(PLAIN)
