"""A 30 MB answer must not make a 30 MB report.json: strings are capped in reports."""

from __future__ import annotations

from pytest_tooleval.report.caps import MAX_REPORT_CHARS, cap_strings
from tests.support.fake_openai import Rule, answer


def test_cap_strings_cuts_long_strings_anywhere_and_keeps_the_rest() -> None:
    deep: list[object] = ["y" * (MAX_REPORT_CHARS + 5)]
    for _ in range(3000):  # deeper than the recursion limit
        deep = [deep]
    data = {"a": "x" * (MAX_REPORT_CHARS + 10), "b": [1, 2.5, None, True, "short"],
            "c": {"d": deep}}
    capped = cap_strings(data)
    assert capped["a"].startswith("x" * MAX_REPORT_CHARS)
    assert capped["a"].endswith("[... 10 more characters cut from the report]")
    assert capped["b"] == [1, 2.5, None, True, "short"]
    inner = capped["c"]["d"]
    for _ in range(3000):
        inner = inner[0]
    assert inner[0].endswith("[... 5 more characters cut from the report]")
    assert data["a"] == "x" * (MAX_REPORT_CHARS + 10)  # the input is not changed


def test_a_30_mb_answer_makes_a_small_report(project, fake_model) -> None:  # type: ignore[no-untyped-def]
    huge = "spam " * (6 * 1024 * 1024)
    server = fake_model([Rule("thanks", [answer(huge)])])
    project.profile(server)
    project.write("benchmarks/big.json", {"name": "big", "cases": [
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks"}]}]})
    project.run()
    size = (project.path / "tooleval-report" / "report.json").stat().st_size
    assert size < 1024 * 1024, size
    kept = project.cases()["thanks"].steps[0].transcript.answer
    assert kept is not None and "more characters cut from the report" in kept


def test_a_report_keeps_a_short_result_itself_and_cuts_only_a_long_one() -> None:
    from pytest_tooleval.report.json_report import _capped
    from pytest_tooleval.result import CaseResult, Outcome

    short = CaseResult(nodeid="f.json::c", file="f.json", case="c", outcome=Outcome.PASS)
    assert _capped(short) is short
    # Just over the cap in one string of multi-byte letters: cut, the rest kept.
    long = short.model_copy(update={"case": "ğ" * (MAX_REPORT_CHARS + 1)})
    capped = _capped(long)
    assert capped.case.startswith("ğ" * MAX_REPORT_CHARS)
    assert capped.case.endswith("[... 1 more characters cut from the report]")
    assert capped.nodeid == long.nodeid and long.case == "ğ" * (MAX_REPORT_CHARS + 1)
