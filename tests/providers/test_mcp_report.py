"""The MCP server's name and version reach the report, and compare refuses a change."""

from __future__ import annotations

import json
import sys

import pytest

from pytest_tooleval.report.compare import compare, mcp_servers
from pytest_tooleval.report.model import Report
from tests.conftest import said
from tests.support.fake_openai import Rule, answer, call
from tests.test_compare_gap import BASE, report

from ._support import TOY

SEED = {"name": "toy-notes", "language": "en", "requires": ["toy_remember"], "cases": [
    {"name": f"note-{n}", "category": "tool", "steps": [
        {"message": f"remember the {n} note for me", "expect": "toy_remember",
         "evidence": ["kept"]}]} for n in ("alpha", "beta")]}


@pytest.mark.parametrize("workers", [0, 2])
def test_the_handshake_and_per_case_isolation_reach_the_report(project, fake_model,
                                                                workers) -> None:
    # Each case remembers one note; per-case isolation makes both answer "1 note(s)".
    server = fake_model([Rule("alpha", [call("toy_remember", {"text": "a"}), answer("kept")]),
                         Rule("beta", [call("toy_remember", {"text": "b"}), answer("kept")])])
    project.profile(server)
    config = project.path / "tooleval.toml"
    config.write_text(config.read_text() + f'\n[mcp.toy]\ncommand = {json.dumps(sys.executable)}'
                      f'\nargs = [{json.dumps(str(TOY))}]\nprefix = "toy_"\n')
    project.write("benchmarks/notes.json", SEED)
    result = project.run(workers=workers)
    assert result.ret == 0, result.stdout.str()[-3000:]
    run = project.report()["run"]
    toy = next(p for p in run["tool_providers"] if p["source"] == "mcp:toy")
    assert toy["server"] == {"name": "toy", "version": "1.0"}
    assert toy["isolation"] == "per-case"
    if not workers:  # one process ran both cases (under xdist each worker may run one)
        assert toy["restarts"] == 1
    results = [case["steps"][0]["transcript"]["attempts"][0]["result"]
               for case in project.report()["cases"]]
    assert results == ["1 note(s)", "1 note(s)"]  # per-run would give "2 note(s)"


def _with_server(version: str) -> Report:
    provider = {"source": "mcp:git", "server": {"name": "mcp-git", "version": version}}
    return report(BASE, tool_providers=[provider])


def test_compare_refuses_a_different_mcp_server_version() -> None:
    assert mcp_servers(_with_server("1.0").run) == {"mcp:git": "mcp-git 1.0"}
    result = compare(_with_server("1.1"), _with_server("1.0"))
    assert not result.compared
    assert "MCP server differs: mcp:git is mcp-git 1.1 here, mcp-git 1.0 in the baseline" in \
        result.refused
    assert compare(_with_server("1.0"), _with_server("1.0")).compared


def test_skip_missing_with_the_only_servers_broken_is_no_silent_pass(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("?")])])
    project.profile(server)
    config = project.path / "tooleval.toml"
    config.write_text(config.read_text() + '\n[mcp.gone]\ncommand = "no-such-mcp-server-cmd"\n')
    project.write("benchmarks/gone.json", SEED)
    result = project.run("--tooleval-skip-missing")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert said(result, "*NOTHING WAS SCORED: all 2 case(s) were skipped (exit 5)*requires "
                "tools that no provider*toy_remember*mcp:gone (failed: *command not found*")
    report = project.report()
    assert report["cases"] == [] and len(report["run"]["skipped"]) == 2
    assert "mcp:gone" in report["run"]["skipped"][0]["reason"]
    assert server.requests == []
