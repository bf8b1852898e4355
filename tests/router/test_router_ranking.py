"""Which nine tools are shown (router/ranking.py, router/companions.py): exactly k, the
tools kept from the previous step, ties, the look-up fallback and the fillers for the
places nobody scored for, and the companion a shown tool cannot be used without."""

from __future__ import annotations

import random

import pytest

from pytest_tooleval.router.companions import KEEP_PLACE, with_companions
from pytest_tooleval.router.ranking import LOOKUP_FALLBACK
from pytest_tooleval.router.trigger_router import LEARNED_BESIDE, TriggerRouter
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.tools.base import ToolSpec
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS
from tests.router.routing import CATALOGUE, PLAIN, ROUTER, shown


def test_exactly_k_and_fewer_only_for_a_small_catalogue() -> None:
    assert len(shown("merhaba")) == 9
    assert len(TriggerRouter(k=5).route("thanks", "en", CATALOGUE).tools) == 5
    small = CATALOGUE[:4]
    assert len(ROUTER.route("thanks", "en", small).tools) == 4


def test_keep_takes_the_lowest_scored_places() -> None:
    routing = ROUTER.route("and the one before that?", "en", CATALOGUE, keep=("git_log",))
    assert len(routing.tools) == 9 and routing.tools[-1] == "git_log"
    assert "kept: ran in the previous step" in routing.reasons["git_log"]
    plain = ROUTER.route("faturamı göster", "tr", CATALOGUE).tools
    kept = ROUTER.route("faturamı göster", "tr", CATALOGUE, keep=("send_message",)).tools
    assert kept[:8] == plain[:8] and kept[8] == "send_message"


def test_ties_are_deterministic_whatever_the_catalogue_order() -> None:
    expected = shown("merhaba nasılsın")
    # Nothing scored: the look-up tools first, then the catalogue's fixed priority.
    assert expected[:6] == [
        "web_search",
        "search_documents",
        "memory_search",
        "calendar_list",
        "calculator",
        "current_datetime",
    ]
    for seed in range(5):
        shuffled = CATALOGUE[:]
        random.Random(seed).shuffle(shuffled)
        assert shown("merhaba nasılsın", catalogue=shuffled) == expected
        assert shown("dosya", catalogue=shuffled) == shown("dosya")


def test_lookup_fallback_fills_places_nobody_scored_for() -> None:
    # The fallback alone: the learned cue may take an unscored place first (lexical=False).
    message = "Roughly how tall is the Galata tower?"
    tools = TriggerRouter(9, lexical=False).route(message, "en", CATALOGUE).tools
    assert tools[: len(LOOKUP_FALLBACK)] == list(LOOKUP_FALLBACK)
    # a user's own tools still come first among the unscored
    mine = ToolSpec("zz_custom", "", {"type": "object", "properties": {}}, "inline")
    assert shown("hmm", "en", [*CATALOGUE, mine])[0] == "zz_custom"


def test_fillers_go_to_the_siblings_of_a_family_that_scored() -> None:
    message = "iki sürüm arasındaki farkları göster"  # git_diff and git_show fired
    # The family rule alone: the learned cue would take a filler place first (git_log).
    routing = TriggerRouter(9, lexical=False).route(message, "tr", CATALOGUE)
    fillers = [t for t in routing.tools if routing.reasons[t][0].startswith("filler: a sibling")]
    assert fillers == ["git_status"]  # the first sibling, after the four look-up tools
    assert "git_status" not in TriggerRouter(9).route("merhaba", "tr", CATALOGUE).tools
    # Look-up fillers still come before siblings: nothing scored, nothing changes.
    assert shown("merhaba nasılsın", "tr")[:4] == [
        "web_search", "search_documents", "memory_search", "calendar_list"]


def test_user_tools_keep_their_filler_places() -> None:
    user = ToolSpec("convert_currency", "", {"type": "object"}, "inline")
    routing = TriggerRouter(9).route("ne dersin", "tr", [*CATALOGUE, user])
    assert routing.tools[0] == "convert_currency"


# calendar_delete needs the id calendar_list gives: a companion.
@pytest.mark.parametrize(
    ("message", "language"),
    [("call off the piano lesson", "en"), ("Defne'yle badmintonu iptal et", "tr")],
)
def test_deleting_an_event_brings_the_calendar_listing(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    routing = PLAIN.route(message, language, CATALOGUE)
    assert "calendar_delete" in routing.tools
    assert any(r.startswith("companion of calendar_delete")
               for r in routing.reasons["calendar_list"])


def test_a_companion_beside_a_filler_source_stays_a_filler() -> None:
    scored = {"web_search"}

    def usefulness(name: str) -> int:
        return 3 if name in scored else 1

    chosen = ["web_search", "calendar_list", "calendar_delete", "calculator"]
    _, added = with_companions(chosen, [], set(chosen), usefulness)
    assert added == {}  # calendar_delete itself a filler: calendar_list brought by nothing
    scored.add("calendar_delete")
    _, added = with_companions(chosen, [], set(chosen), usefulness)
    assert added == {"calendar_list": "calendar_delete"}


@pytest.mark.parametrize(("message", "language"), [
    ("Remind me in two hours to call Oliver about the boiler.", "en"),
    ("iki saat sonra Oliver'ı aramamı hatırlat", "tr")])
def test_a_reminder_brings_the_clock_its_time_is_counted_from(message: str,
                                                               language: str) -> None:
    """'in two hours' needs now: current_datetime had come only by the cue 'about', gone
    with the stop words, and the corpus case's gold path could not run."""
    assert {"reminder_add", "current_datetime"} <= set(shown(message, language))


def test_a_companion_never_takes_a_users_own_tool() -> None:
    chosen = ["search_documents", "my_tool_a", "my_tool_b"]

    def usefulness(name: str) -> int:
        return KEEP_PLACE if name.startswith("my_") else 3

    out, added = with_companions(chosen, [], {*chosen, "read_document"}, usefulness)
    assert out == chosen and added == {}  # no place a companion may take
    out, added = with_companions([*chosen, "calculator"], [], {*chosen, "calculator",
                                                                "read_document"}, usefulness)
    assert out == [*chosen, "read_document"] and added == {"read_document": "search_documents"}


def test_a_reader_with_no_file_named_brings_its_finder() -> None:
    def usefulness(name: str) -> int:
        return 3 if name == "read_document" else 1

    chosen = ["read_document", "calculator", "date_add"]
    names = {*chosen, "search_documents"}
    out, added = with_companions(chosen, [], names, usefulness, has_path=False)
    assert out == ["read_document", "calculator", "search_documents"]
    assert added == {"search_documents": "read_document"}
    # A file named in the message: the reader reads it, nothing is found first.
    assert with_companions(chosen, [], names, usefulness, has_path=True) == (chosen, {})
    # A reader that is only a filler brings nothing.
    out, added = with_companions(chosen, [], names, lambda name: 1, has_path=False)
    assert (out, added) == (chosen, {})


def test_the_finder_in_a_route() -> None:
    routing = PLAIN.route("read Contracts/lease.pdf to me", "en", CATALOGUE)
    assert not any(r.startswith("companion of read_document")
                   for r in routing.reasons.get("search_documents", []))


@pytest.mark.parametrize(("message", "language"), [
    ("that file was huge, wasn't it", "en"),
    ("nvm found the file myself lol", "en"),
    ("so many files and folders on that old laptop", "en"),
])
def test_a_stray_cue_shows_no_tool_that_changes_the_world(message: str, language: str) -> None:
    """A side-effecting built-in scored only by a stray cue (below LEARNED_BESIDE: "git" or
    "file" of its name, shared with the other git or file tools) ranks as a filler, not
    ahead of the look-up fillers: "nvm found the file myself" showed write_file and
    move_file by the name cue "file". A learned vote is a signal and keeps its place."""
    scores, _ = ROUTER.score(message, language, CATALOGUE)
    stray = [t for t in SIDE_EFFECTING_BUILTINS if 0 < scores.get(t, 0.0) < LEARNED_BESIDE]
    assert stray, "the message must give a side-effecting tool a stray cue"
    routing = ROUTER.route(message, language, CATALOGUE)
    for tool in stray:
        if any(why.startswith("learned cue") for why in routing.reasons.get(tool, [])):
            continue
        assert tool not in routing.tools, (tool, routing.reasons.get(tool))


CUE_ONLY_MENTIONS = [  # (language, message, the tool only the cues of its own words name)
    ("en", "thanks, the reminder sound is too loud though", "reminder_add"),
    ("en", "NICE, I LIKE THE NEW REMINDER TONE", "reminder_add"),
    ("en", "my phone reminders are a mess honestly", "reminder_add"),
    ("en", "the word reminder comes from latin i think", "reminder_add"),
    ("en", "see you tomorrow, print shop closes at 6 anyway", "run_python"),
]


@pytest.mark.parametrize(("language", "message", "tool"), CUE_ONLY_MENTIONS)
def test_the_cues_of_its_name_alone_show_no_tool_that_changes_the_world(
    language: str, message: str, tool: str, known_texts: set[str]
) -> None:
    """A side-effecting built-in scored by cues alone, however strong (the name cue
    "reminder" 1.5; "see" and "print" of run_python's description 1.0), no trigger of its
    own matching a word, ranks as a filler, as a stray cue does: "thanks, I saw the
    reminder" showed reminder_add first (now an acknowledgement: router/courtesy.py). (A
    trigger of its own that a longer phrase took keeps the cue's place: "save it to my
    notes", tests/router/test_router_negation.py.)"""
    assert normalize(message, language).text not in known_texts
    why = ROUTER.score(message, language, CATALOGUE)[1].get(tool, [])
    assert why and all(w.startswith("cue ") for w in why), why
    assert tool not in shown(message, language)


@pytest.mark.parametrize(("language", "message"), [
    ("en", "REMINDER FRIDAY 5PM GYM BAG"),
    ("en", "reminder sat 10am car wash"),
])
def test_a_learned_vote_still_shows_a_tool_its_cues_name(
    language: str, message: str, known_texts: set[str]
) -> None:
    """A request that names a reminder only by the noun keeps reminder_add: the learned cue
    votes for it (a telegraphic "8pm reminder bins" of the evaluation sets)."""
    assert normalize(message, language).text not in known_texts
    routing = ROUTER.route(message, language, CATALOGUE)
    assert "reminder_add" in routing.tools
    assert any(w.startswith("learned cue") for w in routing.reasons["reminder_add"])
