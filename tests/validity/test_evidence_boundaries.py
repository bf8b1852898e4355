"""Evidence on boundaries: numbers, short words, Turkish folding; examples and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.cases.evidence import evidence_found, evidence_key
from pytest_tooleval.cases.guards import check_evidence_value
from pytest_tooleval.cases.model import Step


def found(value: str, answer: str, language: str = "en") -> bool:
    return evidence_found([value], answer, language)


@pytest.mark.parametrize(
    ("value", "answer", "expected"),
    [
        # A single-digit day is not inside a two-digit one.
        ("6 Ocak", "Randevunuz 26 Ocak'ta.", False),
        ("6 Ocak", "Randevunuz 6 Ocak'ta.", True),
        # A count is not inside another number, with or without separators.
        ("18", "The total is 18000.", False),
        ("18", "The total is 18.000 TL.", False),
        ("18", "It is 18.", True),
        ("18", "about 18, give or take", True),
        ("78", "1978 yılında", False),
        ("78", "78 gün kaldı", True),
        ("78", "78'i geçti", True),
        ("3.7", "version 3.75", False),
        ("3.7", "version 3.7.1", False),
        ("3.7", "version 13.7", False),
        ("version 3.7", "It needs version 3.7 or later.", True),
        ("5", "1.5 litres", False),
        ("30", "at 18:30", False),
        ("18", "at 18:30", False),
        ("18:30", "at 18:30:00", True),
        ("18:30", "2026-03-27T18:30:00+03:00", True),
        ("4286.40", "TOTAL DUE: GBP 4,286.40", True),
        ("27.03", "Randevu 27.03.2026 18:30", True),  # a day and month before the year
        ("27.03", "oran 27.035", False),
        ("1.847,35", "1847,35 TL", True),
        ("771.55", "771.552", True),  # the evidence rounded: the answer gives more digits
        ("771.55", "771.556", False),
        # Codes: letters and digits on boundaries.
        ("A4", "Print it on A4 paper.", True),
        ("A4", "Print it on A45 paper.", False),
        ("TK1", "Uçuş TK1'e aktarıldı.", True),
        ("TK1", "Flight TK19 left.", False),
        ("B2", "level AB2", False),
        # Commit ids match the start of the full id, not the middle of another.
        ("a753091", "a75309138ddefe680df3637c04853cdc352fb2d5 Mira", True),
        ("dfbe3eb", "commit dfbe3ebde309 by Selin", True),
        ("a753091", "commit 1a753091 by Selin", False),
        ("3339140", "| 1 | 33391407af59ec778d1", True),  # an id of digits first
        ("3339140", "total 33391407 TL", False),  # ...but a number is not an id
        # A decimal followed by zeros is the same number.
        ("81.5", "GBP 81.50/hour", True),
        ("81.5", "GBP 81.51/hour", True),
        ("81.5", "GBP 81.56/hour", False),
        ("81", "GBP 81.00", True),
        ("81", "GBP 81.05", False),
        ("81", "81.000 TL", False),  # Turkish thousands: 81000
        ("38,53", "satış 38,5391 TL", False),  # 38,5391 rounds to 38,54
        ("418 33 27", "+90 216 418 33 27", True),
        ("496 0725", "+44 113 496 0725", True),
        # A multi-word value's last word may take a suffix; file names end freely.
        ("96 h 33 min", "96 h 33 minutes", True),
        ("9.6 lb", "9.6 lbs", True),
        ("9.6 lb", "19.6 lbs", False),
        ("cli.py", "kestrel/cli.py changed", True),
        # Short words match only as words; longer ones may take suffixes.
        ("cat", "a category", False),
        ("cat", "the cat sat", True),
        ("invoice", "two invoices", True),
        ("fatura", "faturası geldi", True),
        # Turkish folding never merges two words.
        ("aşı", "yapması gerekiyor", False),
        ("aşı", "asıl mesele şu", False),
        ("aşı", "Pamuk'un aşı randevusu 27 Mart'ta", True),
        ("aşı", "Pamuk'un aşısı 27 Mart'ta", False),  # a short word: list "aşısı" too
        ("aşı", "Pamuk'un asi randevusu şimdi", False),  # a Turkish answer: 'asi' is a word
        ("aşı", "pamuk asi randevusu", True),  # an ASCII-only answer typing aşı as asi
        # Phone numbers in spaced groups, after a country code.
        ("611 482 309", "phone: +34 611 482 309", True),
        ("611 482 309", "phone: +34 611 482 3090", False),
        ("482 309", "phone: +34 611 482 309", True),
        ("18", "18 000 TL", False),
        ("İstanbul", "ISTANBUL", True),
        ("istanbul", "İstanbul'da", True),
        ("Öztürk", "Selin Öztürk", True),
        ("Ozturk", "Selin Öztürk", True),
    ],
)
def test_examples(value: str, answer: str, expected: bool) -> None:
    assert found(value, answer) is expected


def test_ascii_only_answer_of_a_turkish_value() -> None:
    assert found("şube", "sube kodu 0421")
    assert not found("şube", "sube kodu, müşteri 0421")  # Turkish letters used: not a twin


# -- properties ------------------------------------------------------------------------------
numbers = st.integers(min_value=10, max_value=10**9)


@given(numbers, st.integers(min_value=1, max_value=9), st.integers(min_value=1, max_value=9))
def test_a_number_is_never_inside_a_longer_one(n: int, head: int, tail: int) -> None:
    value = str(n)
    for longer in (f"{head}{value}", f"{value}{tail}", f"{value}.{tail}", f"{tail},{value}",
                   f"{head}{value}{tail}"):
        assert not found(value, f"the result is {longer} today"), longer
    assert found(value, f"the result is {value} today")


@given(st.integers(min_value=1000, max_value=10**9))
def test_grouped_and_plain_forms_of_one_number_match(n: int) -> None:
    plain, english = str(n), f"{n:,}"
    turkish = english.replace(",", ".")
    spaced = english.replace(",", " ")
    # the evidence's lone separator is read the file's way: 1.234 in an en file is a decimal
    for language, grouped in (("en", english), ("tr", turkish)):
        for written in (plain, english, turkish, spaced):
            for value in (plain, grouped):
                assert found(value, f"toplam {written} TL", language), (value, written)


@given(st.integers(min_value=1, max_value=999), st.integers(min_value=0, max_value=99))
def test_decimals_never_match_a_longer_decimal(whole: int, frac: int) -> None:
    value = f"{whole}.{frac}"
    assert not found(value, f"= {value}5 kg")
    assert not found(value, f"= 1{value} kg")
    assert found(value, f"= {value} kg")


short_words = st.text(alphabet="abcdefghklmnoprstuvyz", min_size=2, max_size=3)
letters = st.text(alphabet="abcdefghklmnoprstuvyz", min_size=1, max_size=4)


@given(short_words, letters)
def test_a_short_word_is_only_a_word(word: str, suffix: str) -> None:
    assert not found(word, f"we saw {word}{suffix} there")
    assert not found(word, f"we saw {suffix}{word} there")
    assert found(word, f"we saw {word} there")


_TWINS = {"ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"}


@given(st.text(alphabet="abdeklmnprtuy", min_size=1, max_size=4), st.sampled_from(list(_TWINS)),
       st.text(alphabet="abdeklmnprtuy", min_size=1, max_size=4))
def test_folding_never_merges_two_turkish_words(left: str, letter: str, right: str) -> None:
    word = f"{left}{letter}{right}"
    twin = f"{left}{_TWINS[letter]}{right}"
    # A Turkish answer (it writes Turkish letters) holding the twin word: not the value.
    assert not found(word, f"şimdi {twin} dedi")
    assert found(word, f"şimdi {word} dedi")
    assert found(twin, f"şimdi {word} dedi")  # ASCII evidence matches a Turkish answer


safe_text = st.text(alphabet="abcçdefgğhıiİjklmnoöprsştuüvyzABCÇDEFGĞHIJKLMNOÖPRSŞTUÜVYZ"
                    "0123456789 .,:-", min_size=2, max_size=30)


@settings(max_examples=300)
@given(safe_text)
def test_a_value_is_found_in_an_answer_that_quotes_it(value: str) -> None:
    if not evidence_key(value).strip(" .,:-"):
        return
    assert found(value, f"yanıt: {value} bitti"), value
    assert found(value, value)


@settings(max_examples=300)
@given(safe_text, safe_text)
def test_normalisation_is_symmetric_for_case_and_dots(value: str, answer: str) -> None:
    assert found(value, answer) == found(value.upper(), answer) == found(value, answer.upper())


# -- the guard -------------------------------------------------------------------------------
def step(message: str) -> Step:
    return Step.model_validate({"message": message, "expect": "calculator"})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("A4", "print page 14 on the office printer"),
        ("TK1", "my flight of the 1st, what gate?"),
        ("B2", "which course level did I book for 2026?"),
        ("version 3.7", "does the project support 37 platforms?"),
        ("18000", "what is 18 * 1000?"),
    ],
)
def test_the_guard_accepts_values_whose_digits_merely_occur(value: str, message: str) -> None:
    assert check_evidence_value(value, step(message)) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [("18", "what is 18 * 1000?"), ("1000", "what is 18 * 1000?"),
     ("6 Ocak", "6 Ocak'taki randevum ne zaman?"), ("A4", "print it on A4")],
)
def test_the_guard_refuses_values_an_echo_contains(value: str, message: str) -> None:
    found_problem = check_evidence_value(value, step(message))
    assert found_problem is not None and "own message" in found_problem[0]


# -- a character that shows nothing is read as the text shows: not a separator ---------------
@pytest.mark.parametrize("mark", ["\u200b", "\u200e", "\u200f", "\u2060", "\u00ad", "\ufeff"])
def test_an_invisible_character_inside_a_number_is_read_as_shown(mark: str) -> None:
    assert found("17.4", f"It is 1{mark}7.4 C in Izmir.")  # shows 17.4
    assert found("17.4", f"It is {mark}17.4{mark} C in Izmir.")
    assert not found("17.4", f"It is 17{mark}4 C in Izmir.")  # shows 174, not 17 and 4


# -- a hyphen between letters is a space, both ways; the word joined is another word --------
@pytest.mark.parametrize("hyphen", ["-", "\u2010", "\u2011"])
def test_a_hyphen_between_letters_reads_as_a_space(hyphen: str) -> None:
    assert found("sugar-free", f"Yes, the syrup is sugar{hyphen}free.")
    assert found("sugar-free", "Yes, the syrup is sugar free.")
    assert found("sugar free", f"Yes, the syrup is sugar{hyphen}free.")
    assert found("Çift-yön", f"Yol çift{hyphen}yön.", "tr")
    assert not found("sugar-free", "Yes, the syrup is sugarfree.")  # list a joined form
    assert not found("sugar-free", "No, the syrup is full of sugar.")
    assert not found("room 12", f"room{hyphen}12")  # a digit: a code or a number, not words


@given(st.text(alphabet="abcdefghklmnoprstuvyz", min_size=2, max_size=6),
       st.text(alphabet="abcdefghklmnoprstuvyz", min_size=2, max_size=6),
       st.text(alphabet="abcdefghklmnoprstuvyz", min_size=2, max_size=6))
def test_hyphened_and_spaced_words_match_and_never_another(left: str, right: str,
                                                          other: str) -> None:
    for value in (f"{left}-{right}", f"{left} {right}"):
        for written in (f"{left}-{right}", f"{left} {right}"):
            assert found(value, f"1) {written}."), (value, written)
        if not other.startswith(right):
            assert not found(value, f"1) {left}-{other}."), (value, other)


# -- English negative contractions read as their "not" forms ---------------------------------
CONTRACTIONS = {"isn't": "is not", "aren't": "are not", "wasn't": "was not",
                "weren't": "were not", "doesn't": "does not", "don't": "do not",
                "didn't": "did not", "can't": "can not", "won't": "will not",
                "hasn't": "has not", "haven't": "have not", "shouldn't": "should not",
                "couldn't": "could not", "wouldn't": "would not"}


@pytest.mark.parametrize("mark", ["'", "\u2019", "\u2018", "\u02bc", "\u2032"])
@pytest.mark.parametrize(("short", "long"), list(CONTRACTIONS.items()))
def test_a_negative_contraction_is_its_not_form(short: str, long: str, mark: str) -> None:
    written = short.replace("'", mark)
    aux = long.split()[0]
    assert found("not refundable", f"The deposit {written} refundable, sorry.")
    assert found(f"{long} refundable", f"The deposit {written} refundable.")
    assert found(f"{short} refundable", f"The deposit {long} refundable.")
    assert found(f"{short} refundable", f"The deposit {written.capitalize()} refundable.")
    assert not found("not refundable", f"The deposit {aux} refundable.")
    assert not found(f"{short} refundable", f"The deposit {aux} refundable.")


def test_cannot_can_not_and_cant_are_one() -> None:
    for value in ("cannot", "can not", "can't"):
        for written in ("cannot", "can not", "can’t", "Cannot"):
            assert found(f"{value} be changed", f"The date {written} be changed."), written
        assert not found(f"{value} be changed", "The date can be changed.")


def test_contractions_are_read_in_english_only() -> None:
    assert not found("not included", "Kahvaltı isn't included.", "tr")
    assert found("not included", "Kahvaltı isn't included.", "en")


@pytest.mark.parametrize(("value", "answer"), [
    ("pet-friendly", "Unfortunately the flat is not pet-friendly, so dogs aren't allowed."),
    ("pet-friendly", "The flat isn't pet friendly."),
    ("refundable", "This fare isn't refundable."),
    ("cancelled", "The 18:10 sailing has not been cancelled."),
    ("cancelled", "The 18:10 sailing was never cancelled."),
    ("available", "Tickets are no longer available."),
    ("refundable", "Please note that this fare is non-refundable."),
    ("smoking", "I booked you a non-smoking room."),
    ("scratch", "There's a burn mark on the table top, no scratches."),
    ("wifi", "THERE IS NO WIFI IN THE ROOMS."),
    ("balcony", "It's a quiet room but there's no balcony."),
    ("free parking", "No free parking nearby; the garage is 12 EUR a day."),
])
def test_text_right_after_a_negation_is_not_stated(value: str, answer: str) -> None:
    """A careful reader marks "the flat is not pet-friendly" wrong for "pet-friendly"."""
    assert not found(value, answer)


@pytest.mark.parametrize(("value", "answer"), [
    ("pet-friendly", "The flat is not only pet-friendly but also close to a park."),
    ("cancelled", "The 18:10 sailing is cancelled; the 20:00 is not cancelled."),
    ("not covered", "Water damage isn't covered."),
    ("no longer available", "Tickets are no longer available."),
    ("refundable", "It's not yet clear, but the fare is refundable."),
    ("non-refundable", "Please note that this fare is non-refundable."),
    ("refundable", "It is refundable, not non-refundable as the old page said."),
    ("pet-friendly", "No, it's fine: the flat is pet-friendly."),
    ("dogs allowed", "No problem, dogs allowed on the terrace."),
    ("breakfast included", "Breakfast included, no extra charge."),
    ("scratch", "No doubt about it: a 12 cm scratch on the top."),
    ("no smoking", "The room is no smoking."),
    ("INV-2291", "Invoice no INV-2291 is paid."),  # "no" as a number sign before a code
    ("K7QX9", "Your booking ref no K7QX9 is confirmed."),
    ("ABX123", "BOOKING NO ABX123 IS CONFIRMED FOR 2 GUESTS."),
])
def test_a_negation_elsewhere_or_in_the_item_still_states_it(value: str, answer: str) -> None:
    assert found(value, answer)


# -- a Turkish verb: the -DI past matches the -mIş past, never the negated one --------------
# (stem, its last vowel's harmony, whether it ends in a voiceless consonant)
TR_STEMS = ["yüklen", "gel", "git", "yap", "oku", "öde", "gör", "kal", "bit", "sat", "iç",
            "onaylan", "gönderil", "iptal edil", "ertelen", "başla", "düş", "kaybol"]
_HARMONY = {"a": "ı", "ı": "ı", "o": "u", "u": "u", "e": "i", "i": "i", "ö": "ü", "ü": "ü"}


def past_forms(stem: str, negated: bool) -> tuple[str, str]:
    """(-DI form, -mIş form) of ``stem``, written out with vowel harmony and consonant
    assimilation as a grammar book gives them (ödendi/ödenmiş, gitti/gitmiş)."""
    vowel = _HARMONY[[c for c in stem if c in _HARMONY][-1]]
    if negated:
        stem += "ma" if vowel in "ıu" else "me"
        vowel = "ı" if vowel in "ıu" else "i"
    d = "t" if stem[-1] in "fstkçşhp" else "d"
    return f"{stem}{d}{vowel}", f"{stem}m{vowel}ş"


@pytest.mark.parametrize("stem", TR_STEMS)
def test_the_turkish_di_past_and_the_mis_past_match(stem: str) -> None:
    di, mis = past_forms(stem, False)
    not_di, not_mis = past_forms(stem, True)
    for value, other in ((di, mis), (mis, di), (not_di, not_mis), (not_mis, not_di)):
        assert found(value, f"Dün akşam hepsi {other}.", "tr"), (value, other)
        assert found(value, f"Dün akşam hepsi {other.capitalize()}.", "tr"), (value, other)
    for value in (di, mis):
        for negative in (not_di, not_mis):
            assert not found(value, f"Dün akşam hepsi {negative}.", "tr"), (value, negative)
            assert not found(negative, f"Dün akşam hepsi {value}.", "tr"), (negative, value)


def test_the_turkish_past_keeps_its_harmony_and_its_language() -> None:
    assert found("fatura ödendi", "Fatura ödenmiş.", "tr")
    assert found("gitti", "Kargo gitmiş.", "tr")  # a voiceless stem: gitti, not gitdi
    assert found("yapmış", "Ödemeyi yaptı.", "tr")
    assert not found("yapmış", "Ödemeyi yapdı.", "tr")
    assert not found("ödendi", "Fatura ödenecek.", "tr")
    assert not found("ödendi", "Fatura ödenmiş.", "en")  # a Turkish rule


# -- a vulgar fraction and a letter's notation hold no other number ------------------------
def test_the_digits_of_a_vulgar_fraction_are_no_numbers() -> None:
    """NFKC writes ¾ as 3⁄4 and 1½ as 11⁄2: neither 3, 4 nor 11 is what the answer said."""
    for value in ("3", "4", "34"):
        assert not found(value, "Fit a ¾-inch valve."), value
    for value in ("1", "11", "2", "12"):
        assert not found(value, "Let it rest for 1½ hours."), value
    assert not found("2", "The shelf is 2 ½ metres long.")


def test_a_code_stays_a_code_beside_the_letter_notation() -> None:
    assert not found("214", "Your gate is B214.")
    assert not found("4", "The strongest was M4.3.")
    assert not found("4.3", "The strongest was XM4.3.")  # two letters: a code's
    assert found("B214", "Your gate is B-214.")
