"""Any-of routes, arguments and state checks in the step check, in-process."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tooleval.cases.model import Case, Step
from pytest_tooleval.engine.transcript import Attempt, StepTranscript
from pytest_tooleval.result import Outcome
from pytest_tooleval.scoring.outcome import check_step, score_case

TWO_ROUTES = {"message": "what's the invoice total?",
              "expect_any": [["search_documents"], ["find_files", "read_document"]],
              "evidence": ["4,286.40"]}


def ran(*calls: tuple[str, dict[str, Any]] | str, answer: str = "GBP 4,286.40",
        state: list[dict[str, Any]] | None = None) -> StepTranscript:
    attempts = [Attempt(c, {}, valid=True, result="ok") if isinstance(c, str) else
                Attempt(c[0], c[1], valid=True, result="ok") for c in calls]
    return StepTranscript(message="m", attempts=attempts, answer=answer, answered=True,
                          state=state or [])


def tool_case(**step: Any) -> Case:
    return Case.model_validate({"name": "c", "category": "tool", "steps": [step]})


@pytest.mark.parametrize(("calls", "held", "route"), [
    (["search_documents"], True, 0),
    (["find_files", "read_document"], True, 1),
    (["read_document", "find_files"], True, 1),  # a route is a set, not an order
    (["find_files"], False, None),
    (["read_document"], False, None),
    ([], False, None),
])
def test_any_route_that_ran_completely_holds(calls: list[str], held: bool,
                                             route: int | None) -> None:
    checks = check_step(Step.model_validate(TWO_ROUTES), ran(*calls))
    assert (checks.tool, checks.route) == (held, route)
    assert checks.routes == [["search_documents"], ["find_files", "read_document"]]


def test_a_missing_route_reports_the_closest_one() -> None:
    checks = check_step(Step.model_validate(TWO_ROUTES), ran("find_files", "calculator"))
    assert checks.tool_missing == ["search_documents"]  # a tie: the first route is named
    scored = score_case(tool_case(**TWO_ROUTES), [ran("find_files")])
    assert scored.outcome is Outcome.PARTIAL


def test_a_forbidden_tool_fails_any_route() -> None:
    step = Step.model_validate({**TWO_ROUTES, "forbidden": ["web_search"]})
    assert check_step(step, ran("search_documents", "web_search")).tool is False


def test_args_constrain_a_call_of_any_route() -> None:
    step = {"message": "put the dentist on 14 March at 3pm", "expect": "calendar_add",
            "args": {"start": ["2026-03-14T15:00", "2026-03-14 15:00"]}}
    right = ran(("calendar_add", {"title": "Dentist", "start": "2026-03-14 15:00"}), answer="ok")
    wrong = ran(("calendar_add", {"title": "Dentist", "start": "2025-03-14T15:00"}), answer="ok")
    assert score_case(tool_case(**step), [right]).outcome is Outcome.PASS
    scored = score_case(tool_case(**step), [wrong])
    assert scored.outcome is Outcome.PARTIAL
    assert scored.checks[0].args is False and scored.axes["tool"] == 0.0
    assert "'start' = '2025-03-14T15:00'" in scored.reasons[0]


def test_a_failed_state_check_fails_the_action() -> None:
    step = {"message": "commit only cli.py", "expect": "git_commit",
            "after": {"commit": {"paths": ["kestrel/cli.py"]}}}
    held = [{"check": "last commit paths=['kestrel/cli.py']", "held": True, "detail": None}]
    broke = [{"check": "last commit paths=['kestrel/cli.py']", "held": False,
              "detail": "the last commit touched ['NOTES.md', 'kestrel/cli.py']"}]
    assert score_case(tool_case(**step), [ran("git_commit", state=held)]).outcome is Outcome.PASS
    scored = score_case(tool_case(**step), [ran("git_commit", state=broke)])
    assert scored.outcome is Outcome.PARTIAL and scored.axes["tool"] == 0.0
    assert "state after the step: last commit" in scored.reasons[0]


@pytest.mark.parametrize(("step", "message"), [
    ({"expect": "a", "expect_any": [["a"], ["b"]]}, "either 'expect'"),
    ({"expect_any": [["a"]]}, "at least two routes"),
    ({"expect_any": [["a"], []]}, "is empty"),
    ({"expect_any": [["a", "b"], ["b", "a"]]}, "the same tools"),
])
def test_malformed_routes_are_refused(step: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Step.model_validate({"message": "m", **step})


def test_measuring_guards() -> None:
    from pytest_tooleval.cases.guards import measuring_problems
    from pytest_tooleval.cases.model import CaseFile

    def problems(**step: Any) -> list[str]:
        case_file = CaseFile.model_validate({"name": "f", "cases": [
            {"name": "c", "category": "tool", "steps": [{"message": "m", **step}]}]})
        return [p.message for p in measuring_problems(case_file)]

    assert "neither 'args' nor a state check" in problems(expect="send_message")[0]
    assert problems(expect="send_message", args={"to": ["Mira"]}) == []
    assert problems(expect="send_message", after={"message": {"to": "Mira"}}) == []
    assert problems(expect="run_python", evidence=["4471"]) == []  # a computation
    assert "read-only tool(s) web_search" in problems(expect="calculator",
                                                       forbidden=["web_search"])[0]
    assert problems(expect="calculator", forbidden=["web_search"],
                    forbidden_why="the figures are private") == []
    assert problems(expect="calculator", forbidden=["send_message"]) == []  # a harm
    with pytest.raises(ValueError, match="'forbidden_why' explains 'forbidden'"):
        Step.model_validate({"message": "m", "forbidden_why": "private"})
