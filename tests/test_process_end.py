"""The end of a run, from its last case to the process's exit (issue 20, item 6):
``TOOLEVAL_TRACE_END`` marks each step (pytest_tooleval/trace.py); the long-lived heap is
frozen while lanes run the cases and thawed when the items' loop ends, and the exit
collects the garbage once and freezes the rest instead of the interpreter's own
collections over a run's heap (pytest_tooleval/heap.py). None of it may lose anything:
the report, the journal's end record, the exporters, no lane, thread or child process
left running, nothing left frozen after the loop.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import scenario
from tests.support.fake_openai import Rule, answer
from tests.test_end_of_run import EXPECTED, SCRIPT, fixed_cases, fixed_run, normalised

ROOT = Path(__file__).resolve().parents[1]


def _marks(path: Path) -> list[tuple[float, float, int, str]]:
    """(time, process CPU, pid, label) of each mark, as bench_concurrency.py reads them."""
    marks = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split(maxsplit=8)
        assert parts[0] == "tooleval-trace:" and parts[2] == "cpu" and parts[4] == "main", line
        marks.append((float(parts[1]), float(parts[3]), int(parts[7]), parts[8]))
    return marks


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


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_traced_run_marks_each_step_of_its_end_and_leaves_nothing_behind(
        project, fake_model, monkeypatch, tmp_path) -> None:
    """In a process of its own, concurrently, with the baselines' child: every step from
    the last case to the exit is marked in order, the report equals the one from before,
    the journal ends with its end record, and the child is gone after the exit."""
    trace = tmp_path / "trace.log"
    monkeypatch.setenv("TOOLEVAL_TRACE_END", str(trace))
    monkeypatch.setenv("TOOLEVAL_BASELINES", "process")
    report = fixed_run(project, fake_model, concurrency=4, subprocess=True)
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert normalised(report)["summary"] == expected["summary"]

    marks = _marks(trace)
    labels = [label for _, _, _, label in marks]
    cases = len(fixed_cases())
    wanted = [f"case {cases} of {cases} recorded", "the items' loop ended",
              "sessionfinish begins (every plugin's)", "sessionfinish: ours begins",
              "report: the baselines' table in hand", "report: summarized",
              "report: report.json written", "report: report.md written",
              "journal: end record written", "exporters done (report.html, metrics, JUnit)",
              "close: lanes stopped", "close: session closed", "runtime closed",
              "terminal summary (ours) written",
              "sessionfinish done (pytest's summary printed)", "unconfigure done",
              "exit handlers begin (non-daemon threads joined)",
              "exit: garbage collected, the rest frozen",
              "exit handlers done (interpreter teardown follows)"]
    positions = [labels.index(label) for label in wanted]
    assert positions == sorted(positions), labels
    times = [when for when, _, _, _ in marks]
    assert times == sorted(times)
    assert len({pid for _, _, pid, label in marks if not label.startswith("baselines")}) == 1

    journal = (project.path / "tooleval-report" / "journal.jsonl").read_text().splitlines()
    end = json.loads(journal[-1])
    assert end["type"] == "end" and end["complete"] is True
    assert end["cases_done"] == cases
    assert (project.path / "tooleval-report" / "report.html").is_file()

    children = [int(label.split()[2]) for _, _, _, label in marks
                if label.startswith("baselines: child ")]
    assert len(children) == 1, labels
    assert _gone(children[0]), "the baselines' child outlived the run"


def test_no_mark_without_the_variable(project, fake_model, monkeypatch) -> None:
    """Off by default: a run without TOOLEVAL_TRACE_END writes no mark."""
    monkeypatch.delenv("TOOLEVAL_TRACE_END", raising=False)
    project.profile(fake_model(SCRIPT))
    project.write("scenarios/fixed.yaml", scenario(fixed_cases()[:3], requires=["calculator"]))
    result = project.run("--tooleval-min-cases", "1", builtin=True, subprocess=True)
    assert result.ret in (0, 1), result.stdout.str()[-2000:]
    assert "tooleval-trace:" not in result.stdout.str() + result.stderr.str()


#: Run in a child: a cycle with a finalizer becomes garbage with automatic collection off,
#: and a handler registered before heap.py's (so run after it) records what it found.
_EXIT_PROBE = r"""
import atexit, gc, sys
out = sys.argv[1]
def write(text):
    with open(out, "a", encoding="utf-8") as handle:
        handle.write(text + "\n")
atexit.register(lambda: write(f"frozen {gc.get_freeze_count()}"))
from pytest_tooleval import heap
gc.disable()
class Cycle:
    def __del__(self):
        write("finalized")
cycle = Cycle()
cycle.me = cycle
del cycle
if sys.argv[2] == "armed":
    heap.arm()
"""


def _exit_probe(tmp_path: Path, armed: bool, **env: str) -> list[str]:
    out = tmp_path / f"exit-{armed}-{len(env)}.txt"
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_PROBE, str(out), "armed" if armed else "not"],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env}, capture_output=True, text=True,
        check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8").splitlines()


def test_an_armed_exit_collects_the_garbage_first_then_freezes_the_rest(tmp_path) -> None:
    """Garbage there is at the exit is collected (its finalizer runs) before the freeze;
    the objects still alive are frozen, out of the finalization's collections."""
    lines = _exit_probe(tmp_path, armed=True)
    assert lines[0] == "finalized"
    assert lines[1].startswith("frozen ") and int(lines[1].split()[1]) > 1000


def test_an_exit_not_armed_or_asked_for_in_full_is_the_interpreters_own(tmp_path) -> None:
    """A process that ran no tooleval run, or TOOLEVAL_GC=full: nothing is frozen."""
    assert _exit_probe(tmp_path, armed=False)[0] == "frozen 0"
    assert _exit_probe(tmp_path, armed=True, TOOLEVAL_GC="full")[0] == "frozen 0"


def test_the_heap_is_frozen_while_lanes_run_and_thawed_when_the_loop_ends(
        project, fake_model, monkeypatch) -> None:
    """With lanes: frozen when they start (and again after the first case's report), every
    object back under the collector when pytest's loop over the items ends; the report is
    the one from before. At concurrency 1 nothing is frozen."""
    import gc

    from pytest_tooleval import heap

    seen: list[tuple[str, int]] = []
    for name in ("freeze_for_run", "refreeze", "thaw"):
        original = getattr(heap, name)

        def watched(original=original, name=name) -> None:
            original()
            seen.append((name, gc.get_freeze_count()))

        monkeypatch.setattr(heap, name, watched)
    report = fixed_run(project, fake_model, concurrency=4)
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert normalised(report)["summary"] == expected["summary"]
    names = [name for name, _ in seen]
    assert names == ["freeze_for_run", "refreeze", "thaw"], seen
    assert seen[0][1] > 1000 and seen[1][1] >= seen[0][1]
    assert seen[-1][1] == 0 and gc.get_freeze_count() == 0

    seen.clear()
    fixed_run(project, fake_model, concurrency=1)
    assert [name for name, _ in seen] == ["refreeze", "thaw"]
    assert all(count == 0 for _, count in seen)


def test_tooleval_gc_full_freezes_nothing_while_running(monkeypatch) -> None:
    import gc

    from pytest_tooleval import heap

    monkeypatch.setenv("TOOLEVAL_GC", "full")
    heap.freeze_for_run()
    heap.refreeze()
    assert gc.get_freeze_count() == 0
    heap.thaw()
    monkeypatch.delenv("TOOLEVAL_GC")
    heap.freeze_for_run()
    try:
        assert gc.get_freeze_count() > 0
    finally:
        heap.thaw()
    assert gc.get_freeze_count() == 0


def test_a_heap_frozen_by_someone_else_is_left_as_it_is() -> None:
    """Where objects were frozen before the run (a server that forks, say), the run
    neither freezes nor thaws: their freeze is theirs."""
    import gc

    from pytest_tooleval import heap

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        heap.freeze_for_run()
        heap.refreeze()
        heap.thaw()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_plain_pytest_run_with_the_plugin_is_not_armed(tmp_path: Path) -> None:
    """The plugin is loaded in every pytest run of a project that installs it; a run of
    ordinary tests (no case run or recorded) keeps the interpreter's own exit: nothing is
    collected-then-frozen, so an ordinary test suite's objects are finalized as always."""
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    trace = tmp_path / "trace.log"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pytest_tooleval.plugin", "-p",
         "no:cacheprovider", "-q", "test_plain.py"], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TOOLEVAL_TRACE_END": str(trace),
             "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    labels = [label for _, _, _, label in _marks(trace)]
    assert "exit handlers begin (non-daemon threads joined)" in labels
    assert not any(label.startswith("exit: garbage collected") for label in labels), labels


# -------------------------------------------------------------- a stop before any case ended


def _spawn(project, workers: int, *extra: str) -> subprocess.Popen[bytes]:
    """pytest in its own process group, as a shell or a CI job starts it."""
    args = [sys.executable, "-m", "pytest", "-p", "pytest_tooleval.plugin",
            "-p", "no:cacheprovider", "--tooleval-no-builtin", "--model", "fake",
            "--grammar", "vendor", "--tooleval-min-cases", "1", "-q", *extra]
    if workers:
        args += ["-p", "xdist", "-n", str(workers)]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(args, cwd=project.path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)


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
    try:
        deadline = time.monotonic() + 120
        while not server.requests:  # the first case is waiting on the model
            assert process.poll() is None, process.communicate()[0].decode()[-3000:]
            assert time.monotonic() < deadline, "no model call within 120 s"
            time.sleep(0.05)
        if how == signal.SIGINT:
            os.killpg(process.pid, how)  # Ctrl-C reaches the terminal's whole group
        else:
            os.kill(process.pid, how)  # the controller only, as a scheduler does
        output = process.communicate(timeout=120)[0].decode()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output[-3000:]
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # nothing of the run left behind (xdist workers included)
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    run = report["run"]
    assert report["cases"] == [] and run["cases_done"] == 0 and run["cases_selected"] == 4
    assert run["interrupted"].endswith(": 0 of 4 cases ran"), run["interrupted"]
    why = "the run received SIGTERM" if how == signal.SIGTERM else "interrupted (Ctrl-C)"
    assert run["interrupted"].startswith(why), run["interrupted"]
    assert report["summary"]["deployability"]["verdict"] == "NOT VALID"
    assert "0 of 4 cases ran" in (folder / "report.md").read_text(encoding="utf-8")
    assert "0 of 4 cases ran" in (folder / "report.html").read_text(encoding="utf-8")
    for name, text in old.items():
        assert (folder / "previous" / name).read_text(encoding="utf-8") == text, name
        assert not (folder / name).exists() or (folder / name).read_text() != text, name
    assert "0 of 4 cases ran" in output, output[-3000:]
