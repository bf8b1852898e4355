from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from minienv import Tools

from pytest_tooleval.tools.base import CaseContext, ProviderError, ToolResult
from pytest_tooleval.tools.builtin import ALL_TOOLS, BuiltinToolProvider
from pytest_tooleval.tools.names import BUILTIN_TOOL_NAMES
from pytest_tooleval.world.api import World

CONTEXT = CaseContext("f.yaml", "f.yaml", "case", "en")


def test_catalogue_matches_the_contract() -> None:
    specs = BuiltinToolProvider(lambda c: World(Path("/nonexistent"))).list_tools()
    if shutil.which("git"):
        assert {s.name for s in specs} == BUILTIN_TOOL_NAMES
    for spec in specs:
        assert spec.source == "builtin"
        assert 20 < len(spec.description) < 400, spec.name
        schema = spec.parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{spec.name}.{name} has no description"


def test_git_tools_hidden_without_git(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tooleval.tools import offered  # where the provider decides what it offers

    monkeypatch.setattr(offered.shutil, "which", lambda name: None)
    names = {s.name for s in BuiltinToolProvider(lambda c: World(Path("/x"))).list_tools()}
    assert "git_log" not in names and "grep_code" in names and "calculator" in names


def test_infrastructure_failures_raise_provider_error(world: World) -> None:
    fresh = BuiltinToolProvider(lambda c: world)
    with pytest.raises(ProviderError):
        fresh.call("read_file", {"path": "x"})

    def broken(context: CaseContext) -> World:
        raise RuntimeError("disk full")

    with pytest.raises(ProviderError, match="disk full"):
        BuiltinToolProvider(broken).begin_case(CONTEXT)
    with pytest.raises(ProviderError):
        BuiltinToolProvider(lambda c: World(Path("/nonexistent/world"))).begin_case(CONTEXT)


def test_cleanup_runs_per_case(world: World) -> None:
    cleaned: list[World] = []
    provider = BuiltinToolProvider(lambda c: world, cleanup=cleaned.append)
    provider.begin_case(CONTEXT)
    provider.end_case()
    assert cleaned == [world]
    provider.close()
    assert cleaned == [world]


HOSTILE_VALUES: list[Any] = [None, 0, -1, 10**30, 1.5, True, [], {}, "", " ", "\x00",
                             "../../etc/passwd", "ä" * 5000, ["../x"], {"a": 1}]


@pytest.mark.parametrize("tool", sorted(ALL_TOOLS))
def test_hostile_arguments_never_raise(tools: Tools, tool: str) -> None:
    properties = ALL_TOOLS[tool].parameters["properties"]
    attempts: list[dict[str, Any]] = [{}, {"unexpected": 1}]
    for name in properties:
        attempts += [{name: value} for value in HOSTILE_VALUES]
    for arguments in attempts:
        if tool == "run_python" and isinstance(arguments.get("code"), str) and \
                len(arguments["code"]) > 100:
            continue  # covered elsewhere; keeps the suite fast
        result = tools.provider.call(tool, arguments)
        assert isinstance(result, ToolResult)


def test_unknown_tool_is_a_tool_error(tools: Tools) -> None:
    assert tools.provider.call("rm_rf", {}).is_error


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_real_world_repository(world: World) -> None:
    """The world engineer's repository builder: stable ids, tools work on it unchanged."""
    from pytest_tooleval.world import repo as repo_module

    ids = []
    for attempt in range(2):
        root = world.root.parent / f"real{attempt}"
        shutil.copytree(world.root, root, symlinks=True)
        shutil.rmtree(root / "home" / "Projects" / "kestrel")
        records = repo_module.build_repo(root / "home" / "Projects" / "kestrel")
        provider = BuiltinToolProvider(lambda c, r=root: World(r))
        provider.begin_case(CONTEXT)
        log = provider.call("git_log", {"limit": 50})
        assert not log.is_error, log.text
        assert records["commits"], "the rebuilt repository has no commits"
        assert records["commits"][-1]["subject"] in log.text
        assert not provider.call("git_status", {}).is_error
        assert not provider.call("git_branches", {}).is_error
        ids.append(log.text)
    assert ids[0] == ids[1]
