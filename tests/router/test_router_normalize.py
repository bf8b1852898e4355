"""Normalisation facts from spec/router.md, measured rather than assumed."""

from __future__ import annotations

import pytest

from pytest_tooleval.text.normalize import fold, normalize, squeeze, turkish_lower, words


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


def test_numbers_and_operators_are_noticed() -> None:
    assert normalize("18*1000 kaç").has_operator
    assert normalize("%18 KDV").has_operator
    assert normalize("3 ➕ 4").has_operator
    assert normalize("250 dolar kaç TL").has_number
    assert not normalize("250 dolar kaç TL").has_operator
    assert not normalize("gram altın kaç para").has_number
