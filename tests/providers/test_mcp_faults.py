"""MCP servers that break in the middle of a run: only the cases that need the broken
server are ERROR, the rest run and score, and the run ends with its summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pytest_tooleval.tools.base import CaseContext, ProviderError
from pytest_tooleval.tools.mcp import McpServerConfig, McpToolProvider
from tests.support.fake_openai import Rule, answer, call

TOY = Path(__file__).parent / "servers" / "toy_server.py"
CASE = CaseContext("f.json", "f", "c", "en")


def _toy(project, command: list[str] | None = None, **fields: object) -> None:
    command = command or [sys.executable, str(TOY)]
    fields = {"prefix": "toy_", **fields}
    config = project.path / "tooleval.toml"
    lines = [f"\n[mcp.toy]\ncommand = {json.dumps(command[0])}",
             f"args = {json.dumps(command[1:])}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
    config.write_text(config.read_text() + "\n".join(lines) + "\n")


CASES = {"name": "f", "language": "en", "requires": ["toy_add"], "cases": [
    {"name": "a-add", "category": "tool", "steps": [
        {"message": "what do 1234 and 4321 add up to?", "expect": "toy_add",
         "evidence": ["5555"]}]},
    {"name": "b-thanks", "category": "irrelevance", "steps": [{"message": "great, thanks!"}]},
    {"name": "c-add", "category": "tool", "steps": [
        {"message": "and 1000 plus 2000?", "expect": "toy_add", "evidence": ["3000"]}]}]}


# The second start of the server fails, as a server whose lock file outlives it would.
ONCE = ("import os, sys; os.path.exists('started') and sys.exit('toy: started once already'); "
        "open('started', 'w').close(); os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


@pytest.mark.parametrize(("fields", "why"), [
    ({"isolation": "per-run",
      "reset": [sys.executable, "-c", "import sys; sys.exit('no database to reset')"]},
     "no database to reset"),
    ({"command": [sys.executable, "-c", ONCE, str(TOY)]}, "toy: started once already")],
    ids=["reset", "restart"])
def test_a_failing_reset_or_restart_makes_only_the_cases_that_call_the_server_error(
        project, fake_model, fields, why) -> None:
    """The case after it that does not call the server ("thanks") was ERROR too."""
    server = fake_model([
        Rule("1234", [call("toy_add", {"a": 1234, "b": 4321}), answer("They make 5555.")]),
        Rule("thanks", [answer("Any time!")]),
        Rule("1000", [call("toy_add", {"a": 1000, "b": 2000}), answer("That is 3000.")]),
    ])
    project.profile(server)
    _toy(project, **fields)
    project.write("benchmarks/f.json", CASES)
    result = project.run()
    cases = project.cases()
    outcomes = {name: case.outcome for name, case in cases.items()}
    assert outcomes == {"a-add": "PASS", "b-thanks": "PASS", "c-add": "ERROR"}, \
        result.stdout.str()[-3000:]
    assert "mcp:toy" in str(cases["c-add"].error) or "'toy'" in str(cases["c-add"].error)
    assert why in str(cases["c-add"].error)


# An SDK server whose tools have the names given on its command line.
NAMED = """
import sys
from mcp.server.mcpserver import MCPServer
server = MCPServer("named", version="1.0", log_level="WARNING")
def make(name):
    def tool(city: str) -> str:
        return f"{name}: sunny in {city}"
    return tool
for name in sys.argv[1:]:
    server.tool(name=name, description=f"The weather in a city ({name}).")(make(name))
server.run()
"""


def test_a_tool_name_the_chat_apis_refuse_is_not_offered() -> None:
    """A space, a slash, a dot, a non-ASCII letter or more than 64 characters (the prefix
    included) in a name: OpenAI's chat API refuses the request that offers it (a 400 for
    every case; its pattern is ^[a-zA-Z0-9_-]{1,64}$). A dot was offered."""
    long = "x" * 62  # 65 with the prefix
    names = ["get weather", "ns/tool", "天気", long, "ns.tool", "ok_tool-2"]
    config = McpServerConfig(command=sys.executable, args=["-c", NAMED, *names],
                             prefix="wx_")
    provider = McpToolProvider("named", config)
    try:
        with pytest.warns(UserWarning) as warned:
            offered = [spec.name for spec in provider.list_tools()]
        assert offered == ["wx_ok_tool-2"]
        refused = provider.describe()["refused"]
        assert sorted(refused) == sorted(f"wx_{name}" for name in names[:5])
        assert "64" in refused[f"wx_{long}"] and "prefix" in refused[f"wx_{long}"]
        text = "\n".join(str(w.message) for w in warned)
        assert "MCP server 'named'" in text and "'wx_get weather'" in text
        assert provider.call("wx_get weather", {"city": "Izmir"}).is_error
        provider.call("wx_ok_tool-2", {"city": "Izmir"})
        provider.begin_case(CASE)  # the restart lists the refused names again: no ERROR
        assert provider.call("wx_ok_tool-2", {"city": "Izmir"}).text == "ok_tool-2: sunny in Izmir"
    finally:
        provider.close()


BIG = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("big", version="1.0", log_level="WARNING")
@server.tool()
def dump(city: str) -> str:
    \"\"\"Everything known about a city's weather.\"\"\"
    return "Izmir 17.4 C " + "x" * 5_000_000
server.run()
"""


def test_a_huge_result_is_clipped_before_the_model_sees_it(project, fake_model) -> None:
    """A 5 MB result went into the model's context whole (the built-ins clip theirs)."""
    server = fake_model([Rule("weather", [call("big_dump", {"city": "Izmir"}),
                                          answer("It is 17.4 C in Izmir.")])])
    project.profile(server)
    _toy(project, [sys.executable, "-c", BIG], prefix="big_")
    project.write("benchmarks/f.json", {"name": "f", "language": "en", "requires": ["big_dump"],
                                        "cases": [{"name": "w", "category": "tool", "steps": [
                                            {"message": "weather in Izmir?", "expect": "big_dump",
                                             "evidence": ["17.4"]}]}]})
    result = project.run()
    assert project.cases()["w"].outcome == "PASS", result.stdout.str()[-3000:]
    sent = [m["content"] for _, body in server.requests if isinstance(body, dict)
            for m in body.get("messages", []) if m["role"] == "tool"]
    assert len(sent) == 1 and len(sent[0]) < 25_000, len(sent[0])
    assert sent[0].startswith("Izmir 17.4 C") and "truncated, 4980013 more characters" in sent[0]


# An SDK server that writes bytes that are not UTF-8 on stdout first (a binary banner).
BINARY_BANNER = """
import sys
sys.stdout.buffer.write(b"\\xff\\xfe banner\\n")
sys.stdout.flush()
from mcp.server.mcpserver import MCPServer
server = MCPServer("binary", version="1.0", log_level="WARNING")
server.tool(name="echo", description="Return the text.")(lambda text: text)
server.run()
"""


def test_bytes_that_are_not_utf8_on_stdout_are_skipped_like_any_stray_line() -> None:
    """They made the server fail to start, after waiting all of startup_timeout, with
    'failed to start: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff'."""
    config = McpServerConfig(command=sys.executable, args=["-c", BINARY_BANNER],
                             startup_timeout=20)
    provider = McpToolProvider("binary", config)
    try:
        assert provider.call("echo", {"text": "hi"}).text == "hi"
    finally:
        provider.close()


# A hand-written server that answers every call with a protocol error of 5 MB.
LOUD_ERROR = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    result = {"initialize": {"protocolVersion": msg.get("params", {}).get("protocolVersion"),
                             "capabilities": {"tools": {}},
                             "serverInfo": {"name": "loud", "version": "0"}},
              "tools/list": {"tools": [{"name": "ping", "inputSchema": {"type": "object"}}]},
              }.get(msg.get("method"), {})
    if msg.get("method") == "tools/call":
        error = {"code": -32602, "message": "bad ping " + "!" * 5_000_000}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}), flush=True)
    elif "id" in msg:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


def test_a_huge_protocol_error_is_clipped_too() -> None:
    provider = McpToolProvider("loud", McpServerConfig(command=sys.executable,
                                                       args=["-c", LOUD_ERROR]))
    try:
        result = provider.call("ping", {})
    finally:
        provider.close()
    assert result.is_error and result.text.startswith("error: bad ping !!!")
    assert len(result.text) < 25_000 and "truncated" in result.text


# An SDK server whose tool answers with the JSON-RPC error its argument names.
PROTOCOL_ERRORS = """
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
server = MCPServer("db", version="1.0", log_level="WARNING")
@server.tool()
def lookup(key: str) -> str:
    \"\"\"Look a key up in the database.\"\"\"
    if key in ("-32603", "-32050", "-32602"):
        raise MCPError(code=int(key), message=f"answer {key}: database connection lost")
    return f"{key} = 42"
server.run()
"""


def test_a_protocol_error_is_the_servers_failure_and_invalid_params_the_models(
        project, fake_model) -> None:
    """-32603 (or a server error, -32000..-32099) reached the model as the tool's result,
    so a broken server was scored as the model's failure; -32602 is the model's arguments."""
    server = fake_model([
        Rule("internal", [call("db_lookup", {"key": "-32603"}), answer("It is 42.")]),
        Rule("overload", [call("db_lookup", {"key": "-32050"}), answer("It is 42.")]),
        Rule("params", [call("db_lookup", {"key": "-32602"}), answer("The key is wrong.")])])
    project.profile(server)
    _toy(project, [sys.executable, "-c", PROTOCOL_ERRORS], prefix="db_")
    steps = {"internal": ["42"], "overload": ["42"], "params": ["wrong"]}
    project.write("benchmarks/f.json", {"name": "f", "language": "en", "requires": ["db_lookup"],
                                        "cases": [{"name": name, "category": "tool", "steps": [
                                            {"message": f"look up the {name} key",
                                             "expect": "db_lookup", "evidence": evidence}]}
                                            for name, evidence in steps.items()]})
    result = project.run()
    cases = project.cases()
    assert {name: case.outcome for name, case in cases.items()} == {
        "internal": "ERROR", "overload": "ERROR", "params": "PASS"}, result.stdout.str()[-3000:]
    for code in ("-32603", "-32050"):
        error = cases["internal" if code == "-32603" else "overload"].error
        assert error is not None and error.kind == "provider", error
        assert "MCP server 'toy'" in error.message and "'lookup'" in error.message
        assert f"JSON-RPC error {code}: answer {code}: database connection lost" in error.message
        assert "fix the server" in error.message
    sent = [m["content"] for _, body in server.requests if isinstance(body, dict)
            for m in body.get("messages", []) if m["role"] == "tool"]
    assert sent == ["error: answer -32602: database connection lost"], sent


# A hand-written server listing 'bad' with the inputSchema given as JSON in argv[1] (or
# none, for "missing") between two good tools.
BAD_SCHEMA = """
import json, sys
bad = {} if sys.argv[1] == "missing" else {"inputSchema": json.loads(sys.argv[1])}
tools = [{"name": "good", "inputSchema": {"type": "object"}}, {"name": "bad", **bad},
         {"name": "fine", "inputSchema": {"type": "object", "properties": {}}}]
for line in sys.stdin:
    msg = json.loads(line)
    result = {"initialize": {"protocolVersion": msg.get("params", {}).get("protocolVersion"),
                             "capabilities": {"tools": {}},
                             "serverInfo": {"name": "schemas", "version": "0"}},
              "tools/list": {"tools": tools},
              "tools/call": {"content": [{"type": "text", "text": "called"}]},
              }.get(msg.get("method"), {})
    if "id" in msg:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


@pytest.mark.parametrize("schema", ['{"type": "string"}', '"object"', "null", "missing"])
def test_a_tool_whose_input_schema_is_no_object_is_left_out_alone(schema: str) -> None:
    """The server failed to start ('its ListToolsResult breaks the MCP schema at
    tools.1.inputSchema'), so none of its tools was offered."""
    config = McpServerConfig(command=sys.executable, args=["-c", BAD_SCHEMA, schema],
                             prefix="s_")
    provider = McpToolProvider("schemas", config)
    try:
        with pytest.warns(UserWarning) as warned:
            offered = [spec.name for spec in provider.list_tools()]
        assert offered == ["s_good", "s_fine"]
        why = provider.describe()["refused"]["s_bad"]
        assert "inputSchema" in why and "fix it in the server" in why
        assert [str(w.message) for w in warned] == [
            f"tooleval: MCP server 'schemas': not offered to the model: 's_bad' ({why})"]
        assert provider.call("s_good", {}).text == "called"
        provider.begin_case(CASE)  # the restart lists the same tools: no ERROR
        assert provider.call("s_fine", {}).text == "called" and provider.restarts == 1
    finally:
        provider.close()


def test_a_refused_tool_s_warning_points_at_the_server_s_table(project, fake_model) -> None:
    """pytest's warnings summary put it at pytest_tooleval/tools/mcp/provider.py:138,
    quoting 'self.start()', a line of the harness."""
    project.profile(fake_model([Rule("thanks", [answer("You are welcome.")])]))
    _toy(project, [sys.executable, "-c", BAD_SCHEMA, '{"type": "string"}'], prefix="s_")
    project.write("benchmarks/f.json", {"name": "f", "language": "en", "requires": ["s_good"],
                                        "cases": [CASES["cases"][1]]})
    result = project.run()
    summary = result.stdout.str().partition("warnings summary")[2].partition("-- Docs")[0]
    lines = (project.path / "tooleval.toml").read_text().splitlines()
    assert f"tooleval.toml:{lines.index('[mcp.toy]') + 1}: UserWarning: tooleval: MCP server " \
           "'toy': not offered to the model: 's_bad'" in summary, summary
    assert "[mcp.toy]" in summary and "pytest_tooleval" not in summary


def test_a_refused_tool_s_warning_outlives_its_configuration_file(project, fake_model) -> None:
    """The file deleted after the run read it, before the server first started (a checkout,
    a clean-up): finding the table's line raised FileNotFoundError, a traceback that made
    the case file a collection error. The warning points at the file's first line."""
    project.profile(fake_model([Rule("thanks", [answer("You are welcome.")])]))
    _toy(project, [sys.executable, "-c", BAD_SCHEMA, '{"type": "string"}'], prefix="s_")
    project.write("benchmarks/f.json", {"name": "f", "language": "en", "requires": ["s_good"],
                                        "cases": [CASES["cases"][1]]})
    project.write("conftest.py", """
import pathlib
def pytest_collect_file(file_path, parent):
    pathlib.Path("tooleval.toml").unlink(missing_ok=True)
""")
    result = project.run("--tooleval-min-cases", "1")
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert {name: case.outcome for name, case in project.cases().items()} == {
        "b-thanks": "PASS"}
    assert "tooleval.toml:1: UserWarning: tooleval: MCP server 'toy': not offered to the " \
           "model: 's_bad'" in result.stdout.str()


def test_a_per_run_server_that_died_is_started_again_for_the_next_case(
        project, fake_model) -> None:
    """It stayed dead: every later case that called it was ERROR ('went away during a
    call of 'crash''), for the rest of the run."""
    server = fake_model([
        Rule("crash", [call("toy_crash", {}), answer("Done.")]),
        Rule("1234", [call("toy_add", {"a": 1234, "b": 4321}), answer("They make 5555.")]),
        Rule("1000", [call("toy_add", {"a": 1000, "b": 2000}), answer("That is 3000.")]),
    ])
    project.profile(server)
    _toy(project, isolation="per-run")
    crash = {"name": "0-crash", "category": "tool", "steps": [
        {"message": "crash the server", "expect": "toy_crash", "evidence": ["Done"]}]}
    project.write("benchmarks/f.json", {**CASES, "requires": ["toy_add", "toy_crash"],
                                        "cases": [crash, *CASES["cases"]]})
    result = project.run()
    cases = project.cases()
    assert {name: case.outcome for name, case in cases.items()} == {
        "0-crash": "ERROR", "a-add": "PASS", "b-thanks": "PASS", "c-add": "PASS"}, \
        result.stdout.str()[-3000:]
    assert "crashing on request" in str(cases["0-crash"].error)
    toy = [p for p in project.report()["run"]["tool_providers"] if p["source"] == "mcp:toy"]
    assert toy[0]["restarts"] == 1, toy


# The second start of the server fails, the others work.
SECOND = ("import os, sys; n = len(os.listdir('.')); open(str(n), 'w').close(); "
          "n == 1 and sys.exit('toy: second start fails'); "
          "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


def test_a_per_run_restart_that_fails_is_tried_again_next_case(tmp_path: Path) -> None:
    config = McpServerConfig(command=sys.executable, args=["-c", SECOND, str(TOY)],
                             cwd=str(tmp_path), isolation="per-run")
    provider = McpToolProvider("toy", config)
    try:
        with pytest.raises(ProviderError, match="crashing on request"):
            provider.call("crash", {})
        provider.begin_case(CASE)
        with pytest.raises(ProviderError, match="second start fails"):
            provider.call("pid", {})
        provider.begin_case(CASE)
        assert provider.call("echo", {"text": "back"}).text == "back"
        assert provider.restarts == 1
    finally:
        provider.close()
