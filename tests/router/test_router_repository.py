"""The repository frame (router/repository.py) and the courtesy rule (router/courtesy.py).

The sentences are new: none is in the corpus or an evaluation set."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.courtesy import is_courtesy
from pytest_tooleval.router.repository import REPO_NAME, repository_frame, repository_word
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize

CATALOGUE = list(builtin_specs())


def _route(message: str, language: str) -> list[str]:
    return TriggerRouter(9).route(message, language, CATALOGUE).tools


def test_the_name_comes_from_the_world() -> None:
    assert REPO_NAME == "kestrel"


@pytest.mark.parametrize(("message", "language", "tool"), [
    ("kestreldeki emeğim saklanmış mı, bir bakar mısın", "tr", "git_status"),
    ("reposundaki son düzenlememi kalıcı olarak kaydediver", "tr", "git_commit"),
    ("KESTRELİN İÇİNDE YAPTIKLARIM KAYDA GİRDİ Mİ", "tr", "git_status"),
    ("is my work in the kestrel repo saved yet?", "en", "git_status"),
])
def test_saving_in_the_repository_reaches_the_git_tools(
    message: str, language: str, tool: str
) -> None:
    assert tool in _route(message, language)


def test_without_the_frame_the_saving_verbs_lift_nothing() -> None:
    words = normalize("bunu notlar.txt dosyasına kaydediver", "tr").words
    assert repository_frame(words, "tr", {"git_status", "git_commit"}) == []
    assert "write_file" in _route("bunu notlar.txt dosyasına kaydediver", "tr")


@pytest.mark.parametrize("word", ["report", "reports", "repost", "kestrels", "kestrelim2"])
def test_words_that_only_look_like_the_repository_do_not_frame(word: str) -> None:
    assert repository_word((word,)) == ""


def test_the_name_in_a_path_or_a_file_name_is_a_place_not_the_frame() -> None:
    names = {"git_status", "git_commit", "git_log"}
    places = ("raporu Projects/kestrel altına taşı", "kestrel-1.2-notes.txt dosyasını kaydet")
    for message in places:
        words = normalize(message, "tr").words
        assert repository_frame(words, "tr", names, message) == [], message
    message = "kestrel reposunu kaydet"
    assert repository_frame(normalize(message, "tr").words, "tr", names, message)


def test_the_frame_is_deterministic_and_below_a_real_trigger() -> None:
    message = "kestrelde neler oluyor"
    words = normalize(message, "tr").words
    first = repository_frame(words, "tr", {"git_log", "git_status"}, message)
    assert first == repository_frame(words, "tr", {"git_log", "git_status"}, message)
    assert first and all(weight < 1.0 for _, weight, _ in first)


@pytest.mark.parametrize(("message", "language"), [
    ("tamam, teşekkürler, şimdilik yeter", "tr"),
    ("eyvallah, başka bir şey yok", "tr"),
    ("great, thanks so much, that's all for now", "en"),
    # greetings (sixth round): router-eval-5's requests often open with one
    ("merhaba", "tr"),
    ("MERHABA NASILSIN", "tr"),
    ("slm nbr", "tr"),
    ("napıyon gardaş", "tr"),
    ("iyi akşamlar hocam", "tr"),
    ("hi there!", "en"),
    ("How are you doing today?", "en"),
    ("good morning, hope you're well", "en"),
])
def test_courtesy_only_messages_get_no_learned_vote(message: str, language: str) -> None:
    router = TriggerRouter(9)
    assert is_courtesy(normalize(message, language).words)
    assert router.learned(message, language, CATALOGUE, {}) == {}


@pytest.mark.parametrize(("message", "language"), [
    ("thanks, and what's the weather in Izmir tomorrow", "en"),
    ("sağ ol, bir de yarın hava nasıl olacak", "tr"),
    ("merhaba, 250 dolar kaç TL", "tr"),
    ("hi, whats the weather in izmir today", "en"),
])
def test_a_request_after_thanks_is_not_courtesy(message: str, language: str) -> None:
    assert not is_courtesy(normalize(message, language).words)
    assert "web_search" in _route(message, language)


GREETINGS = {
    "tr": ["merhaba", "selam", "slm", "mrb", "nasılsın", "naber", "günaydın", "iyi", "akşamlar",
           "hocam", "kolay", "gelsin", "sağ", "ol", "teşekkürler"],
    "en": ["hi", "hello", "hey", "there", "how", "are", "you", "doing", "today", "good",
           "morning", "thanks", "bye"],
}
REQUESTS = {"tr": ["dolar", "hatırlat", "takvimime", "zipi"], "en": ["weather", "remind", "zip"]}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["tr", "en"]), st.data(), st.sampled_from(["plain", "caps", "punct"]))
def test_greetings_in_any_order_and_register_get_no_learned_vote(
    language: str, data: st.DataObject, register: str
) -> None:
    words = data.draw(st.lists(st.sampled_from(GREETINGS[language]), min_size=1, max_size=5))
    message = " ".join(words)
    if register == "caps":
        message = message.replace("i", "İ").upper() if language == "tr" else message.upper()
    elif register == "punct":
        message = ", ".join(words) + "!! 🙂"
    assert is_courtesy(normalize(message, language).words)
    assert TriggerRouter(9).learned(message, language, CATALOGUE, {}) == {}
    request = data.draw(st.sampled_from(REQUESTS[language]))
    assert not is_courtesy(normalize(f"{message} {request}", language).words)
