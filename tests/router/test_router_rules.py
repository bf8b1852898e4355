"""The rules over a message's classes and its shape (router/rules.py): current information,
the "how much" rules, an exchange between currencies, a web address, a release tag, a code
identifier, a commit id, the question about the user's own things, and a price to work
out. Each helps where it should and stays silent where it should not."""

from __future__ import annotations

import pytest

from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.tools.base import ToolSpec
from tests.router.routing import CATALOGUE, PLAIN, fired, plain_reasons, reasons, shown, signal


# -- current information -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "message",
    [
        "dolar kuru bugün ne kadar",
        "gram altın kaç para",
        "yarın yağmur yağacak mı",
        "nöbetçi eczane hangisi",
        "dün akşamki maç kaç kaç bitti",
        "son dakika deprem",
        "benzine zam geldi mi",
        "okullar tatil mi",
        "DOLAR KURU BUGUN NE KADAR",
        "💵 şu an kaç",
    ],
)
def test_turkish_current_information_reaches_web_search(message: str) -> None:
    assert "web_search" in shown(message, "tr")
    assert any("current information" in r or "currency" in r for r in fired(message)["web_search"])


@pytest.mark.parametrize(
    "message",
    [
        "what's the dollar rate today",
        "gold price right now",
        "will it rain tomorrow",
        "which pharmacy is on duty tonight",
        "what was the final score of last night's game",
        "breaking news earthquake",
        "did petrol prices go up",
        "are schools closed tomorrow",
    ],
)
def test_english_current_information_reaches_web_search(message: str) -> None:
    assert "web_search" in shown(message, "en")


def test_reported_past_is_a_weak_topic_only_in_turkish() -> None:
    assert "web_search" in fired("sahile iskele yapılacakmış", "tr")
    assert "web_search" not in fired("sahile iskele yapılacakmış", "en")
    # "almıştım" is the past perfect, not hearsay: no -mış at the word's end
    assert "web_search" not in fired("dün bir kitap almıştım", "tr")


def test_how_much_rules() -> None:
    arithmetic = fired("18 * 1000 ne kadar")
    assert "calculator" in arithmetic and "web_search" not in arithmetic
    money = fired("gram altın ne kadar")
    assert "web_search" in money and "calculator" not in money
    both = fired("250 dolar kaç TL")
    assert "calculator" in both and "web_search" in both
    assert shown("250 dolar kaç TL")[:2] == ["web_search", "calculator"]


def test_how_much_rule_survives_price_words() -> None:
    reasons = fired("How much is 18% of 250?", "en")
    assert any("with a number or operator" in r for r in reasons["calculator"])


def test_digits_in_a_file_name_are_no_number_of_the_question() -> None:
    named = normalize("Projects/report_2025.pdf ne kadar yer kaplıyor", "tr")
    assert named.has_path and not named.has_number
    assert normalize("rapor.pdf 12 sayfa mı", "tr").has_number  # a number outside the name
    reasons = signal("Belgeler/taslak_2024_v3.docx ne kadar yer kaplıyor", "tr", "calculator")
    assert not any("ne kadar" in r for r in reasons)
    assert signal("Belgeler/taslak_2024_v3.docx ne kadar yer kaplıyor", "tr", "file_info")


def test_what_will_it_cost_with_a_number_is_a_calculation() -> None:
    message = "3 bags of cement at todays price, what will that come out at"
    assert any("what will" in r for r in plain_reasons(message, "en", "calculator"))
    assert not plain_reasons("what will the weather be like in izmir", "en", "calculator")


# -- an exchange between currencies --------------------------------------------------------
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
        assert any(r.startswith("an exchange") for r in signal(message, language, tool)), tool


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


def test_a_users_own_currency_tool_named_in_camel_case_takes_the_exchange() -> None:
    """MCP and Python tools are often camelCase (getFxRate, convertCurrency): as much the
    user's converter as convert_currency, so the built-ins' exchange votes stay out."""
    for name in ("getFxRate", "convertCurrency", "ExchangeRates"):
        own = ToolSpec(name, "Today's rate between two currencies.", {"type": "object"}, "mcp")
        routing = PLAIN.route("300 pounds into lira", "en", [*CATALOGUE, own])
        assert not any(r.startswith("an exchange") for why in routing.reasons.values()
                       for r in why), name
        assert name in routing.tools


def test_price_words_are_no_second_currency() -> None:
    message = "kuaförün saç boyama ücreti 1.800 TL, bunu aklında tut"
    routing = PLAIN.route(message, "tr", CATALOGUE)
    assert not any(r.startswith("an exchange") for why in routing.reasons.values() for r in why)


@pytest.mark.parametrize(
    ("message", "language", "tools"),
    [("120 € → ₺ bugünkü kurla", "tr", ("web_search",)),
     ("300 avro bugün kaç lira, güncel kurdan", "tr", ("web_search", "calculator")),
     ("200 dolar lira karşılığı ne eder", "tr", ("web_search", "calculator"))],
)
def test_money_in_signs_and_inflected_rates_reach_the_web_and_the_calculator(
    message: str, language: str, tools: tuple[str, ...], known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    scores, _ = PLAIN.score(message, language, CATALOGUE)
    for tool in tools:
        assert scores.get(tool, 0) > 0, tool


def test_exchanges_and_companions_are_deterministic() -> None:
    for message, language in [*EXCHANGE, ("call off the piano lesson", "en")]:
        first = PLAIN.route(message, language, CATALOGUE)
        assert TriggerRouter(9, lexical=False).route(message, language, CATALOGUE) == first


# -- web addresses, release tags, code identifiers, commit ids -----------------------------
def test_web_address_without_scheme_goes_to_web_fetch() -> None:
    assert normalize("şuna bak: gazete.example.com.tr/spor/derbi").has_url
    assert not normalize("Notes/ideas.md ve cli.py").has_url
    assert "web_fetch" in fired("şu linki oku: gazete.example.com.tr/spor/derbi", "tr")


def test_release_tag_votes_for_git() -> None:
    assert normalize("what changed in v2.3.1").has_version
    assert not normalize("python 3.11 and 2.5 kg").has_version
    assert {"git_show", "git_log"} <= set(fired("Who tagged v2.3.1?", "en"))


@pytest.mark.parametrize(
    ("message", "hit"),
    [("who calls normalize_path in the repo", True), ("where is loadSettings used", True),
     ("is parse() still there", True), ("open quarterly_report_2025.pdf", False),
     ("what's in Projects/bird_counts/", False), ("my iPhone is slow", False)],
)
def test_a_code_identifier_votes_for_grep_code(message: str, hit: bool) -> None:
    assert normalize(message).has_identifier is hit
    found = any("code identifier" in r for r in reasons(message, "en").get("grep_code", []))
    assert found is hit


def test_commit_id_votes_for_git_show() -> None:
    assert normalize("b41c9e2 ne yapıyor").has_commit_id
    assert not normalize("0532 990 14 27 and deadbeef and 20260317").has_commit_id
    assert "git_show" in fired("what does 3f9a1c7 touch?", "en")


def test_a_personal_question_votes_for_the_users_stores() -> None:
    why = reasons("which hotel did we book in Porto?", "en")
    for tool in ("search_documents", "memory_search", "calendar_list"):
        assert any(r.startswith("question form") for r in why[tool])
    # Not a question, or not about the user: no vote.
    assert not any(r.startswith("question form") for r in reasons(
        "we booked a hotel in Porto", "en").get("memory_search", []))
    assert not any(r.startswith("question form") for r in reasons(
        "which hotel is the tallest in Porto", "en").get("memory_search", []))
