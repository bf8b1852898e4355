"""`tooleval check --oracle` over the providers a run would have: a gold call to a user's
``@tool`` function (conftest.py) or to an MCP server's tool (mcp-server-git) is run and
proven, and one whose tool is not offered is refused with the real reason."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from pytest_tooleval.cli import main
from tests.providers.test_mcp_git_e2e import _repository

CONFTEST = '''
from pytest_tooleval import tool


@tool
def release_date(version: str) -> str:
    """Tell when a version of our app was (or will be) released."""
    return {"4.3.0": "2025-05-28"}.get(version, "unknown version")
'''
RELEASE = {"name": "release", "language": "en", "requires": ["release_date"],
           "cases": [{"name": "release-4-3", "category": "tool", "steps": [
               {"message": "when did version 4.3.0 of our app ship?",
                "expect": "release_date", "evidence": ["2025-05-28"],
                "gold": [{"tool": "release_date", "args": {"version": "4.3.0"}}]}]}]}


def _project(root: Path, config: str, cases: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "tooleval.toml").write_text(config)
    (root / "benchmarks").mkdir()
    (root / "benchmarks" / "cases.json").write_text(json.dumps(cases))
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))


def _oracle(*args: str) -> tuple[int, dict]:
    out = Path("check.json").resolve()
    code = main(["check", "benchmarks", "--oracle", "--no-cache", "--json", str(out), *args])
    return code, json.loads(out.read_text())["oracle"]


def test_the_oracle_proves_a_gold_call_to_a_conftest_tool(tmp_path: Path, monkeypatch) -> None:
    _project(tmp_path, "k = 9\n", RELEASE, monkeypatch)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    code, oracle = _oracle()
    assert oracle["failures"] == [] and oracle["proven"] == oracle["cases"] == 1
    assert code == 0


def test_the_conftest_of_a_case_files_folder_is_loaded(tmp_path: Path, monkeypatch) -> None:
    """`tooleval check benchmarks` looked for conftest.py only from the project root down to
    `benchmarks`, not in the folders of its case files, which pytest loads: the file's
    `requires` failed ("which no provider on this machine offers") and its gold call was
    "not offered here", while `pytest benchmarks` ran it."""
    _project(tmp_path, "k = 9\n", {"name": "other", "cases": []}, monkeypatch)
    (tmp_path / "benchmarks" / "cases.json").unlink()
    (tmp_path / "benchmarks" / "releases").mkdir()
    (tmp_path / "benchmarks" / "releases" / "conftest.py").write_text(CONFTEST)
    (tmp_path / "benchmarks" / "releases" / "cases.json").write_text(json.dumps(RELEASE))
    code, oracle = _oracle()
    assert oracle["failures"] == [] and oracle["proven"] == oracle["cases"] == 1
    assert code == 0


def test_the_oracle_proves_a_gold_call_to_a_python_tools_module(tmp_path: Path,
                                                                  monkeypatch) -> None:
    _project(tmp_path, 'python_tools = ["oracle_release_tools"]\n', RELEASE, monkeypatch)
    (tmp_path / "oracle_release_tools.py").write_text(CONFTEST)
    code, oracle = _oracle("--no-builtin")
    assert oracle["failures"] == [] and oracle["proven"] == 1
    assert code == 0


def test_a_conftest_that_cannot_be_imported_is_the_reason_given(tmp_path: Path,
                                                                 monkeypatch) -> None:
    _project(tmp_path, "k = 9\n", RELEASE, monkeypatch)
    (tmp_path / "conftest.py").write_text("import no_such_module_here\n" + CONFTEST)
    code, oracle = _oracle()
    assert code == 1 and oracle["proven"] == 0
    reason = oracle["failures"][0]["reason"]
    assert "release_date, which no provider offers here" in reason
    assert ("conftest.py:1: ModuleNotFoundError: No module named 'no_such_module_here'; fix: "
            "install 'no_such_module_here'") in reason


def _git_server(repo: Path, command: str = sys.executable) -> str:
    return "\n".join([
        "[mcp.repo]", f"command = {json.dumps(command)}",
        f'args = ["-m", "mcp_server_git", "--repository", {json.dumps(str(repo))}]',
        'prefix = "repo_"', 'isolation = "per-run"', "startup_timeout = 60", ""])


def _log_cases(repo: Path) -> dict:
    return {"name": "repo", "language": "en", "requires": ["repo_git_log"],
            "cases": [{"name": "log", "category": "tool", "steps": [
                {"message": "show me the last commits in the repository",
                 "expect": "repo_git_log", "evidence": ["readme"],
                 "gold": [{"tool": "repo_git_log",
                           "args": {"repo_path": str(repo), "max_count": 3}}]}]}]}


def test_the_oracle_proves_a_gold_call_to_mcp_server_git(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("mcp_server_git")
    if shutil.which("git") is None:  # pragma: no cover
        pytest.skip("needs a git binary")
    repo = _repository(tmp_path / "repo")
    project = tmp_path / "project"
    project.mkdir()
    _project(project, _git_server(repo), _log_cases(repo), monkeypatch)
    code, oracle = _oracle("--no-builtin", "--k", "3")
    assert oracle["failures"] == [] and oracle["proven"] == oracle["cases"] == 1
    assert code == 0


def test_a_server_that_does_not_start_is_the_reason_given(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    project = tmp_path / "project"
    project.mkdir()
    _project(project, _git_server(repo, "/nonexistent/python"), _log_cases(repo), monkeypatch)
    code, oracle = _oracle("--no-builtin", "--k", "3")
    assert code == 1 and oracle["proven"] == 0
    reason = oracle["failures"][0]["reason"]
    assert "repo_git_log, which no provider offers here" in reason
    assert "mcp:repo (failed:" in reason


DOCS = Path(__file__).resolve().parents[2] / "docs" / "your-tools.md"


def _block(text: str, language: str, first_line: str) -> str:
    """The code block of docs/your-tools.md in ``language`` that starts with ``first_line``."""
    import re

    for body in re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M):
        if body.startswith(first_line):
            return str(body)
    raise AssertionError(f"no ```{language} block starting {first_line!r} in {DOCS}")


def test_the_walk_through_of_docs_your_tools_is_proven(tmp_path: Path, monkeypatch) -> None:
    """The example project of docs/your-tools.md, built from its own code blocks: its
    cases' gold paths pass `tooleval check --oracle` (MCP server and conftest.py tool)."""
    pytest.importorskip("mcp.server.mcpserver")
    text = DOCS.read_text(encoding="utf-8")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "issues_server.py").write_text(
        _block(text, "python", "# tools/issues_server.py"))
    (tmp_path / "conftest.py").write_text(_block(text, "python", "# conftest.py"))
    config = _block(text, "toml", "# pyproject.toml").replace(
        'command = "python"', f"command = {json.dumps(sys.executable)}")
    (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "my-tools.json").write_text(_block(text, "json", "{\n  \"name\""))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, oracle = _oracle()
    assert oracle["failures"] == [] and oracle["proven"] == oracle["cases"] == 3
    assert code == 0
