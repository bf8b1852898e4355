"""One session per run, made through the pytest_tooleval_make_session hook, as users
write it in a conftest.py; and the run-level messages around it."""

from __future__ import annotations

import os
import re
import stat

import pytest

from tests.conftest import THANKS_CASE, WEATHER_CASE, said, scenario
from tests.support.fake_openai import Rule, answer, call

HOOK_CONFTEST = '''
from pytest_tooleval.engine.session import ModelSession
from pytest_tooleval.models.base import Backend, ModelTurn, RawCall
from pytest_tooleval.router.base import Router, Routing
from pytest_tooleval.tools.base import ToolProvider, ToolResult, ToolSpec

MADE = []


class Echo(Backend):
    mode = "off"

    def complete(self, messages, tools):
        if messages[-1]["role"] == "tool":
            return ModelTurn(content="The answer is " + messages[-1]["content"])
        if "add" in messages[-1]["content"]:
            return ModelTurn(content="", calls=[RawCall("my_tool", '{"a": 12000, "b": 345}',
                                                        "c1")])
        return ModelTurn(content="You are welcome.")

    def describe(self):
        return {"backend": "echo (conftest)", "grammar": "off", "constraint": "none"}


class Mine(ToolProvider):
    source = "mine"

    def list_tools(self):
        return [ToolSpec("my_tool", "Adds two numbers.",
                         {"type": "object", "properties": {"a": {"type": "integer"},
                                                           "b": {"type": "integer"}}},
                         self.source)]

    def call(self, name, arguments):
        return ToolResult(str(arguments["a"] + arguments["b"]))


class All(Router):
    def route(self, message, language, catalogue, keep=()):
        return Routing(tools=[spec.name for spec in catalogue])


def pytest_tooleval_make_session(config, settings, profile):
    MADE.append(config)
    return ModelSession(backend_factory=Echo, providers=[Mine()],
                        router_factory=lambda case_file: All())
'''

#: A hook session needs no --model profile of its own; any built-in one resolves offline.
HOOK_ARGS = ("--model", "smollm2-135m", "--grammar", "off")

ADD_FILE = {
    "name": "mine", "language": "en", "requires": ["my_tool"],
    "cases": [
        {"name": "add", "category": "tool",
         "steps": [{"message": "please add 12000 and 345", "expect": "my_tool",
                    "evidence": ["12345"]}]},
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks"}]},
    ],
}


@pytest.mark.parametrize("workers", [0, 2])
def test_the_hooks_session_serves_requires_cases_and_the_report(project, workers) -> None:
    project.pytester.makeconftest(HOOK_CONFTEST)
    project.write("benchmarks/mine.json", ADD_FILE)
    result = project.run(*HOOK_ARGS, workers=workers)
    assert result.ret == 0, result.stdout.str()
    report = project.report()
    run = report["run"]
    assert run["backend"]["backend"] == "echo (conftest)"
    assert run["model"]["source"] == "pytest_tooleval_make_session"
    assert run["tools_offered"] == ["my_tool"]
    assert "mine (1 tools)" in run["providers"]
    assert project.cases()["add"].transcripts[0].attempts[0].result == "12345"


@pytest.mark.parametrize("order", ["auto", "collection"])
def test_a_hook_returning_the_wrong_type_is_told_how_to_fix_it(project, order) -> None:
    """It was a collection error with the harness's frames ('runtime.py:99: in session',
    'raise pytest.UsageError(') naming pytest_tooleval.engine.session.ModelSession."""
    project.pytester.makeconftest("""
def pytest_tooleval_make_session(config, settings, profile):
    return object()
""")
    project.write("benchmarks/b.json", {"name": "b", "requires": ["x"], "cases": [
        {"name": "hi", "category": "irrelevance", "steps": [{"message": "hello"}]}]})
    result = project.run(*HOOK_ARGS, "--tooleval-order", order)
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["! Interrupted: *: pytest_tooleval_make_session returned a "
                                 "builtins.object; it must return a pytest_tooleval.ModelSession "
                                 "(or None for the built-in session). See docs/usage.md, *"])
    assert "Traceback" not in output and "raise " not in output and ".py:" not in output


def test_overriding_the_fixture_is_refused_with_the_way_out(project, fake_model) -> None:
    server = fake_model([Rule("thanks", [answer("bye")])])
    project.profile(server)
    project.pytester.makeconftest("""
import pytest

@pytest.fixture(scope="session")
def tooleval_session():
    return "my own"
""")
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run()  # the verdict line carries the message and its way out
    assert result.ret != 0
    assert result.parseoutcomes().get("errors") == 1  # an ERROR (configuration), not a FAIL
    assert said(result, "*tooleval_session fixture was overridden*made by the hook "
                "pytest_tooleval_make_session*")
    error = project.cases()["thanks"].error
    assert error is not None and error.kind == "configuration"


def test_run_metadata_hook_changes_the_report(project, fake_model) -> None:
    server = fake_model([Rule("thanks", [answer("bye")])])
    project.profile(server)
    project.pytester.makeconftest("""
def pytest_tooleval_run_metadata(config, metadata):
    metadata["ci_job"] = "nightly-42"
""")
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    assert project.run().ret == 0
    assert project.report()["run"]["ci_job"] == "nightly-42"


def test_collect_only_starts_nothing(project) -> None:
    project.pytester.makeconftest(HOOK_CONFTEST.replace(
        "    MADE.append(config)", "    raise AssertionError('a session was made')"))
    project.write("benchmarks/mine.json", ADD_FILE)
    result = project.run("--collect-only", "-q", *HOOK_ARGS)
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*mine.json::add*"])


def test_a_failed_preflight_is_one_message_and_the_run_stops(project) -> None:
    project.pytester.makeconftest(HOOK_CONFTEST.replace(
        "    def describe(self):",
        "    def preflight(self):\n"
        "        from pytest_tooleval.models.base import BackendUnavailable\n"
        "        raise BackendUnavailable('the server has no chat template: use --grammar "
        "vendor')\n\n    def describe(self):"))
    project.write("benchmarks/mine.json", ADD_FILE)
    result = project.run(*HOOK_ARGS)
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") == 1, result.stdout.str()  # the first case; then it stops
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*Interrupted: the run cannot start: the server has no chat "
                                 "template: use --grammar vendor*"])
    cases = project.cases()
    assert set(cases) == {"add"}
    error = cases["add"].error
    assert error is not None and error.kind == "preflight" and error.detail == "unavailable"


def test_reports_are_readable_by_others(project, fake_model) -> None:
    server = fake_model([Rule("thanks", [answer("bye")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    project.run()
    for name in ("report.json", "report.md"):
        mode = stat.S_IMODE(os.stat(project.path / "tooleval-report" / name).st_mode)
        assert mode & 0o044 == 0o044, oct(mode)


def test_an_unwritable_report_folder_is_a_message(project, fake_model) -> None:
    server = fake_model([Rule("thanks", [answer("bye")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    blocker = project.write("blocked", "a file, not a folder")
    result = project.run(f"--tooleval-report={blocker}/inside")
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    # Refused before the first case, not found out after the run.
    assert result.ret == pytest.ExitCode.USAGE_ERROR and server.model_calls == 0
    result.stderr.fnmatch_lines(["ERROR: --tooleval-report */blocked/inside: cannot write "
                                 "there (Not a directory); give a folder you can write to"])


def test_a_stop_with_nothing_failed_is_not_called_an_infrastructure_failure(
        project, fake_model) -> None:
    server = fake_model([Rule("weather", [call("get_weather", {"city": "Izmir"}),
                                          answer("no idea")]),
                         Rule("thanks", [answer("bye")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    result = project.run("-x")
    text = result.stdout.str()
    assert "infrastructure failed" not in text
    assert said(result, "*verdict: NOT VALID: interrupted (stopping after 1 failures*): it "
                "covers only part of the selection*")
    assert "ended in ERROR" not in text
    assert "safety gate passed" not in text


def test_another_plugins_failing_yaml_test_is_not_a_tooleval_error(project, fake_model) -> None:
    """The plugin loads in every pytest run: a YAML test of some other plugin that fails is
    that plugin's failure, never an ERROR of ours (nor a reason to write a report)."""
    server = fake_model([Rule("thanks", [answer("bye")])])
    project.profile(server)
    project.pytester.makeconftest("""
import pytest

def pytest_collect_file(parent, file_path):
    if file_path.name.startswith("test_") and file_path.suffix == ".yaml":
        return SpecFile.from_parent(parent, path=file_path)

class SpecFile(pytest.File):
    def collect(self):
        yield SpecItem.from_parent(self, name="spec_one")

class SpecItem(pytest.Item):
    def runtest(self):
        raise AssertionError("spec failed")
""")
    project.write("test_api.yaml", "key: value\n")
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run()
    assert result.parseoutcomes().get("failed") == 1
    cases = project.cases()
    assert set(cases) == {"thanks"} and cases["thanks"].outcome == "PASS"
    assert project.report()["summary"]["outcomes"]["ERROR"] == 0


ROUTE = "return Routing(tools=[spec.name for spec in catalogue])"
FACTORY = "router_factory=lambda case_file: All()"


@pytest.mark.parametrize(("old", "new", "why"), [
    (ROUTE, "return [spec.name for spec in catalogue]",
     r"conftest\.All\.route\(\) returned \['my_tool'\]; it must return a "
     r"pytest_tooleval\.Routing\(tools=\[\.\.\.\]\) of names of the catalogue it is given"),
    (ROUTE, 'return Routing(tools=["my_tol"])', r"conftest\.All\.route\(\) returned "
                                                r"Routing\(tools=\['my_tol'\]"),
    (ROUTE, 'raise KeyError("no index")', r"conftest\.All\.route\(\) raised KeyError: 'no index' "
                                          r"at \S+conftest\.py:\d+; fix the router"),
    (FACTORY, "router_factory=All()",
     r"the session's router_factory is a conftest\.All object; pass what makes one "
     r"\(router_factory=lambda case_file: All\(\)\)$"),
    (FACTORY, "router_factory=All",
     r"conftest\.All\.router_factory\(\) raised TypeError: All\(\) takes no arguments "
     r"at \S+; give router_factory=lambda case_file: MyRouter\(\)$"),
])
def test_a_session_router_that_breaks_its_contract_is_an_error_naming_it(
        project, old, new, why) -> None:
    """A router that returns other than a Routing of the catalogue's names or raises, and a
    router_factory that makes no router (an instance, or a class taking no case file): each
    was an INTERNALERROR traceback (the case order routes every case's first step before
    the run), and, in file order, 'internal error in pytest-tooleval ... please report it'
    (kind harness)."""
    project.pytester.makeconftest(HOOK_CONFTEST.replace(old, new))
    project.write("benchmarks/mine.json", ADD_FILE)
    for order in ("prefix", "collection"):
        result = project.run(*HOOK_ARGS, f"--tooleval-order={order}")
        assert "INTERNALERROR" not in result.stdout.str()
        result.assert_outcomes(errors=2)
        [case] = [case for case in project.report()["cases"] if case["case"] == "add"]
        assert case["error"]["kind"] == "configuration"
        assert re.search(why, case["error"]["message"]), case["error"]["message"]


def test_a_provider_whose_close_raises_is_a_warning_and_the_run_stands(project) -> None:
    """It was a bare traceback at the session's end: the summary was never printed, pytest
    exited 1 with every case passed, and the providers after it were never closed."""
    project.pytester.makeconftest(HOOK_CONFTEST.replace(
        "    def call(self, name, arguments):",
        "    def close(self):\n        raise ConnectionError('db already closed')\n\n"
        "    def call(self, name, arguments):").replace(
        "providers=[Mine()]", "providers=[Mine(), Later()]") + '''

class Later(ToolProvider):
    source = "later"

    def list_tools(self):
        return []

    def call(self, name, arguments):
        return ToolResult("")

    def close(self):
        open("closed.txt", "w").write(self.source)
''')
    project.write("benchmarks/mine.json", ADD_FILE)
    result = project.run(*HOOK_ARGS)
    result.assert_outcomes(passed=2, warnings=1)
    assert result.ret == 0
    output = result.stdout.str()
    assert "Traceback" not in output and "tooleval score:" in output
    result.stdout.re_match_lines([r".*RuntimeWarning: tooleval: conftest\.Mine\.close\(\) raised "
                                  r"ConnectionError: db already closed at \S+conftest\.py:\d+"])
    assert (project.path / "closed.txt").read_text() == "later"


def test_the_header_names_the_hooks_session_not_the_profiles_model(project) -> None:
    """It said 'tooleval: model smollm2-135m (embedded llama.cpp, gguf default), grammar
    off' while the conftest's backend answered every case."""
    project.pytester.makeconftest(HOOK_CONFTEST)
    project.write("benchmarks/mine.json", ADD_FILE)
    result = project.run(*HOOK_ARGS)
    result.stdout.re_match_lines([
        r"tooleval: model the session of pytest_tooleval_make_session \(\S+conftest\.py; if it "
        r"returns None: smollm2-135m \(embedded llama\.cpp, gguf default\), grammar off\); "
        r"reports in "])
