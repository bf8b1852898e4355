"""The usage lines work as written in a project whose ``testpaths`` names its test suite."""

from __future__ import annotations

import argparse

import pytest

from tests.conftest import THANKS_CASE, WEATHER_CASE, scenario
from tests.support.fake_openai import Rule, answer

PYPROJECT = """
[tool.pytest.ini_options]
testpaths = ["tests"]
{extra}
"""


def _layout(project, extra: str = "") -> None:
    project.write("pyproject.toml", PYPROJECT.format(extra=extra))
    project.write("tests/test_unit.py", "def test_unit():\n    assert True\n")
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))


def test_model_runs_the_cases_not_the_testpaths(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    _layout(project)
    result = project.run("--collect-only", "-q")
    result.stdout.fnmatch_lines(["scenarios/demo.yaml::weather", "scenarios/demo.yaml::thanks",
                                 "*2 tests collected*"])
    assert "test_unit" not in result.stdout.str()
    result = project.run("-k", "thanks")
    assert result.parseoutcomes() == {"passed": 1, "deselected": 1}
    assert [c["case"] for c in project.report()["cases"]] == ["thanks"]


def test_plain_pytest_keeps_the_test_suite_and_collect_only_lists_both(pytester,
                                                                       project) -> None:
    _layout(project)
    result = pytester.runpytest("-p", "pytest_tooleval.plugin", "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 1}
    result = pytester.runpytest("-p", "pytest_tooleval.plugin", "-p", "no:cacheprovider",
                                "--collect-only", "-q")
    result.stdout.fnmatch_lines(["tests/test_unit.py::test_unit",
                                 "scenarios/demo.yaml::weather", "*3 tests collected*"])


def test_hardmode_mark_selects_cases(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    _layout(project)
    result = project.run("-m", "hardmode", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["scenarios/demo.yaml::thanks", "*1/2 tests collected*"])


def test_case_paths_are_configurable_in_ini(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    _layout(project, 'tooleval_paths = ["cases"]')
    project.write("cases/other.yaml", scenario([THANKS_CASE], name="other"))
    result = project.run("--collect-only", "-q")
    result.stdout.fnmatch_lines(["cases/other.yaml::thanks", "*1 test collected*"])
    assert "scenarios/demo.yaml" not in result.stdout.str()


def test_an_explicit_path_wins(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    _layout(project)
    result = project.run("tests", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["tests/test_unit.py::test_unit", "*1 test collected*"])


@pytest.mark.parametrize("command", ["run", "gap"])
def test_workers_without_xdist_say_what_to_install(command, monkeypatch, capsys) -> None:
    import importlib.util

    from pytest_tooleval import cli

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "xdist" else real(name, *a))
    called: list[object] = []
    monkeypatch.setattr(pytest, "main", lambda *a, **k: called.append(a) or 0)
    code = cli.main([command, "-n", "2", "--model", "fake"])
    assert code == 2
    assert called == []
    err = capsys.readouterr().err
    assert "pytest-xdist, which is not installed" in err
    assert "pip install 'pytest-tooleval[xdist]'" in err


def test_workers_with_xdist_installed_are_passed_through() -> None:
    from pytest_tooleval.cli.run import missing_for, pytest_args_for_run

    options = argparse.Namespace(paths=["scenarios"], model="m", grammar=None, report=None,
                                 workers="2", marks=None, keyword=None)
    assert missing_for(options) is None
    assert "-n" in pytest_args_for_run(options, [])
