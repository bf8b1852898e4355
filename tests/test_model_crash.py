"""The plugin as users run it when the model library crashes natively (a stand-in model
process that really segfaults, so this runs on every machine): one ERROR naming the signal,
the next case on a fresh process, the report written and marked not valid; a model that
crashes on every call stops the run after the consecutive-error limit."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import THANKS_CASE, said, scenario

ROOT = Path(__file__).resolve().parents[1]


def _gone(pid: int, within: float = 10.0) -> bool:
    """Whether the process has ended (a zombie waiting for its new parent counts)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


CONFTEST = """
from pathlib import Path

from pytest_tooleval.wiring import build_session
from tests.support.fake_model_worker import FakeProcessBackend


def pytest_tooleval_make_session(config, settings, profile):
    session = build_session(settings, profile, lambda: Path("."))
    session.backend_factory = FakeProcessBackend
    return session
"""


def _project(project, count: int):
    project.profile("http://127.0.0.1:9/v1")  # never contacted: the conftest's backend runs
    project.write("conftest.py", CONFTEST)
    project.write("scenarios/demo.yaml", scenario(
        [dict(THANKS_CASE, name=f"t{i}") for i in range(count)]))


def test_one_native_crash_is_one_error_and_the_run_goes_on(project, monkeypatch) -> None:
    _project(project, 4)
    crash = project.path / "crash-once"
    crash.write_text("")
    monkeypatch.setenv("TOOLEVAL_FAKE_CRASH_FILE", str(crash))
    result = project.run("--tooleval-order", "collection")
    report = project.report()
    outcomes = {case["case"]: case["outcome"] for case in report["cases"]}
    assert outcomes == {"t0": "ERROR", "t1": "PASS", "t2": "PASS", "t3": "PASS"}
    error = next(case for case in report["cases"] if case["case"] == "t0")["error"]
    assert "was killed by SIGSEGV (signal 11)" in error["message"]
    assert "the next case starts a fresh process" in error["message"]
    assert report["summary"]["deployability"]["valid"] is False
    assert said(result, "*verdict: NOT VALID: 1 case(s) ended in ERROR*"
                "failure modes (failing steps; ERROR cases): ERROR (backend) 1*")
    # the crash's detail is in report.md and, under -v, on the terminal
    assert "was killed by SIGSEGV (signal 11)" in project.markdown()
    assert not crash.exists()


def test_crashing_on_every_call_stops_after_the_error_limit(project, monkeypatch) -> None:
    _project(project, 6)
    monkeypatch.setenv("TOOLEVAL_FAKE_CRASH_ALWAYS", "1")
    result = project.run()
    assert result.parseoutcomes().get("errors") == 3 and "failed" not in result.parseoutcomes()
    assert said(result, "*verdict: NOT VALID: 3 case(s) ended in ERROR*SIGSEGV*"
                "Stopped after 3 consecutive infrastructure errors*")
    assert project.report()["summary"]["outcomes"]["ERROR"] == 3


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_model_worker_dies_with_a_killed_pytest(project, tmp_path) -> None:
    """pytest SIGKILLed while its model worker is busy on a request (a long generation):
    the worker ends within seconds instead of running on, re-parented to init, until its
    request is done (the stand-in's would take two minutes)."""
    _project(project, 1)
    pid_file = tmp_path / "worker.pid"
    env = {**os.environ, "TOOLEVAL_FAKE_HANG_PID_FILE": str(pid_file),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    pytest_process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "pytest_tooleval.plugin", "-p",
         "no:cacheprovider", "--tooleval-no-builtin", "--model", "fake", "-q"],
        cwd=project.path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    worker = None
    try:
        deadline = time.monotonic() + 120
        while not pid_file.exists():
            assert pytest_process.poll() is None, "pytest ended before its model call"
            assert time.monotonic() < deadline, "no model call within 120 s"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        os.kill(pytest_process.pid, signal.SIGKILL)  # pytest alone, unwarned
        pytest_process.wait()
        assert _gone(worker, within=5.0), "the model worker outlived pytest"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pytest_process.pid, signal.SIGKILL)  # whatever is left of the run
        pytest_process.wait()
        if worker is not None:  # reaped here where this process is a child subreaper
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker, os.WNOHANG)
