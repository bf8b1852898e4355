"""The end of a run off the critical path (issue 20, item 6): the baselines are scored on a
background thread or in a second process (tests/test_baseline_process.py) while the model
is waited on, and what must run at the end is cheaper.
None of it may change a figure: a fixed run's report.json, timings removed, equals the
one committed from before the change (tests/data/end_of_run_report.json), serially, with
concurrency and under ``-n 2``; a failing, hanging or interrupted background loses
nothing.

Regenerate the expected file (only for a deliberate change of the report) with
``TOOLEVAL_WRITE_EXPECTED=1``.
"""

from __future__ import annotations

import json
import os
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
              subprocess: bool = False, ret: tuple[int, ...] = (0, 1),
              latency: float = 0.0) -> dict[str, Any]:
    server = fake_model(SCRIPT, latency=latency)
    project.profile(server, concurrency=concurrency)
    project.write("scenarios/fixed.yaml", scenario(fixed_cases(), requires=["calculator"]))
    result = project.run("--tooleval-min-cases", "1", "-p", "no:randomly", *args,
                         builtin=True, workers=workers, subprocess=subprocess)
    assert result.ret in ret, result.stdout.str()[-3000:]
    return project.report()


@pytest.mark.parametrize("baselines", ["thread", "process"])
@pytest.mark.parametrize(("concurrency", "workers"), [(1, 0), (4, 0), (1, 2)])
def test_a_fixed_runs_report_equals_the_one_from_before(project, fake_model, monkeypatch,
                                                        concurrency, workers,
                                                        baselines) -> None:
    """The baselines scored on a thread or in a second process (scoring/
    baseline_process.py), serially, with concurrency and under ``-n 2``: one report."""
    monkeypatch.setenv("TOOLEVAL_BASELINES", baselines)
    report = normalised(fixed_run(project, fake_model, concurrency=concurrency,
                                  workers=workers))
    if (os.environ.get("TOOLEVAL_WRITE_EXPECTED") and (concurrency, workers) == (1, 0)
            and baselines == "thread"):
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


# ------------------------------------------------------------ the baselines' thread


def _on_thread(monkeypatch, behave) -> list[str]:
    """Wrap ``BaselineScorer.score``: ``behave()`` runs first when called on the
    baselines' thread. Returns the name of the thread of each case it scored (not of a
    call that found the case scored already). The run scores them on the thread, not in
    a second process (the fixed run's 26 cases would anyway: fewer than 100)."""
    import threading

    monkeypatch.setenv("TOOLEVAL_BASELINES", "thread")

    from pytest_tooleval.scoring.baselines import BaselineScorer

    original = BaselineScorer.score
    threads: list[str] = []

    def score(self, ref, **kwargs):
        name = threading.current_thread().name
        if (ref.nodeid, ref.path, ref.case.name) not in self.done:
            threads.append(name)
        if name == "tooleval-baselines":
            behave()
        return original(self, ref, **kwargs)

    monkeypatch.setattr(BaselineScorer, "score", score)
    return threads


def test_the_baselines_are_scored_on_their_thread_while_the_run_goes_on(
        project, fake_model, monkeypatch) -> None:
    """Each case is scored once; with the model taking 50 ms a call, the thread keeps up
    and scores nearly all of them (the end of the run scores what it had not reached)."""
    threads = _on_thread(monkeypatch, lambda: None)
    report = normalised(fixed_run(project, fake_model, latency=0.05))
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert report["summary"]["baselines"] == expected["summary"]["baselines"]
    assert len(threads) == len(fixed_cases()), threads
    assert threads.count("tooleval-baselines") >= len(fixed_cases()) // 2, threads


def test_a_failing_baselines_thread_loses_nothing(project, fake_model, monkeypatch) -> None:
    """It raises in its third case: the end of the run scores the baselines afresh, and
    the report is the one from before."""
    calls: list[int] = []

    def fail() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("a bug in the baselines' thread")

    _on_thread(monkeypatch, fail)
    report = normalised(fixed_run(project, fake_model))
    assert report == json.loads(EXPECTED.read_text(encoding="utf-8"))


def test_a_stuck_baselines_thread_neither_hangs_nor_loses_the_run(
        project, fake_model, monkeypatch) -> None:
    import threading
    import time

    from pytest_tooleval.scoring import background

    release = threading.Event()
    monkeypatch.setattr(background, "HANDOVER_S", 0.5)
    _on_thread(monkeypatch, lambda: release.wait(60))
    try:
        started = time.perf_counter()
        report = normalised(fixed_run(project, fake_model))
        took = time.perf_counter() - started
    finally:
        release.set()  # the daemon thread ends with the test
    assert report == json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert took < 30, f"{took:.1f} s: the end of the run waited on the stuck thread"


@pytest.mark.parametrize("baselines", ["thread", "process"])
@pytest.mark.parametrize("concurrency", [1, 4])
def test_ctrl_c_with_the_baselines_thread_running_keeps_the_journal_and_the_report(
        project, fake_model, monkeypatch, concurrency, baselines) -> None:
    """Ctrl-C after 10 cases: the journal holds them, the report says interrupted and
    carries the baselines of exactly those cases, as scoring them at the end would (the
    second process, which was given all 26 at collection, answers for those 10)."""
    monkeypatch.setenv("TOOLEVAL_BASELINES", baselines)
    from pytest_tooleval.journal import read_journal
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
