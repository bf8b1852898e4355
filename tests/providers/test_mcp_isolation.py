"""MCP state per case: restart or reset between cases, the handshake in describe(), the
cached tool list, and built-ins shadowed by a server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_tooleval.tools.base import CaseContext, Catalogue, ProviderError, ToolProvider, ToolSpec
from pytest_tooleval.tools.mcp import McpToolProvider
from pytest_tooleval.tools.mcp.cache import CacheMiss, read_cache

from ._support import new_tag, processes_with, toy_config, wait_gone

CASE = CaseContext("f.json", "f", "c", "en")


def _notes(provider: McpToolProvider) -> list[str]:
    text = provider.call("toy_recall", {}).text.removeprefix("notes: ")
    return text.split(",") if text else []


def _pid(provider: McpToolProvider) -> str:
    return provider.call("toy_pid", {}).text


def test_per_case_restarts_a_server_the_previous_case_called(tmp_path: Path) -> None:
    tag = new_tag()
    provider = McpToolProvider("toy", toy_config(tag, prefix="toy_"), tmp_path / "tooleval.toml")
    try:
        provider.begin_case(CASE)
        first = _pid(provider)
        provider.call("toy_remember", {"text": "secret"})
        assert _notes(provider) == ["secret"]
        provider.begin_case(CASE)  # the previous case called it: a fresh process
        assert _notes(provider) == [] and _pid(provider) != first
        assert provider.restarts == 1 and provider.describe()["restarts"] == 1
        assert len(processes_with(tag)) == 1  # the old process is gone, one is running
    finally:
        provider.close()
    assert wait_gone(tag) == []


def test_a_case_that_did_not_call_the_server_costs_no_restart(tmp_path: Path) -> None:
    provider = McpToolProvider("toy", toy_config(new_tag(), prefix="toy_"),
                               tmp_path / "tooleval.toml")
    try:
        provider.start()
        provider.begin_case(CASE)
        provider.begin_case(CASE)
        assert provider.restarts == 0
    finally:
        provider.close()


def test_per_run_keeps_state_across_cases(tmp_path: Path) -> None:
    provider = McpToolProvider("toy", toy_config(new_tag(), prefix="toy_", isolation="per-run"))
    try:
        provider.call("toy_remember", {"text": "kept"})
        pid = _pid(provider)
        provider.begin_case(CASE)
        assert _notes(provider) == ["kept"] and _pid(provider) == pid
        assert provider.describe()["isolation"] == "per-run"
    finally:
        provider.close()


def test_reset_runs_only_after_a_case_that_called_the_server(tmp_path: Path) -> None:
    script = "import pathlib; p = pathlib.Path('resets.txt'); p.write_text(p.read_text() + 'x' " \
             "if p.exists() else 'x')"
    config = toy_config(new_tag(), prefix="toy_", isolation="per-run", cwd=str(tmp_path),
                        reset=[sys.executable, "-c", script])
    provider = McpToolProvider("toy", config, tmp_path / "tooleval.toml")
    try:
        provider.start()
        provider.begin_case(CASE)
        assert not (tmp_path / "resets.txt").exists()
        provider.call("toy_echo", {"text": "hi"})
        provider.begin_case(CASE)
        assert (tmp_path / "resets.txt").read_text() == "x" and provider.resets == 1
    finally:
        provider.close()


def test_a_failing_reset_is_infrastructure(tmp_path: Path) -> None:
    config = toy_config(new_tag(), prefix="toy_", isolation="per-run",
                        reset=[sys.executable, "-c", "import sys; sys.exit('cannot reset')"])
    provider = McpToolProvider("toy", config, tmp_path / "tooleval.toml")
    try:
        provider.call("toy_echo", {"text": "hi"})
        for _ in range(2):  # a case that does not call the server is not held up by it;
            provider.begin_case(CASE)  # each later case tries the reset again
            with pytest.raises(ProviderError, match=r"mcp:toy: reset command .* exited with 1"
                                                    r"(?s:.*)cannot reset"):
                provider.call("toy_echo", {"text": "hi"})
    finally:
        provider.close()


def test_describe_carries_the_handshake_and_the_tools_are_cached(tmp_path: Path) -> None:
    config = toy_config(new_tag(), prefix="toy_")
    provider = McpToolProvider("toy", config, tmp_path / "tooleval.toml")
    try:
        specs = provider.list_tools()
        described = provider.describe()
    finally:
        provider.close()
    assert described["server"] == {"name": "toy", "version": "1.0"}
    assert described["isolation"] == "per-case" and "toy_recall" in described["tools"]
    cached = read_cache(tmp_path, "toy", config)
    assert cached.specs == specs and cached.server_info == "toy 1.0"
    assert (tmp_path / ".tooleval-cache" / ".gitignore").is_file()
    with pytest.raises(CacheMiss, match=r"another set-up: prefix 'toy_' \(configured: 'x_'\)"):
        read_cache(tmp_path, "toy", config.model_copy(update={"prefix": "x_"}))
    with pytest.raises(CacheMiss, match="no cached tool list for mcp:other"):
        read_cache(tmp_path, "other", config)


class _Fixed(ToolProvider):
    def __init__(self, source: str, names: list[str], shadows: set[str] = frozenset()) -> None:
        self.source, self.names, self.shadows = source, names, set(shadows)

    def list_tools(self) -> list[ToolSpec]:
        return [ToolSpec(n, "", {}, self.source) for n in self.names]

    def call(self, name, arguments):  # type: ignore[no-untyped-def]
        raise AssertionError

    def shadowed_builtins(self) -> set[str]:
        return self.shadows


def test_shadowed_builtins_leave_the_catalogue() -> None:
    builtin = _Fixed("builtin", ["git_log", "git_status", "calculator"])
    server = _Fixed("mcp:repo", ["repo_git_log"], {"git_log"})
    catalogue = Catalogue([builtin, server])
    assert catalogue.names == ["git_status", "calculator", "repo_git_log"]
    assert catalogue.shadowed == {"git_log": "mcp:repo"}
    # Without shadowing, a clash of names still stops the run, naming shadow_builtins.
    from pytest_tooleval.tools.base import DuplicateToolError

    with pytest.raises(DuplicateToolError, match=r"shadow_builtins = true under "
                                                 r"\[tool\.tooleval\.mcp\.git\]"):
        Catalogue([builtin, _Fixed("mcp:git", ["git_log"])])
