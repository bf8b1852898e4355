"""A stop before any case ended: the report says so, in every format, and nothing of the
run is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import scenario
from tests.support.fake_openai import Rule, answer

ROOT = Path(__file__).resolve().parents[1]


def _spawn(project, workers: int, *extra: str,
           output: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """pytest in its own process group, as a shell or a CI job starts it."""
    args = [sys.executable, "-m", "pytest", "-p", "pytest_tooleval.plugin",
            "-p", "no:cacheprovider", "--tooleval-no-builtin", "--model", "fake",
            "--grammar", "vendor", "--tooleval-min-cases", "1", "-q", *extra]
    if workers:
        args += ["-p", "xdist", "-n", str(workers)]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(args, cwd=project.path, env=env, stdout=output,
                            stderr=subprocess.STDOUT, start_new_session=True)


def _interrupt(process: subprocess.Popen[bytes], ready: Callable[[], bool],
               how: int = signal.SIGINT) -> tuple[str, float]:
    """Wait (up to 120 s) until ``ready()``, send ``how`` (Ctrl-C to the whole group, as a
    terminal does; SIGTERM to the controller only, as a scheduler does); the output and when
    it was sent. Whatever is left of the group is killed."""
    try:
        deadline = time.monotonic() + 120
        while not ready():
            assert process.poll() is None, process.communicate()[0].decode()[-3000:]
            assert time.monotonic() < deadline, "not ready within 120 s"
            time.sleep(0.05)
        sent = time.time()
        (os.killpg if how == signal.SIGINT else os.kill)(process.pid, how)
        return process.communicate(timeout=120)[0].decode(), sent
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.mark.parametrize(("how", "workers"), [(signal.SIGTERM, 0), (signal.SIGINT, 0),
                                              (signal.SIGTERM, 2)])
def test_a_stop_before_the_first_case_ends_writes_an_interrupted_report(
        project, fake_model, how, workers) -> None:
    """SIGTERM (a cancelled job) or Ctrl-C while the first case waits on the model: the
    report says 0 of N ran, interrupted, NOT VALID, in every format; what the previous run
    left in the folder (report.html, metrics, JUnit included) is in previous/, never
    beside the new report as if it were this run's."""
    server = fake_model([Rule("weather", [answer("It is 17.4 °C.")])], latency=120)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(
        [{"name": f"c{i}", "category": "tool", "steps": [
            {"message": f"weather number {i} in izmir", "expect": "get_weather"}]}
         for i in range(4)]))
    folder = project.path / "tooleval-report"
    old = {"report.json": '{"old": true}\n', "report.md": "old\n",
           "report.html": "<p>old</p>\n", "run.prom": "old 1\n", "junit.xml": "<old/>\n"}
    for name, text in old.items():
        project.write(f"tooleval-report/{name}", text)
    process = _spawn(project, workers, "--tooleval-metrics", "tooleval-report/run.prom",
                     "--junitxml", "tooleval-report/junit.xml")
    # the first case is waiting on the model
    output, _ = _interrupt(process, lambda: bool(server.requests), how)
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # nothing of the run left behind (xdist workers included)
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    run = report["run"]
    assert report["cases"] == [] and run["cases_done"] == 0 and run["cases_selected"] == 4
    assert run["interrupted"].endswith(": 0 of 4 cases ran"), run["interrupted"]
    why = "the run received SIGTERM" if how == signal.SIGTERM else "Ctrl-C"
    assert run["interrupted"].startswith(why), run["interrupted"]
    assert report["summary"]["deployability"]["verdict"] == "NOT VALID"
    assert "0 of 4 cases ran" in (folder / "report.md").read_text(encoding="utf-8")
    assert "0 of 4 cases ran" in (folder / "report.html").read_text(encoding="utf-8")
    for name, text in old.items():
        assert (folder / "previous" / name).read_text(encoding="utf-8") == text, name
        assert not (folder / name).exists() or (folder / name).read_text() != text, name
    assert "0 of 4 cases ran" in output, output[-3000:]
    if how == signal.SIGTERM:  # after the summary, one line of pytest's, no traceback line
        assert "!! Terminated: the run received SIGTERM !!" in output, output[-3000:]
        assert "KeyboardInterrupt" not in output and "controller.py" not in output, output


# An MCP server command that notes when it starts.
NOTED = ("import os, sys, time; open('starts', 'a').write(f'{time.time()}\\n'); "
         "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


@pytest.mark.parametrize("workers", [0, 2])
def test_ctrl_c_during_collection_starts_nothing_and_says_so(project, fake_model,
                                                            workers) -> None:
    """Ctrl-C while a later case file was collected: after the interrupt the MCP server was
    started (each worker's check of the tool set-up), and a serial run said "1 case(s) from
    1 file(s)" (or "no case found") and wrote a report and journal of the part collected."""
    from tests.providers.test_mcp_faults import CASES, TOY, _toy

    project.profile(fake_model([Rule("thanks", [answer("You are welcome.")])]))
    _toy(project, [sys.executable, "-c", NOTED, str(TOY)])
    project.write("benchmarks/a.json", {"name": "a", "language": "en",
                                        "cases": [CASES["cases"][1]]})
    project.write("benchmarks/z/b.json", {**CASES, "name": "b"})
    project.write("conftest.py", """
import os, time
def pytest_collect_file(file_path, parent):
    if file_path.name == "b.json":
        open(f"collecting-{os.getpid()}", "w").close()
        time.sleep(120)
""")
    process = _spawn(project, workers)
    output, interrupted = _interrupt(
        process, lambda: len(list(project.path.glob("collecting-*"))) >= max(workers, 1))
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    starts = project.path / "starts"
    assert all(float(at) < interrupted for at in
               (starts.read_text().split() if starts.exists() else [])), output[-3000:]
    lines = [line for line in output.splitlines() if line.startswith("tooleval:")]
    assert lines == ["tooleval: interrupted during collection: no case ran, no report "
                     "written"], output[-3000:]
    assert not (project.path / "tooleval-report").exists()


@pytest.mark.parametrize("broken", ["case file", "tool set-up"])
def test_a_stop_nobody_asked_for_is_not_called_an_interruption(project, broken) -> None:
    """A run whose only case file failed to collect, or whose tool set-up was unusable,
    said "interrupted during collection" above pytest's Interrupted line with the reason."""
    if broken == "case file":
        project.write("benchmarks/b.json", "{ not json")
    else:
        project.pytester.makeconftest("def pytest_tooleval_make_session(config, settings, "
                                      "profile):\n    return object()\n")
        project.write("benchmarks/b.json", {"name": "b", "requires": ["x"], "cases": [
            {"name": "hi", "category": "irrelevance", "steps": [{"message": "hello"}]}]})
    project.write("tooleval-report/report.json", "{}")  # an earlier run's
    result = project.run("--model", "smollm2-135m")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    lines = [line for line in result.outlines if line.startswith("tooleval: no case ran")]
    assert lines == [f"tooleval: no case ran, no report written: the reports in "
                     f"{project.path / 'tooleval-report'} are an earlier run's"], result.outlines
