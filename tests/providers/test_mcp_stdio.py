"""MCP provider over stdio, against the toy server: listing, calls, errors, shutdown."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tooleval.tools.base import ProviderError
from pytest_tooleval.tools.mcp import McpServerConfig, McpToolProvider

from ._support import SERVERS, new_tag, pid_alive, toy_config, wait_gone


@pytest.fixture(scope="module")
def toy() -> Iterator[tuple[McpToolProvider, str]]:
    """One running toy server shared by the read-only tests of this module."""
    tag = new_tag()
    provider = McpToolProvider("toy", toy_config(tag, prefix="toy_", call_timeout=1.5))
    provider.start()
    yield provider, tag
    provider.close()
    assert wait_gone(tag) == [], "the toy server outlived close()"


def test_lists_tools_with_prefix_description_and_schema(toy: tuple[McpToolProvider, str]) -> None:
    provider, _ = toy
    specs = {spec.name: spec for spec in provider.list_tools()}
    assert {"toy_echo", "toy_add", "toy_fail", "toy_slow", "toy_crash"} <= set(specs)
    add = specs["toy_add"]
    assert add.source == "mcp:toy"
    assert add.description == "Add two integers; the result is structured."
    assert add.parameters["properties"]["a"]["type"] == "integer"
    assert add.parameters["required"] == ["a", "b"]
    assert provider.describe()["server"]["name"].startswith("toy")


def test_calls_return_text_and_structured_content(toy: tuple[McpToolProvider, str]) -> None:
    provider, _ = toy
    assert provider.call("toy_echo", {"text": "merhaba dünya"}).text == "merhaba dünya"
    result = provider.call("toy_add", {"a": 1234, "b": 4321})
    assert not result.is_error
    assert json.loads(result.text) == {"total": 5555, "terms": [1234, 4321]}


def test_is_error_reaches_the_model_as_a_tool_error(toy: tuple[McpToolProvider, str]) -> None:
    provider, _ = toy
    result = provider.call("toy_fail", {"reason": "quota exceeded"})
    assert result.is_error
    assert "quota exceeded" in result.text


def test_bad_arguments_and_unknown_names_are_tool_errors(toy: tuple[McpToolProvider, str]) -> None:
    provider, _ = toy
    assert provider.call("toy_add", {"a": "many"}).is_error
    unknown = provider.call("echo", {"text": "x"})  # the unprefixed name is not offered
    assert unknown.is_error and "no tool named 'echo'" in unknown.text


def test_call_timeout_is_a_provider_error_and_the_server_stays_usable(
    toy: tuple[McpToolProvider, str],
) -> None:
    provider, _ = toy
    started = time.monotonic()
    with pytest.raises(ProviderError) as raised:
        provider.call("toy_slow", {"seconds": 10})
    assert time.monotonic() - started < 5
    message = str(raised.value)
    assert "MCP server 'toy'" in message and "call_timeout = 1.5 s" in message
    assert "'slow'" in message
    assert provider.call("toy_echo", {"text": "still here"}).text == "still here"


def test_env_is_merged_over_a_minimal_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLEVAL_TEST_SECRET", "do-not-leak")
    tag = new_tag()
    provider = McpToolProvider("toy", toy_config(tag, env={"TOY_GREETING": "selam"}))
    try:
        assert provider.call("env", {"name": "TOY_GREETING"}).text == "selam"
        assert provider.call("env", {"name": "TOOLEVAL_TEST_SECRET"}).text == "<unset>"
        assert provider.call("env", {"name": "PATH"}).text == os.environ["PATH"]
    finally:
        provider.close()
    assert wait_gone(tag) == []


def test_crash_on_start_names_server_command_and_stderr() -> None:
    tag = new_tag()
    provider = McpToolProvider("broken", toy_config(tag, "--crash-on-start"))
    with pytest.raises(ProviderError) as raised:
        provider.start()
    message = str(raised.value)
    assert "MCP server 'broken'" in message
    assert "toy_server.py" in message and "--crash-on-start" in message
    assert "failed to start" in message
    assert "missing configuration TOY_TOKEN" in message  # the server's stderr
    with pytest.raises(ProviderError):  # the failure sticks; no second start
        provider.list_tools()
    assert "error" in provider.describe()
    provider.close()
    assert wait_gone(tag) == []


def test_missing_command_is_a_provider_error() -> None:
    provider = McpToolProvider("ghost", McpServerConfig(command="tooleval-no-such-server-xyz"))
    with pytest.raises(ProviderError, match=r"MCP server 'ghost'.*tooleval-no-such-server-xyz"):
        provider.start()



def test_a_missing_working_directory_is_named_as_such(tmp_path: Path) -> None:
    """The chdir's FileNotFoundError carries the folder as its file name: the message said
    'command not found: <the cwd>', sending the user after a command that is there."""
    missing = tmp_path / "no-such-folder"
    provider = McpToolProvider("toy", toy_config(new_tag(), cwd=str(missing)))
    with pytest.raises(ProviderError) as raised:
        provider.start()
    message = str(raised.value)
    assert f"working directory not found: {missing}" in message
    assert "command not found" not in message

def test_hang_on_start_stops_within_the_startup_timeout() -> None:
    tag = new_tag()
    # 6 s: long enough for the toy server to import the SDK and say why it hangs, even on a
    # loaded 2-core machine (it prints before hanging); short enough to show the timeout.
    provider = McpToolProvider("sleepy", toy_config(tag, "--hang-on-start", startup_timeout=6.0))
    started = time.monotonic()
    with pytest.raises(ProviderError) as raised:
        provider.start()
    elapsed = time.monotonic() - started
    assert elapsed < 6.0 + 8, elapsed  # the timeout plus the SDK's bounded shutdown
    message = str(raised.value)
    assert "startup_timeout = 6 s" in message and "MCP server 'sleepy'" in message
    assert "waiting forever" in message
    assert wait_gone(tag) == []


def test_server_crashing_mid_run_fails_this_and_every_later_call() -> None:
    tag = new_tag()
    provider = McpToolProvider("toy", toy_config(tag))
    try:
        assert provider.call("echo", {"text": "hi"}).text == "hi"
        with pytest.raises(ProviderError) as raised:
            provider.call("crash", {})
        assert "crashing on request" in str(raised.value)
        with pytest.raises(ProviderError, match="MCP server 'toy'"):
            provider.call("echo", {"text": "again"})
    finally:
        provider.close()
    assert wait_gone(tag) == []


def test_a_line_on_stdout_is_no_traceback_and_is_quoted_with_the_stderr(
        tmp_path: Path) -> None:
    """A server that prints a banner on stdout (not JSON-RPC): `tooleval call` answers
    without the SDK's parse traceback, and a later failure quotes the line."""
    tag = new_tag()
    (tmp_path / "tooleval.toml").write_text(
        f"[mcp.toy]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps([str(SERVERS / 'toy_server.py'), '--banner', '--tag', tag])}\n")
    done = subprocess.run([sys.executable, "-m", "pytest_tooleval.cli", "call", "echo",
                           '{"text": "hi"}'], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "hi"), done.stderr
    assert done.stderr == ""
    provider = McpToolProvider("toy", toy_config(tag, "--banner"))
    try:
        with pytest.raises(ProviderError) as raised:
            provider.call("crash", {})
    finally:
        provider.close()
    assert "toy server 1.0 ready on stdio" in str(raised.value)
    assert wait_gone(tag) == []


# A hand-written server whose answers break the MCP schema: a tool without a name
# ("list"), or a text block without its text ("call").
RAW_SERVER = """
import json, sys
name = {} if sys.argv[1] == "list" else {"name": "ping"}
for line in sys.stdin:
    msg = json.loads(line)
    result = {"initialize": {"protocolVersion": msg.get("params", {}).get("protocolVersion"),
                             "capabilities": {"tools": {}},
                             "serverInfo": {"name": "raw", "version": "0"}},
              "tools/list": {"tools": [{**name, "inputSchema": {"type": "object"}}]},
              "tools/call": {"content": [{"type": "text"}]}}.get(msg.get("method"), {})
    if "id" in msg:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


@pytest.mark.parametrize(("mode", "expected"), [
    ("list", "failed to start: its ListToolsResult breaks the MCP schema at "
             "tools.0.name: Field required"),
    ("call", "failed a call of 'ping': its CallToolResult breaks the MCP schema at "
             "content.0.TextContent.text: Field required (and 11 more)")])
def test_an_answer_that_breaks_the_mcp_schema_is_named_in_one_line(
        mode: str, expected: str) -> None:
    config = McpServerConfig(command=sys.executable, args=["-c", RAW_SERVER, mode])
    provider = McpToolProvider("raw", config)
    try:
        with pytest.raises(ProviderError) as raised:
            provider.call("ping", {})
    finally:
        provider.close()
    assert str(raised.value).endswith(f"{RAW_SERVER} {mode}) {expected}")


def test_server_killed_from_outside_fails_the_next_call() -> None:
    tag = new_tag()
    provider = McpToolProvider("toy", toy_config(tag))
    try:
        pid = int(provider.call("pid", {}).text)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        with pytest.raises(ProviderError, match="MCP server 'toy'"):
            provider.call("echo", {"text": "anyone?"})
    finally:
        provider.close()


def test_close_is_idempotent_and_later_calls_are_provider_errors() -> None:
    tag = new_tag()
    provider = McpToolProvider("toy", toy_config(tag))
    provider.start()
    provider.close()
    provider.close()
    assert wait_gone(tag) == []
    with pytest.raises(ProviderError, match="not running"):
        provider.call("echo", {"text": "x"})


def test_garbage_collected_provider_stops_its_server() -> None:
    tag = new_tag()
    provider = McpToolProvider("toy", toy_config(tag))
    pid = int(provider.call("pid", {}).text)
    assert pid_alive(pid)
    del provider
    gc.collect()
    assert wait_gone(tag) == []


def test_interrupted_run_leaves_no_server_behind() -> None:
    """SIGINT in the middle of a call, close() never called: the exit finalizer cleans up."""
    tag = new_tag()
    run = subprocess.Popen(
        [sys.executable, str(SERVERS / "interrupted_run.py"), tag],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert run.stdout is not None
        server_pid = int(run.stdout.readline())
        assert pid_alive(server_pid)
        time.sleep(0.3)  # let the slow call get under way
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
    assert "KeyboardInterrupt" in stderr
    assert wait_gone(tag) == []
