"""The repository frame (router/repository.py): the user's repository named lifts the git
tools, and a saving verb inside that frame reaches git_status and git_commit.

The sentences are new: none is in the corpus or an evaluation set."""

from __future__ import annotations

from functools import partial

import pytest

from pytest_tooleval.router.repository import REPO_NAME, repository_frame, repository_word
from pytest_tooleval.text.normalize import normalize
from tests.router.routing import shown

# The tools shown, each call by a router of its own (TriggerRouter(9)).
_route = partial(shown, fresh=True)


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


def test_a_dotted_capital_before_the_name_keeps_it_a_place() -> None:
    # "İ".lower() is two characters: positions in the lowered text must not be read in
    # the message itself, or the name's file-name context is lost in ALL CAPS.
    names = {"git_status", "git_commit", "git_log"}
    for message in ("Downloads'taki kestrel-0.3.2.tar.gz'yi sil",
                    "DOWNLOADS'TAKİ KESTREL-0.3.2.TAR.GZ'Yİ SİL"):
        words = normalize(message, "tr").words
        assert repository_frame(words, "tr", names, message) == [], message


def test_the_frame_is_deterministic_and_below_a_real_trigger() -> None:
    message = "kestrelde neler oluyor"
    words = normalize(message, "tr").words
    first = repository_frame(words, "tr", {"git_log", "git_status"}, message)
    assert first == repository_frame(words, "tr", {"git_log", "git_status"}, message)
    assert first and all(weight < 1.0 for _, weight, _ in first)
REQUESTS = {"tr": ["dolar", "hatırlat", "takvimime", "zipi"], "en": ["weather", "remind", "zip"]}
