"""The router and a user's tools that do a built-in's job under another name."""

from __future__ import annotations

from dataclasses import replace

from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.tools.base import ToolSpec

MESSAGE = "show me the last three commits in the repository"
REPO_TOOLS = [
    ToolSpec("repo_git_log", "Shows the commit logs.", {}, "mcp:repo", stands_for="git_log"),
    ToolSpec("repo_git_status", "Shows the working tree status.", {}, "mcp:repo",
             stands_for="git_status"),
    ToolSpec("repo_git_create_branch", "Creates a new branch.", {}, "mcp:repo"),
]


def _shown(catalogue: list[ToolSpec], k: int = 3) -> list[str]:
    return TriggerRouter(k).route(MESSAGE, "en", catalogue).tools


def test_with_the_builtins_off_the_stand_in_takes_the_builtin_triggers() -> None:
    routing = TriggerRouter(3).route(MESSAGE, "en", REPO_TOOLS)
    assert routing.tools[0] == "repo_git_log"
    assert routing.scores["repo_git_log"] > 0
    assert "stands for the built-in git_log" in routing.reasons["repo_git_log"]


def test_without_stands_for_the_prefixed_tool_gets_no_trigger() -> None:
    plain = [replace(spec, stands_for=None) for spec in REPO_TOOLS]
    scores, _ = TriggerRouter(3).score(MESSAGE, "en", plain)
    with_role, _ = TriggerRouter(3).score(MESSAGE, "en", REPO_TOOLS)
    assert with_role["repo_git_log"] > scores.get("repo_git_log", 0.0)


def test_builtins_shadowed_the_stand_in_is_shown_where_the_builtin_was() -> None:
    builtins = [spec for spec in builtin_specs() if spec.name != "git_log"]  # shadowed
    assert "repo_git_log" in _shown([*builtins, *REPO_TOOLS])
    plain = [replace(spec, stands_for=None) for spec in REPO_TOOLS]
    assert "repo_git_log" not in _shown([*builtins, *plain])  # what users got before


def test_with_the_builtin_present_the_builtin_keeps_its_triggers() -> None:
    # Both offered (a prefix only renames): no stand-in, the built-in git_log is scored.
    scores, _ = TriggerRouter(9).score(MESSAGE, "en", [*builtin_specs(), *REPO_TOOLS])
    assert scores["git_log"] > scores.get("repo_git_log", 0.0)


def test_stand_ins_for_every_builtin_are_routed_as_the_builtins_are() -> None:
    """Built-ins off and a server offering their jobs under a prefix: each stand-in is
    shown where its built-in would have been, fillers, learned votes and companions
    included (a document search brings its reader), not only where a trigger scored."""
    builtins = list(builtin_specs())
    served = [replace(spec, name=f"srv_{spec.name}", source="mcp:srv", stands_for=spec.name)
              for spec in builtins]
    router = TriggerRouter()
    for message, language, keep in [
        ("what did the plumber's invoice say about the boiler", "en", ()),
        ("Work out 12.5% of 3,960 for me", "en", ()),
        ("KOMŞUNUN DOĞUM GÜNÜ HANGİ GÜNDÜ", "tr", ()),
        ("and the one before that?", "en", ("git_log",)),
    ]:
        alike = router.route(message, language, builtins, keep)
        stood = router.route(message, language, served, tuple(f"srv_{n}" for n in keep))
        assert [name.removeprefix("srv_") for name in stood.tools] == alike.tools, message
