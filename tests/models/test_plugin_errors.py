"""Backend failures through the plugin as users run it: each is an ERROR with its kind in
the report, never a FAIL or a traceback, and they count toward the consecutive-error stop."""

from __future__ import annotations

import json

from tests.conftest import THANKS_CASE, scenario
from tests.support.fake_openai import Rule, answer, body

# A user's Python tool taking a tree: pydantic's schema for it has a recursive $ref, which
# the grammar-on envelope cannot inline (inline case-file tools are refused at collection).
RECURSIVE_CONFTEST = """
from __future__ import annotations

from pydantic import BaseModel

from pytest_tooleval.tools.python import tool


class Node(BaseModel):
    name: str
    children: list[Node] = []


@tool
def store_tree(root: Node) -> str:
    \"\"\"Store a tree of named nodes.\"\"\"
    return "stored"
"""
CANARY = Rule("three fruits", [answer(json.dumps({"canary": "canary-7f3e"}))])


def test_a_grammar_error_is_an_error_not_a_traceback(project, fake_model) -> None:
    server = fake_model([CANARY])
    project.profile(server)
    project.pytester.makeconftest(RECURSIVE_CONFTEST)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE], tools=[]))
    result = project.run("--grammar", "on")
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") == 1 and "failed" not in outcomes
    assert "Traceback" not in result.stdout.str()
    error = project.cases()["thanks"].error
    assert error is not None and error.kind == "backend" and error.detail == "grammar"
    assert "recursive $ref" in error.message


def test_malformed_bodies_stop_the_run_after_three_errors(project, fake_model) -> None:
    server = fake_model([Rule("thanks", [body([1, 2])])])  # the preflight's probes pass
    project.profile(server)
    cases = [dict(THANKS_CASE, name=f"t{i}") for i in range(6)]
    project.write("scenarios/demo.yaml", scenario(cases))
    result = project.run()
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") == 3 and "failed" not in outcomes
    result.stdout.fnmatch_lines(["*Stopped after 3 consecutive infrastructure errors*"])
    kinds = {c.error.detail for c in project.cases().values() if c.error is not None}
    assert kinds == {"malformed_reply"}


def test_raw_mode_without_a_template_is_one_preflight_message(project, fake_model) -> None:
    """vLLM and Ollama have no /apply-template: one message before any case, no traceback."""
    server = fake_model(apply_template=False)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run("--grammar", "off")
    assert result.parseoutcomes().get("errors") == 1
    assert "Traceback" not in result.stdout.str()
    error = project.cases()["thanks"].error
    assert error is not None and error.kind == "preflight"
    assert error.detail == "template_missing" and "--grammar vendor" in error.message
    assert not [p for p, _ in server.requests if p in ("/completion", "/v1/completions")]


def test_a_recursive_inline_schema_is_refused_when_the_file_loads(project, fake_model) -> None:
    project.profile(fake_model([CANARY]))
    recursive = {
        "name": "tree", "description": "Store a tree.", "result": "ok",
        "parameters": {"type": "object", "properties": {"node": {"$ref": "#/$defs/node"}},
                       "$defs": {"node": {"type": "object", "properties": {
                           "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}},
    }
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE], tools=[recursive]))
    result = project.run("--grammar", "on")
    assert result.ret == 2 and "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*field 'tools.tree.parameters*$ref': a recursive $ref*"])
