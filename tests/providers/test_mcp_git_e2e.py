"""End to end against a real third-party MCP server: mcp-server-git over stdio, on a
throwaway repository, through the plugin and the scripted loopback model.

What it proves: the server's own name and version reach the report; a case's branch does
not leak into the next case (the ``reset`` command); with the built-ins off, the prefixed
``repo_git_log`` is shown for a question the built-in ``git_log`` would have answered.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_openai import Rule, answer, call

pytest.importorskip("mcp_server_git")
if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("needs a git binary", allow_module_level=True)

RESET = ("git checkout -q -f main && git reset -q --hard base && git clean -qfdx && "
         "git for-each-ref --format='%(refname:short)' refs/heads | grep -v '^main$' "
         "| xargs -r git branch -q -D")


def _repository(path: Path) -> Path:
    path.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=t@example.org",
                        *args], cwd=path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (path / "README.md").write_text("throwaway\n")
    git("add", "README.md")
    git("commit", "-q", "-m", "Add the readme of the throwaway repository")
    git("tag", "base")
    return path


def test_mcp_server_git_end_to_end(project, fake_model, tmp_path: Path) -> None:
    repo = _repository(tmp_path / "repo")
    where = {"repo_path": str(repo)}
    server = fake_model([
        Rule("feature-x", [call("repo_git_create_branch", {**where, "branch_name": "feature-x"}),
                           answer("Created the branch.")]),
        Rule("which branches", [call("repo_git_branch", {**where, "branch_type": "local"}),
                                answer("Only main.")]),
        Rule("last commits", [call("repo_git_log", {**where, "max_count": 3}),
                              answer("The readme was added.")]),
    ])
    project.profile(server)
    config = project.path / "tooleval.toml"
    config.write_text(config.read_text() + "\n".join([
        "", "[mcp.repo]", f"command = {json.dumps(sys.executable)}",
        f'args = ["-m", "mcp_server_git", "--repository", {json.dumps(str(repo))}]',
        'prefix = "repo_"', 'isolation = "per-run"', f"cwd = {json.dumps(str(repo))}",
        f'reset = ["sh", "-c", {json.dumps(RESET)}]', "startup_timeout = 60", ""]))
    project.write("benchmarks/repo.json", {
        "name": "repo", "language": "en",
        "requires": ["repo_git_create_branch", "repo_git_branch", "repo_git_log"],
        "cases": [
            {"name": "branch", "category": "tool", "steps": [
                {"message": "create a branch called feature-x", "expect":
                 "repo_git_create_branch", "evidence": ["Created"]}]},
            {"name": "branches", "category": "tool", "steps": [
                {"message": "which branches are there?", "expect": "repo_git_branch",
                 "evidence": ["main"]}]},
            {"name": "log", "category": "tool", "steps": [
                {"message": "show me the last commits in the repository",
                 "expect": "repo_git_log", "evidence": ["readme"]}]},
        ]})
    result = project.run("--tooleval-k", "3")
    assert result.ret == 0, result.stdout.str()[-3000:]
    report = project.report()
    git_server = next(p for p in report["run"]["tool_providers"] if p["source"] == "mcp:repo")
    assert git_server["server"]["name"] == "mcp-git" and git_server["server"]["version"]
    assert git_server["resets"] == 2
    steps = {case["case"]: case["steps"][0]["transcript"] for case in report["cases"]}
    branches = steps["branches"]["attempts"][0]["result"]
    assert "main" in branches and "feature-x" not in branches  # reset between cases
    assert "repo_git_log" in steps["log"]["shown"]
    # The branch made by the first case is gone from the repository itself.
    listed = subprocess.run(["git", "branch"], cwd=repo, capture_output=True, text=True).stdout
    assert "feature-x" not in listed


def test_shadowed_builtins_give_way_to_the_git_server(tmp_path: Path, monkeypatch, capsys) -> None:
    from pytest_tooleval.cli import main

    repo = _repository(tmp_path / "repo")
    (tmp_path / "tooleval.toml").write_text("\n".join([
        "[mcp.repo]", f"command = {json.dumps(sys.executable)}",
        f'args = ["-m", "mcp_server_git", "--repository", {json.dumps(str(repo))}]',
        'prefix = "repo_"', "shadow_builtins = true", "startup_timeout = 60", ""]))
    monkeypatch.chdir(tmp_path)
    assert main(["route", "show me the last commits in the repository", "--k", "3"]) == 0
    out = capsys.readouterr().out
    shown = [line.split()[1] for line in out.splitlines()[1:4]]
    assert "repo_git_log" in shown and "git_log" not in shown
    assert "stands for the built-in git_log" in out
    assert "built-ins shadowed: git_commit (by mcp:repo), git_diff (by mcp:repo)" in out
