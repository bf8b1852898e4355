"""The third round's mechanisms (docs/router.md, "Third round (the no-signal steps)"), with
sentences written for these tests and found in no case file (checked below)."""

from __future__ import annotations

import pytest

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.companions import KEEP_PLACE, with_companions
from pytest_tooleval.router.lexical_train import gather
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.dialect import standard_words
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.tools.base import ToolSpec

CATALOGUE = list(builtin_specs())
PLAIN = TriggerRouter(9, lexical=False)  # no learned cue: the rule alone


@pytest.fixture(scope="module")
def known_texts() -> set[str]:
    return {normalize(s.example.message, s.example.language).text for s in gather()}


def _signal(message: str, language: str, tool: str) -> list[str]:
    """The reasons ``tool`` was shown for, fillers left out (empty: not shown by a signal)."""
    routing = PLAIN.route(message, language, CATALOGUE)
    return [r for r in routing.reasons.get(tool, []) if not r.startswith("filler")]


# Currency signs are currency words, like the money emoji.
@pytest.mark.parametrize(
    ("message", "language", "word"),
    [
        ("75€ ne eder bizim paramızla", "tr", "euro"),
        ("is £40 a lot for a haircut", "en", "pound"),
        ("₺900 kaç sterlin", "tr", "lira"),
        ("$12 tip on that?", "en", "dollar"),
        ("12 $ mı 12 € mu daha çok", "tr", "dolar"),
    ],
)
def test_a_currency_sign_reads_as_its_word(message: str, language: str, word: str) -> None:
    assert word in normalize(message, language).words


def test_a_dollar_sign_away_from_a_number_is_code() -> None:
    for message in ("echo $HOME and $PATH", "what does $@ mean in bash"):
        assert "dollar" not in normalize(message, "en").words


EXCHANGE = [
    ("how many lira is 45 pounds", "en"),
    ("swap 2000 ₺ to € for my trip", "en"),
    ("450 sterlin kaç lira tutar", "tr"),
    ("elimde 60 € var, ₺ olarak ne yapar", "tr"),
]


@pytest.mark.parametrize(("message", "language"), EXCHANGE)
def test_two_currencies_with_a_number_are_an_exchange(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    for tool in ("web_search", "calculator"):
        assert any(r.startswith("an exchange") for r in _signal(message, language, tool)), tool


def test_no_exchange_without_a_second_currency_or_a_number() -> None:
    for message, language in (
        ("convert 5 pounds to kilograms", "en"),  # a weight: one currency word
        ("is the euro stronger than the dollar these days", "en"),  # no number
        ("dolar mı euro mu alsam", "tr"),
    ):
        routing = PLAIN.route(message, language, CATALOGUE)
        assert not any(r.startswith("an exchange") for why in routing.reasons.values()
                       for r in why), message


def test_a_users_own_currency_tool_takes_the_exchange() -> None:
    own = ToolSpec("convert_currency", "Convert an amount between currencies at today's rate.",
                   {"type": "object", "properties": {}}, "inline:test")
    routing = PLAIN.route("how many lira is 45 pounds", "en", [*CATALOGUE, own])
    assert not any(r.startswith("an exchange") for why in routing.reasons.values() for r in why)
    assert "convert_currency" in routing.tools


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


def test_a_companion_never_takes_a_users_own_tool() -> None:
    chosen = ["search_documents", "my_tool_a", "my_tool_b"]

    def usefulness(name: str) -> int:
        return KEEP_PLACE if name.startswith("my_") else 3

    out, added = with_companions(chosen, [], {*chosen, "read_document"}, usefulness)
    assert out == chosen and added == {}  # no place a companion may take
    out, added = with_companions([*chosen, "calculator"], [], {*chosen, "calculator",
                                                                "read_document"}, usefulness)
    assert out == [*chosen, "read_document"] and added == {"read_document": "search_documents"}


# Git words spelt as said in Turkish.
@pytest.mark.parametrize(
    ("word", "standard"),
    [("komitler", "commitler"), ("gomiti", "commiti"), ("komitte", "committe"),
     ("branççı", "branchçı"), ("branç", "branch")],
)
def test_git_loanwords_are_spelt_as_the_triggers_are(word: str, standard: str) -> None:
    assert standard_words(word) == (standard,)


@pytest.mark.parametrize("word", ["komite", "komitesi", "komiteye", "branş", "branşı", "gömlek"])
def test_git_loanwords_leave_turkish_words_alone(word: str) -> None:
    assert standard_words(word) == (word,)


@pytest.mark.parametrize(
    ("message", "tool"),
    [("bu depoda kaç branç açılmış", "git_branches"),
     ("gomitleri bi göster bakalım", "git_log")],
)
def test_git_loanwords_route(message: str, tool: str, known_texts: set[str]) -> None:
    assert normalize(message, "tr").text not in known_texts
    assert _signal(message, "tr", tool)


# "haber" is news unless it is sent.
@pytest.mark.parametrize(
    "message",
    ["annemlere bi haber salıver, geç kalıcam", "Zeynep'e haber ulaştır, toplantı iptal",
     "oğluma haber yolla akşama gelsin"],
)
def test_sending_word_is_a_message(message: str, known_texts: set[str]) -> None:
    assert normalize(message, "tr").text not in known_texts
    assert any(r.startswith("trigger 'haber") for r in _signal(message, "tr", "send_message"))


def test_news_stays_news() -> None:
    reasons = _signal("bugünkü ekonomi haberleri neler", "tr", "web_search")
    assert any(r.startswith("current information") for r in reasons)
    assert not _signal("bugünkü ekonomi haberleri neler", "tr", "send_message")


def test_never_committed_is_uncommitted_work() -> None:
    message = "which edits in parser.py have i never committed"
    for tool in ("git_diff", "git_status"):
        assert any("never committed" in r for r in _signal(message, "en", tool)), tool


def test_the_mechanisms_are_deterministic() -> None:
    for message, language in [*EXCHANGE, ("call off the piano lesson", "en")]:
        first = PLAIN.route(message, language, CATALOGUE)
        assert TriggerRouter(9, lexical=False).route(message, language, CATALOGUE) == first


# An explanation question around a term the router does not know.
@pytest.mark.parametrize(
    ("message", "language"),
    [("how does raft consensus actually work", "en"),
     ("what does the --depth flag of git clone do", "en"),
     ("whats a merkle tree again", "en"),
     ("rüzgar türbini nasıl çalışır", "tr"),
     ("kasko poliçesi neleri kapsıyor acaba", "tr")],
)
def test_an_explanation_question_votes_for_the_web(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert _signal(message, language, "web_search")


@pytest.mark.parametrize(
    "message",
    ["what does my contract say the notice period is, does it mean 30 days",
     "how do i work out 15 percent of 80",
     "what does our plan for saturday look like"],
)
def test_an_explanation_frame_around_the_users_own_things_is_no_term(message: str) -> None:
    routing = PLAIN.route(message, "en", CATALOGUE)
    assert not any(r.startswith("explanation question") for why in routing.reasons.values()
                   for r in why)


def test_the_explain_data_is_checked() -> None:
    from pytest_tooleval.router.explain import Explain

    for bad in ({"frames": [["how does"]]}, {"frames": [["", "work"]]},
                {"frames": [["how does", "work"]], "tools": {"web_search": 0}}):
        with pytest.raises(ValueError, match="explain"):
            Explain().load(bad, "en")
    frames = Explain()
    frames.load({"frames": [["how does", ["work", "works"]]], "window": 2,
                 "tools": {"web_search": 1}}, "en")
    assert frames.match(("how", "does", "raft", "work")) == "how does … work"
    assert frames.match(("how", "does", "a", "b", "c", "work")) == ""  # past the window
    assert frames.match(("how", "does", "work")) == ""  # no term between


def test_price_words_are_no_second_currency() -> None:
    message = "kuaförün saç boyama ücreti 1.800 TL, bunu aklında tut"
    routing = PLAIN.route(message, "tr", CATALOGUE)
    assert not any(r.startswith("an exchange") for why in routing.reasons.values() for r in why)


@pytest.mark.parametrize(
    ("message", "has_path"),
    [("open Documents/lease.pdf", True), ("rapor.docx ne diyor", True), ("~/notes", True),
     ("what did the lease amendment say", False), ("is it 11.30 already", False),
     ("Ada'nın kursu hangi gün", False)],
)
def test_the_normaliser_notes_a_path_or_file_name(message: str, has_path: bool) -> None:
    assert normalize(message, "en").has_path is has_path


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


# Vocabulary classes from the no-signal list, tested on sentences in no case file.
@pytest.mark.parametrize(
    ("message", "language"),
    [("i heard something about a ferry strike in izmir, whats the story", "en"),
     ("is it true that the museum is free on sundays", "en"),
     ("fastest way from the airport to taksim", "en"),
     ("typical lifespan of a house sparrow", "en"),
     ("ehliyet harcı bu yıl ne kadar oldu", "tr")],
)
def test_no_signal_vocabulary_reaches_the_web(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert _signal(message, language, "web_search")


def test_the_fee_words_leave_spending_alone() -> None:
    # "harcama" (spending) is the user's records, not a state fee.
    reasons = _signal("bu ay markete ne kadar harcama yaptık", "tr", "web_search")
    assert not any("harc" in r for r in reasons)


def test_digits_in_a_file_name_are_no_number_of_the_question() -> None:
    named = normalize("Projects/report_2025.pdf ne kadar yer kaplıyor", "tr")
    assert named.has_path and not named.has_number
    assert normalize("rapor.pdf 12 sayfa mı", "tr").has_number  # a number outside the name
    reasons = _signal("Belgeler/taslak_2024_v3.docx ne kadar yer kaplıyor", "tr", "calculator")
    assert not any("ne kadar" in r for r in reasons)
    assert _signal("Belgeler/taslak_2024_v3.docx ne kadar yer kaplıyor", "tr", "file_info")
