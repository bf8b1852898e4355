"""The oracle check: gold paths replayed through the real tools, loop and scorer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.check.oracle import (
    GUARD,
    NO_GOLD,
    ORACLE,
    OracleBackend,
    OracleFailure,
    run_oracle,
)
from pytest_tooleval.cli.check import main as check_main

ROOT = Path(__file__).resolve().parents[2]
REQUIRES = ["calculator", "calendar_add", "calendar_list", "search_documents", "find_files",
            "read_document", "web_search"]


def write(tmp_path: Path, cases: list[dict[str, Any]], name: str = "t.json",
          **fields: Any) -> Path:
    path = tmp_path / name
    data = {"name": path.stem, "language": "en", "requires": REQUIRES, "cases": cases, **fields}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def tool_case(name: str, **step: Any) -> dict[str, Any]:
    return {"name": name, "category": "tool", "steps": [step]}


def failures_of(path: Path, world_base: Path) -> dict[str, list[OracleFailure]]:
    report = run_oracle([path], world_base=world_base)
    found: dict[str, list[OracleFailure]] = {}
    for failure in report.failures:
        found.setdefault(failure.case, []).append(failure)
    return found


VAT = {"message": "How much is 18% VAT on 4,286.40?", "expect": "calculator",
       "evidence": [["771.552", "771.55"]]}


def test_the_shipped_example_is_proven(world_base: Path) -> None:
    report = run_oracle([ROOT / "benchmarks" / "example.json"], world_base=world_base)
    assert report.ok, report.render()
    assert (report.cases, report.proven) == (4, 4)


def test_a_sound_gold_path_proves_its_case(tmp_path: Path, world_base: Path) -> None:
    path = write(tmp_path, [
        tool_case("vat", **VAT, gold=[{"tool": "calculator",
                                       "args": {"expression": "4286.40 * 0.18"}}]),
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks!"}]},
    ])
    report = run_oracle([path], world_base=world_base)
    assert report.ok, report.render()
    assert report.proven == 2


def test_evidence_must_come_from_the_tools(tmp_path: Path, world_base: Path) -> None:
    # The right tool, but the fact is general knowledge: no tool output holds it.
    path = write(tmp_path, [tool_case(
        "hamlet", message="Who wrote Hamlet, and what is 2 * 3?", expect="calculator",
        evidence=["Shakespeare"], gold=[{"tool": "calculator", "args": {"expression": "2*3"}}],
    )])
    [first, second] = failures_of(path, world_base)["hamlet"]
    assert (first.kind, first.file, first.step) == (ORACLE, str(path), 1)
    assert "'Shakespeare' is not in the output of any gold call" in first.reason
    assert "(this step's calls returned: '6')" in first.reason
    assert second.step is None and "scores PARTIAL" in second.reason


def test_a_gold_call_that_errors_fails(tmp_path: Path, world_base: Path) -> None:
    path = write(tmp_path, [tool_case(
        "zero", **{**VAT, "gold": [{"tool": "calculator", "args": {"expression": "1/0"}}]},
    )])
    reasons = [f.reason for f in failures_of(path, world_base)["zero"]]
    assert any("returned a tool error" in r for r in reasons), reasons


def test_a_failed_gold_call_is_named_with_its_arguments_as_written(
        tmp_path: Path, world_base: Path) -> None:
    """The call showed as Python, calculator({'expression': '1/0'}), and one not run without
    the arguments that made it invalid."""
    path = write(tmp_path, [
        tool_case("zero", **{**VAT, "gold": [{"tool": "calculator",
                                               "args": {"expression": "1/0"}}]}),
        tool_case("typo", **{**VAT, "gold": [{"tool": "calculator",
                                               "args": {"expresion": "1+1"}}]})])
    found = failures_of(path, world_base)
    assert 'gold call calculator({"expression": "1/0"}) returned a tool error' \
        in found["zero"][0].reason
    assert found["typo"][0].reason.startswith(
        'gold call calculator({"expresion": "1+1"}) was not run: '), found["typo"][0].reason


def test_a_gold_route_the_case_does_not_accept_fails(tmp_path: Path, world_base: Path) -> None:
    gold = [{"tool": "find_files", "args": {"pattern": "*invoice*"}}]
    path = write(tmp_path, [tool_case(
        "route", message="Which invoices do I have in my documents?",
        expect="search_documents", evidence=["HF-2026-0317"], gold=gold,
    )])
    reasons = [f.reason for f in failures_of(path, world_base)["route"]]
    assert any("scores PARTIAL" in r and "expected search_documents" in r for r in reasons), \
        reasons
    # Accepting the second route with expect_any proves it.
    path = write(tmp_path, [tool_case(
        "route", message="Which invoices do I have in my documents?",
        expect_any=[["search_documents"], ["find_files"]], evidence=["HF-2026-0317"], gold=gold,
    )])
    assert failures_of(path, world_base) == {}


def test_a_state_check_that_does_not_hold_fails(tmp_path: Path, world_base: Path) -> None:
    step = {"message": "Put the dentist on my calendar for 14 March 2026 at 3pm",
            "expect": "calendar_add",
            "after": [{"event": {"title": "dentist", "start": "2026-03-14T15:00"}}]}
    wrong = {"tool": "calendar_add", "args": {"title": "Dentist", "start": "2025-03-14T15:00"}}
    right = {"tool": "calendar_add", "args": {"title": "Dentist", "start": "2026-03-14T15:00"}}
    path = write(tmp_path, [tool_case("wrong-year", **step, gold=[wrong]),
                            tool_case("right-year", **step, gold=[right])])
    found = failures_of(path, world_base)
    assert "right-year" not in found
    reasons = [f.reason for f in found["wrong-year"]]
    assert any(r.startswith("state check event title='dentist'") and "does not hold" in r
               for r in reasons), reasons
    assert any("scores PARTIAL" in r for r in reasons), reasons


def test_a_state_check_that_held_before_the_write_fails(tmp_path: Path,
                                                       world_base: Path) -> None:
    # The world already has a Kestrel standup: the check holds whatever calendar_add wrote,
    # so any call passes (it met the measuring guard, and the case was proven).
    step = {"message": "Put the dentist on my calendar for 14 March 2026 at 3pm",
            "expect": "calendar_add",
            "gold": [{"tool": "calendar_add",
                      "args": {"title": "Dentist", "start": "2026-03-14T15:00"}}]}
    keep = {"event": {"title": "Kestrel standup"}}
    dentist = {"event": {"title": "dentist", "start": "2026-03-14T15:00"}}
    path = write(tmp_path, [tool_case("vacuous", **step, after=[keep]),
                            tool_case("keeps-and-measures", **step, after=[keep, dentist])])
    found = failures_of(path, world_base)
    assert "keeps-and-measures" not in found, found
    [vacuous] = found["vacuous"]
    assert (vacuous.kind, vacuous.step) == (ORACLE, 1)
    assert "already hold before the case runs" in vacuous.reason
    assert "event title='Kestrel standup'" in vacuous.reason and "fix:" in vacuous.reason


def test_the_args_branch_is_scored(tmp_path: Path, world_base: Path) -> None:
    step = {"message": "Put the dentist on my calendar for 14 March 2026 at 3pm",
            "expect": "calendar_add", "args": {"start": ["2026-03-14T15:00"]}}
    gold = [{"tool": "calendar_add", "args": {"title": "Dentist", "start": "2026-03-14T16:00"}}]
    path = write(tmp_path, [tool_case("args", **step, gold=gold)])
    reasons = [f.reason for f in failures_of(path, world_base)["args"]]
    assert any("arguments: 'start' = '2026-03-14T16:00'" in r for r in reasons), reasons


def test_missing_gold_and_unchecked_writes_are_named(tmp_path: Path, world_base: Path) -> None:
    path = write(tmp_path, [
        tool_case("no-gold", **VAT),
        tool_case("unchecked-write", message="Add lunch with Ada tomorrow at noon",
                  expect="calendar_add", gold=[{"tool": "calendar_add", "args": {
                      "title": "Lunch with Ada", "start": "2026-03-13T12:00"}}]),
        tool_case("harmless-forbidden", **VAT, forbidden=["web_search"],
                  gold=[{"tool": "calculator", "args": {"expression": "4286.40 * 0.18"}}]),
    ])
    found = failures_of(path, world_base)
    assert [(f.kind, f.step) for f in found["no-gold"]] == [(NO_GOLD, 1)]
    [write_guard] = found["unchecked-write"]
    assert write_guard.kind == GUARD and "neither 'args' nor a state check" in write_guard.reason
    [forbid_guard] = found["harmless-forbidden"]
    assert forbid_guard.kind == GUARD and "read-only tool(s) web_search" in forbid_guard.reason


def test_a_reason_to_forbid_a_read_only_tool_is_accepted(tmp_path: Path,
                                                         world_base: Path) -> None:
    path = write(tmp_path, [tool_case(
        "private", **VAT, forbidden=["web_search"],
        forbidden_why="the amount is the user's own invoice: searching the web leaks it",
        gold=[{"tool": "calculator", "args": {"expression": "4286.40 * 0.18"}}],
    )])
    assert failures_of(path, world_base) == {}


def test_inline_scenario_tools_are_replayed(tmp_path: Path, world_base: Path) -> None:
    path = tmp_path / "weather.yaml"
    path.write_text(
        "name: weather\nlanguage: en\nrequires: [get_weather]\n"
        "tools:\n  - name: get_weather\n    description: Current weather for a city.\n"
        "    parameters: {type: object, properties: {city: {type: string}}, required: [city]}\n"
        "    result: 'Lisbon: 17.4 C, light rain'\n"
        "cases:\n  - name: lisbon\n    category: tool\n    steps:\n"
        "      - message: what's the weather in Lisbon right now?\n"
        "        expect: get_weather\n        evidence: ['17.4']\n"
        "        gold: [{tool: get_weather, args: {city: Lisbon}}]\n",
        encoding="utf-8",
    )
    report = run_oracle([path], world_base=world_base)
    assert report.ok and report.proven == 1, report.render()


def test_an_error_by_design_proves_a_case(tmp_path: Path, world_base: Path) -> None:
    """`error: true` makes an inline tool's result a tool error on purpose: the case
    measures whether the model reports it. (A built-in tool's error still fails a gold
    path: test_a_gold_call_that_errors_fails.)"""
    path = tmp_path / "ops.yaml"
    tool = {"name": "restart_service", "description": "Restart a service.",
            "parameters": {"type": "object", "properties": {"service": {"type": "string"}}},
            "result": "PermissionDenied: ask the on-call engineer, Dana Okafor", "error": True}
    case = {"name": "restart", "category": "tool", "steps": [{
        "message": "Restart checkout-api, please.", "expect": "restart_service",
        "evidence": ["Dana Okafor"],
        "gold": [{"tool": "restart_service", "args": {"service": "checkout-api"}}]}]}
    path.write_text(json.dumps({"name": "ops", "language": "en", "requires": [],
                                "tools": [tool], "cases": [case]}), encoding="utf-8")
    report = run_oracle([path], world_base=world_base)
    assert report.ok and report.proven == 1, report.render()


def test_a_chain_answers_from_earlier_steps_outputs() -> None:
    backend = OracleBackend()
    from pytest_tooleval.cases.model import Case

    backend.prepare(Case.model_validate({"name": "c", "category": "chain", "steps": [
        {"message": "a", "expect": "calculator",
         "gold": [{"tool": "calculator", "args": {"expression": "1+1"}}]},
        {"message": "b"}]}))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "a"}]
    turn = backend.complete(messages, [])
    assert [(c.name, c.arguments) for c in turn.calls] == [("calculator", '{"expression": "1+1"}')]
    messages += [{"role": "assistant", "content": None}, {"role": "tool", "content": "2"}]
    assert backend.complete(messages, []).content == "2"
    messages += [{"role": "assistant", "content": "2"}, {"role": "user", "content": "b"}]
    second = backend.complete(messages, [])
    assert second.calls == [] and second.content == "2"  # no call; the earlier output


def test_gold_on_a_step_without_expect_is_refused(tmp_path: Path) -> None:
    from pytest_tooleval.cases.errors import CaseFileError
    from pytest_tooleval.cases.load import load_case_file

    path = write(tmp_path, [{"name": "thanks", "category": "irrelevance", "steps": [
        {"message": "thanks!", "gold": [{"tool": "calculator", "args": {}}]}]}])
    with pytest.raises(CaseFileError, match="a competent assistant calls nothing"):
        load_case_file(path)


def test_cli_check_oracle_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, [tool_case("vat", **VAT, gold=[
        {"tool": "calculator", "args": {"expression": "4286.40 * 0.18"}}])], name="good.json")
    assert check_main([str(good), "--oracle"]) == 0
    assert "oracle: 1/1 cases proven" in capsys.readouterr().out
    bad = write(tmp_path, [tool_case("vat", **VAT, gold=[
        {"tool": "calculator", "args": {"expression": "4286.40 * 0.2"}}])], name="bad.json")
    assert check_main([str(bad), "--oracle"]) == 1
    out = capsys.readouterr().out
    assert f"{bad}::vat step 1: evidence '771.552 | 771.55'" in out
    # The first line, the static check's, said '0 failure(s)' above the oracle's failures.
    assert ", 0 static failure(s), " in out.splitlines()[0], out


def test_tooleval_call_prints_what_the_tool_returns(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_tooleval.cli.call import main as call_main

    assert call_main(["date_diff", '{"start": "today", "end": "2026-05-29"}']) == 0
    assert '"days": 78' in capsys.readouterr().out
    # A file's world overrides apply: its clock moves "today".
    path = write(tmp_path, [tool_case("x", **VAT)], world={"clock": "2026-05-28T09:00:00"})
    assert call_main(["date_diff", '{"start": "today", "end": "2026-05-29"}',
                      "--file", str(path)]) == 0
    assert '"days": 1' in capsys.readouterr().out
    assert call_main(["calculator", '{"expression": "1/0"}']) == 1
    assert capsys.readouterr().out.startswith("error:")
    assert call_main(["nosuch"]) == 2
    assert call_main(["calculator", "{not json"]) == 2


def test_cli_check_strict_runs_the_measuring_guards(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, [tool_case(
        "unchecked", message="Add lunch with Ada tomorrow at noon", expect="calendar_add")])
    assert check_main([str(path)]) == 0
    capsys.readouterr()
    assert check_main([str(path), "--strict", "--json", "-"]) == 1
    failures = json.loads(capsys.readouterr().out)["failures"]
    assert any("neither 'args' nor a state check" in f["detail"] for f in failures), failures


def test_cli_check_oracle_names_a_broken_file_once(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"name": "broken", "cases": [{"name": "x", "category": "tool",'
                    ' "steps": [{"message": "hi", "evidence": ["DHL",]}]}]}', encoding="utf-8")
    assert check_main([str(path), "--oracle", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert out.count("not valid JSON") == 1, out
    assert "1 file(s) not loaded" in out


def test_cli_check_oracle_does_not_read_as_all_proven_when_a_file_did_not_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """'oracle: 1/1 cases proven ... (2 files, 0 failures, 1 not loaded)' read as all
    proven while the file that did not load held more cases (a user's first hour)."""
    write(tmp_path, [tool_case("vat", **VAT, gold=[
        {"tool": "calculator", "args": {"expression": "4286.40 * 0.18"}}])], name="good.json")
    (tmp_path / "broken.json").write_text('{"name": "broken", "cases": [', encoding="utf-8")
    assert check_main([str(tmp_path), "--oracle", "--no-cache"]) == 1
    line = capsys.readouterr().out.splitlines()[-1]
    assert "1/1" not in line, line
    assert line.startswith("oracle: 1 of the 1 loaded cases proven by their gold path; not "
                           f"all: 1 file(s) not loaded, their cases unproven: "
                           f"{tmp_path / 'broken.json'} (2 files, 0 failures, "), line
