"""The mechanisms written from router-eval-4's tuning half (docs/router.md, "router-eval-4:
the tuning half"), with sentences written for these tests and found in no case file
(checked below): each helps where it should and stays silent where it should not."""

from __future__ import annotations

import pytest

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.lexical_train import gather
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.dialect import voiceless
from pytest_tooleval.text.normalize import normalize

CATALOGUE = list(builtin_specs())
PLAIN = TriggerRouter(9, lexical=False)  # no learned cue: the rule alone


@pytest.fixture(scope="module")
def known_texts() -> set[str]:
    return {normalize(s.example.message, s.example.language).text for s in gather()}


def _reasons(message: str, language: str, tool: str) -> list[str]:
    _scores, reasons = PLAIN.score(message, language, CATALOGUE)
    return reasons.get(tool, [])


# -- short triggers confirmed by a second short trigger or by a file name -----------------

CONFIRMED = [
    # two short stems of read_file on two words: a note, read
    ("dünkü not neydi okur musun", "tr", "read_file", "another short trigger"),
    # a file name confirms the short writing verb
    ("Belgeler altında alisveris.md var, sonuna süt yaz", "tr", "write_file", "a file name"),
    ("masaüstündeki sunum.pptx bi okuyuver", "tr", "read_file", "a file name"),
]


@pytest.mark.parametrize(("message", "language", "tool", "why"), CONFIRMED)
def test_a_short_trigger_counts_with_a_second_short_one_or_a_file_name(
    message: str, language: str, tool: str, why: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert any(why in r for r in _reasons(message, language, tool))
    assert tool in PLAIN.route(message, language, CATALOGUE).tools


UNCONFIRMED = [
    ("şu yazıyı bi oku", "tr", "read_file"),  # one short trigger, no file, no second cue
    ("yaz tatili ne zaman başlıyor", "tr", "write_file"),  # yaz = summer, no file name
]


@pytest.mark.parametrize(("message", "language", "tool"), UNCONFIRMED)
def test_a_lone_short_trigger_still_needs_a_second_cue(
    message: str, language: str, tool: str
) -> None:
    assert not any("short" in r for r in _reasons(message, language, tool))


def test_a_file_name_is_not_a_web_address_or_a_version() -> None:
    assert normalize("Notes altına plan_2027.txt aç", "tr").has_filename
    assert normalize("is Downloads/kestrel-0.3.2.tar.gz big", "en").has_filename
    assert not normalize("read https://example.com/guide.pdf for me", "en").has_filename
    assert not normalize("what changed in v0.4.0", "en").has_filename
    assert not normalize("3.5 kg of flour", "en").has_filename


# -- units typed against their numbers --------------------------------------------------

@pytest.mark.parametrize(
    ("message", "language"),
    [("how tall is 176cm in feet", "en"), ("my suitcase is 23kg, whats that in lbs", "en"),
     ("12.5km kaç mil eder", "tr")],
)
def test_a_number_typed_against_its_unit_fires_the_unit(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert any(r.startswith("trigger") for r in _reasons(message, language, "convert_units"))


def test_glued_units_split_only_a_number_from_its_letters() -> None:
    assert normalize("183cm in ft", "en").words == ("183", "cm", "in", "ft")
    assert normalize("3.5kg", "en").words == ("3", "5", "kg")
    # names and ids keep their digits: a commit id, a file name, a word with a digit inside
    assert "3f9c21e" in normalize("show 3f9c21e", "en").words
    assert "budget" in normalize("budget_2025.xlsx", "en").words
    assert "mp3" in normalize("convert the mp3", "en").words


# -- the Anatolian voiced initial t ---------------------------------------------------------

def test_anatolian_voiced_t_is_read_as_t_where_the_word_matched_nothing(
    known_texts: set[str],
) -> None:
    message = "şu faturaları Belgeler klasörüne daşı emmi"
    assert normalize(message, "tr").text not in known_texts
    assert any("taşı" in r for r in _reasons(message, "tr", "move_file"))
    # a word that matches as it is keeps its own reading: dosya is no *tosya*
    assert voiceless("dosya") == "tosya"
    assert not any("tosya" in r for r in _reasons("dosyayı sil", "tr", "delete_file"))


def test_the_quick_compound_keeps_a_root_that_ends_in_y() -> None:
    from pytest_tooleval.text.dialect import standard_words

    assert standard_words("koyuver") == ("koy",)  # was "ko": the y read as a buffer
    assert standard_words("duyuver") == ("duy",)
    assert standard_words("okuyuver") == ("oku",)  # a vowel root keeps its buffer y
    assert standard_words("deyiver") == ("de",)


# -- a diary, a future-tense price ----------------------------------------------------------

def test_a_diary_is_a_saved_thing_but_daily_is_not(known_texts: set[str]) -> None:
    message = "geçen salı günlüğüme ne yazmıştım"
    assert normalize(message, "tr").text not in known_texts
    assert any(r.startswith("saved thing") for r in _reasons(message, "tr", "read_file"))
    assert not any(r.startswith("saved thing")
                   for r in _reasons("günlük hava durumu nasıl", "tr", "read_file"))
    assert any(r.startswith("saved thing")
               for r in _reasons("read back my journal from sunday", "en", "read_file"))


def test_what_will_it_cost_with_a_number_is_a_calculation() -> None:
    message = "3 bags of cement at todays price, what will that come out at"
    assert any("what will" in r for r in _reasons(message, "en", "calculator"))
    assert not _reasons("what will the weather be like in izmir", "en", "calculator")


# -- money typed as signs, the rate inflected, release and "is it normal" questions --------

def test_currency_signs_are_currency_words() -> None:
    assert normalize("650 £ → ₺", "tr").words == ("650", "sterlin", "lira")
    assert "dollar" in normalize("is $45 a lot for a haircut", "en").words
    assert "dolar" in normalize("45$ ne eder", "tr").words
    # a shell variable is no money
    assert normalize("echo $HOME please", "en").words == ("echo", "home", "please")


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


@pytest.mark.parametrize(
    ("message", "language"),
    [("has the new firefox come out yet", "en"),
     ("is 39 degrees normal for a toddler", "en"),
     ("yeni iphone çıktı mı", "tr")],
)
def test_release_and_is_it_normal_questions_are_looked_up(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert _reasons(message, language, "web_search")


def test_source_code_is_no_file_name_for_the_file_tools() -> None:
    # geo.py belongs to the repository: the git and code tools, not the file tools' verbs
    assert not normalize("geo.py'yi en son kim değiştirmiş", "tr").has_filename
    assert normalize("Notes/geo.txt'yi en son kim değiştirmiş", "tr").has_filename


def test_a_respelt_word_is_matched_only_when_some_pattern_holds_it() -> None:
    from pytest_tooleval.router.patterns import TriggerSet

    rules = TriggerSet("tr")
    rules.load({"tools": {"move_file": ["taşı*"], "calendar_list": ["takvim"]}})
    assert rules._in_some_pattern("tasiyiver") and rules._in_some_pattern("takvim")
    assert not rules._in_some_pattern("tosya")
    found = rules.candidates(("dasi",), variants=("tasi",))
    assert [m.pattern.elements for m in found] == [(("tasi", True),)]
