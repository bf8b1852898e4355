"""Progress on long runs (cases done / total, elapsed, ETA, running score): on a serial
run between pytest's own output, never under -q or xdist; and `tooleval run` passing -v,
-q, --lf and --sample through to pytest."""

from __future__ import annotations

import argparse
import json

import pytest

from pytest_tooleval.cli import main
from pytest_tooleval.cli.run import pytest_args_for_run
from pytest_tooleval.report.progress import clock, progress_line
from tests.conftest import THANKS_CASE, WEATHER_CASE, scenario
from tests.support.fake_openai import Rule, answer

SCRIPT = [Rule("thanks", [answer("You're welcome!")]), Rule("weather", [answer("No idea.")])]
LINE = "tooleval: * cases, * elapsed, ETA *, running score *"


def test_progress_line_counts_eta_and_score() -> None:
    line = progress_line(30, 120, 90.0, 270.0, 41.25, {"PASS": 20, "FAIL": 10, "ERROR": 0})
    assert line == ("tooleval: 30/120 cases, 1m30s elapsed, ETA 4m30s, running score 41.2 "
                    "(20 PASS 10 FAIL)")
    assert clock(3725) == "1h02m" and clock(7) == "7s"
    assert "ETA ?" in progress_line(0, 5, 0.0, None, None, {})


def _project(project, fake_model, cases: int = 4):
    project.profile(fake_model(SCRIPT))
    project.write("scenarios/demo.yaml", scenario(
        [dict(THANKS_CASE, name=f"t{i}") for i in range(cases)]))


def test_a_line_per_case_with_interval_zero_and_none_on_the_last(project, fake_model) -> None:
    _project(project, fake_model)
    result = project.run("--tooleval-progress", "0")
    lines = [line for line in result.stdout.lines if " cases, " in line]
    assert [line.split(" cases")[0] for line in lines] == [
        "tooleval: 1/4", "tooleval: 2/4", "tooleval: 3/4"]
    assert "running score 100.0 (3 PASS)" in lines[-1]
    # pytest's own output goes on around the lines, naming the file again
    assert sum(line.startswith("scenarios/demo.yaml") for line in result.stdout.lines) == 4


@pytest.mark.parametrize("args", [["-q", "--tooleval-progress", "0"],
                                  ["--tooleval-progress", "-1"], []],
                         ids=["quiet", "off", "interval-not-reached"])
def test_no_line_when_quiet_off_or_too_soon(project, fake_model, args) -> None:
    _project(project, fake_model)
    result = project.run(*args)
    assert not [line for line in result.stdout.lines if " cases, " in line]


def test_eta_under_xdist_from_the_workers_finished_cases(project, fake_model) -> None:
    _project(project, fake_model)
    result = project.run("--tooleval-progress", "0", workers=2)
    lines = [line for line in result.stdout.lines if " cases, " in line]
    assert [line.split(" cases")[0] for line in lines] == [
        "tooleval: 1/4", "tooleval: 2/4", "tooleval: 3/4"]
    assert "ETA ?" in lines[0] and "ETA ?" not in lines[1]  # counted from the first case
    assert "tooleval: 4 case(s) from 1 file(s); each worker starts the model" in \
        result.stdout.str()


def _options(**given: object) -> argparse.Namespace:
    base = {"paths": ["scenarios"], "model": None, "grammar": None, "report": None,
            "workers": None, "marks": None, "keyword": None, "sample": None, "verbose": 0,
            "quiet": 0, "lf": False, "ff": False, "exitfirst": False, "maxfail": None}
    return argparse.Namespace(**{**base, **given})


def test_run_passes_pytest_options_through(monkeypatch) -> None:
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    args = pytest_args_for_run(_options(sample=4, verbose=2, lf=True, exitfirst=True,
                                        maxfail=3), ["--tb=short"])
    assert args == ["scenarios", "--tooleval-sample=4", "-vv", "--lf", "-x",
                    "--maxfail", "3", "--tb=short"]
    assert "-q" in pytest_args_for_run(_options(quiet=1), [])
    assert "-q" not in pytest_args_for_run(_options(), [])  # progress shows by default


def test_run_rejects_an_unknown_option_saying_where_it_goes(capsys) -> None:
    assert main(["run", "--tb=short"]) == 2  # argparse's usage error, as the process ends
    assert "go after --, e.g. tooleval run -- --tb=short" in capsys.readouterr().err


def test_run_last_failed_reruns_only_what_did_not_pass(project, fake_model, monkeypatch) -> None:
    project.profile(fake_model(SCRIPT))
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    monkeypatch.chdir(project.path)
    common = ["run", "--model", "fake", "--grammar", "vendor", "-q", "--",
              "--tooleval-no-builtin"]
    assert main(common) == 1  # the weather case fails: the model never calls the tool
    assert main(["run", "--lf", *common[1:]]) == 1
    report = json.loads((project.path / "tooleval-report" / "report.json").read_text())
    assert [case["case"] for case in report["cases"]] == ["weather"]
