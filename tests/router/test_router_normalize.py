"""Normalisation (text/normalize.py, text/shorthand.py), measured rather than assumed:
Turkish casing and folding, apostrophes, emoji, repeated letters, numbers and operators,
currency signs, units glued to their numbers, file names and paths, English contractions
without the apostrophe and chat shorthand."""

from __future__ import annotations

import pytest

from pytest_tooleval.text.normalize import fold, normalize, squeeze, turkish_lower
from tests.router.routing import CATALOGUE, PLAIN, ROUTER, TRIGGERS_ONLY, plain_reasons


def words(text: str, language: str | None = None) -> tuple[str, ...]:
    return normalize(text, language).words


def test_python_lower_is_wrong_for_turkish_and_we_are_not() -> None:
    assert "kira" not in "KİRAMI".lower()  # the fact the recipe works around
    assert words("KİRAMI") == ("kirami",)
    assert turkish_lower("KİRAMI") == "kiramı"
    assert turkish_lower("IŞIK") == "ışık"


def test_dotted_and_dotless_i_meet_in_the_key() -> None:
    assert fold("İstanbul") == fold("Istanbul") == fold("ISTANBUL") == "istanbul"
    assert words("ılık IŞIK İğne") == ("ilik", "isik", "igne")


def test_combining_dot_is_dropped() -> None:
    assert words("ki\u0307ra") == ("kira",)
    assert words("I\u0307stanbul") == ("istanbul",)


def test_fold_keeps_its_results() -> None:
    assert fold("faturamı") == "faturami"  # ı is mapped, not deleted as NFKD would
    assert fold("  Çok   GÜZEL  ") == "cok guzel"
    assert fold("café") == "cafe"


def test_ascii_typed_turkish_matches_turkish_letters() -> None:
    assert words("faturamı ödedim mi") == words("faturami odedim mi")
    assert words("şöyle çığ ğ â î û") == ("soyle", "cig", "g", "a", "i", "u")


@pytest.mark.parametrize("apostrophe", ["'", "’", "‘", "´", "ʼ"])
def test_apostrophes_split_suffixes(apostrophe: str) -> None:
    assert words(f"Ankara{apostrophe}da hava") == ("ankara", "da", "hava")


def test_emoji_become_hints_and_pictographs_vanish() -> None:
    assert words("💵 ne kadar", "tr") == ("dolar", "ne", "kadar")
    assert words("☔️ tomorrow?", "en") == ("rain", "tomorrow")
    assert words("⚽ skor", "tr") == ("mac", "skor")
    assert words("💊🧾⏰", "tr") == ("eczane", "fatura", "hatirlat")
    assert words("tamam 👍🏽 🇹🇷 👨‍👩‍👧", "tr") == ("tamam",)
    assert words("❤️") == ()


def test_repeated_letters_are_squeezed() -> None:
    assert squeeze("çoooook") == "çok"
    assert words("lütfeeeen yaaaa") == ("lutfen", "ya")
    assert words("saat") == ("saat",)  # a real double letter survives
    assert words("1000") == ("1000",)  # digits are not letters


def test_all_caps_and_punctuation() -> None:
    assert words("FATURAMI GÖSTERİR MİSİN!!!") == ("faturami", "gosterir", "misin")
    assert words("WHAT'S THE DOLLAR RATE?") == ("what", "s", "the", "dollar", "rate")
    assert words("git-log, git_status; e-posta") == ("git", "log", "git", "status", "e", "posta")


def test_a_commit_id_in_an_all_caps_message_is_still_one() -> None:
    assert normalize("show me c27351e", "en").has_commit_id
    assert normalize("SHOW ME C27351E", "en").has_commit_id
    assert normalize("A753091 NE COMMİTİYDİ, İÇİNİ AÇ", "tr").has_commit_id
    # in a message written in normal case, capitals are a code of another kind
    assert not normalize("my order AB12345 has not arrived", "en").has_commit_id


@pytest.mark.parametrize("message", ["MAX_RETRİES KAÇ", "BEARİNG_DEG NE İŞE YARIYOR",
                                     "WHERE İS READ_FİXES DEFİNED"])
def test_caps_lock_on_a_turkish_keyboard_keeps_a_code_identifier(message: str) -> None:
    """Caps lock there types the i of an identifier as İ: still the identifier."""
    assert normalize(message, "tr").has_identifier
    assert any("code identifier" in r for r in ROUTER.score(message, "tr", CATALOGUE)[1]
               .get("grep_code", []))


def test_caps_lock_on_a_turkish_keyboard_keeps_a_file_name() -> None:
    assert normalize("ARŞİV.ZİP DOSYASINI AÇ", "tr").has_path
    assert not normalize("FATURA_2025.ZİP'İ AÇ", "tr").has_number  # a name's digits


def test_numbers_and_operators_are_noticed() -> None:
    assert normalize("18*1000 kaç").has_operator
    assert normalize("%18 KDV").has_operator
    assert normalize("3 ➕ 4").has_operator
    assert normalize("250 dolar kaç TL").has_number
    assert not normalize("250 dolar kaç TL").has_operator
    assert not normalize("gram altın kaç para").has_number


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


def test_currency_signs_are_currency_words() -> None:
    assert normalize("650 £ → ₺", "tr").words == ("650", "sterlin", "lira")
    assert "dollar" in normalize("is $45 a lot for a haircut", "en").words
    assert "dolar" in normalize("45$ ne eder", "tr").words
    # a shell variable is no money
    assert normalize("echo $HOME please", "en").words == ("echo", "home", "please")


@pytest.mark.parametrize(
    ("message", "language"),
    [("how tall is 176cm in feet", "en"), ("my suitcase is 23kg, whats that in lbs", "en"),
     ("12.5km kaç mil eder", "tr")],
)
def test_a_number_typed_against_its_unit_fires_the_unit(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert any(r.startswith("trigger") for r in plain_reasons(message, language, "convert_units"))


def test_glued_units_split_only_a_number_from_its_letters() -> None:
    assert normalize("183cm in ft", "en").words == ("183", "cm", "in", "ft")
    assert normalize("3.5kg", "en").words == ("3", "5", "kg")
    # names and ids keep their digits: a commit id, a file name, a word with a digit inside
    assert "3f9c21e" in normalize("show 3f9c21e", "en").words
    assert "budget" in normalize("budget_2025.xlsx", "en").words
    assert "mp3" in normalize("convert the mp3", "en").words


@pytest.mark.parametrize(
    ("message", "has_path"),
    [("open Documents/lease.pdf", True), ("rapor.docx ne diyor", True), ("~/notes", True),
     ("what did the lease amendment say", False), ("is it 11.30 already", False),
     ("Ada'nın kursu hangi gün", False)],
)
def test_the_normaliser_notes_a_path_or_file_name(message: str, has_path: bool) -> None:
    assert normalize(message, "en").has_path is has_path


def test_a_file_name_is_not_a_web_address_or_a_version() -> None:
    assert normalize("Notes altına plan_2027.txt aç", "tr").has_filename
    assert normalize("is Downloads/kestrel-0.3.2.tar.gz big", "en").has_filename
    assert not normalize("read https://example.com/guide.pdf for me", "en").has_filename
    assert not normalize("what changed in v0.4.0", "en").has_filename
    assert not normalize("3.5 kg of flour", "en").has_filename


def test_source_code_is_no_file_name_for_the_file_tools() -> None:
    # geo.py belongs to the repository: the git and code tools, not the file tools' verbs
    assert not normalize("geo.py'yi en son kim değiştirmiş", "tr").has_filename
    assert normalize("Notes/geo.txt'yi en son kim değiştirmiş", "tr").has_filename


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
    route = TRIGGERS_ONLY.route
    assert route(typed, "en", CATALOGUE) == route(written, "en", CATALOGUE)


def test_words_that_look_like_contractions_are_left_alone() -> None:
    assert normalize("its wells were ill", "en").words == ("its", "wells", "were", "ill")
    assert normalize("dont", "tr").words == ("dont",)  # Turkish text is not English


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
