"""Explanation questions (router/explain.py): a frame ("how does … work", "whats … again")
around a term no trigger knows votes for the web; the same frame around the user's own
things does not, and the frame data is checked when loaded."""

from __future__ import annotations

import pytest

from pytest_tooleval.text.normalize import normalize
from tests.router.routing import CATALOGUE, PLAIN, signal


# An explanation question around a term the router does not know.
@pytest.mark.parametrize(
    ("message", "language"),
    [("how does raft consensus actually work", "en"),
     ("what does the --depth flag of git clone do", "en"),
     ("whats a merkle tree again", "en"),
     ("rüzgar türbini nasıl çalışır", "tr"),
     ("kasko poliçesi neleri kapsıyor acaba", "tr")],
)
def test_an_explanation_question_votes_for_the_web(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert signal(message, language, "web_search")


@pytest.mark.parametrize(
    "message",
    ["what does my contract say the notice period is, does it mean 30 days",
     "how do i work out 15 percent of 80",
     "what does our plan for saturday look like"],
)
def test_an_explanation_frame_around_the_users_own_things_is_no_term(message: str) -> None:
    routing = PLAIN.route(message, "en", CATALOGUE)
    assert not any(r.startswith("explanation question") for why in routing.reasons.values()
                   for r in why)


def test_the_explain_data_is_checked() -> None:
    from pytest_tooleval.router.explain import Explain

    for bad in ({"frames": [["how does"]]}, {"frames": [["", "work"]]},
                {"frames": [["how does", "work"]], "tools": {"web_search": 0}}):
        with pytest.raises(ValueError, match="explain"):
            Explain().load(bad, "en")
    frames = Explain()
    frames.load({"frames": [["how does", ["work", "works"]]], "window": 2,
                 "tools": {"web_search": 1}}, "en")
    assert frames.match(("how", "does", "raft", "work")) == "how does … work"
    assert frames.match(("how", "does", "a", "b", "c", "work")) == ""  # past the window
    assert frames.match(("how", "does", "work")) == ""  # no term between
