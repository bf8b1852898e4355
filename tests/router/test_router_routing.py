"""Routing facts: false friends, inflection, registers, current information, cues, ties."""

from __future__ import annotations

import random

import pytest

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.tools.base import ToolSpec

ROUTER = TriggerRouter()
CATALOGUE = list(builtin_specs())
CATALOGUE_NAMES = [spec.name for spec in CATALOGUE]


def shown(message: str, language: str = "tr", catalogue: list[ToolSpec] | None = None) -> list[str]:
    return ROUTER.route(message, language, catalogue or CATALOGUE).tools


def fired(message: str, language: str = "tr") -> dict[str, list[str]]:
    """Tools with a positive score, with their reasons (the filler is not a reason)."""
    scores, reasons = ROUTER.score(message, language, CATALOGUE)
    return {tool: reasons[tool] for tool, score in scores.items() if score > 0}


# -- false friends --------------------------------------------------------------------------
def test_hava_and_havale_stay_apart() -> None:
    assert "web_search" in fired("hava durumu nasıl")
    assert "web_search" not in fired("havale yaptım mı")
    assert "web_search" not in fired("havalimanına nasıl giderim")


def test_kira_and_kiraz_stay_apart() -> None:
    assert "search_documents" in fired("kiramı ne zaman ödemeliyim")
    assert "search_documents" not in fired("kiraz mevsimi başladı mı")


def test_kur_and_kurs_stay_apart() -> None:
    assert "web_search" in fired("bugün kur ne")
    assert "web_search" not in fired("kursa yazıldım")


def test_not_and_noter_stay_apart() -> None:
    assert "memory_save" in fired("bunu not al")
    assert "memory_save" not in fired("noter randevum ne zaman")
    assert "search_documents" in fired("noter randevum ne zaman")


def test_topla_and_toplanti_stay_apart() -> None:
    assert "calculator" in fired("şu sayıları topla 12 ve 30")
    assert "calculator" not in fired("toplantım kaçta")
    assert "calendar_list" in fired("toplantım kaçta")


def test_hatirla_and_hatirlat_longest_match_wins() -> None:
    recall = fired("kapı kodunu hatırlıyor musun")
    assert "memory_search" in recall and "reminder_add" not in recall
    remind = fired("yarın faturayı ödemeyi hatırlat")
    assert "reminder_add" in remind and "memory_search" not in remind


def triggered(message: str, tool: str, language: str = "tr") -> bool:
    """A trigger (not a description cue) fired for ``tool``."""
    return any(r.startswith("trigger") for r in fired(message, language).get(tool, []))


def test_para_and_paragraf_ay_and_ayakkabi_git_and_gittim() -> None:
    assert "web_search" in fired("gram altın kaç para")
    assert "web_search" not in fired("ikinci paragrafı oku")
    assert not any(
        triggered("dün markete gittim", tool) for tool in CATALOGUE_NAMES if "git" in tool
    )
    assert "git_status" in fired("git durumu ne")
    assert "calendar_list" not in fired("ayakkabı numaram neydi")


# -- inflection and alternations ------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "tool"),
    [
        ("faturamı bulur musun", "search_documents"),
        ("taksidimi ne zaman ödüyorum", "search_documents"),
        ("taksitlerin tablosu", "read_document"),
        ("geçen ayki kaydımı bul", "memory_search"),
        ("toplantının kaydı nerede", "memory_search"),
        ("bu kdv'yi hesaplıyor musun", "calculator"),
        ("hesabını yapar mısın 45 artı 17", "calculator"),
        ("resmi klasöre taşı", "move_file"),
    ],
)
def test_inflected_forms_match(message: str, tool: str) -> None:
    assert tool in fired(message)
    assert tool in shown(message)


# -- registers of one job --------------------------------------------------------------------
REGISTERS = {
    "formal": "Sayın asistan, bu ayki elektrik faturamın tutarını öğrenebilir miyim?",
    "whatsapp": "fatura ne kdr gelmiş",
    "elderly": "evladım şu elektrik faturası ne kadar gelmiş bir bakıver",
    "anatolian": "ula bu elektrik faturasi ne kadar gelmiş",
    "no-turkish-letters": "elektrik faturami ne kadar gelmis",
    "caps": "ELEKTRİK FATURAMI NE KADAR GELMİŞ",
    "emoji": "🧾 ne kadar gelmiş ⚡",
}


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


def test_how_much_rules() -> None:
    arithmetic = fired("18 * 1000 ne kadar")
    assert "calculator" in arithmetic and "web_search" not in arithmetic
    money = fired("gram altın ne kadar")
    assert "web_search" in money and "calculator" not in money
    both = fired("250 dolar kaç TL")
    assert "calculator" in both and "web_search" in both
    assert shown("250 dolar kaç TL")[:2] == ["web_search", "calculator"]


# -- cues for tools without triggers --------------------------------------------------------------
def test_user_tools_are_routable_by_name_and_description() -> None:
    user = [
        ToolSpec(
            "gh_search_issues", "Search the GitHub issues of a repository by label.", {}, "mcp"
        ),
        ToolSpec("hava_durumu_getir", "Bir şehrin hava durumunu getirir.", {}, "python"),
        ToolSpec("lookupInvoiceStatus", "Tell whether an invoice was paid.", {}, "python"),
    ]
    catalogue = CATALOGUE + user
    assert "gh_search_issues" in shown("which issues are labelled regression?", "en", catalogue)
    assert "hava_durumu_getir" in shown("Ankara'da hava durumu", "tr", catalogue)
    assert "lookupInvoiceStatus" in shown("was invoice 4411 paid?", "en", catalogue)
    reasons = ROUTER.route("which issues are open", "en", catalogue).reasons
    assert any("cue name:issues" in reason for reason in reasons["gh_search_issues"])


# -- exactly k, keep rule, ties ------------------------------------------------------------------
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


def test_route_is_fast() -> None:
    import time

    messages = [f"{text} {n}" for n in range(60) for text in REGISTERS.values()][:600]
    started = time.perf_counter()
    for message in messages:
        ROUTER.route(message, "tr", CATALOGUE)
    assert time.perf_counter() - started < 1.0
