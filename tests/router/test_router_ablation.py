"""Routing ablations: ``--tooleval-router oracle|all``, as units and as users run them."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from pytest_tooleval.cases.model import Step
from pytest_tooleval.report.compare import compare, render_comparison
from pytest_tooleval.report.model import Report
from pytest_tooleval.router.ablation import (
    FORCED,
    AllRouter,
    OracleRouter,
    force,
    make_router,
    step_tools,
)
from pytest_tooleval.router.base import Routing
from pytest_tooleval.router.trigger_router import TriggerRouter
from tests.conftest import scenario
from tests.router.routing import CATALOGUE
from tests.support.fake_openai import Rule, answer, call


def _case(*steps: tuple[str, list[str]]) -> SimpleNamespace:
    return SimpleNamespace(
        steps=[SimpleNamespace(message=m, expected_tools=e, gold=None) for m, e in steps]
    )


def test_force_replaces_the_lowest_ranked_and_keeps_the_order() -> None:
    routing = Routing(["a", "b", "c"], {"a": ["x"], "b": ["y"], "c": ["z"]}, {"a": 3.0})
    forced = force(routing, ["d"])
    assert forced.tools == ["a", "b", "d"] and forced.reasons["d"] == [FORCED]
    assert force(routing, ["b"]) is routing  # already shown: unchanged
    assert force(routing, ["c", "e"]).tools == ["a", "c", "e"]
    # More forced tools than k: all of them are shown.
    assert force(routing, ["e", "f", "g", "h"]).tools == ["e", "f", "g", "h"]


def test_oracle_forces_each_steps_expected_tools_in_order() -> None:
    router = OracleRouter(TriggerRouter(3))
    case = _case(("what is 17 times 23", ["calculator"]), ("thanks", ["git_status"]))
    bound = router.for_case(case)
    first = bound.route("what is 17 times 23", "en", CATALOGUE)
    assert "calculator" in first.tools and len(first.tools) == 3
    plain = TriggerRouter(3).route("thanks", "en", CATALOGUE)
    assert "git_status" not in plain.tools
    second = bound.route("thanks", "en", CATALOGUE)
    assert "git_status" in second.tools and len(second.tools) == 3
    assert second.reasons["git_status"] == [FORCED]
    # The unbound router (or a message of no step) routes as the base router does.
    assert router.route("thanks", "en", CATALOGUE).tools == plain.tools
    assert router.describe()["mode"] == "oracle"


def test_gold_tools_win_over_expect() -> None:
    step = Step(message="m", expect=["read_file"],
                gold=[{"tool": "list_directory", "args": {}}, {"tool": "read_file", "args": {}}])
    assert step_tools(step) == ["list_directory", "read_file"]
    assert step_tools(Step(message="m", expect=["calculator"])) == ["calculator"]


def test_all_shows_every_offered_tool() -> None:
    routing = AllRouter(3).route("thanks", "en", CATALOGUE)
    assert routing.tools == [spec.name for spec in CATALOGUE]
    with pytest.raises(ValueError, match="unknown router mode"):
        make_router("random")


# -- as users run it: a pytester session against the loopback server ---------------------
CASES = [
    {"name": "jot", "category": "tool", "register": "casual",
     "steps": [{"message": "jot down Izmir 17.4 for me", "expect": "save_note"}]},
]
SCRIPT = [Rule("jot down", [call("save_note", {"text": "Izmir 17.4"}), answer("Saved.")])]


def _shown(server) -> list[list[str]]:
    """The tools offered with each request for the case's step (probes are left out)."""
    return [
        [tool["function"]["name"] for tool in body.get("tools", [])]
        for path, body in server.requests
        if path.endswith("/chat/completions") and isinstance(body, dict)
        and "jot down" in json.dumps(body.get("messages", []))
    ]


@pytest.mark.parametrize(
    ("mode", "shown", "outcome"),
    [
        ("triggers", ["get_weather"], "FAIL"),
        ("oracle", ["save_note"], "PASS"),
        ("all", ["get_weather", "save_note"], "PASS"),
    ],
)
def test_router_modes_through_the_plugin(project, fake_model, mode, shown, outcome) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(CASES))
    project.run("--tooleval-k", "1", "--tooleval-router", mode)
    requests = _shown(server)
    assert requests and requests[0] == shown
    report = project.report()
    assert report["cases"][0]["outcome"] == outcome
    assert report["run"]["router_mode"] == mode
    assert report["run"]["router"]["router"] == mode
    # Router recall beside the register's score (item 5): read back from the transcripts.
    routing = report["summary"]["registers"]["casual"]["routing"]
    assert routing == {"routed": int(mode != "triggers"), "steps": 1,
                       "recall": float(mode != "triggers")}
    assert "routed (expected tool shown)" in project.markdown()


def test_an_unknown_mode_is_a_usage_error(project, fake_model) -> None:
    project.profile(fake_model(SCRIPT))
    project.write("scenarios/demo.yaml", scenario(CASES))
    result = project.run("--tooleval-router", "random")
    assert result.ret != 0
    assert "random" in result.stderr.str() and "oracle" in result.stderr.str()


def test_compare_lists_the_cases_that_fail_only_because_of_routing(
    project, fake_model
) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(CASES))
    project.run("--tooleval-k", "1")
    normal = Report.model_validate(project.report())
    project.run("--tooleval-k", "1", "--tooleval-router", "oracle")
    oracle = Report.model_validate(project.report())
    result = compare(normal, oracle, force=True)
    assert result.routing == ("triggers", "oracle")
    assert [c["nodeid"] for c in result.routing_only] == ["scenarios/demo.yaml::jot"]
    assert result.routing_only[0]["unseen"] == ["step 1: save_note not shown"]
    text = render_comparison(result)
    assert "Cases that pass only without the router's choice (1)" in text
    assert "save_note not shown" in text
    json.dumps(result.to_dict())  # serialisable
    same = compare(normal, normal)
    assert same.routing is None and same.routing_only == []
