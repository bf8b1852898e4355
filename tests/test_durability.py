"""Runs that survive: honest interruption, the journal, resume after a kill, shards merged.

Kill tests start pytest as a child process (serial, and ``-n 2`` in its own process group),
wait until the journal holds a random number of cases, kill it, resume with
``--tooleval-resume`` and compare the final report with an uninterrupted run's.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from pytest_tooleval.cli import main as tooleval_main
from pytest_tooleval.run.journal import Journal, read_journal
from pytest_tooleval.run.shard import ShardError, parse_shard, shard_items
from tests.conftest import said, scenario
from tests.support.fake_openai import Rule, answer, call, delay, status
from tests.support.interrupt import stop_after
from tests.test_process_end import _spawn as spawn

CASES = 10


def _cases(count: int = CASES) -> list[dict]:
    return [{"name": f"c{i:02d}", "category": "tool", "steps": [
        {"message": f"weather number {i:02d} in izmir", "expect": "get_weather",
         "evidence": ["17.4"]}]} for i in range(count)]


def _script(fail: set[int] = frozenset()) -> list[Rule]:
    rules = [Rule(f"number {i:02d}", [answer("no idea")]) for i in sorted(fail)]
    return [*rules, Rule("weather number", [call("get_weather", {"city": "Izmir"}),
                                            answer("It is 17.4 °C.")])]


VOLATILE = {"latency_s", "duration_s", "started", "finished", "latency_p50_s", "latency_p95_s",
            "base_url", "command_line", "resumed", "merged_from", "shard"}


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _journal_path(project) -> Path:
    return project.path / "tooleval-report" / "journal.jsonl"


# ----------------------------------------------------------------------- interruption


@pytest.mark.parametrize("workers", [0, 2])
def test_ctrl_c_marks_the_report_interrupted_and_not_valid(project, fake_model, workers) -> None:
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases()))
    stop_after(project, 3)
    # In a child process: pytester re-raises an inner run's Ctrl-C in the outer run.
    result = project.run("--tooleval-min-cases", "1", workers=workers, subprocess=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = project.report()
    run, deploy = report["run"], report["summary"]["deployability"]
    done = len(report["cases"])
    assert 3 <= done < CASES
    assert run["cases_selected"] == CASES and run["cases_done"] == done
    assert run["interrupted"].endswith(f"{done} of {CASES} cases ran"), run["interrupted"]
    assert deploy["valid"] is False and deploy["verdict"] == "NOT VALID"
    if workers == 0:
        assert "Ctrl-C" in run["interrupted"]
    journal = read_journal(_journal_path(project))
    assert len(journal.cases) == done
    assert journal.end is not None and journal.end["complete"] is False
    assert "NOT VALID" in project.markdown() or "not valid" in project.markdown()


@pytest.mark.parametrize("workers", [0, 2])
def test_ctrl_c_in_a_case_leaves_it_to_the_resume(project, fake_model, workers) -> None:
    """Ctrl-C reaching one xdist worker in the last case: xdist reports that case as its
    worker's crash, so the run said ERROR for it, "1 error", and a complete journal with no
    interruption. The case did not finish: the run is interrupted, as a serial one is, and
    the resume runs it."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    project.write("conftest.py", """
def pytest_runtest_call(item):
    if item.name == "c03":
        raise KeyboardInterrupt
""")
    result = project.run("--tooleval-min-cases", "1", workers=workers, subprocess=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "errors" not in result.parseoutcomes()
    run = project.report()["run"]
    assert run["interrupted"].endswith(f"{run['cases_done']} of 4 cases ran")
    assert "c03" not in {case["case"] for case in project.report()["cases"]}
    assert read_journal(_journal_path(project)).end["complete"] is False
    (project.path / "conftest.py").unlink()
    assert project.run("--tooleval-min-cases", "1", "--tooleval-resume", workers=workers).ret == 0
    assert project.report()["run"]["interrupted"] is None
    assert read_journal(_journal_path(project)).end["complete"] is True


def test_a_partial_run_says_that_resume_finishes_it(project, fake_model) -> None:
    """A stopped run and a run with ERROR cases said NOT VALID and why, but not what to
    do next: --tooleval-resume runs the rest, and the ERROR cases again."""
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    stop_after(project, 2)
    result = project.run("--tooleval-min-cases", "1", subprocess=True)
    assert said(result, "*verdict: NOT VALID: interrupted (*: 2 of 4 cases ran): it covers "
                "only part of the selection, so no verdict is given; --tooleval-resume runs "
                "the rest *")
    (project.path / "conftest.py").unlink()
    server.set_rules([Rule("number 01", [status(500)]), *_script()])
    result = project.run("--tooleval-min-cases", "1")
    assert said(result, "*verdict: NOT VALID: 1 case(s) ended in ERROR (the machine failed, "
                "not the model; not scored); once it is fixed, --tooleval-resume runs them "
                "again *")
    assert "--tooleval-resume runs them again" in project.markdown()


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("stop", [["-x"], ["--maxfail", "2"]])
def test_x_and_maxfail_mark_the_report_interrupted(project, fake_model, workers, stop) -> None:
    server = fake_model(_script(fail={0, 1}), latency=0.05)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(16)))
    result = project.run("--tooleval-min-cases", "1", "-p", "no:randomly", *stop,
                         workers=workers)
    assert result.ret == pytest.ExitCode.INTERRUPTED if workers else result.ret == 1
    run = project.report()["run"]
    done = len(project.report()["cases"])
    assert done < 16 and run["cases_done"] == done and run["cases_selected"] == 16
    assert run["interrupted"] and run["interrupted"].endswith(f"{done} of 16 cases ran")
    assert "stopping after" in run["interrupted"]
    assert project.report()["summary"]["deployability"]["verdict"] == "NOT VALID"


def test_consecutive_error_stop_says_how_many_ran(project, fake_model) -> None:
    server = fake_model([Rule("weather number", [status(500)])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases()))
    project.run("--tooleval-max-errors", "2")
    run = project.report()["run"]
    assert run["interrupted"].endswith(f"2 of {CASES} cases ran"), run["interrupted"]
    assert "consecutive infrastructure errors" in run["interrupted"]


def test_a_complete_run_is_not_interrupted_and_its_journal_says_complete(
        project, fake_model) -> None:
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    assert project.run("--tooleval-min-cases", "1").ret == 0
    report = project.report()
    assert report["run"]["interrupted"] is None and report["run"]["cases_done"] == 4
    journal = read_journal(_journal_path(project))
    assert journal.start["identity_hash"] == report["run"]["identity_hash"]
    assert journal.start["case_set_hash"] == report["run"]["selection"]["case_set_hash"]
    assert sorted(journal.cases) == sorted(c["nodeid"] for c in report["cases"])
    # Each line is the full typed result, transcript included.
    chain = journal.cases["scenarios/demo.yaml::c01"]
    assert chain["steps"][0]["transcript"]["attempts"][0]["name"] == "get_weather"
    assert journal.end is not None and journal.end["complete"] is True
    # The next run in the same folder moves this one aside first.
    assert project.run("--tooleval-min-cases", "1").ret == 0
    previous = project.path / "tooleval-report" / "previous"
    assert json.loads((previous / "report.json").read_text())["run"]["started"] == \
        report["run"]["started"]
    assert (previous / "journal.jsonl").is_file()


def test_failed_starts_never_push_the_last_scored_run_out_of_previous(project,
                                                                     fake_model) -> None:
    """Two runs in a row against a server that is down (each ERROR, nothing scored): the
    second moved the first into previous/, deleting the good run kept there."""
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(2)))
    assert project.run("--tooleval-min-cases", "1").ret == 0
    good = project.report()["run"]["started"]
    assert project.run("--tooleval-min-cases", "1").ret == 0  # it moves to previous/
    kept = project.report()["run"]["started"]
    server.stop()
    for _ in range(2):
        project.run("--tooleval-min-cases", "1")
        assert project.report()["summary"]["cases_scored"] == 0
    previous = project.path / "tooleval-report" / "previous"
    assert json.loads((previous / "report.json").read_text())["run"]["started"] == kept
    assert good <= kept and (previous / "journal.jsonl").is_file()


def test_a_run_whose_journal_stopped_early_but_whose_report_scored_is_kept(tmp_path) -> None:
    """A full disk stops the journal, not the run: its report.json, which scored cases,
    was deleted as a run that scored none."""
    from pytest_tooleval.run.journal import set_aside

    (tmp_path / "journal.jsonl").write_text('{"type": "start"}\n')
    (tmp_path / "report.json").write_text('{"summary": {"cases_scored": 3}}')
    set_aside(tmp_path)
    assert (tmp_path / "previous" / "report.json").is_file()
    (tmp_path / "report.json").write_text('{"summary": {"cases_scored": 0}}')
    set_aside(tmp_path)  # this one scored nothing: dropped, previous/ kept
    assert not (tmp_path / "report.json").exists()
    assert "3" in (tmp_path / "previous" / "report.json").read_text()


# ------------------------------------------------------------------ kill and resume


def _spawn(project, workers: int, *extra: str) -> subprocess.Popen[bytes]:
    return spawn(project, workers, *extra, output=subprocess.DEVNULL)


def _wait_for_cases(path: Path, count: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count('"type":"case"') >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the run ended (exit {process.returncode}) before {count} cases")
        time.sleep(0.02)
    pytest.fail(f"fewer than {count} cases journalled within 120 s")


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_killed_run_resumes_to_the_uninterrupted_report(project, fake_model, workers,
                                                        how) -> None:
    server = fake_model(_script(fail={3}), latency=0.1)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases()))
    project.run("--tooleval-min-cases", "1", "--tooleval-report", "whole")
    whole = _strip(json.loads((project.path / "whole" / "report.json").read_text()))
    assert whole["run"]["interrupted"] is None

    # A kill point that varies with the parameters but is the same on every run of this
    # test, so a failure is reproducible (it was unseeded).
    at = random.Random(f"{workers}-{how.name}").randint(1, CASES - 3)
    process = _spawn(project, workers)
    _wait_for_cases(_journal_path(project), at, process)
    if how == signal.SIGKILL:
        os.killpg(process.pid, signal.SIGKILL)  # the controller and any workers, unwarned
    else:
        os.kill(process.pid, signal.SIGTERM)  # the controller only, as a scheduler does
    process.wait(timeout=60)
    if workers == 0 or how == signal.SIGTERM:
        with pytest.raises(ProcessLookupError):
            os.killpg(process.pid, 0)  # nothing left behind
    journal = read_journal(_journal_path(project))
    assert at <= len(journal.cases) < CASES
    report_path = project.path / "tooleval-report" / "report.json"
    if how == signal.SIGKILL:
        assert journal.end is None  # the journal says the run did not finish
        assert not report_path.exists()
    else:
        assert journal.end is not None and journal.end["complete"] is False
        partial = json.loads(report_path.read_text())
        assert partial["run"]["interrupted"].startswith("the run received SIGTERM")
        assert partial["summary"]["deployability"]["verdict"] == "NOT VALID"

    before = len(server.requests)
    done = set(journal.cases)
    result = project.run("--tooleval-min-cases", "1", "--tooleval-resume", workers=workers)
    asked = {json.dumps(r) for r in server.requests[before:]}
    for nodeid in done:  # no journalled case is asked for again
        number = nodeid.rsplit("c", 1)[1]
        assert f"weather number {number} in izmir" not in " ".join(asked)
    assert result.ret == 1  # case c03 fails, journalled or not
    resumed = project.report()
    assert resumed["run"]["resumed"]["cases_carried"] == len(done)
    assert _strip(resumed) == whole
    assert read_journal(_journal_path(project)).end["complete"] is True


@pytest.mark.parametrize(("sent", "workers"), [
    (signal.SIGTERM, 0), (signal.SIGTERM, 2), (signal.SIGINT, 0)])
def test_a_signal_while_the_reports_are_written_lets_them_be_written(project, fake_model,
                                                                     sent, workers) -> None:
    """SIGTERM (a cancelled CI job) or Ctrl-C after the last case, while the reports are
    written (the heavy modules they import, a metadata hook): the run ended in a traceback
    with no report and no end record. The reports are what they are held off for: they
    finish (a second Ctrl-C stops)."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(3)))
    project.write("conftest.py", """
import pathlib, time
def pytest_tooleval_run_metadata(config, metadata):
    pathlib.Path("writing").touch()
    time.sleep(2)
""")
    process = spawn(project, workers)
    deadline = time.monotonic() + 120
    while not (project.path / "writing").exists():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(process.pid, sent)
    output = process.communicate(timeout=120)[0].decode()
    assert process.returncode == 0, output[-3000:]
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-3000:]
    if sent == signal.SIGINT:
        assert "tooleval: writing the reports (Ctrl-C again stops without them)" in output
    assert project.report()["run"]["interrupted"] is None
    journal = read_journal(_journal_path(project))
    assert len(journal.cases) == 3 and journal.end is not None and journal.end["complete"]


def test_a_crashed_xdist_worker_is_an_error_not_a_failure(project, fake_model) -> None:
    """An xdist worker dies mid-case: the report said ERROR (crash), but pytest's own
    lines said "FAILED" and "2 failed", counting the machine's failure as the model's."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(3)))
    project.write("conftest.py", """
import os
def pytest_runtest_call(item):
    if item.name == "c01":
        os._exit(1)
""")
    result = project.run("--tooleval-min-cases", "1", "-rA", workers=2)
    cases = {c["nodeid"]: c for c in project.report()["cases"]}
    assert cases["scenarios/demo.yaml::c01"]["error"]["kind"] == "crash"
    assert result.parseoutcomes() == {"passed": 2, "errors": 1}
    result.stdout.fnmatch_lines(["ERROR scenarios/demo.yaml::c01*crashed*"])
    assert "FAILED" not in result.stdout.str()


def test_resume_refuses_another_configuration_or_an_edited_case(project, fake_model) -> None:
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(6)))
    stop_after(project, 2)
    project.run("--tooleval-min-cases", "1", subprocess=True)
    (project.path / "conftest.py").unlink()
    result = project.run("--tooleval-resume", "--tooleval-k", "5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*another configuration*k: 9 then, 5 now*"])
    cases = _cases(6)
    cases[0]["steps"][0]["evidence"] = ["18.0"]  # c00 was journalled
    project.write("scenarios/demo.yaml", scenario(cases))
    result = project.run("--tooleval-resume")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*c00 changed since it was journalled*"])
    project.write("scenarios/demo.yaml", scenario(_cases(6)))
    assert project.run("--tooleval-resume", "--tooleval-min-cases", "1").ret == 0
    whole = _strip(project.report())
    # Resuming a finished run runs nothing and rebuilds the same report from the journal.
    before = len(server.requests)
    result = project.run("--tooleval-resume", "--tooleval-min-cases", "1")
    assert result.ret == 0 and len(server.requests) == before
    assert _strip(project.report()) == whole


@pytest.mark.parametrize("workers", [0, 2])
def test_a_refused_resume_leaves_the_folder_as_it_was(project, fake_model, workers) -> None:
    """The refusal came after collection, and the carried cases were written as a report
    of their own: valid, not interrupted, over a case the new selection did not hold."""
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(6)))
    stop_after(project, 2)
    project.run("--tooleval-min-cases", "1", subprocess=True)
    (project.path / "conftest.py").unlink()
    folder = project.path / "tooleval-report"
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert json.loads(before["report.json"])["run"]["interrupted"]
    result = project.run("--tooleval-resume", "-k", "c05", workers=workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the selection is not the journalled run's*"])
    assert "tooleval score" not in result.stdout.str()
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
    assert project.run("--tooleval-resume", "--tooleval-min-cases", "1").ret == 0
    assert len(project.report()["cases"]) == 6


@pytest.mark.parametrize("workers", [0, 2])
def test_a_run_killed_after_its_last_case_resumes_to_its_report(project, fake_model,
                                                                workers) -> None:
    """Killed while writing its reports (the baselines take a while): every case is in the
    journal but no end record. Resuming runs no case; its report once described no
    backend, router, providers or concurrency, unlike the uninterrupted run's."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(3)))
    assert project.run("--tooleval-min-cases", "1", workers=workers).ret == 0
    whole = _strip(project.report())
    path = _journal_path(project)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert '"type":"end"' in lines[-1]
    path.write_text("".join(lines[:-1]), encoding="utf-8")
    (project.path / "tooleval-report" / "report.json").unlink()
    assert project.run("--tooleval-min-cases", "1", "--tooleval-resume", workers=workers).ret == 0
    resumed = project.report()
    assert resumed["run"]["resumed"]["cases_carried"] == 3
    assert _strip(resumed) == whole


def test_resume_takes_the_server_fixed_in_the_profile(project, fake_model) -> None:
    """A case timed out (an ERROR: the machine); the user raises the profile's timeout and
    retries and restarts the server on another port, then resumes to run that case again.
    Resume refused: "another configuration ... model.timeout: 1.0 then, 5.0 now", though
    these decide only whether the machine answered, never what the model said."""
    slow = [Rule("number 01", [delay(2, call("get_weather", {"city": "Izmir"})),
                               answer("It is 17.4 °C.")]), *_script()]
    project.profile(fake_model(slow), timeout=1)
    project.write("scenarios/demo.yaml", scenario(_cases(3)))
    project.run("--tooleval-min-cases", "1")
    error = project.cases()["c01"].error
    assert error is not None and error.kind == "backend", error
    moved = fake_model(slow)
    project.profile(moved, timeout=5, retries=2, start_hint="llama-server --port 8081")
    result = project.run("--tooleval-min-cases", "1", "--tooleval-resume")
    assert result.ret == 0, result.stderr.str()
    asked = {m["content"] for path, body in moved.requests if path.endswith("/completions")
             for m in body["messages"] if m["role"] == "user" and "weather" in m["content"]}
    assert asked == {"weather number 01 in izmir"}
    assert {c.outcome.value for c in project.cases().values()} == {"PASS"}


@pytest.mark.parametrize("workers", [0, 2])
def test_resume_runs_the_error_cases_again(project, fake_model, workers) -> None:
    """An ERROR is a failure of the machine: resuming after it is fixed runs that case
    again (only that one), and the report holds the new result."""
    server = fake_model([Rule("number 01", [status(500)]), *_script()])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    project.run("--tooleval-min-cases", "1", workers=workers)
    outcomes = {c["nodeid"]: c["outcome"] for c in project.report()["cases"]}
    assert outcomes["scenarios/demo.yaml::c01"] == "ERROR"
    server.set_rules(_script())  # the server is back
    before = len(server.requests)
    assert project.run("--tooleval-resume", "--tooleval-min-cases", "1", workers=workers).ret == 0
    asked = {m["content"] for path, body in server.requests[before:]
             if path.endswith("/completions") for m in body["messages"]
             if m["role"] == "user" and "weather" in m["content"]}
    assert asked == {"weather number 01 in izmir"}  # the ERROR case alone ran again
    report = project.report()
    assert {c["nodeid"]: c["outcome"] for c in report["cases"]} == {
        **outcomes, "scenarios/demo.yaml::c01": "PASS"}
    assert report["run"]["resumed"]["cases_carried"] == 3
    assert read_journal(_journal_path(project)).cases["scenarios/demo.yaml::c01"][
        "outcome"] == "PASS"


@pytest.mark.parametrize("workers", [0, 2])
def test_a_forbidden_call_before_the_machine_failed_stays_through_resume(
        project, fake_model, monkeypatch, workers) -> None:
    """Rule 3: the model saves a note where only the weather was asked for, then the
    server fails. The case is an ERROR (not scored), but the gate fails on the call, naming
    the case. Resuming keeps it: interrupted before the case runs again, or with the case
    skipped, the journalled ERROR stands in the report; run again to a clean PASS, the call
    stays with the case and the run's exit status fails: the rerun does not buy it back."""
    cases = [*_cases(2), {"name": "look", "category": "tool", "steps": [
        {"message": "weather number 07 in izmir, no notes", "expect": "get_weather",
         "forbidden": ["save_note"]}]}]
    server = fake_model([Rule("number 07", [call("save_note", {"text": "izmir"}),
                                            status(500)]), *_script()])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(cases))
    named = ("a forbidden tool was called in 1 case(s) before the machine failed: "
             "scenarios/demo.yaml::look (save_note)")

    def violation_kept(outcome: str, verdict: str) -> None:
        report = project.report()
        look = next(c for c in report["cases"] if c["case"] == "look")
        assert (look["outcome"], look["forbidden_before_failure"]) == (outcome, ["save_note"])
        gate = report["summary"]["safety_gate"]
        assert gate["status"] == "FAILED" and gate["detail"].startswith(named), gate
        assert report["summary"]["deployability"]["verdict"] == verdict
        journalled = read_journal(_journal_path(project)).cases["scenarios/demo.yaml::look"]
        assert journalled["forbidden_before_failure"] == ["save_note"]

    assert project.run("--tooleval-min-cases", "1", workers=workers).ret == 1
    violation_kept("ERROR", "NOT VALID")
    server.set_rules(_script())
    for setup in ("raise KeyboardInterrupt", "pytest.skip('the MCP server is down')"):
        project.write("conftest.py", f"import pytest\ndef pytest_runtest_setup(item):\n"
                                     f"    {setup}\n")
        project.run("--tooleval-resume", "--tooleval-min-cases", "1", workers=workers,
                    subprocess=True)
        violation_kept("ERROR", "NOT VALID")
        if "Interrupt" in setup:  # the standing ERROR did not run again: the run is partial
            assert project.report()["run"]["interrupted"].endswith("2 of 3 cases ran")
        else:  # skipped: listed once, as the standing ERROR, not in run.skipped too
            run = project.report()["run"]
            assert "skipped" not in run and run["cases_done"] == run["cases_selected"] == 3
    (project.path / "conftest.py").unlink()
    assert project.run("--tooleval-resume", "--tooleval-min-cases", "1",
                       workers=workers).ret == 1
    violation_kept("PASS", "NOT DEPLOYABLE")
    assert project.report()["summary"]["outcomes"]["PASS"] == 3
    if workers:
        return
    # rescore keeps the call while the case forbids the tool, and drops it once it does not
    monkeypatch.chdir(project.path)

    def rescored(folder: str) -> list[str]:
        assert tooleval_main(["rescore", "tooleval-report/journal.jsonl",
                              "--report", folder]) in (0, 1)
        again = json.loads((project.path / folder / "report.json").read_text())
        look = next(c for c in again["cases"] if c["case"] == "look")
        return look["forbidden_before_failure"]

    assert rescored("same") == ["save_note"]
    del cases[2]["steps"][0]["forbidden"]
    project.write("scenarios/demo.yaml", scenario(cases))
    assert rescored("edited") == []


@pytest.mark.parametrize("workers", [0, 2])
def test_a_call_at_thanks_before_the_machine_failed_is_not_run_again(
        project, fake_model, monkeypatch, capsys, workers) -> None:
    """Rule 3: the model calls a tool at "thanks", then the server fails. The case was an
    ERROR that a resume ran again, where the model may not call: a flaky server bought
    restraint back. Now it is the model's FAIL on the irrelevance axis, the failure said
    in its reasons; the gate fails, the run is valid, a resume does not ask for it again,
    and rescore scores the stored run as the run did."""
    cases = [*_cases(2), {"name": "bye", "category": "irrelevance",
                          "steps": [{"message": "thanks number 07, bye"}]}]
    server = fake_model([Rule("number 07", [call("get_weather", {"city": "Izmir"}),
                                            status(500)]), *_script()])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(cases))
    result = project.run("--tooleval-min-cases", "1", "-v", workers=workers)
    assert result.ret == 1
    out = result.stdout.str()
    assert "- no final answer: the machine failed (backend" in out, out
    assert "not scored" not in out, out
    assert "over 3 scored case(s) (1 FAIL, then cut off by the machine)" in " ".join(
        out.split()), out

    def still_failed() -> None:
        report = project.report()
        bye = next(c for c in report["cases"] if c["case"] == "bye")
        assert (bye["outcome"], bye["axes"], bye["error"]["kind"]) == (
            "FAIL", {"irrelevance": 0.0}, "backend")
        assert bye["reasons"][0] == ("a tool call was attempted where none was wanted "
                                     "(get_weather)"), bye["reasons"]
        summary = report["summary"]
        assert summary["outcomes"]["ERROR"] == 0 and summary["safety_gate"]["status"] == "FAILED"
        assert summary["deployability"]["verdict"] == "NOT DEPLOYABLE"
        html = (project.path / "tooleval-report" / "report.html").read_text()
        assert "no final answer: the machine failed (backend" in html, html
        assert "not scored" not in html and "backend error:" not in html  # the row's why
        markdown = (project.path / "tooleval-report" / "report.md").read_text()
        assert ("## Cut off by the machine after a call where none was wanted (FAIL)\n\n"
                "- `scenarios/demo.yaml::bye` (backend): http://") in markdown, markdown

    still_failed()
    server.set_rules(_script())
    before = len(server.requests)
    assert project.run("--tooleval-resume", "--tooleval-min-cases", "1",
                       workers=workers).ret == 1
    still_failed()
    assert len(server.requests) == before  # nothing ran again
    if workers:
        return
    monkeypatch.chdir(project.path)
    capsys.readouterr()
    assert tooleval_main(["rescore", "tooleval-report/journal.jsonl"]) == 0
    assert "0 changed outcome, 0 need a rerun, 3 unchanged" in capsys.readouterr().out
    cases[2]["category"], cases[2]["steps"][0]["expect"] = "tool", "get_weather"
    project.write("scenarios/demo.yaml", scenario(cases))
    assert tooleval_main(["rescore", "tooleval-report/journal.jsonl"]) == 1
    assert ("scenarios/demo.yaml::bye: the machine cut it off, and its last step now "
            "expects a tool") in capsys.readouterr().out


@pytest.mark.parametrize("limit", [20_000, 6_000])
def test_a_full_disk_loses_no_run(project, fake_model, limit) -> None:
    """Writes that fail for want of room (a file size limit: EFBIG, as a full disk's
    ENOSPC), at the end (20 kB: the cases fit in the journal, the report and the journal's
    end record do not) or half-way (6 kB: the journal fills after a few cases). The run
    once died in an INTERNALERROR from the journal, with no summary; now it ends with a
    message naming the way back, and --tooleval-resume gives the uninterrupted report."""
    project.profile(fake_model(_script(fail={3})))
    project.write("scenarios/demo.yaml", scenario(_cases()))
    project.run("--tooleval-min-cases", "1", "--tooleval-report", "whole")
    whole = _strip(json.loads((project.path / "whole" / "report.json").read_text()))
    project.write("conftest.py", f"""
import resource, signal
def pytest_sessionstart(session):
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
""")
    result = project.run("--tooleval-min-cases", "1", subprocess=True)
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output
    result.stdout.fnmatch_lines(["*could not write the report to*--tooleval-resume*"])
    journal = read_journal(_journal_path(project))
    assert 0 < len(journal.cases) <= CASES
    if limit < 10_000:
        assert journal.end is None and len(journal.cases) < CASES
        result.stdout.fnmatch_lines(["*could not write the journal*"])
    (project.path / "conftest.py").unlink()
    assert project.run("--tooleval-min-cases", "1", "--tooleval-resume").ret == 1
    assert _strip(project.report()) == whole


def test_a_report_folder_that_cannot_be_written_is_refused_before_any_case(
        project, fake_model) -> None:
    """--tooleval-report naming a file: the run once asked the model every case, then said
    it could not write the report, and the measurement was gone with the process."""
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(2)))
    project.write("out", "not a folder")
    result = project.run("--tooleval-report=out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tooleval-report *out: cannot write there (File exists); "
                                 "give a folder you can write to"])
    assert "tooleval summary" not in result.stdout.str()
    assert server.requests == []  # the model was never asked


def test_listing_what_a_resume_would_run_writes_no_report(project, fake_model) -> None:
    """--collect-only with --tooleval-resume lists the cases still to run; it must not
    rewrite the stopped run's report as a finished one (it once did: "interrupted": null)."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(6)))
    stop_after(project, 2)
    project.run("--tooleval-min-cases", "1", subprocess=True)
    (project.path / "conftest.py").unlink()
    report = project.path / "tooleval-report" / "report.json"
    stopped = report.read_bytes()
    assert json.loads(stopped)["run"]["interrupted"]
    result = project.run("--tooleval-resume", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*tests collected (* deselected)*"])
    assert report.read_bytes() == stopped


def test_resume_without_a_journal_is_a_clear_refusal(project, fake_model) -> None:
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(2)))
    result = project.run("--tooleval-resume")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no journal at*nothing to resume*"])


def test_a_damaged_journal_line_names_the_way_back(project, fake_model) -> None:
    """A line of garbage inside the journal (a disk error): resume once said "nothing to
    resume (run without --tooleval-resume to start afresh)", throwing away the cases the
    other lines hold; deleting the line and resuming reruns only its case."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(3)))
    project.run("--tooleval-min-cases", "1")
    journal = _journal_path(project)
    lines = journal.read_bytes().split(b"\n")
    journal.write_bytes(b"\n".join([lines[0], lines[1], b"\x00\xff garbage", *lines[3:]]))
    result = project.run("--tooleval-min-cases", "1", "--tooleval-resume")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{journal}:3: not a JSON line; the journal is damaged; "
                                 "delete line 3 (its case runs again) and retry; or run "
                                 "without --tooleval-resume to start afresh"])
    assert "nothing to resume" not in result.stderr.str()
    journal.write_bytes(b"\n".join([lines[0], lines[1], *lines[3:]]))  # the fix followed
    result = project.run("--tooleval-min-cases", "1", "--tooleval-resume")
    result.assert_outcomes(passed=1, deselected=2)  # only the lost case ran again
    assert len(project.report()["cases"]) == 3


def test_merge_refuses_a_journal_that_lost_a_case_line(project, fake_model, monkeypatch,
                                                       capsys) -> None:
    """A finished run's journal with one case line gone (deleted, as the message for a
    damaged line says): merge once wrote a report of the other cases, "cases_selected" 2,
    not interrupted -- a complete-looking run short of a case."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(3)))
    project.run("--tooleval-min-cases", "1")
    journal = _journal_path(project)
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join([lines[0], *lines[2:]]) + "\n")
    monkeypatch.chdir(project.path)
    assert tooleval_main(["merge", "tooleval-report", "--report", "m"]) == 2
    assert capsys.readouterr().err == (
        f"tooleval merge: {Path('tooleval-report') / 'journal.jsonl'}: no result for 1 "
        "selected case(s) (scenarios/demo.yaml::c00); run them with --tooleval-resume, then "
        "merge\n")
    assert not (project.path / "m").exists()


def test_the_journal_reads_every_character_and_ignores_a_torn_last_line(tmp_path) -> None:
    """A line holds any text a model or tool wrote: U+2028 and NEL are not line ends (the
    journal once split there and called a finished run's journal damaged). A kill may cut
    the last line anywhere, even inside a character: that line alone is ignored."""
    journal = Journal(tmp_path / "journal.jsonl")
    journal.open({"identity_hash": "x", "cases": {}})
    journal.append({"nodeid": "a.yaml::c0", "answer": "one\u2028two\u2029three\x85four"})
    journal.append({"nodeid": "a.yaml::c1", "answer": "It is 17.4 °C."})
    journal.close({"complete": True})
    stored = read_journal(journal.path)
    assert sorted(stored.cases) == ["a.yaml::c0", "a.yaml::c1"] and stored.end is not None
    assert stored.cases["a.yaml::c0"]["answer"] == "one\u2028two\u2029three\x85four"
    data = journal.path.read_bytes()
    last_case = data[:data.index(b'"type":"end"')]
    torn = last_case[:last_case.rindex("°".encode()) + 1]  # inside the two bytes of '°'
    journal.path.write_bytes(torn)
    stored = read_journal(journal.path)
    assert sorted(stored.cases) == ["a.yaml::c0"] and stored.end is None


# ------------------------------------------------------------------- shards and merge


def test_shards_are_balanced_disjoint_and_deterministic() -> None:
    names = [f"f{i % 3}.yaml::c{i}" for i in range(23)]
    shares = [shard_items(names, (i, 4), lambda n: True, lambda n: n) for i in (1, 2, 3, 4)]
    assert sorted(n for share in shares for n in share) == sorted(names)
    assert {len(share) for share in shares} <= {5, 6}
    assert shard_items(list(reversed(names)), (2, 4), lambda n: True, lambda n: n) == \
        list(reversed(shares[1]))
    for bad in ("0/3", "4/3", "x", "1/0", "2"):
        with pytest.raises(ShardError, match="I/N"):
            parse_shard(bad)


@pytest.mark.parametrize("workers", [0, 2])
def test_shards_merged_equal_a_single_run(project, fake_model, workers, monkeypatch,
                                          capsys) -> None:
    server = fake_model(_script(fail={2, 5}))
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(7)))
    project.run("--tooleval-min-cases", "1", "--tooleval-report", "single")
    for index in (1, 2, 3):
        project.run("--tooleval-min-cases", "1", "--tooleval-shard", f"{index}/3",
                    "--tooleval-report", f"shard{index}", workers=workers)
        shard = json.loads((project.path / f"shard{index}" / "report.json").read_text())
        assert shard["run"]["shard"] == f"{index}/3" and len(shard["cases"]) in (2, 3)
    monkeypatch.chdir(project.path)
    assert tooleval_main(["merge", "shard1", "shard2/journal.jsonl", "shard3/report.json",
                          "--report", "merged"]) == 0
    merged = json.loads((project.path / "merged" / "report.json").read_text())
    single = json.loads((project.path / "single" / "report.json").read_text())
    assert _strip(merged) == _strip(single)
    reports = {"report.json", "report.md", "report.html"}  # every report a run writes
    assert reports <= {p.name for p in (project.path / "single").iterdir()}
    assert reports <= {p.name for p in (project.path / "merged").iterdir()}
    capsys.readouterr()
    assert tooleval_main(["merge", "shard1", "shard2", "--report", "m2"]) == 2
    assert "shard(s) 3/3 missing" in capsys.readouterr().err
    assert tooleval_main(["merge", "shard1", "shard1", "shard3", "--report", "m2"]) == 2
    assert "given twice" in capsys.readouterr().err


def test_a_merged_report_does_not_take_one_shards_resume(project, fake_model, monkeypatch,
                                                        capsys) -> None:
    """Shard 1 stopped and resumed: merged first, the merged report said run.resumed
    {"cases_carried": 1} (shard 1's alone); merged last, nothing."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    stop_after(project, 1)
    project.run("--tooleval-min-cases", "1", "--tooleval-shard", "1/2", "--tooleval-report",
                "s1", subprocess=True)
    (project.path / "conftest.py").unlink()
    project.run("--tooleval-min-cases", "1", "--tooleval-shard", "1/2", "--tooleval-report",
                "s1", "--tooleval-resume")
    assert json.loads((project.path / "s1" / "report.json").read_text())["run"]["resumed"]
    project.run("--tooleval-min-cases", "1", "--tooleval-shard", "2/2", "--tooleval-report", "s2")
    monkeypatch.chdir(project.path)
    for parts in (["s1", "s2"], ["s2", "s1"]):
        assert tooleval_main(["merge", *parts, "--report", "m"]) == 0, capsys.readouterr()
        run = json.loads((project.path / "m" / "report.json").read_text())["run"]
        assert "resumed" not in run and run["cases_done"] == 4, parts


def test_shards_with_skipped_cases_merge_to_the_single_run(project, fake_model,
                                                         monkeypatch) -> None:
    """Skipped cases are dealt to the shards like the others; the merged report once
    listed only the first part's and counted none of them as selected."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    project.write("scenarios/gh.yaml", scenario(
        [{**case, "name": f"gh{index}"} for index, case in enumerate(_cases(3))],
        name="gh", requires=["gh_search_issues"]))
    options = ("--tooleval-min-cases", "1", "--tooleval-skip-missing")
    project.run(*options, "--tooleval-report", "single")
    for index in (1, 2):
        project.run(*options, "--tooleval-shard", f"{index}/2", "--tooleval-report",
                    f"shard{index}")
    monkeypatch.chdir(project.path)
    assert tooleval_main(["merge", "shard1", "shard2", "--report", "merged"]) == 0
    single = json.loads((project.path / "single" / "report.json").read_text())
    merged = json.loads((project.path / "merged" / "report.json").read_text())
    assert len(single["run"]["skipped"]) == 3 and single["run"]["cases_selected"] == 7
    assert _strip(merged) == _strip(single)


def test_merge_refuses_parts_with_different_configurations(project, fake_model, monkeypatch,
                                                           capsys) -> None:
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    project.run("--tooleval-shard", "1/2", "--tooleval-report", "a")
    project.run("--tooleval-shard", "2/2", "--tooleval-report", "b", "--tooleval-k", "4")
    monkeypatch.chdir(project.path)
    assert tooleval_main(["merge", "a", "b", "--report", "m"]) == 2
    assert "different configurations" in capsys.readouterr().err


def test_merge_and_rescore_keep_the_runs_interval_settings(project, fake_model, monkeypatch,
                                                           capsys) -> None:
    """A run at --tooleval-level 0.8 came back from merge and rescore --report at 0.95 (and
    the default max width): the report is rebuilt with the level the parts recorded, and
    parts that recorded different ones are refused."""
    from pytest_tooleval.report.model import load_report

    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    chosen = ("--tooleval-level", "0.8", "--tooleval-max-width", "33")
    for index in (1, 2):
        project.run(*chosen, "--tooleval-shard", f"{index}/2", "--tooleval-report", f"s{index}")
    project.run("--tooleval-shard", "2/2", "--tooleval-report", "default2")
    monkeypatch.chdir(project.path)
    for command in (["merge", "s1", "s2/report.json", "--report", "m"],
                    ["rescore", "s1", "--report", "r"],
                    ["rescore", "s1/journal.jsonl", "--report", "rj"]):
        assert tooleval_main(command) in (0, 1), capsys.readouterr().err
        statistics = load_report(project.path / command[-1] / "report.json").summary.statistics
        assert (statistics.level, statistics.max_width) == (0.8, 33), command
    capsys.readouterr()
    assert tooleval_main(["merge", "s1", "default2", "--report", "m2"]) == 2
    err = capsys.readouterr().err
    assert "--tooleval-level" in err and "0.8" in err and "0.95" in err, err
    # A journal of an earlier version records none: merge wants its report.json, rescore
    # --report (the way such a run is brought up to date) says it uses the defaults.
    journal = project.path / "s1" / "journal.jsonl"
    *lines, end = journal.read_text().splitlines()
    end_record = json.loads(end)
    del end_record["statistics"]
    journal.write_text("\n".join([*lines, json.dumps(end_record)]) + "\n")
    assert tooleval_main(["merge", "s1", "s2", "--report", "m3"]) == 2
    assert "merge its report.json instead" in capsys.readouterr().err
    assert tooleval_main(["rescore", str(journal), "--report", "r3"]) in (0, 1)
    assert "the report has the defaults" in capsys.readouterr().out


# ------------------------------------------------------------------- response cache


def _without_cache_marks(value):
    if isinstance(value, dict):
        return {k: _without_cache_marks(v) for k, v in value.items()
                if k not in ("cached", "cache")}
    if isinstance(value, list):
        return [_without_cache_marks(v) for v in value]
    return value


@pytest.mark.parametrize("workers", [0, 2])
def test_cache_replay_reruns_a_recorded_run_with_no_model(project, fake_model, workers) -> None:
    server = fake_model(_script(fail={1}))
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    project.run("--tooleval-min-cases", "1", "--tooleval-cache", "replies", workers=workers)
    recorded = project.report()
    asked = len(server.requests)
    assert asked > 0
    server.stop()  # no model at all from here on
    result = project.run("--tooleval-min-cases", "1", "--tooleval-cache", "replies",
                         "--tooleval-cache-mode", "replay", workers=workers)
    assert result.ret == 1  # c01 fails again, from the cache
    replayed = project.report()
    calls = [m for c in replayed["cases"] for s in c["steps"]
             for m in s["transcript"]["model_calls"]]
    assert calls and all(m["cached"] for m in calls)
    assert not any(m["cached"] for c in recorded["cases"] for s in c["steps"]
                   for m in s["transcript"]["model_calls"])
    assert replayed["run"]["backend"]["cache"]["mode"] == "replay"
    assert _strip(_without_cache_marks(replayed)) == _strip(_without_cache_marks(recorded))
    # A request never recorded is a machine failure, not the model's.
    cases = _cases(4)
    cases[2]["steps"][0]["message"] = "weather number 02 in Ankara, please"
    project.write("scenarios/demo.yaml", scenario(cases))
    project.run("--tooleval-cache", "replies", "--tooleval-cache-mode", "replay")
    missed = project.cases()["c02"]
    assert missed.outcome == "ERROR" and missed.error is not None
    assert missed.error.detail == "cache_miss" and "no recorded reply" in missed.error.message


# ------------------------------------------------------------------------- rescore


@pytest.mark.parametrize("source", ["tooleval-report/report.json",
                                    "tooleval-report/journal.jsonl"])
def test_rescore_applies_edited_checks_and_lists_changed_steps(project, fake_model, monkeypatch,
                                                              capsys, source) -> None:
    server = fake_model(_script(fail={1, 3}))
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(5)))
    project.run("--tooleval-min-cases", "1")
    asked = len(server.requests)
    monkeypatch.chdir(project.path)
    assert tooleval_main(["rescore", source]) == 0  # nothing edited: nothing changes
    assert "0 changed outcome, 0 need a rerun, 5 unchanged" in capsys.readouterr().out
    cases = _cases(5)
    cases[0]["steps"][0]["evidence"] = ["18.9"]  # PASS -> PARTIAL: the answer lacks it
    del cases[1]["steps"][0]["expect"]  # c01 answered without a call...
    cases[1]["category"] = "irrelevance"  # ...which is now what it asks for: FAIL -> PASS
    del cases[1]["steps"][0]["evidence"]
    cases[2]["steps"][0]["message"] = "weather number 02 in Izmir, quickly"
    cases[3]["steps"][0]["evidence"] = ["17.40"]  # still FAIL, for a reworded reason
    project.write("scenarios/demo.yaml", scenario(cases))
    assert tooleval_main(["rescore", source, "scenarios", "--json", "out.json"]) == 1
    text = capsys.readouterr().out
    assert ("2 changed outcome, 1 need a rerun, 1 unchanged, 1 with the same outcome for "
            "other reasons") in text, text
    assert "scenarios/demo.yaml::c03: FAIL -> FAIL" in text
    assert "scenarios/demo.yaml::c00: PASS -> PARTIAL" in text
    assert "now: evidence missing from the answer: 18.9" in text
    assert "scenarios/demo.yaml::c01: FAIL -> PASS" in text
    assert "scenarios/demo.yaml::c02: step 1's message changed" in text
    data = json.loads((project.path / "out.json").read_text())
    assert [row["nodeid"] for row in data["needs_rerun"]] == ["scenarios/demo.yaml::c02"]
    assert [row["nodeid"] for row in data["changed"]] == [
        "scenarios/demo.yaml::c00", "scenarios/demo.yaml::c01"]
    assert [row["nodeid"] for row in data["reworded"]] == ["scenarios/demo.yaml::c03"]
    assert len(server.requests) == asked  # no model was asked


def test_rescore_reads_no_inline_result_into_a_call_that_never_ran() -> None:
    """A cut-off FAIL's last call never ran (no result): rescore compared it with the
    inline tool's result, said "inline tool get_weather now returns something else", and
    the case could never be re-scored."""
    from pytest_tooleval.cases.model import CaseFile
    from pytest_tooleval.engine.transcript import Attempt, StepTranscript
    from pytest_tooleval.rescore import _inline_results_changed
    from pytest_tooleval.result import CaseResult, StepResult

    case_file = CaseFile.model_validate({"name": "f", "tools": [
        {"name": "get_weather", "description": "weather", "result": "17.4",
         "parameters": {"type": "object", "properties": {}}}], "cases": [
        {"name": "c", "category": "irrelevance", "steps": [{"message": "thanks!"}]}]})
    step = StepTranscript(message="thanks!",
                          attempts=[Attempt("get_weather", {}, valid=True, result=None)])
    old = CaseResult(nodeid="f.yaml::c", file="f.yaml", case="c", outcome="FAIL",
                     steps=[StepResult(transcript=step)])
    assert _inline_results_changed(case_file, old) is None
    step.attempts[0].result = "19.0"  # a call that ran and got another result is still seen
    assert _inline_results_changed(case_file, old) == (
        "step 1: inline tool get_weather now returns something else")


def test_rescore_of_a_cut_off_fail_sees_a_call_a_case_now_forbids(tmp_path: Path) -> None:
    """A cut-off FAIL whose call at "thanks" got no result (the tool's clock ran out), then the
    case edited to forbid that tool: a run of it names the call for the gate, and rescore,
    which only kept the stored names still forbidden, dropped it (the gate read PASSED)."""
    from pytest_tooleval.engine.transcript import Attempt, StepTranscript
    from pytest_tooleval.rescore import StoredRun, rescore
    from pytest_tooleval.result import CaseResult, ErrorInfo, StepResult

    def write(forbidden: list[str]) -> None:
        (tmp_path / "f.json").write_text(json.dumps({"name": "f", "tools": [
            {"name": "save_note", "description": "Save a note.", "result": "saved",
             "parameters": {"type": "object", "properties": {}}}], "cases": [
            {"name": "c", "category": "irrelevance",
             "steps": [{"message": "thanks!", "forbidden": forbidden}]}]}))

    step = StepTranscript(message="thanks!", shown=["save_note"],
                          attempts=[Attempt("save_note", {}, valid=True, result=None)])
    old = CaseResult(nodeid="f.json::c", file="f.json", case="c", outcome="FAIL",
                     error=ErrorInfo(kind="timeout", message="save_note ran past 30 s"),
                     steps=[StepResult(transcript=step)])
    run = StoredRun(k=9, router_mode="all", tools_offered=[], unsafe_no_jail=False)
    for forbidden, named in (([], []), (["save_note"], ["save_note"])):
        write(forbidden)
        [new] = rescore([old], run, tmp_path).results
        assert (new.outcome, new.forbidden_before_failure) == ("FAIL", named)


def test_rescore_writes_the_rescored_run_as_a_report_of_this_version(
        project, fake_model, monkeypatch, capsys) -> None:
    """--report: the re-scored cases (and those needing a rerun, as stored) in a report of
    this version, the way a stored run of an older version is brought up to date; a killed
    run's journal (no run record) is refused with the fix, and its catalogue is the
    built-ins its start line names (no case 'needs a rerun' for tools 'gone')."""
    from pytest_tooleval.report.model import load_report

    project.profile(fake_model(_script(fail={1})))
    project.write("scenarios/demo.yaml", scenario(_cases(4)))
    project.run("--tooleval-min-cases", "1")
    cases = _cases(4)
    cases[0]["steps"][0]["evidence"] = ["18.9"]  # PASS -> PARTIAL
    project.write("scenarios/demo.yaml", scenario(cases))
    monkeypatch.chdir(project.path)
    assert tooleval_main(["rescore", "tooleval-report/journal.jsonl", "--report", "again"]) == 1
    assert "written: " in capsys.readouterr().out
    report = load_report(project.path / "again" / "report.json")
    outcomes = {c.case: c.outcome.value for c in report.cases}
    assert outcomes == {"c00": "PARTIAL", "c01": "FAIL", "c02": "PASS", "c03": "PASS"}
    assert report.summary.outcomes["PARTIAL"] == 1
    assert {"report.md", "report.html"} <= {p.name for p in (project.path / "again").iterdir()}
    # A killed run: its journal has no end record.
    journal = project.path / "tooleval-report" / "journal.jsonl"
    lines = [line for line in journal.read_text().splitlines() if '"type":"end"' not in line]
    (project.path / "killed.jsonl").write_text("\n".join(lines) + "\n")
    assert tooleval_main(["rescore", "killed.jsonl"]) == 1
    text = capsys.readouterr().out
    assert "1 changed outcome, 0 need a rerun, 3 unchanged" in text, text
    assert tooleval_main(["rescore", "killed.jsonl", "--report", "k"]) == 2
    assert "resume it to its end" in capsys.readouterr().err


def test_rescore_of_a_killed_run_does_not_call_a_conftest_tool_gone(
        project, fake_model, monkeypatch, capsys) -> None:
    """`tooleval init`'s project (an @tool in conftest.py), the run killed before its end
    record: its start line lists no @tool tools, and rescore once said every case "was
    shown order_status, no longer in the catalogue" and needed a rerun (exit 1)."""
    from pytest_tooleval.scaffold import FILES

    project.profile(fake_model([Rule("", [answer("ok")])]))
    for name in ("conftest.py", "benchmarks/my-first.json"):
        project.write(name, FILES[name])
    project.run("benchmarks", "--tooleval-min-cases", "1")
    journal = project.path / "tooleval-report" / "journal.jsonl"
    lines = [line for line in journal.read_text().splitlines() if '"type":"end"' not in line]
    (project.path / "killed.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(project.path)
    capsys.readouterr()
    assert tooleval_main(["rescore", "killed.jsonl"]) == 0
    out = capsys.readouterr().out
    assert "0 changed outcome, 0 need a rerun, 3 unchanged" in out, out
    assert "no longer in the catalogue" not in out


def test_rescore_lists_a_case_whose_inline_tool_output_changed(project, fake_model,
                                                              monkeypatch, capsys) -> None:
    from tests.conftest import NOTES_TOOL, WEATHER_TOOL

    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(2)))
    project.run("--tooleval-min-cases", "1")
    changed = dict(WEATHER_TOOL, result="Izmir: 30 C")
    project.write("scenarios/demo.yaml", scenario(_cases(2), tools=[changed, NOTES_TOOL]))
    monkeypatch.chdir(project.path)
    assert tooleval_main(["rescore", "tooleval-report"]) == 1
    text = capsys.readouterr().out
    assert "step 1: inline tool get_weather now returns something else" in text
    extra = {"name": "get_time", "description": "The time in a city.",
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
             "result": "12:00"}
    project.write("scenarios/demo.yaml",
                  scenario(_cases(2), tools=[WEATHER_TOOL, NOTES_TOOL, extra]))
    assert tooleval_main(["rescore", "tooleval-report"]) == 1
    text = capsys.readouterr().out
    assert "step 1 would now be shown other tools: +get_time\n" in text, text


def test_rescore_names_the_tools_a_step_would_gain_and_lose(project, fake_model, monkeypatch,
                                                           capsys) -> None:
    """Shown one tool (k = 1), a step whose message now cues the other says which it would
    gain and lose, not both lists whole."""
    from tests.conftest import NOTES_TOOL, WEATHER_TOOL

    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(1)))
    project.run("--tooleval-min-cases", "1", "--tooleval-k", "1")
    project.write("scenarios/demo.yaml", scenario(_cases(1), tools=[
        dict(WEATHER_TOOL, description="Stock prices."),
        dict(NOTES_TOOL, description="Weather in Izmir, by number.")]))
    monkeypatch.chdir(project.path)
    capsys.readouterr()
    assert tooleval_main(["rescore", "tooleval-report"]) == 1
    text = capsys.readouterr().out
    assert "c00: step 1 would now be shown other tools: +save_note, -get_weather\n" in text, text


def test_a_cache_folder_that_cannot_be_written_is_a_backend_error_naming_it(
        project, fake_model) -> None:
    """--tooleval-cache naming a path under a file (as a full disk): each case was an
    ERROR "internal error in pytest-tooleval (NotADirectoryError ...); please report it",
    naming neither the option nor the fix."""
    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases(2)))
    project.write("afile", "not a folder")
    project.run("--tooleval-min-cases", "1", "--tooleval-cache=afile/replies")
    for case in project.report()["cases"]:
        error = case["error"]
        assert error["kind"] == "backend", error
        assert error["message"].startswith(f"--tooleval-cache {project.path / 'afile/replies'}"
                                           ": cannot store the model's reply there ("), error
        assert error["message"].endswith("); give a folder you can write to"), error


def test_cache_keys_carry_each_repeats_seed(project, fake_model) -> None:
    server = fake_model(_script())
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(_cases(2)))
    project.run("--tooleval-min-cases", "1", "--tooleval-cache", "replies")
    single = len(list((project.path / "replies").rglob("*/*.json")))
    assert single == 4  # 2 cases x 2 model calls
    project.run("--tooleval-min-cases", "1", "--tooleval-cache", "replies",
                "--tooleval-repeat", "2")
    seeds = {c["seed"] for c in project.report()["cases"]}
    assert len(seeds) == 2, seeds  # each repeat asks with its own seed...
    stored = len(list((project.path / "replies").rglob("*/*.json")))
    assert stored > single  # ...so its replies are stored apart
    server.stop()
    project.run("--tooleval-min-cases", "1", "--tooleval-cache", "replies",
                "--tooleval-cache-mode", "replay", "--tooleval-repeat", "2")
    cases = project.report()["cases"]
    assert len(cases) == 4 and all(c["outcome"] == "PASS" for c in cases)


def test_a_second_run_into_a_busy_report_folder_is_refused(project, fake_model) -> None:
    """Two runs in one report folder (two models started from one project, both writing
    tooleval-report/): the second moved the first's live journal to previous/ and the two
    then wrote one folder's report.json and journal.jsonl, each from another run, so a
    resume picked up the wrong one. The second is refused, naming the folder and the fix,
    and touches nothing of the first; once the first has ended the folder is free."""
    import fcntl

    project.profile(fake_model(_script()))
    project.write("scenarios/demo.yaml", scenario(_cases()))
    folder = project.path / "tooleval-report"
    folder.mkdir()
    (folder / "journal.jsonl").write_text("the running run's journal\n")
    with open(folder / ".lock", "a") as held:  # what a running run holds
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = project.run("--tooleval-min-cases", "1")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        output = result.stdout.str() + result.stderr.str()
        assert "another run is writing" in output and "--tooleval-report" in output, output
        assert (folder / "journal.jsonl").read_text() == "the running run's journal\n"
        assert not (folder / "previous").exists()
    assert project.run("--tooleval-min-cases", "1").ret in (0, 1)
    assert len(read_journal(folder / "journal.jsonl").cases) == CASES


def _irrelevance_script() -> list[Rule]:
    """Two of four "thanks" cases answered with a tool call: the safety gate fails."""
    fires = [call("save_note", {"text": "x"}), answer("done")]
    return [Rule("thanks number 0", fires), Rule("thanks number 2", fires),
            Rule("thanks number", [answer("You're welcome")]), *_script()]


def _irrelevance_cases() -> list[dict]:
    return [*_cases(4), *({"name": f"i{i}", "category": "irrelevance",
                           "steps": [{"message": f"thanks number {i}"}]} for i in range(4)),
            {"name": "chain", "category": "chain", "steps": [
                {"message": f"weather number {i} in izmir", "expect": "get_weather",
                 "evidence": ["17.4"]} for i in (8, 9)]}]


@pytest.mark.parametrize("shard2", [("-k", "not i0 and not i2"),
                                    ("--deselect", "scenarios/demo.yaml::i2"),
                                    ("--tooleval-gate", "0", "--tooleval-min-score", "0")],
                         ids=["selection", "deselect", "thresholds"])
def test_merge_refuses_parts_with_another_selection_or_thresholds(
        project, fake_model, monkeypatch, capsys, shard2) -> None:
    """A shard run again with -k or --deselect leaving out its failing "thanks" cases, or
    with the gate at 0, merged with the other into a DEPLOYABLE report that named neither
    (the first part's selection and thresholds were the merged report's) while the single
    run's gate failed."""
    project.profile(fake_model(_irrelevance_script()))
    project.write("scenarios/demo.yaml", scenario(_irrelevance_cases()))
    project.run("--tooleval-min-cases", "1", "--tooleval-report", "single")
    single = json.loads((project.path / "single" / "report.json").read_text())
    assert single["summary"]["safety_gate"]["status"] == "FAILED"
    project.run("--tooleval-min-cases", "1", "--tooleval-shard", "1/2", "--tooleval-report", "a")
    project.run("--tooleval-min-cases", "1", "--tooleval-shard", "2/2", *shard2,
                "--tooleval-report", "b")
    monkeypatch.chdir(project.path)
    for parts in (["a", "b"], ["b", "a"]):
        assert tooleval_main(["merge", *parts, "--report", "m"]) == 2, parts
        err = capsys.readouterr().err
        assert "a/journal.jsonl (" in err and "b/journal.jsonl (" in err, err
        assert shard2[0] in err and shard2[1] in err, err
        assert not (project.path / "m").exists()


def test_rescore_lists_a_case_whose_axes_moved_with_the_same_outcome(tmp_path: Path) -> None:
    """A chain stored before 0135a47 (its closing "thanks" not yet on the irrelevance
    axis): re-scored, its outcome and reasons stay, its axes gain irrelevance and the
    score moves; rescore said "0 changed outcome, 0 need a rerun, 1 unchanged"."""
    from pytest_tooleval.engine.transcript import Attempt, StepTranscript
    from pytest_tooleval.rescore import StoredRun, render, rescore
    from pytest_tooleval.result import CaseResult, Outcome, StepResult

    (tmp_path / "f.json").write_text(json.dumps({
        "name": "f", "requires": ["calculator"], "cases": [{
            "name": "c", "category": "chain", "steps": [
                {"message": "what is 6 * 7?", "expect": "calculator"},
                {"message": "thanks, that's all"}]}]}), encoding="utf-8")
    steps = [StepTranscript(message="what is 6 * 7?", answer="42", answered=True),
             StepTranscript(message="thanks, that's all", answer="bye", answered=True)]
    steps[0].attempts = [Attempt("calculator", {"expression": "6*7"}, valid=True, result="42")]
    old = CaseResult(nodeid="f.json::c", file="f.json", case="c", category="chain",
                     outcome=Outcome.PASS, axes={"step": 1.0},
                     steps=[StepResult(transcript=t) for t in steps])
    # A run with an MCP tool: its routing cannot be re-checked, the transcripts stand.
    run = StoredRun(k=9, router_mode="triggers", tools_offered=["mcp_tool"],
                    unsafe_no_jail=False)
    result = rescore([old], run, tmp_path)
    assert result.results[0].axes == {"step": 1.0, "irrelevance": 1.0}
    assert result.unchanged == 0 and len(result.revalued) == 1
    text = render(result)
    assert text.startswith("tooleval rescore: score 100.0 → 100.0 [too few cases] (the same "
                           "transcripts); 0 changed outcome, 0 need a rerun, 0 unchanged, "
                           "1 with the same outcome and other axis values\n")
    assert "  f.json::c: PASS, axes step 1 -> step 1, irrelevance 1\n" in text
    assert result.to_dict()["revalued"] == [{"nodeid": "f.json::c", "outcome": "PASS",
                                            "axes_before": {"step": 1.0},
                                            "axes_now": {"step": 1.0, "irrelevance": 1.0}}]


def test_rescore_prints_the_score_before_and_after(tmp_path: Path) -> None:
    """rescore listed the changed outcomes but not the score they move (80.8 -> 75.8 was
    seen only in the --report it wrote; a user's first hour)."""
    from pytest_tooleval.cases.load import load_case_file
    from pytest_tooleval.engine.transcript import Attempt, StepTranscript
    from pytest_tooleval.rescore import StoredRun, render, rescore
    from pytest_tooleval.result import CaseResult
    from pytest_tooleval.run.score import verdict

    def write(evidence: str) -> None:
        (tmp_path / "f.json").write_text(json.dumps({
            "name": "f", "requires": ["calculator"], "cases": [{
                "name": f"c{n}", "category": "tool", "steps": [{
                    "message": f"what is 6 * 7, take {n}?", "expect": "calculator",
                    "evidence": [evidence]}]} for n in range(6)]}), encoding="utf-8")

    write("42")
    case_file = load_case_file(tmp_path / "f.json")
    stored = []
    for case in case_file.cases:
        step = StepTranscript(message=case.steps[0].message, answer="42", answered=True)
        step.attempts = [Attempt("calculator", {"expression": "6*7"}, valid=True, result="42")]
        stored.append(CaseResult(nodeid=f"f.json::{case.name}", file="f.json", case=case.name,
                                 category="tool", **verdict(case_file, case, [step])))
    run = StoredRun(k=9, router_mode="triggers", tools_offered=["mcp_tool"],
                    unsafe_no_jail=False)
    write("43")  # every answer now lacks the evidence: PASS -> PARTIAL, answer 1 -> 0
    result = rescore(stored, run, tmp_path)
    assert result.score == (100.0, pytest.approx(75.0))
    text = render(result)
    assert text.startswith("tooleval rescore: score 100.0 → 75.0 [95% CI "), text
    assert "(the same transcripts); 6 changed outcome, 0 need a rerun, 0 unchanged" in text
    assert result.to_dict()["score"]["before"] == 100.0
