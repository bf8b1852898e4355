"""Extension points: the public names, a backend kind of one's own (an entry point in the
group ``pytest_tooleval.backends``), and what a backend class tells the run."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

import pytest_tooleval
from pytest_tooleval.engine.session import CannotFork, ModelSession
from pytest_tooleval.models import base, registry
from pytest_tooleval.models.base import BackendConfigError, ModelTurn
from pytest_tooleval.models.profiles import Profile, ProfileError, resolve_profile
from pytest_tooleval.result import CaseResult
from pytest_tooleval.run.lanes import start_lanes
from pytest_tooleval.run.ordering import wanted
from pytest_tooleval.tools import base as tools_base
from pytest_tooleval.tools.base import ConfigurationError
from pytest_tooleval.tools.python import tool
from tests.conftest import WEATHER_CASE, scenario


def test_the_public_names_are_the_real_classes() -> None:
    """Everything docs/usage.md has an extension write is here: the router a session's
    ``router_factory`` makes, the errors a backend or provider raises for the machine."""
    from pytest_tooleval.report import model
    from pytest_tooleval.router.base import Router, Routing

    real = {"Backend": base.Backend, "BackendError": base.BackendError,
            "BackendConfigError": base.BackendConfigError,
            "ModelTurn": base.ModelTurn, "RawCall": base.RawCall,
            "ToolProvider": tools_base.ToolProvider, "ToolSpec": tools_base.ToolSpec,
            "ToolResult": tools_base.ToolResult, "ProviderError": tools_base.ProviderError,
            "Router": Router, "Routing": Routing, "ModelSession": ModelSession,
            "CaseResult": CaseResult, "tool": tool, "Report": model.Report,
            "ReportError": model.ReportError, "RunInfo": model.RunInfo,
            "Summary": model.Summary, "load_report": model.load_report}
    assert sorted(pytest_tooleval.__all__) == sorted(real)
    for name, value in real.items():
        assert getattr(pytest_tooleval, name) is value, name
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = pytest_tooleval.Nope


def test_an_unknown_kind_is_one_line_with_the_known_kinds_and_the_fix(tmp_path) -> None:
    table = {"kind": "openia", "base_url": "http://127.0.0.1:9/v1"}
    with pytest.raises(ProfileError) as caught:
        resolve_profile("mine", {"mine": table}, tmp_path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("[tool.tooleval.models.mine]: kind 'openia' is not a backend kind "
                              "(did you mean 'openai'?). Known kinds: llama, openai;")
    assert "'pytest_tooleval.backends'" in message and "Your own backend kind" in message
    # A profile made in code (never validated) meets the same words when it is built.
    with pytest.raises(BackendConfigError, match="kind 'openia' is not a backend kind"):
        registry.make_backend(Profile(name="x", kind="openia"), "on")


class Reuses(base.Backend):
    prefix_order = True
    no_fork_reason = "this model keeps one conversation at a time"

    def complete(self, messages: list[dict[str, Any]], tools: list[Any]) -> ModelTurn:
        return ModelTurn(content="ok")


def test_the_backend_class_decides_prefix_order(monkeypatch) -> None:
    monkeypatch.setitem(registry.REGISTRY, ("reuses", "on"), f"{__name__}:Reuses")

    def config(order: str = "auto", collectonly: bool = False) -> Any:
        return SimpleNamespace(getoption=lambda name, default: order,
                               option=SimpleNamespace(collectonly=collectonly))

    def runtime(profile: Profile, grammar: str | None = None) -> Any:
        return SimpleNamespace(session=lambda: None, session_source="builtin", profile=profile,
                               settings=SimpleNamespace(grammar=grammar))

    mine = runtime(Profile(name="m", kind="reuses"))
    assert wanted(config(), mine)
    assert not wanted(config(collectonly=True), mine)
    assert not wanted(config("collection"), mine)
    served = runtime(Profile(name="s", base_url="http://127.0.0.1:9/v1"))
    assert not wanted(config(), served)
    assert wanted(config("prefix"), served)
    # No backend for the mode: the cases say so later; collection keeps its order.
    assert not wanted(config(), runtime(Profile(name="e", kind="llama"), "vendor"))


def test_a_backend_without_fork_says_why_the_run_stays_at_one() -> None:
    session = ModelSession(backend_factory=Reuses, providers=[],
                           router_factory=lambda case_file: None)
    with pytest.raises(CannotFork, match=r"^this model keeps one conversation at a time$"):
        session.fork()
    lanes, info = start_lanes(session, 3)
    assert lanes is None
    assert info == {"requested": 3, "used": 1,
                    "why": "this model keeps one conversation at a time"}


class DuckTyped:
    def complete(self, messages: list[Any], tools: list[Any]) -> ModelTurn:
        return ModelTurn(content="ok")


def test_a_backend_that_is_not_a_backend_subclass_is_refused_with_the_fix() -> None:
    session = ModelSession(backend_factory=DuckTyped, providers=[],
                           router_factory=lambda case_file: None)
    with pytest.raises(ConfigurationError, match=r"made a \S*test_extension\.DuckTyped; "
                       r"a backend must subclass pytest_tooleval\.Backend"):
        session.preflight()
    session = ModelSession(backend_factory=lambda: ModelTurn(content="ok"), providers=[],
                           router_factory=lambda case_file: None)
    with pytest.raises(ConfigurationError, match=r"made a pytest_tooleval\.ModelTurn; "):
        session.preflight()  # the public name, not pytest_tooleval.models.base.ModelTurn


def test_a_server_backend_of_a_plugin_kind_without_base_url_names_the_profile() -> None:
    """A plugin's kind may reuse the OpenAI backend (docs/usage.md, your own backend kind);
    resolve_profile asks for base_url only for "openai", so the class says it itself."""
    from pytest_tooleval.models.openai import OpenAIChatBackend

    profile = Profile.model_validate({"name": "mine", "kind": "openai"})
    with pytest.raises(BackendConfigError, match="profile 'mine' has no base_url"):
        OpenAIChatBackend(profile, "vendor")


def test_a_catalogue_has_a_length_and_an_empty_one_is_false() -> None:
    """``ModelSession.catalogue`` hands callers a Catalogue."""
    from pytest_tooleval.tools.python import PythonToolProvider

    def lookup(name: str) -> str:
        """Look a name up."""
        return name

    empty = tools_base.Catalogue([])
    one = tools_base.Catalogue([PythonToolProvider([tool(lookup)], "python:t.py")])
    assert (len(empty), bool(empty), len(one), bool(one)) == (0, False, 1, True)

SCRIPTED = '''
import json
from pytest_tooleval import Backend, ModelTurn, RawCall


class ScriptedBackend(Backend):
    """Calls get_weather, then answers with what the tool said."""

    @classmethod
    def from_profile(cls, profile, grammar, *, workers=1):
        made = cls()
        made.mode = grammar
        made.name = profile.model
        return made

    def complete(self, messages, tools):
        if messages[-1]["role"] == "tool":
            return ModelTurn(content="It is " + messages[-1]["content"])
        return ModelTurn(content="", calls=[RawCall("get_weather", json.dumps({"city": "Izmir"}),
                                                    "call-1")])

    def describe(self):
        return {"backend": "scripted", "grammar": self.mode, "model": self.name}
'''


def test_a_plugin_adds_a_backend_kind_that_a_profile_selects(project) -> None:
    """An installed package's entry point (a dist-info folder on the path stands in for
    ``pip install``) adds the kind "scripted"; a profile selects it; the case passes."""
    project.write("scripted_backend.py", SCRIPTED)
    project.write("scripted_backend-0.1.dist-info/METADATA",
                  "Metadata-Version: 2.1\nName: scripted-backend\nVersion: 0.1\n")
    project.write("scripted_backend-0.1.dist-info/entry_points.txt",
                  "[pytest_tooleval.backends]\nscripted = scripted_backend:ScriptedBackend\n")
    project.write("tooleval.toml", '[models.mine]\nkind = "scripted"\nmodel = "script-1"\n')
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE]))
    project.pytester.syspathinsert()
    result = project.run("--model", "mine", "--tooleval-min-cases", "1")
    assert result.ret == 0, result.stdout.str()[-2000:]
    result.assert_outcomes(passed=1)
    run = project.report()["run"]
    assert run["backend"]["backend"] == "scripted" and run["backend"]["model"] == "script-1"
    # The header said "mine (script-1 at no base_url, scripted server)"
    result.stdout.re_match_lines([r"tooleval: model mine \(backend kind scripted\), "
                                  r"grammar vendor;"])


@pytest.mark.parametrize("source, why", [
    ('raise RuntimeError("set MY_TOKEN")\n', "RuntimeError: set MY_TOKEN"),
    ("def f(:\n", r"SyntaxError: invalid syntax \(broken_backend\.py, line 1\)"),
])
def test_a_plugin_kind_whose_module_raises_on_import_is_one_message(project, source,
                                                                    why) -> None:
    """Only ImportError was caught: anything else the module raised on import was an
    INTERNALERROR traceback (the case order asks for the class before the first case)."""
    project.write("broken_backend.py", source)
    _package(project.path, "broken-backend", "broken = broken_backend:Broken")
    project.write("tooleval.toml", '[models.mine]\nkind = "broken"\n')
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE]))
    project.pytester.syspathinsert()
    result = project.run("--model", "mine")
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.re_match_lines([r".*the run cannot start: backend kind 'broken': cannot load "
                                  rf"'broken_backend:Broken': {why}"])


def test_a_cached_backend_says_why_the_model_it_wraps_cannot_fork(tmp_path) -> None:
    """With --tooleval-cache the run's backend is the cache around the model: the reason
    the run stays at one lane is still the model's, not the cache's class name."""
    from pytest_tooleval.run.cache import CachingBackend

    cached = CachingBackend(Reuses, tmp_path, "record", {"model": "m"})
    session = ModelSession(backend_factory=lambda: cached, providers=[],
                           router_factory=lambda case_file: None)
    with pytest.raises(CannotFork, match=r"^this model keeps one conversation at a time$"):
        session.fork()


class NoComplete(base.Backend):  # type: ignore[misc]  # forgot complete(): abstract
    def answer(self, messages: list[Any], tools: list[Any]) -> ModelTurn:
        return ModelTurn(content="ok")


class MakesNothing(Reuses):
    @classmethod
    def from_profile(cls, profile: Any, grammar: str, *, workers: int = 1) -> Any:
        return "a backend"


class NeedsAKey(Reuses):
    @classmethod
    def from_profile(cls, profile: Any, grammar: str, *, workers: int = 1) -> Any:
        raise ValueError("set MY_KEY")


def test_a_kind_that_breaks_the_backend_contract_is_named_with_the_fix(monkeypatch) -> None:
    """Each was 'internal error in pytest-tooleval (...); please report it', or named a
    backend_factory the plugin never wrote."""
    for kind, cls, expected in [
        ("lacks", "NoComplete", r"backend kind 'lacks': '\S+:NoComplete' does not implement "
                                r"complete\(\); add it"),
        ("returns", "MakesNothing", r"\.MakesNothing\.from_profile\(\) returned a str; it must "
                                    r"return a Backend"),
        ("raises", "NeedsAKey", r"\.NeedsAKey\.from_profile\(\) raised ValueError: set MY_KEY "
                                r"at \S+test_extension\.py:\d+; fix it, or raise "
                                r"pytest_tooleval\.BackendConfigError"),
    ]:
        monkeypatch.setitem(registry.REGISTRY, (kind, "on"), f"{__name__}:{cls}")
        with pytest.raises(BackendConfigError, match=expected):
            registry.make_backend(Profile(name="p", kind=kind), "on")
    session = ModelSession(backend_factory=NoComplete, providers=[],
                           router_factory=lambda case_file: None)
    with pytest.raises(ConfigurationError, match=r"backend \S+\.NoComplete does not implement "
                                                 r"complete\(\); add it"):
        session.preflight()


def test_a_backend_object_as_the_sessions_backend_factory_is_named_with_the_fix() -> None:
    """backend_factory=MyBackend() (an object, where docs/usage.md passes the class) was
    'internal error in pytest-tooleval (TypeError: 'Reuses' object is not callable) ...
    please report it'."""
    session = ModelSession(backend_factory=Reuses(), providers=[],
                           router_factory=lambda case_file: None)
    with pytest.raises(ConfigurationError, match=(
            r"^the session's backend_factory is a \S+\.Reuses object; pass what makes one "
            r"\(backend_factory=Reuses, not Reuses\(\)\)$")):
        session.preflight()


class Replies(base.Backend):
    def __init__(self, reply: Any) -> None:
        self.reply = reply

    def complete(self, messages: list[Any], tools: list[Any]) -> Any:
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply

    def preflight(self) -> dict[str, Any]:
        if isinstance(self.reply, LookupError):
            raise self.reply
        return {}


@pytest.mark.parametrize(("reply", "expected"), [
    (RuntimeError("socket closed"), r"\.Replies\.complete\(\) raised RuntimeError: socket "
     r"closed at \S+test_extension\.py:\d+; fix the backend, or raise "
     r"pytest_tooleval\.BackendError for a failure of the machine behind it$"),
    ({"content": "hi"}, r"\.Replies\.complete\(\) returned a dict; it must return a "
     r"pytest_tooleval\.ModelTurn$"),
    (ModelTurn(content="", calls=[{"name": "get_weather"}]),  # type: ignore[list-item]
     r"returned a ModelTurn whose calls hold a dict; each must be a pytest_tooleval\.RawCall$"),
    (ModelTurn(content=None),  # type: ignore[arg-type]
     r"returned a ModelTurn whose content is a NoneType; it must be a str"),
], ids=["raises", "a-dict", "calls-of-dicts", "content-none"])
def test_a_backend_that_breaks_its_contract_is_the_machines_error_naming_it(
        reply: Any, expected: str, tmp_path) -> None:
    """A plugin's backend raising, or replying with something else than a ModelTurn, was
    'internal error in pytest-tooleval ... please report it' (a None content was even
    scored: the model's FAIL). Also behind --tooleval-cache."""
    from pytest_tooleval.run.cache import CachingBackend
    from tests.engine.test_loop import ShowAll, ref

    for backend in (Replies(reply), CachingBackend(lambda: Replies(reply), tmp_path, "record",
                                                   {"model": "m"})):
        session = ModelSession(backend_factory=lambda b=backend: b, providers=[],
                               router_factory=lambda case_file: ShowAll())
        run = session.run(ref())
        assert run.error is not None and run.error.kind == "backend", run.error
        assert re.search(expected, run.error.message), run.error.message


def test_a_backend_whose_preflight_raises_is_named(tmp_path) -> None:
    from pytest_tooleval.run.cache import CachingBackend

    for backend in (Replies(LookupError("no such model")),
                    CachingBackend(lambda: Replies(LookupError("no such model")), tmp_path,
                                   "record", {"model": "m"})):
        session = ModelSession(backend_factory=lambda b=backend: b, providers=[],
                               router_factory=lambda case_file: None)
        with pytest.raises(base.BackendError, match=r"\.Replies\.preflight\(\) raised "
                                                    r"LookupError: no such model at "):
            session.preflight()


class Shop(tools_base.ToolProvider):
    """A provider of one tool, broken in the way ``how`` says."""

    source = "rest:shop"

    def __init__(self, how: str) -> None:
        self.how = how

    def list_tools(self) -> list[Any]:
        if self.how == "list_tools raises":
            raise ConnectionError("the REST service is down")
        spec = tools_base.ToolSpec("get_stock", "Stock of an item.",
                                   {"type": "object", "properties": {}}, self.source)
        if self.how == "list_tools one spec":
            return spec  # type: ignore[return-value]
        if self.how == "list_tools forgets return":
            return None  # type: ignore[return-value]
        return [{"name": "get_stock"}] if self.how == "list_tools dicts" else [spec]

    def begin_case(self, context: Any) -> None:
        if self.how == "begin_case raises":
            raise OSError("cannot reset the fake database")

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        if self.how == "call raises":
            raise ConnectionError("refused")
        return {"temp": 17}


@pytest.mark.parametrize(("how", "expected"), [
    ("call raises", r"\.Shop\.call\('get_stock'\) raised ConnectionError: refused at "
     r"\S+test_extension\.py:\d+; fix the provider, or raise pytest_tooleval\.ProviderError "
     r"for a failure of the machine behind it \(a tool's error the model should see is "
     r"ToolResult\.error\(\.\.\.\)\)$"),
    ("call returns a dict", r"\.Shop\.call\('get_stock'\) returned a dict; it must return a "
     r"pytest_tooleval\.ToolResult"),
    ("begin_case raises", r"\.Shop\.begin_case\(\) raised OSError: cannot reset the fake "
     r"database at \S+; fix the provider, or raise pytest_tooleval\.ProviderError"),
], ids=["call-raises", "call-returns-a-dict", "begin-case-raises"])
def test_a_provider_that_breaks_its_contract_is_the_machines_error_naming_it(
        how: str, expected: str) -> None:
    """Each was 'internal error in pytest-tooleval ... please report it' (kind harness)."""
    from tests.engine.test_loop import ShowAll, ref

    turns = [ModelTurn(content="", calls=[base.RawCall("get_stock", "{}", "c1")]),
             ModelTurn(content="done")]
    session = ModelSession(backend_factory=lambda: Replies(None), providers=[Shop(how)],
                           router_factory=lambda case_file: ShowAll())
    session.backend.complete = lambda messages, tools: turns.pop(0)  # type: ignore[method-assign]
    run = session.run(ref())
    assert run.error is not None and run.error.kind == "provider", run.error
    assert re.search(expected, run.error.message), run.error.message


@pytest.mark.parametrize(("how", "why"), [
    ("list_tools raises", r"\.Shop\.list_tools\(\) raised ConnectionError: the REST service "
     r"is down at \S+; fix the provider"),
    ("list_tools dicts", r"\.Shop\.list_tools\(\) returned a list holding a dict; it must "
     r"return a list of pytest_tooleval\.ToolSpec$"),
    ("list_tools one spec", r"\.Shop\.list_tools\(\) returned a ToolSpec; it must return a "
     r"list of pytest_tooleval\.ToolSpec$"),
    ("list_tools forgets return", r"\.Shop\.list_tools\(\) returned a NoneType; it must "
     r"return a list"),
])
def test_a_provider_whose_tool_list_breaks_is_a_failed_provider(how: str, why: str) -> None:
    """Its tools count as missing, and `requires` says why; it was a bare traceback that
    also lost the report (and still was for a list_tools() returning None or one ToolSpec:
    'TypeError: 'NoneType' object is not iterable' at the session's end)."""
    session = ModelSession(backend_factory=lambda: Replies(None), providers=[Shop(how)],
                           router_factory=lambda case_file: None)
    assert session.offered_tools() == set()
    assert re.search(why, session.failed_providers["rest:shop"])


def _package(folder: Any, name: str, points: str) -> None:
    """A dist-info folder on the path stands in for ``pip install``."""
    info = folder / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[pytest_tooleval.backends]\n{points}\n")


def test_a_kind_two_packages_register_is_refused_naming_both(tmp_path, monkeypatch) -> None:
    """One of them was picked without a word (the other's replies scored as the model's),
    and a plugin's 'openai' was ignored."""
    _package(tmp_path, "first-pkg", f"canned = {__name__}:Reuses\nopenai = {__name__}:Reuses")
    _package(tmp_path, "second-pkg", f"canned = {__name__}:NeedsAKey")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(BackendConfigError, match=(
            r"^backend kind 'canned' is registered by first-pkg \(\S+:Reuses\) and by "
            r"second-pkg \(\S+:NeedsAKey\); uninstall a package, or give its entry point "
            r"in 'pytest_tooleval.backends' a name of its own$")):
        registry.make_backend(Profile(name="p", kind="canned"), "on")
    with pytest.raises(BackendConfigError, match=r"^backend kind 'openai' is built in and "
                                                 r"registered by first-pkg \(\S+:Reuses\);"):
        registry.backend_class("openai", "vendor")


def test_a_plugin_backends_own_seed_or_sampling_is_not_touched_by_repeats() -> None:
    """The base class probed for attributes named 'seed' and 'sampling' and overwrote them on
    every try of a repeated case; the ABC declares reseed and current_seed instead."""

    class Mine(pytest_tooleval.Backend):
        seed = "plugin's own"
        sampling = {"seed": "not a number"}

        def complete(self, messages: Any, tools: Any) -> ModelTurn:
            return ModelTurn("")

    backend = Mine()
    backend.reseed(7)
    assert (backend.seed, backend.sampling, backend.current_seed()) == (
        "plugin's own", {"seed": "not a number"}, None)
