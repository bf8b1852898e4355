"""Your own tools through the plugin, against the scripted loopback model server: an MCP
server and a conftest.py Python tool run and score; `requires` met, unmet, skipped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pytest_tooleval.cli import main as tooleval_main
from tests.conftest import report_cases
from tests.support.fake_openai import Rule, answer, call

TOY_SERVER = Path(__file__).parent / "providers" / "servers" / "toy_server.py"


def _mcp(project, name: str, command: str, args: list[str], prefix: str = "") -> None:
    config = project.path / "tooleval.toml"
    config.write_text(config.read_text() + f"\n[mcp.{name}]\ncommand = {json.dumps(command)}\n"
                      f"args = {json.dumps(args)}\nprefix = {json.dumps(prefix)}\n"
                      "startup_timeout = 20\n")


SEED = {"name": "our-toy-mcp", "language": "en", "requires": ["toy_add", "release_date"],
        "cases": [
            {"name": "sum", "category": "tool", "steps": [
                {"message": "what do 1234 and 4321 add up to?", "expect": "toy_add",
                 "evidence": ["5555"], "forbidden": ["release_date"]}]},
            {"name": "release", "category": "tool", "steps": [
                {"message": "when did version 4.3.0 ship?", "expect": "release_date",
                 "evidence": ["2025-05-28"]}]},
            {"name": "thanks", "category": "irrelevance",
             "steps": [{"message": "great, thanks!"}]}]}

CONFTEST = '''
from pytest_tooleval import tool


@tool
def release_date(version: str) -> str:
    """The date a release of our product shipped."""
    return {"4.3.0": "2025-05-28"}.get(version, "unknown version")
'''


def test_mcp_and_python_tools_run_and_score(project, fake_model) -> None:
    server = fake_model([
        Rule("add up", [call("toy_add", {"a": 1234, "b": 4321}), answer("They make 5555.")]),
        Rule("4.3.0", [call("release_date", {"version": "4.3.0"}),
                       answer("It shipped on 2025-05-28.")]),
        Rule("thanks", [answer("Any time!")]),
    ])
    project.profile(server)
    _mcp(project, "toy", sys.executable, [str(TOY_SERVER)], prefix="toy_")
    project.pytester.makeconftest(CONFTEST)
    project.write("benchmarks/seed.json", SEED)
    result = project.run()
    assert result.ret == 0, result.stdout.str()[-3000:]
    report = project.report()
    assert report["summary"]["outcomes"]["PASS"] == 3
    assert {"toy_add", "toy_echo", "release_date"} <= set(report["run"]["tools_offered"])
    assert "mcp:toy" in report["run"]["providers"]
    assert "python:conftest.py" in report["run"]["providers"]
    summed = next(c for c in report_cases(report) if c.case == "sum")
    assert "5555" in (summed.transcripts[0].attempts[0].result or "")


def test_a_server_that_fails_to_start_stops_the_run_at_requires(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("ok")])])
    project.profile(server)
    _mcp(project, "toy", "/nonexistent/server-binary", [], prefix="toy_")
    project.pytester.makeconftest(CONFTEST)
    project.write("benchmarks/seed.json", SEED)
    result = project.run()
    assert result.ret == 2  # interrupted during collection: nothing scored
    result.stdout.fnmatch_lines(["*requires tools that no provider on this machine offers: "
                                 "toy_add*mcp:toy (failed:*"])
    assert server.requests == []


def test_a_required_tool_no_one_offers_names_the_close_one(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("ok")])])
    project.profile(server)
    project.pytester.makeconftest(CONFTEST)
    project.write("benchmarks/b.json", {"name": "b", "requires": ["release_dat"], "cases": [
        {"name": "hi", "category": "irrelevance", "steps": [{"message": "hello there"}]}]})
    result = project.run()
    result.stdout.fnmatch_lines(["*requires tools that no provider on this machine offers: "
                                 "release_dat (did you mean 'release_date'?). Providers:*"])
    assert server.requests == []


def test_a_refused_tool_in_a_conftest_shows_the_users_line_not_ours(project) -> None:
    """pytest printed the refusal under four frames of pytest_tooleval/tools/python.py."""
    project.profile("http://127.0.0.1:9/v1")
    project.pytester.makeconftest('''
import socket

from pytest_tooleval import tool


@tool
def lock_stock(sock: socket.socket) -> str:
    """Lock the stock."""
    return "ok"
''')
    project.write("benchmarks/b.json", {"name": "b", "cases": [
        {"name": "hi", "category": "irrelevance", "steps": [{"message": "hello there"}]}]})
    output = project.run().stderr.str()
    assert "conftest.py:6: in <module>" in output and "parameter 'sock'" in output, output
    assert "tools/python.py" not in output, output


@pytest.mark.parametrize("workers", [0, 2])  # 2: an INTERNALERROR traceback, message lost
def test_duplicate_tool_names_are_one_clear_message(project, fake_model, workers) -> None:
    server = fake_model([Rule("", [answer("ok")])])
    project.profile(server)
    project.pytester.makeconftest('''
from pytest_tooleval import tool


@tool
def calculator(expression: str) -> str:
    """My own calculator."""
    return "42"
''')
    project.write("benchmarks/b.json", {"name": "b", "cases": [
        {"name": "hi", "category": "irrelevance", "steps": [{"message": "hello there"}]}]})
    for name in ("c", "d"):  # files with requires said it once each, serially
        project.write(f"benchmarks/{name}.json", {"name": name, "requires": ["calculator"],
                                                  "cases": [{"name": "hi", "category":
                                                             "irrelevance", "steps": [
                                                                 {"message": "hello there"}]}]})
    result = project.run(builtin=True, workers=workers)
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert output.count("tool 'calculator' is offered twice, by builtin and by "
                        "python:conftest.py") == 1, output
    assert result.ret == pytest.ExitCode.INTERRUPTED  # serially it was 4, a usage error


def test_tools_of_a_conftest_pytest_loads_later_are_offered(project, fake_model) -> None:
    """The catalogue was made when the first file with `requires` was collected, before
    pytest had loaded the conftest.py of a later folder: its tool was 'missing', and one of
    the same name as an earlier folder's silently ran the earlier folder's function."""
    server = fake_model([Rule("in a", [call("lookup", {"key": "k"}), answer("a-k")]),
                         Rule("in b", [call("lookup_b", {"key": "k"}), answer("b-k")])])
    project.profile(server)
    for folder, name in (("a", "lookup"), ("b", "lookup_b")):
        project.write(f"benchmarks/{folder}/conftest.py", (
            f"from pytest_tooleval import tool\n\n\n@tool\ndef {name}(key: str) -> str:\n"
            f'    """Look up a key in table {folder}."""\n    return "{folder}-" + key\n'))
        project.write(f"benchmarks/{folder}/f.json", {
            "name": folder, "requires": [name], "cases": [{"name": folder, "category": "tool",
            "steps": [{"message": f"look up k in {folder}", "expect": name,
                       "evidence": [f"{folder}-k"]}]}]})
    result = project.run("benchmarks")
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert {name: case.transcripts[0].attempts[0].result
            for name, case in project.cases().items()} == {"a": "a-k", "b": "b-k"}
    project.write("benchmarks/b/conftest.py", (project.path / "benchmarks/b/conftest.py")
                  .read_text().replace("def lookup_b", "def lookup"))
    project.write("benchmarks/b/f.json", (project.path / "benchmarks/b/f.json")
                  .read_text().replace("lookup_b", "lookup"))
    result = project.run("benchmarks")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*tool 'lookup' is offered twice, by python:benchmarks/a/"
                                 "conftest.py and by python:benchmarks/b/conftest.py*"])


# -- a read-only tool backs no claimed action ------------------------------------------------
CLAIM = "You're welcome! I've sent you a confirmation e-mail as well."
CLAIMED = "step 2: the answer claims an action (\"I've sent\") but nothing with a side effect ran"


def _chain(name: str, message: str, tool: str) -> dict:
    return {"name": name, "category": "chain", "steps": [
        {"message": message, "expect": tool}, {"message": "thanks!"}]}


@pytest.mark.parametrize("declared", [True, False])
def test_a_read_only_python_tool_backs_no_claimed_action(project, fake_model, monkeypatch,
                                                         capsys, declared) -> None:
    """After the user's read-only order_status ran, "I've sent you a confirmation e-mail"
    passed: every user tool counted as having acted. Declared read-only, the claim fails
    the step, and so it does when the stored report is re-scored with no provider; not
    declared, the tool may have acted and the claim stands."""
    server = fake_model([
        Rule("order 51", [call("order_status", {"number": "51"}),
                          answer("Order 51 ships tomorrow.")]),
        Rule("thanks", [answer(CLAIM)]),
    ])
    project.profile(server)
    project.pytester.makeconftest(f'''
from pytest_tooleval import tool


@tool{"(read_only=True)" if declared else ""}
def order_status(number: str) -> str:
    """Where an order of our shop is."""
    return f"order {{number}}: ships tomorrow"
''')
    project.write("benchmarks/orders.json", {
        "name": "orders", "language": "en", "requires": ["order_status"],
        "cases": [_chain("order", "where is my order 51?", "order_status")]})
    project.run("--tooleval-min-cases", "0", "--tooleval-min-score", "0")
    case = project.cases()["order"]
    assert case.transcripts[0].attempts[0].read_only is (True if declared else None)
    assert (case.outcome, case.reasons) == (("PARTIAL", [CLAIMED]) if declared else ("PASS", []))
    monkeypatch.chdir(project.path)
    capsys.readouterr()
    assert tooleval_main(["rescore", "tooleval-report/report.json"]) == 0
    assert "0 changed outcome, 0 need a rerun, 1 unchanged" in capsys.readouterr().out
    if declared:  # the record alone decides: without it (an older report) the claim stands
        stored = project.path / "tooleval-report" / "report.json"
        stored.write_text(stored.read_text().replace('"read_only": true', '"read_only": null'))
        assert tooleval_main(["rescore", str(stored)]) == 1  # 1: an outcome changed
        assert "order: PARTIAL -> PASS" in capsys.readouterr().out


def test_an_mcp_tools_read_only_hint_is_recorded(project, fake_model) -> None:
    """The toy server's recall says readOnlyHint: true; echo says nothing (unknown)."""
    server = fake_model([
        Rule("my notes", [call("toy_recall", {}), answer("You have no notes.")]),
        Rule("say hi", [call("toy_echo", {"text": "hi"}), answer("hi")]),
        Rule("thanks", [answer(CLAIM)]),
    ])
    project.profile(server)
    _mcp(project, "toy", sys.executable, [str(TOY_SERVER)], prefix="toy_")
    project.write("benchmarks/notes.json", {
        "name": "notes", "language": "en", "requires": ["toy_recall", "toy_echo"],
        "cases": [_chain("notes", "what are my notes?", "toy_recall"),
                  _chain("echo", "say hi back to me", "toy_echo")]})
    project.run("--tooleval-min-cases", "0", "--tooleval-min-score", "0")
    cases = project.cases()
    assert cases["notes"].transcripts[0].attempts[0].read_only is True
    assert (cases["notes"].outcome, cases["notes"].reasons) == ("PARTIAL", [CLAIMED])
    assert cases["echo"].transcripts[0].attempts[0].read_only is None
    assert (cases["echo"].outcome, cases["echo"].reasons) == ("PASS", [])
