"""`tooleval check`, `tooleval route` and `--tooleval-check` over the configured catalogue:
MCP and Python tools with their real descriptions, and where the list came from."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pytest_tooleval.check.catalogue import conftest_files
from pytest_tooleval.cli import main

from ._support import TOY

CONFIG = f"""
[mcp.toy]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(TOY))}]
prefix = "toy_"
"""
CONFTEST = '''
from pytest_tooleval import tool


@tool
def release_date(version: str) -> str:
    """The date a release of our product shipped."""
    return "2025-05-28"
'''
# Only toy_recall's description ("The notes kept so far") holds these words: with the
# names alone, nine unscored toy tools tie and another one is shown at k = 1.
FILE = {"name": "toy-notes", "language": "en", "requires": ["toy_recall", "release_date"],
        "cases": [{"name": "notes", "category": "tool", "steps": [
            {"message": "show me the notes kept so far", "expect": "toy_recall"}]}]}


@pytest.fixture
def toy_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tooleval.toml").write_text(CONFIG)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "notes.json").write_text(json.dumps(FILE))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _check(*args: str) -> dict:
    out = Path("check.json")
    code = main(["check", "benchmarks", "--no-builtin", "--k", "1", "--json", str(out), *args])
    return {"code": code, **json.loads(out.read_text())}


def test_check_starts_the_servers_and_routes_with_their_descriptions(toy_project, capsys) -> None:
    report = _check()
    assert report["code"] == 0, report["failures"]
    assert report["recall"]["hits"] == 1
    catalogue = "; ".join(report["catalogue"])
    assert "mcp:toy: 9 tools (started and listed, toy 1.0)" in catalogue
    assert "python:conftest.py: 1 tools" in catalogue
    assert "catalogue: " in capsys.readouterr().out


def test_check_reads_the_cached_list_and_says_so(toy_project) -> None:
    assert _check()["code"] == 0  # lists and caches
    report = _check("--mcp", "cached")
    assert report["code"] == 0, report["failures"]
    assert any("cached tool list of" in line for line in report["catalogue"])


def test_without_the_servers_requires_fails_and_says_why(toy_project) -> None:
    report = _check("--mcp", "off")
    assert report["code"] == 1
    requires = [f["detail"] for f in report["failures"] if f["kind"] == "requires"]
    assert requires and "not listed: mcp:toy (--mcp off)" in requires[0]
    missing_cache = _check("--mcp", "cached")
    assert any("no cached tool list for mcp:toy" in line for line in missing_cache["catalogue"])


def test_a_server_that_failed_to_start_is_said_so_once(toy_project) -> None:
    """It read "not listed: mcp:toy: failed to start: MCP server 'toy' (stdio: pythn ...)
    failed to start: command not found: pythn"."""
    (toy_project / "tooleval.toml").write_text(CONFIG.replace(json.dumps(sys.executable),
                                                              '"pythn"'))
    catalogue = "; ".join(_check()["catalogue"])
    assert "not listed: mcp:toy: MCP server 'toy' (stdio: pythn " in catalogue
    assert catalogue.count("failed to start") == 1


THREE = {"name": "orders", "language": "en", "requires": ["release_date", "stock", "refund"],
         "cases": [{"name": "thanks", "category": "irrelevance",
                    "steps": [{"message": "thanks!"}]}]}


@pytest.mark.parametrize(("conftest", "cause"), [
    ("import no_such_module_here\n" + CONFTEST,
     "conftest.py:1: ModuleNotFoundError: No module named 'no_such_module_here'; fix: "
     "install 'no_such_module_here' into the Python tooleval runs in ("),
    (CONFTEST.replace('    """The date a release of our product shipped."""\n', ""),
     "conftest.py:5: @tool 'release_date' (conftest.py): no description; fix: give the "
     "function a docstring")])
def test_a_conftest_that_does_not_import_is_one_row_with_its_cause(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, conftest: str, cause: str) -> None:
    """Three required tools gave three rows for one cause, each guessing '(a missing
    binary, an MCP server not configured or not started)' and 'cannot be imported outside
    pytest' (a user's first hour)."""
    (tmp_path / "tooleval.toml").write_text("")
    (tmp_path / "conftest.py").write_text(conftest)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "orders.json").write_text(json.dumps(THREE))
    monkeypatch.chdir(tmp_path)
    report = _check("--no-cache")
    [row] = [f["detail"] for f in report["failures"] if f["kind"] == "requires"]
    assert row.startswith("requires 'release_date', 'stock', 'refund', not offered here: "
                          f"not listed: python:{tmp_path / cause}"), row
    assert "a missing binary" not in row and "outside pytest" not in row


def test_a_conftest_imports_a_module_beside_it_as_pytest_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside `python -m` (the tooleval script) the check failed on a module beside the
    conftest.py, which pytest puts on sys.path."""
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    (tmp_path / "tooleval.toml").write_text("")
    (tmp_path / "tooleval_beside_helpers.py").write_text("DATE = '2025-05-28'\n")
    (tmp_path / "conftest.py").write_text("import tooleval_beside_helpers  # noqa\n" + CONFTEST)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "r.json").write_text(json.dumps(dict(THREE, requires=[
        "release_date"])))
    monkeypatch.chdir(tmp_path)
    report = _check("--no-cache")
    assert report["code"] == 0, report["failures"]


def test_names_alone_miss_what_descriptions_reach(toy_project) -> None:
    names = ["toy_add", "toy_echo", "toy_fail", "toy_slow", "toy_crash", "toy_pid", "toy_env",
             "toy_remember", "toy_recall", "release_date"]
    report = _check(*[arg for name in names for arg in ("--offered", name)])
    assert report["recall"]["hits"] == 0  # what `check` reported before it knew descriptions


def test_route_shows_the_configured_tools(toy_project, capsys) -> None:
    assert main(["route", "show me the notes kept so far", "--no-builtin", "--k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[1] == "toy_recall"
    assert "mcp:toy: 9 tools (started and listed" in out


def test_a_configuration_mistake_is_one_message(toy_project, capsys) -> None:
    (toy_project / "tooleval.toml").write_text("k = 0\n")
    assert main(["route", "hello"]) == 2
    assert "tooleval.toml: k = 0: Input should be greater than or equal to 1" in \
        capsys.readouterr().err


def test_conftest_files_pytest_would_load(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for folder in (tmp_path, tmp_path / "a" / "b"):
        (folder / "conftest.py").write_text("")
    found = conftest_files(tmp_path, [tmp_path / "a" / "b" / "x.json", Path("/elsewhere")])
    assert found == [tmp_path / "conftest.py", tmp_path / "a" / "b" / "conftest.py"]


def test_the_plugin_check_routes_over_the_run_catalogue(project) -> None:
    (project.path / "tooleval.toml").write_text(
        '[models.fake]\nbase_url = "http://127.0.0.1:9/v1"\n' + CONFIG)
    project.write("benchmarks/notes.json",
                  {**FILE, "requires": ["toy_recall"]})
    result = project.run("--tooleval-check", "--tooleval-k", "1")
    assert result.ret == 0, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["*router recall: 100.0% (1/1)*"])


def test_a_cached_list_shadows_builtins_as_the_live_server_would(tmp_path: Path) -> None:
    from pytest_tooleval.check.catalogue import configured_catalogue
    from pytest_tooleval.config import Settings
    from pytest_tooleval.tools.base import ToolSpec
    from pytest_tooleval.tools.mcp.cache import write_cache

    (tmp_path / "tooleval.toml").write_text(
        '[mcp.repo]\ncommand = "never-started"\nprefix = "repo_"\nshadow_builtins = true\n')
    settings = Settings.from_directory(tmp_path)
    spec = ToolSpec("repo_git_log", "Shows the commit logs", {}, "mcp:repo", stands_for="git_log")
    write_cache(tmp_path, "repo", settings.mcp_servers["repo"], [spec], "mcp-git 1.0")
    catalogue = configured_catalogue(settings, mcp="cached")
    names = {spec.name for spec in catalogue.specs}
    assert "repo_git_log" in names and "git_log" not in names
    assert "git_status" in names  # not offered by the server: not shadowed
    assert any(line.startswith("mcp:repo: 1 tools (cached tool list of") for line in
               catalogue.sources)
    assert "built-ins shadowed: git_log (by mcp:repo)" in catalogue.sources
