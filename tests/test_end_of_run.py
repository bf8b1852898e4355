"""The end of a run: a fixed run's report.json, timings removed, equals the committed one
(tests/data/end_of_run_report.json), serially, with concurrency and under ``-n 2``; an
interrupted run's report carries the baselines of exactly the cases that ran.

Regenerate the expected file (only for a deliberate change of the report) with
``TOOLEVAL_WRITE_EXPECTED=1``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import scenario
from tests.support.fake_openai import Rule, answer, call
from tests.support.volatile import TIMING_AND_LANES, without

EXPECTED = Path(__file__).parent / "data" / "end_of_run_report.json"

#: What differs between two runs of the same cases: timings, the server's port, where and
#: how the run was started, and how many lanes ran it.
VOLATILE = TIMING_AND_LANES | {"paths", "workers", "config_file", "identity_hash"}


def normalised(value: Any) -> Any:
    return without(value, VOLATILE)


SCRIPT = [
    Rule("weather number 03", [answer("no idea")]),
    Rule("weather number 07", [answer("no idea")]),
    Rule("weather number", [call("get_weather", {"city": "Izmir"}), answer("It is 17.4 °C.")]),
    Rule("what is", [call("calculator", {"expression": "6*7"}), answer("It is 42.")]),
    Rule("thanks number 4", [call("get_weather", {"city": "Izmir"}), answer("You're welcome")]),
    Rule("thanks number", [answer("You're welcome.")]),
    Rule("chain weather 2", [call("get_weather", {"city": "Izmir"}), answer("It is 17.4 °C.")]),
    Rule("chain weather", [call("get_weather", {"city": "Izmir"}), answer("It is 17.4 °C.")]),
    Rule("note that down 2", [answer("I will remember.")]),
    Rule("note that down", [call("save_note", {"text": "17.4"}), answer("Saved as N-4471.")]),
]


def fixed_cases() -> list[dict[str, Any]]:
    """Three categories of five or more cases (so the bootstrap is stratified), failures
    in each, two-step chains half done, built-in and inline tools."""
    cases: list[dict[str, Any]] = [
        {"name": f"w{i}", "category": "tool", "group": "weather", "steps": [
            {"message": f"weather number {i:02d} in izmir", "expect": "get_weather",
             "evidence": ["17.4"], "forbidden": ["save_note"]}]} for i in range(9)]
    cases += [{"name": f"calc{i}", "category": "tool", "group": "calc", "steps": [
        {"message": f"what is 6 * 7, question {'abcdef'[i]}?", "expect": "calculator",
         "evidence": ["42"]}]} for i in range(6)]
    cases += [{"name": f"thanks{i}", "category": "irrelevance", "steps": [
        {"message": f"thanks number {i}, that's all"}]} for i in range(6)]
    cases += [{"name": f"chain{i}", "category": "chain", "group": "notes", "steps": [
        {"message": f"chain weather {i} in izmir", "expect": "get_weather",
         "evidence": ["17.4"]},
        {"message": f"note that down {i} for me", "expect": "save_note",
         "evidence": ["N-4471"]}]} for i in range(5)]
    return cases


def fixed_run(project, fake_model, *args: str, concurrency: int = 1, workers: int = 0,
              subprocess: bool = False, ret: tuple[int, ...] = (0, 1)) -> dict[str, Any]:
    server = fake_model(SCRIPT)
    project.profile(server, concurrency=concurrency)
    project.write("scenarios/fixed.yaml", scenario(fixed_cases(), requires=["calculator"]))
    result = project.run("--tooleval-min-cases", "1", "-p", "no:randomly", *args,
                         builtin=True, workers=workers, subprocess=subprocess)
    assert result.ret in ret, result.stdout.str()[-3000:]
    return project.report()


def _numbers_aside(text: str) -> str:
    return re.sub(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "0", text)


def test_the_form_check_sees_indent_and_escapes_but_not_how_a_number_is_written() -> None:
    data = {"a": [0.000099, "ğ"]}
    written = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert _numbers_aside(written.replace("0.000099", "9.9e-05")) == _numbers_aside(written)
    assert _numbers_aside(json.dumps(data, indent=2) + "\n") != _numbers_aside(written)
    assert _numbers_aside(json.dumps(data, indent=4, ensure_ascii=False) + "\n") \
        != _numbers_aside(written)


@pytest.mark.parametrize(("concurrency", "workers"), [(1, 0), (4, 0), (1, 2)])
def test_a_fixed_runs_report_equals_the_one_from_before(project, fake_model, concurrency,
                                                        workers) -> None:
    """Serially, with concurrency and under ``-n 2``: one report."""
    report = normalised(fixed_run(project, fake_model, concurrency=concurrency,
                                  workers=workers))
    # The file's form, which people diff: two-space indent, text as written (not \u-escaped).
    # Numbers aside: pydantic writes 9.9e-05 as 0.000099, as JSON allows.
    text = (project.path / "tooleval-report" / "report.json").read_text(encoding="utf-8")
    assert _numbers_aside(text) == _numbers_aside(
        json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n")
    if os.environ.get("TOOLEVAL_WRITE_EXPECTED") and (concurrency, workers) == (1, 0):
        EXPECTED.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    if os.environ.get("TOOLEVAL_DUMP"):
        Path(os.environ["TOOLEVAL_DUMP"], f"{concurrency}-{workers}.json").write_text(
            json.dumps(report, indent=2))
    # The figures that matter most first, for a readable failure; then everything.
    assert report["summary"]["baselines"] == expected["summary"]["baselines"]
    assert report["summary"]["score_interval"] == expected["summary"]["score_interval"]
    assert report["summary"] == expected["summary"]
    assert report == expected


@pytest.mark.parametrize("concurrency", [1, 4])
def test_ctrl_c_keeps_the_journal_and_the_report_with_the_baselines_of_what_ran(
        project, fake_model, concurrency) -> None:
    """Ctrl-C after 10 cases: the journal holds them, the report says interrupted and
    carries the baselines of exactly those cases."""
    from pytest_tooleval.run.journal import read_journal
    from pytest_tooleval.scoring.baselines import refs_for_results, score_policies
    from tests.conftest import report_cases
    from tests.support.interrupt import stop_after

    stop_after(project, 10)
    # In a child process: pytester re-raises an inner run's Ctrl-C in the outer run.
    report = fixed_run(project, fake_model, concurrency=concurrency, subprocess=True,
                       ret=(pytest.ExitCode.INTERRUPTED,))
    assert report["run"]["interrupted"], report["run"]
    assert report["summary"]["deployability"]["verdict"] == "NOT VALID"
    cases = report_cases(report)
    assert len(cases) == 10
    journal = read_journal(project.path / "tooleval-report" / "journal.jsonl")
    assert sorted(journal.cases) == sorted(c.nodeid for c in cases)
    refs = refs_for_results(cases, project.path)
    assert report["summary"]["baselines"] == score_policies(refs, world_base=None)


def test_the_baselines_take_the_case_files_the_run_already_read(project, fake_model,
                                                                  tmp_path) -> None:
    """A file the run loaded is not read again at the end (reading every case file twice
    cost about 1 ms a case); one it did not load is still read from disk."""
    from pytest_tooleval.cases.load import load_case_file
    from pytest_tooleval.scoring.baselines import refs_for_results
    from tests.conftest import report_cases

    report = fixed_run(project, fake_model, concurrency=1)
    cases = report_cases(report)
    files = sorted({c.file for c in cases})
    loaded = {(project.path / f).resolve(): load_case_file(project.path / f) for f in files}
    for path in loaded:
        path.rename(path.with_suffix(".gone"))  # nothing left on disk to read again
    refs = refs_for_results(cases, project.path, loaded)
    assert len(refs) == sum(c.scored for c in cases)
    assert {id(ref.case_file) for ref in refs} <= {id(f) for f in loaded.values()}
    assert refs_for_results(cases, project.path) == []  # and without them: read, gone


def test_the_interval_sentence_and_the_methods_name_every_interval_shown(
        project, fake_model) -> None:
    """Router recall per row, the malformed-call rate and pass^k carry intervals: report.md's
    sentence (the terminal's and report.html's too) and ``summary.statistics.methods`` say
    how each is made; each language's score and the language gap too."""
    report = fixed_run(project, fake_model, "--tooleval-repeat", "2")
    note = next(line for line in project.markdown().splitlines()
                if line.startswith("Intervals ("))
    assert ("the malformed-call rate over the attempts and router recall over the steps by "
            "the Wilson interval; pass^k and pass@k by the bootstrap") in note
    methods = report["summary"]["statistics"]["methods"]
    assert "the malformed-call rate over the attempts" in methods["proportion"]
    assert "router recall over the steps" in methods["proportion"]
    assert "a paired bootstrap" in methods["language_gap"]


def test_model_calls_past_max_tokens_are_counted_where_they_ended_by_themselves() -> None:
    """A server that ignores max_tokens: replies past it were scored and nothing said so.
    A reply cut at the limit is not counted, though llama.cpp may pass it by a token or two
    there (193 of 192 in the reference runs); nor a call without a count, nor any call of a
    run whose max_tokens is not known (a session from pytest_tooleval_make_session)."""
    from pytest_tooleval.engine.transcript import ModelCall, StepTranscript
    from pytest_tooleval.report.model import RunInfo
    from pytest_tooleval.result import CaseResult, Outcome, StepResult
    from pytest_tooleval.run.finish import over_max_tokens
    from tests.conftest import RUN_INFO

    def run_of(*calls: ModelCall) -> list[CaseResult]:
        step = StepResult(transcript=StepTranscript("hi", model_calls=list(calls)))
        return [CaseResult(nodeid="s.yaml::c", file="s.yaml", case="c", outcome=Outcome.PASS,
                           steps=[step])]

    run = RunInfo.model_validate({**RUN_INFO, "model": {"name": "m", "max_tokens": 192}})
    at_most = [ModelCall(1.0, 50, 193, "length"), ModelCall(1.0, 50, 192, "stop"),
               ModelCall(1.0, None, None, "stop")]
    over = over_max_tokens(run_of(ModelCall(1.0, 50, 900, "tool_calls"),
                                  ModelCall(1.0, 50, 5000, "stop"), *at_most), run)
    assert over is not None and over.model_dump() == {
        "max_tokens": 192, "model_calls": 2, "of": 4, "most": 5000}
    assert over_max_tokens(run_of(*at_most), run) is None
    assert over_max_tokens(run_of(ModelCall(1.0, 50, 5000, "stop")),
                           RunInfo.model_validate(RUN_INFO)) is None
