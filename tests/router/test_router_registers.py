"""Registers by construction: a job's register variants route like its formal phrasing.

Hypothesis writes the variants (ALL CAPS with the Turkish İ and I, ASCII-only Turkish, no
punctuation or extra punctuation, emoji, elongated letters, chat and dialect spellings)
from formal sentences; the router must show the same tools for each.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_tooleval.text.dialect import standard_words, voiceless
from pytest_tooleval.text.normalize import normalize
from tests.router.routing import CATALOGUE, REGISTERS, ROUTER, shown

REPO = Path(__file__).resolve().parents[2]

# Formal phrasings written for these tests (not from any corpus), and the corpus's own
# formal register cases.
FORMAL_TR = [
    "Yarın sabah saat dokuzda ilacımı almamı bana hatırlatır mısınız?",
    "Elektrik faturasının bu ay ne kadar geldiğini öğrenebilir miyim?",
    "Bugün İstanbul'da hava nasıl olacak?",
    "Kestrel deposundaki son commitleri gösterir misiniz?",
    "Elif'e yarım saat geç kalacağımı bildiren bir mesaj gönderir misiniz?",
    "Nöbetçi eczane bugün nerede?",
    "İndirilenler klasöründe hangi dosyalar var?",
    "Dişçinin telefon numarasını rehberden bulur musunuz?",
    "Geçen hafta hangi gün toplantımız vardı?",
    "Kapının şifresini daha önce kaydetmiştim, hatırlatır mısınız?",
]


def _corpus_formal() -> list[str]:
    data = json.loads((REPO / "benchmarks" / "tr" / "register.json").read_text("utf-8"))
    return [c["steps"][0]["message"] for c in data["cases"] if c.get("register") == "formal"]


FORMAL = FORMAL_TR + _corpus_formal()

_TR_UPPER = str.maketrans({"i": "İ", "ı": "I"})
_ASCII = str.maketrans("çğıöşüÇĞİÖŞÜâîû", "cgiosuCGIOSUaiu")
_UNKNOWN_EMOJI = ["😀", "🙏", "😅", "👍🏽", "❤️", "🤔", "🙈", "😬", "✨", "👀"]
# Standard word → how people type it (the inverse of text/dialect.py's rules).
_DIALECT = {
    "bir": "bi", "nerede": "nerde", "burada": "burda", "böyle": "böle", "hiç": "heç",
    "kardeş": "gardaş", "tamam": "tmm", "lütfen": "lfn", "değil": "diil", "şimdi": "şindi",
    "eczane": "eczahane", "yine": "gine",
}


def caps_turkish(text: str) -> str:
    return text.translate(_TR_UPPER).upper()


def caps_without_dotted_i(text: str) -> str:
    """A keyboard without İ: every i typed as I."""
    return text.upper().replace("İ", "I")


def ascii_only(text: str) -> str:
    return text.translate(_ASCII)


def no_punctuation(text: str) -> str:
    kept = "".join(ch if ch.isalnum() or ch.isspace() or ch == "'" else " " for ch in text)
    return " ".join(kept.split())


def _words(text: str) -> list[str]:
    return text.split(" ")


@st.composite
def elongated(draw: st.DrawFn, text: str) -> str:
    """One letter of one word repeated 3 to 6 times (never next to its own twin)."""
    words = _words(text)
    index = draw(st.integers(0, len(words) - 1))
    word = words[index]
    places = [
        i for i, ch in enumerate(word) if ch.isalpha()
        and (i == 0 or word[i - 1].lower() != ch.lower())
        and (i == len(word) - 1 or word[i + 1].lower() != ch.lower())
    ]
    if not places:
        return text
    at = draw(st.sampled_from(places))
    times = draw(st.integers(3, 6))
    words[index] = word[:at] + word[at] * times + word[at + 1 :]
    return " ".join(words)


@st.composite
def with_emoji(draw: st.DrawFn, text: str) -> str:
    """Pictographs the router has no hint for, between words."""
    words = _words(text)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(words)))
        words.insert(at, draw(st.sampled_from(_UNKNOWN_EMOJI)))
    return " ".join(words)


@st.composite
def dialect(draw: st.DrawFn, text: str) -> str:
    """Some standard words in their chat or dialect spelling, and -iyorum as -iyom."""
    out = []
    for word in _words(text):
        bare = word.strip("?,.!").lower()
        tail = word[len(word.rstrip("?,.!")) :]
        if bare in _DIALECT and draw(st.booleans()):
            word = _DIALECT[bare] + tail
        elif bare.endswith("yorum") and draw(st.booleans()):
            word = bare[:-5] + "yom" + tail
        out.append(word)
    return " ".join(out)


TRANSFORMS = {
    "caps": lambda t: st.just(caps_turkish(t)),
    "caps-no-dotted-i": lambda t: st.just(caps_without_dotted_i(t)),
    "ascii": lambda t: st.just(ascii_only(t)),
    "no-punctuation": lambda t: st.just(no_punctuation(t)),
    "shouting": lambda t: st.just(t.rstrip("?.!") + " ???!!!"),
    "elongated": elongated,
    "emoji": with_emoji,
    "dialect": dialect,
}


@st.composite
def variant(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    formal = draw(st.sampled_from(FORMAL))
    names = draw(st.lists(st.sampled_from(sorted(TRANSFORMS)), min_size=1, max_size=3))
    text = formal
    for name in names:
        text = draw(TRANSFORMS[name](text))
    return formal, text, names


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant())
def test_a_register_variant_routes_like_its_formal_phrasing(case) -> None:
    formal, text, names = case
    assert shown(text) == shown(formal), (names, text)


@settings(max_examples=200, deadline=None)
@given(variant())
def test_register_variants_normalise_to_the_formal_words(case) -> None:
    formal, text, names = case
    assert normalize(text, "tr").words == normalize(formal, "tr").words, (names, text)


@pytest.mark.parametrize(
    ("typed", "standard"),
    [
        ("bi", ("bir",)), ("tmm", ("tamam",)), ("nerde", ("nerede",)),
        ("napıyon", ("ne", "yapıyorsun")), ("napiyon", ("ne", "yapıyorsun")),
        ("gardaş", ("kardeş",)), ("geliyom", ("geliyorum",)), ("geliyo", ("geliyor",)),
        ("yapıcam", ("yapacağım",)), ("gelcem", ("geleceğim",)), ("alcaz", ("alacağız",)),
        ("varmı", ("var", "mı")), ("yaparmısın", ("yapar", "mısın")),
        ("bakıver", ("bak",)), ("okuyuver", ("oku",)), ("kaydediver", ("kaydet",)),
        ("dimi", ("değil", "mi")),
    ],
)
def test_chat_and_dialect_spellings(typed: str, standard: tuple[str, ...]) -> None:
    assert standard_words(typed) == standard


@pytest.mark.parametrize(
    "word", ["fonksiyon", "televizyon", "kocam", "kendimi", "resmi", "üniversite", "radyo",
             "senaryo", "saat", "bilgisayarım"],
)
def test_standard_words_are_left_alone(word: str) -> None:
    assert standard_words(word) == (word,)


def test_english_is_not_rewritten() -> None:
    assert normalize("bi fonksiyon geliyom", "en").words == ("bi", "fonksiyon", "geliyom")


def test_anatolian_voiced_k_is_tried_only_where_nothing_matched() -> None:
    assert voiceless("gadar") == "kadar" and voiceless("gapı") == "kapı"
    assert voiceless("kadar") == "" and voiceless("grup") == ""
    # "gapısının şifresi": the k-form finds kapı; "gaz faturası" keeps its own word.
    assert "memory_search" in shown("apartmanın gapısının şifresi neydi")[:3]
    assert shown("gaz faturası ne kadar") == shown("gaz faturası ne kadar")


def test_the_hypothesis_variants_do_vary() -> None:
    # A guard against a property that holds because the strategies change nothing.
    assert caps_turkish("şifre için") == "ŞİFRE İÇİN"
    assert caps_without_dotted_i("şifre için") == "ŞIFRE IÇIN"
    assert ascii_only("şifreyi değiştir") == "sifreyi degistir"
    assert no_punctuation("Nasıl, ne? 20.00'de") == "Nasıl ne 20 00'de"


FORMAL_EN = [
    "Could you remind me to take my medicine at nine tomorrow morning?",
    "What is the weather going to be like in Izmir today?",
    "Please show me the last five commits in the kestrel repository.",
    "Which files are in my Downloads folder?",
    "What was the door code of our building again?",
]
EN_TRANSFORMS = ("caps-no-dotted-i", "no-punctuation", "shouting", "elongated", "emoji")


@st.composite
def english_variant(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    formal = draw(st.sampled_from(FORMAL_EN))
    names = draw(st.lists(st.sampled_from(EN_TRANSFORMS), min_size=1, max_size=3))
    text = formal
    for name in names:
        text = draw(TRANSFORMS[name](text))
    return formal, text, names


@settings(max_examples=150, deadline=None)
@given(english_variant())
def test_english_register_variants_route_like_the_formal_phrasing(case) -> None:
    formal, text, names = case
    route = ROUTER.route
    assert route(text, "en", CATALOGUE).tools == route(formal, "en", CATALOGUE).tools, names


# -- the registers of one job, written out (routing.REGISTERS) -----------------------------
@pytest.mark.parametrize("register", sorted(REGISTERS))
def test_each_register_of_one_job_routes_the_same(register: str) -> None:
    assert "search_documents" in shown(REGISTERS[register])
    assert "read_document" in shown(REGISTERS[register])


@pytest.mark.parametrize(
    "message",
    [
        "What's on my calendar tomorrow?",
        "WHATS ON MY CALENDAR TOMORROW",
        "calendar tmrw?? 📅",
        "whats on my calendar tomorrow",
    ],
)
def test_english_registers(message: str) -> None:
    assert "calendar_list" in shown(message, "en")

