"""The baselines scored in a second process (scoring/baseline_process.py): the same table
as scoring them in the run's own process, and a child that crashes, hangs, talks nonsense
or cannot start loses nothing and hangs nothing (the end of the run scores afresh, or the
run stays on the thread)."""

from __future__ import annotations

import io
import json
import sys
import threading
import time

import pytest

from pytest_tooleval.scoring import baseline_process, baseline_worker
from pytest_tooleval.scoring.baselines import (
    BaselineScorer,
    refs_for_specs,
    score_policies,
)
from tests.test_end_of_run import EXPECTED, fixed_cases, fixed_run, normalised


def expected() -> dict:
    return json.loads(EXPECTED.read_text(encoding="utf-8"))


def _watch(monkeypatch) -> dict[str, list]:
    """What the run did: each ProcessBaselines' answer (None: it failed) and why, and the
    thread each case was scored on in the run's own process (none, when the child did)."""
    seen: dict[str, list] = {"tables": [], "failures": [], "scored_here": []}
    table, score = baseline_process.ProcessBaselines.table, BaselineScorer.score

    def watched_table(self, results, timeout=None):
        answer = table(self, results, timeout)
        seen["tables"].append(answer)
        seen["failures"].append(self.failure)
        return answer

    def watched_score(self, ref, **kwargs):
        if (ref.nodeid, ref.path, ref.case.name) not in self.done:
            seen["scored_here"].append(threading.current_thread().name)
        return score(self, ref, **kwargs)

    monkeypatch.setattr(baseline_process.ProcessBaselines, "table", watched_table)
    monkeypatch.setattr(BaselineScorer, "score", watched_score)
    return seen


def test_the_child_scores_every_case_and_the_run_scores_none(project, fake_model,
                                                             monkeypatch) -> None:
    monkeypatch.setenv("TOOLEVAL_BASELINES", "process")
    seen = _watch(monkeypatch)
    report = normalised(fixed_run(project, fake_model, latency=0.02))
    assert report == expected()
    assert seen["failures"] == [None], seen["failures"]
    assert seen["tables"][0] == expected()["summary"]["baselines"]
    assert seen["scored_here"] == [], "the run's own process scored baselines"


def test_auto_uses_the_child_from_100_cases_and_the_thread_below(project, fake_model,
                                                                 monkeypatch) -> None:
    monkeypatch.delenv("TOOLEVAL_BASELINES", raising=False)
    seen = _watch(monkeypatch)
    monkeypatch.setattr(baseline_process, "PROCESS_MIN_CASES", len(fixed_cases()) + 1)
    fixed_run(project, fake_model)
    assert seen["tables"] == [] and seen["scored_here"], seen
    monkeypatch.setattr(baseline_process, "PROCESS_MIN_CASES", len(fixed_cases()))
    seen["scored_here"].clear()
    fixed_run(project, fake_model)
    assert seen["failures"] == [None] and seen["scored_here"] == [], seen


@pytest.mark.parametrize(("child", "why"), [
    ("import sys; sys.exit(3)", "ended without an answer (exit 3)"),
    ("print('not a reply', flush=True); import time; time.sleep(60)", "unreadable reply"),
    ("import sys; print('{\"error\": \"a bug\"}', flush=True)", "failed: a bug"),
    ("import time; time.sleep(60)", "showed no progress"),
])
def test_a_child_that_fails_or_hangs_loses_nothing(project, fake_model, monkeypatch,
                                                   child, why) -> None:
    """The end of the run kills it and scores the baselines afresh: the same report, in
    far less than the hung child's minute."""
    monkeypatch.setenv("TOOLEVAL_BASELINES", "process")
    monkeypatch.setattr(baseline_process, "HANDOVER_S", 1.0)
    monkeypatch.setattr(baseline_process, "child_command",
                        lambda: [sys.executable, "-c", child])
    seen = _watch(monkeypatch)
    started = time.perf_counter()
    report = normalised(fixed_run(project, fake_model))
    took = time.perf_counter() - started
    assert report == expected()
    assert seen["tables"] == [None]
    assert why in (seen["failures"][0] or ""), seen["failures"]
    assert seen["scored_here"] == ["MainThread"] * len(fixed_cases())
    assert took < 30, f"{took:.1f} s: the end of the run waited on the child"


def test_a_child_that_cannot_start_leaves_the_baselines_on_the_thread(
        project, fake_model, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("TOOLEVAL_BASELINES", "process")
    monkeypatch.setattr(baseline_process, "child_command",
                        lambda: [str(tmp_path / "no-such-python")])
    seen = _watch(monkeypatch)
    report = normalised(fixed_run(project, fake_model, latency=0.02))
    assert report == expected()
    assert seen["tables"] == []
    assert "tooleval-baselines" in seen["scored_here"], seen["scored_here"]


def test_a_killed_child_is_gone_at_the_end(project, fake_model, monkeypatch) -> None:
    """A hung child is killed, not left behind (the run may be one of many in CI)."""
    monkeypatch.setenv("TOOLEVAL_BASELINES", "process")
    monkeypatch.setattr(baseline_process, "HANDOVER_S", 0.5)
    monkeypatch.setattr(baseline_process, "child_command",
                        lambda: [sys.executable, "-c", "import time; time.sleep(120)"])
    children = []
    start = baseline_process.ProcessBaselines.start

    def keep(self):
        started = start(self)
        children.append(self._process)
        return started

    monkeypatch.setattr(baseline_process.ProcessBaselines, "start", keep)
    fixed_run(project, fake_model)
    assert len(children) == 1
    assert children[0].poll() is not None, "the hung child is still running"


def test_the_worker_answers_the_table_over_the_cases_asked_for(tmp_path) -> None:
    """The child's side alone: given all cases first, asked for a table over some of them
    in another order, it answers what scoring those in-process gives."""
    from tests.conftest import scenario

    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "fixed.yaml").write_text(
        scenario(fixed_cases(), requires=["calculator"]), encoding="utf-8")
    names = [case["name"] for case in fixed_cases()]
    specs = [(f"scenarios/fixed.yaml::{name}", "scenarios/fixed.yaml", name)
             for name in names]
    asked = specs[::-1][:9]
    lines = [{"init": {"k": 9, "builtin": True, "world_base": None,
                       "rootdir": str(tmp_path)}},
             {"cases": specs}, {"table": asked}]
    stdin = io.BytesIO(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    out = io.BytesIO()
    assert baseline_worker.serve(stdin, out) == 0
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    table = replies[-1]["table"]
    assert table == score_policies(refs_for_specs(asked, tmp_path))
    assert {row["cases"] + row["errors"] for row in table.values()} == {9}


def test_under_xdist_only_the_controller_starts_a_child(project, fake_model, monkeypatch,
                                                        tmp_path) -> None:
    """Two workers, one child: the workers have no recorder; the controller starts it as
    their cases are reported, and the report is the one from before."""
    log = tmp_path / "children.log"
    project.write("conftest.py", f"""
import os
from pytest_tooleval.scoring import baseline_process

_command = baseline_process.child_command

def _logged():
    role = "worker" if "PYTEST_XDIST_WORKER" in os.environ else "controller"
    with open({str(log)!r}, "a") as handle:
        handle.write(f"{{os.getpid()}} {{role}}\\n")
    return _command()

baseline_process.child_command = _logged
""")
    monkeypatch.setenv("TOOLEVAL_BASELINES", "process")
    # This suite may itself run under xdist: its worker's variables would label the inner
    # run's controller a worker (the plugin asks pytest, ``config.workerinput``, not these).
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    report = normalised(fixed_run(project, fake_model, workers=2))
    assert report == expected()
    started = log.read_text().splitlines()
    assert len(started) == 1 and started[0].endswith(" controller"), started
