"""End to end on the real embedded default model (SmolLM2-135M): the plugin with no
server, a model process killed mid-run, the same command twice giving the same
transcripts, and `tooleval gap` with both arms. Slow-ish; marked `realmodel`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import WEATHER_TOOL, scenario

pytestmark = pytest.mark.realmodel

CASES = [
    {"name": "weather", "category": "tool", "steps": [
        {"message": "What's the weather in Izmir right now?", "expect": "get_weather",
         "evidence": ["17.4"]}]},
    {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks, bye!"}]},
]


@pytest.fixture
def tiny_project(tmp_path: Path) -> Path:
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "tiny.yaml").write_text(
        scenario(CASES, tools=[WEATHER_TOOL]), encoding="utf-8")
    return tmp_path


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    root = str(Path(__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600)


def test_default_model_runs_without_a_server(tiny_project: Path) -> None:
    result = _run(["-m", "pytest", "scenarios", "-p", "no:cacheprovider",
                   "--tooleval-no-builtin", "--tooleval-partial", "pass"], tiny_project)
    report = json.loads((tiny_project / "tooleval-report" / "report.json").read_text())
    backend = report["run"]["backend"]
    assert backend["backend"] == "llama.cpp (embedded)", result.stdout[-2000:]
    assert backend["grammar"] == "on" and "json-envelope" in backend["constraint"]
    assert backend["tools_shown"] == "injected"  # SmolLM2's template drops tools
    assert report["summary"]["outcomes"]["ERROR"] == 0
    from tests.conftest import report_cases

    for case in report_cases(report):
        for step in case.transcripts:
            # grammar on: every attempt parses and fits the schema, whatever the model chose,
            # unless the turn was cut off at max_tokens
            assert all(a.malformed in (None, "unknown_tool")
                       or (a.reason or "").startswith("truncated") for a in step.attempts)


def test_a_turn_cut_off_at_max_tokens_is_not_an_answer(tiny_project: Path) -> None:
    """The embedded backend too: a ``length`` finish is a malformed, truncated attempt
    (it scored "thanks" PASS on an unclosed envelope)."""
    (tiny_project / "pyproject.toml").write_text(
        '[tool.tooleval.models.tiny]\ngguf = "default"\nmax_tokens = 3\nmax_steps = 2\n',
        encoding="utf-8")
    result = _run(["-m", "pytest", "scenarios", "-p", "no:cacheprovider", "--model", "tiny",
                   "--tooleval-no-builtin", "-k", "thanks"], tiny_project)
    report = json.loads((tiny_project / "tooleval-report" / "report.json").read_text())
    from tests.conftest import report_cases

    (case,) = report_cases(report)
    assert case.outcome != "PASS", result.stdout[-2000:]
    (step,) = case.transcripts
    assert [call.finish_reason for call in step.model_calls] == ["length", "length"]
    assert not step.answered
    assert all((a.reason or "").startswith("truncated") for a in step.attempts)


KILLER = """
import os, signal
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    if item.name == "killed":
        process = item.funcargs["tooleval_session"].backend.process
        os.kill(process.pid, signal.SIGSEGV)
        process._proc.wait()  # dead before the case's first model call
"""


def test_a_model_process_killed_mid_run_costs_one_error_and_the_run_goes_on(
    tiny_project: Path,
) -> None:
    cases = [dict(CASES[1], name=name) for name in ("before", "killed", "after")]
    (tiny_project / "scenarios" / "tiny.yaml").write_text(
        scenario(cases, tools=[WEATHER_TOOL]), encoding="utf-8")
    (tiny_project / "conftest.py").write_text(KILLER, encoding="utf-8")
    result = _run(["-m", "pytest", "scenarios", "-p", "no:cacheprovider",
                   "--tooleval-no-builtin", "--tooleval-partial", "pass",
                   "--tooleval-order", "collection"], tiny_project)
    report = json.loads((tiny_project / "tooleval-report" / "report.json").read_text())
    by_name = {case["case"]: case for case in report["cases"]}
    assert set(by_name) == {"before", "killed", "after"}, result.stdout[-2000:]
    killed = by_name["killed"]
    assert killed["outcome"] == "ERROR"
    message = json.dumps(killed["error"])
    assert "killed by SIGSEGV (signal 11)" in message and "fresh process" in message
    assert by_name["before"]["outcome"] != "ERROR" and by_name["after"]["outcome"] != "ERROR"
    assert by_name["after"]["steps"][0]["transcript"]["model_calls"]  # a fresh process answered
    assert report["summary"]["outcomes"]["ERROR"] == 1
    assert report["summary"]["deployability"]["valid"] is False
    assert "verdict: NOT VALID: 1 case(s) ended in ERROR" in result.stdout


def test_the_same_command_twice_gives_the_same_transcripts(tiny_project: Path) -> None:
    def transcripts() -> dict[str, object]:
        _run(["-m", "pytest", "scenarios", "-p", "no:cacheprovider", "--tooleval-no-builtin",
              "--tooleval-partial", "pass"], tiny_project)
        report = json.loads((tiny_project / "tooleval-report" / "report.json").read_text())
        return {case["case"]: _without_timings([step["transcript"] for step in case["steps"]])
                for case in report["cases"]}

    first = transcripts()
    assert first and first == transcripts()


def _without_timings(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items()
                if k not in ("latency_s", "duration_s")}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_gap_runs_both_arms_with_the_same_prompt(tiny_project: Path) -> None:
    result = _run(["-m", "pytest_tooleval.cli", "gap", "scenarios", "--",
                   "--tooleval-no-builtin"], tiny_project)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    out = tiny_project / "tooleval-report" / "gap"
    gap = json.loads((out / "gap.json").read_text())
    on = json.loads((out / "on" / "report.json").read_text())
    off = json.loads((out / "off" / "report.json").read_text())
    assert on["run"]["backend"]["grammar"] == "on" and off["run"]["backend"]["grammar"] == "off"
    assert off["run"]["backend"]["constraint"] == "none"
    assert "json-envelope" in gap["mechanism"]["on"]
    assert gap["cases"] == 2 and set(gap["validity"]) == {"on", "off"}
    assert (out / "gap.md").read_text().startswith("# Grammar gap")
