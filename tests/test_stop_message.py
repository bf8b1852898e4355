"""The stop after --tooleval-max-errors consecutive ERRORs reads as two sentences: the last
error's message, then the stop (they ran together: "... unreachable Stopped after 3 ...")."""

from __future__ import annotations

import re

from pytest_tooleval.result import ErrorInfo
from tests.conftest import THANKS_CASE, scenario
from tests.support.fake_openai import Rule, body


def test_the_stop_message_is_a_sentence_of_its_own() -> None:
    from pytest_tooleval.collect import stop_message

    error = ErrorInfo(kind="backend", message="the model server is unreachable")
    assert stop_message(error, 3) == (
        "the model server is unreachable. Stopped after 3 consecutive infrastructure "
        "errors; nothing further was scored.")
    ended = ErrorInfo(kind="backend", message="It timed out. ")
    assert stop_message(ended, 2).startswith("It timed out. Stopped after 2 ")
    assert stop_message(None, 3).startswith("ERROR. Stopped after 3 ")


def test_the_stop_line_of_a_run_does_not_run_two_sentences_together(
        project, fake_model) -> None:  # type: ignore[no-untyped-def]
    server = fake_model([Rule("thanks", [body([1, 2])])])
    project.profile(server)
    project.write("scenarios/demo.yaml",
                  scenario([dict(THANKS_CASE, name=f"t{i}") for i in range(4)]))
    output = " ".join(project.run().stdout.str().split())  # the summary's lines joined
    assert "Stopped after 3 consecutive" in output, output
    assert re.search(r"[.!?] Stopped after 3 consecutive", output), output
    # and the count of cases follows the sentence, not its full stop ("scored.: 3 of 4")
    assert project.report()["run"]["interrupted"].endswith(
        "nothing further was scored: 3 of 4 cases ran")
