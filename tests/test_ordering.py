"""Cases sharing a prompt prefix run together (``--tooleval-order``), the same order in
every xdist worker; other items keep their places."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from pytest_tooleval.router.base import Routing
from pytest_tooleval.run.ordering import prefix_order
from tests.conftest import scenario
from tests.support.fake_openai import Rule, answer


@dataclass
class StubRouter:
    picks: dict[str, list[str]]

    def route(self, message, language, catalogue, keep=()):
        return Routing(tools=self.picks[message])


@dataclass
class StubSession:
    names: list[str]
    picks: dict[str, list[str]]
    routed: list[str] = field(default_factory=list)

    def catalogue_for(self, case_file, path):
        return SimpleNamespace(specs=[SimpleNamespace(name=n) for n in self.names])

    def router_for(self, case_file, case):
        return StubRouter(self.picks)


def _item(name: str, message: str) -> SimpleNamespace:
    step = SimpleNamespace(message=message)
    return SimpleNamespace(nodeid=f"f.json::{name}", case=SimpleNamespace(steps=[step]),
                           case_file=SimpleNamespace(language="en"), name=name)


def test_cases_with_the_same_shown_tools_become_neighbours() -> None:
    session = StubSession(["a", "b", "c", "d"], {
        "m1": ["c", "a"],  # listed in catalogue order: a, c
        "m2": ["b", "a"],
        "m3": ["d"],
    })
    items = [_item("x1", "m1"), _item("x2", "m2"), "not a case", _item("x3", "m1"),
             _item("x4", "m3"), _item("x5", "m2")]
    ordered = prefix_order(items, session, lambda item: not isinstance(item, str))
    assert ordered[2] == "not a case"
    names = [getattr(item, "name", item) for item in ordered]
    # (a, b) < (a, c) < (d): a depth-first walk of the shared prefixes; ties keep file order
    assert names == ["x2", "x5", "not a case", "x1", "x3", "x4"]


CASES = [
    {"name": "c1", "category": "irrelevance",
     "steps": [{"message": "what is 18 times 1000?"}]},
    {"name": "c2", "category": "irrelevance",
     "steps": [{"message": "read the file notes.txt in my documents"}]},
    {"name": "c3", "category": "irrelevance",
     "steps": [{"message": "what is 18 times 1000?"}]},
    {"name": "c4", "category": "irrelevance",
     "steps": [{"message": "read the file notes.txt in my documents"}]},
]


def _collected(result) -> list[str]:
    return [line.split("::")[1] for line in result.stdout.lines if "::" in line]


def test_prefix_order_on_the_command_line_and_collection_order_by_default(
    project, fake_model
) -> None:
    project.profile(fake_model([]))
    project.write("scenarios/demo.yaml", scenario(CASES, tools=[]))
    default = _collected(project.run("--collect-only", "-q", builtin=True))
    assert default == ["c1", "c2", "c3", "c4"]  # auto: file order for a served model
    ordered = _collected(project.run("--collect-only", "-q", "--tooleval-order", "prefix",
                                     builtin=True))
    assert ordered in (["c1", "c3", "c2", "c4"], ["c2", "c4", "c1", "c3"])


def test_xdist_workers_agree_on_the_prefix_order(project, fake_model) -> None:
    project.profile(fake_model([Rule("", [answer("No tool needed.")])]))
    project.write("scenarios/demo.yaml", scenario(CASES, tools=[]))
    result = project.run("--tooleval-order", "prefix", "--tooleval-partial", "pass",
                         workers=2, builtin=True)
    assert "Different tests were collected" not in result.stdout.str() + result.stderr.str()
    assert len(project.report()["cases"]) == 4


def test_a_project_s_own_tests_never_build_a_session(pytester) -> None:
    """The plugin is installed, the default profile is the embedded model (whose runs
    order cases by prompt prefix), and the project has only its own tests: no case, so no
    session (router, catalogue, model) is made, before the tests or at the end."""
    pytester.makeconftest(
        "from pytest_tooleval.engine.session import ModelSession\n"
        "made = ModelSession.__init__\n"
        "def init(self, *args, **kwargs):\n"
        "    open('session-made', 'w').close()\n"
        "    made(self, *args, **kwargs)\n"
        "ModelSession.__init__ = init\n")
    pytester.makepyfile(test_plain="def test_one():\n    pass\n\n"
                                   "def test_two():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert not (pytester.path / "session-made").exists()


ROUTED_SESSION = '''
from pytest_tooleval import Backend, ModelSession, ModelTurn, Router, Routing, ToolProvider, \\
    ToolResult, ToolSpec


class Polite(Backend):
    prefix_order = {reuses}

    def complete(self, messages, tools):
        return ModelTurn(content="You are welcome.")


class Two(ToolProvider):
    source = "two"

    def list_tools(self):
        return [ToolSpec(name, name, {{"type": "object", "properties": {{}}}}, self.source)
                for name in ("alpha", "beta")]

    def call(self, name, arguments):
        return ToolResult("done")


class ByWord(Router):
    def route(self, message, language, catalogue, keep=()):
        return Routing(tools=[spec.name for spec in catalogue if spec.name in message])


def pytest_tooleval_make_session(config, settings, profile):
    return ModelSession(backend_factory=Polite, providers=[Two()],
                        router_factory=lambda case_file: ByWord())
'''


@pytest.mark.parametrize(("reuses", "model", "order"), [
    (False, "smollm2-135m", ["c1", "c2", "c3", "c4"]),  # the profile's backend reuses
    (True, "fake", ["c2", "c4", "c1", "c3"]),  # the profile's is served
])
def test_auto_asks_the_hook_session_s_backend_not_the_profile_s(project, reuses, model,
                                                                order) -> None:
    """``auto`` ordered by the profile's backend class (the embedded model's prefix order for
    a hook session that reuses nothing, and none for one that does)."""
    project.profile("http://127.0.0.1:9/v1")
    project.pytester.makeconftest(ROUTED_SESSION.format(reuses=reuses))
    project.write("scenarios/demo.yaml", scenario([
        {"name": f"c{i}", "category": "irrelevance", "steps": [{"message": f"no {word}"}]}
        for i, word in enumerate(["beta", "alpha", "beta", "alpha"], 1)], tools=[]))
    result = project.run("--model", model, "--grammar", "off", "-v")
    ran = [line.split("::")[1].split()[0] for line in result.stdout.lines
           if "::" in line and "PASSED" in line]
    assert ran == order, result.stdout.str()
