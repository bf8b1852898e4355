"""Turkish as people type it (text/dialect.py): the Anatolian voiced t, the quick compound
(*-ıver*) and git words spelt as they are said are read as the standard word, only where
the word as typed matched nothing; real Turkish words are left alone."""

from __future__ import annotations

import pytest

from pytest_tooleval.text.dialect import standard_words, voiceless
from pytest_tooleval.text.normalize import normalize
from tests.router.routing import plain_reasons, signal


def test_anatolian_voiced_t_is_read_as_t_where_the_word_matched_nothing(
    known_texts: set[str],
) -> None:
    message = "şu faturaları Belgeler klasörüne daşı emmi"
    assert normalize(message, "tr").text not in known_texts
    assert any("taşı" in r for r in plain_reasons(message, "tr", "move_file"))
    # a word that matches as it is keeps its own reading: dosya is no *tosya*
    assert voiceless("dosya") == "tosya"
    assert not any("tosya" in r for r in plain_reasons("dosyayı sil", "tr", "delete_file"))


def test_the_quick_compound_keeps_a_root_that_ends_in_y() -> None:
    assert standard_words("koyuver") == ("koy",)  # was "ko": the y read as a buffer
    assert standard_words("duyuver") == ("duy",)
    assert standard_words("okuyuver") == ("oku",)  # a vowel root keeps its buffer y
    assert standard_words("deyiver") == ("de",)


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
    assert signal(message, "tr", tool)
