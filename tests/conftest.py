"""Shared fixtures: a scripted loopback model server and inner pytest runs of the plugin."""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpcore  # noqa: F401
import httpx  # noqa: F401
import pytest
from hypothesis import settings

# pytester's in-process runs restore sys.modules afterwards; a module first imported inside
# one would be imported again later, and httpx would no longer recognise httpcore's
# exception classes. Importing them here keeps one copy for the whole session.
# numpy (which scoring imports, at a run's end, not at plugin load) cannot load its C
# extension twice in one process, so it is imported here too.
import pytest_tooleval.engine.session
import pytest_tooleval.models.openai
import pytest_tooleval.plugin
import pytest_tooleval.scoring.aggregate  # noqa: F401
from pytest_tooleval.report.model import Report, RunInfo, Summary
from pytest_tooleval.result import CaseResult
from tests.support.fake_openai import FakeOpenAI, Rule

pytest_plugins = ["pytester"]

# Property tests are timed by the number of examples, not by the clock: on a shared two-core
# machine one example can take past hypothesis's 200 ms deadline and fail a correct test.
settings.register_profile("shared-machine", deadline=None)
settings.load_profile("shared-machine")


def report_cases(report: dict[str, Any]) -> list[CaseResult]:
    """The typed cases of a report.json's content."""
    return Report.model_validate(report).cases


#: A complete run, as a report records it: tests change what they are about.
RUN_INFO: dict[str, Any] = {
    "package_version": "0.1.0",
    "platform": {"system": "Linux", "machine": "x86_64", "python": "3.11.7",
                 "implementation": "cpython"},
    "model": {"name": "m"}, "grammar_requested": "on", "config_file": None, "k": 9,
    "router_mode": "triggers", "seed": 1234, "sample_every": 1, "isolation": {"mode": "jail"},
    "repeat": {"k": 1, "seed_policy": "pinned", "seeds": [1234]},
    "thresholds": {"gate": 0.9, "min_score": 70.0, "max_malformed": 0.02,
                   "latency_p95": None, "min_cases": 10, "partial": "fail"},
    "backend": {"backend": "fake", "grammar": "on", "constraint": "json-envelope"},
    "backend_variants": 1, "router": {}, "tools_offered": ["calculator", "git_log", "web_search"],
    "providers": "builtin", "tool_providers": [], "started": "2026-01-01T00:00:00+00:00",
    "finished": "2026-01-01T00:01:00+00:00", "interrupted": None, "concurrency": None,
    "cases_done": 0, "cases_selected": 0, "identity_hash": None, "shard": None,
    "selection": None,
}


def said(result: pytest.RunResult, pattern: str) -> bool:
    """Whether a run's output matches ``pattern`` (fnmatch) with the summary's wrapped lines
    joined again: each run of white space read as one space."""
    return fnmatch.fnmatch(" ".join(result.stdout.str().split()), pattern)


def make_report(cases: list[CaseResult], summary: Summary | None = None,
                **run: Any) -> Report:
    """A report of these cases (summarised as a run would be) and a run with ``run``'s
    fields changed."""
    from pytest_tooleval.scoring.aggregate import Thresholds, summarize

    return Report(run=RunInfo.model_validate({**RUN_INFO, **run}),
                  summary=summary or summarize(cases, Thresholds()), cases=cases)


def pytest_configure(config: pytest.Config) -> None:
    """The session's local cache folder (localcache.py), never the user's: test modules
    may check cases at collection, before any fixture runs."""
    folder = tempfile.mkdtemp(prefix="tooleval-test-cache-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    os.environ["TOOLEVAL_CACHE_DIR"] = folder


@pytest.fixture(autouse=True)
def _check_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's own local cache folder (the ``tooleval check`` results), never one
    another test filled."""
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("local-cache")))


@pytest.fixture
def fake_model() -> Iterator[Callable[..., FakeOpenAI]]:
    """Start a scripted server: ``fake_model(rules, default=...)``; stopped afterwards.
    It refuses a null content as llama.cpp's servers do, so every run through it proves the
    harness sends messages real servers accept."""
    servers: list[FakeOpenAI] = []

    def start(rules: Sequence[Rule] = (), **kwargs: Any) -> FakeOpenAI:
        kwargs.setdefault("strict_content", True)
        server = FakeOpenAI(list(rules), **kwargs).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


class Project:
    """A throwaway user project inside pytester's directory."""

    def __init__(self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pytester = pytester
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

    @property
    def path(self) -> Path:
        return self.pytester.path

    def profile(self, server: FakeOpenAI | str, name: str = "fake", **fields: Any) -> None:
        base_url = server if isinstance(server, str) else server.base_url
        fields = {"model": "fake-model", "retries": 1, **fields}
        lines = [f"[models.{name}]", f'base_url = "{base_url}"']
        lines += [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
        self.pytester.makefile(".toml", tooleval="\n".join(lines) + "\n")

    def write(self, relative: str, content: str | dict[str, Any]) -> Path:
        path = self.path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        path.write_text(text, encoding="utf-8")
        return path

    def run(self, *args: str, workers: int = 0, builtin: bool = False,
            subprocess: bool = False) -> pytest.RunResult:
        base = ["-p", "pytest_tooleval.plugin", "-p", "no:cacheprovider"]
        if workers:
            base += ["-p", "xdist", "-n", str(workers)]
        if not builtin:
            base.append("--tooleval-no-builtin")
        if not any(a.startswith("--model") for a in args):
            base += ["--model", "fake"]
        if not any(a.startswith("--grammar") for a in args):
            base += ["--grammar", "vendor"]
        return self.pytester.runpytest_subprocess(*base, *args) if workers or subprocess else \
            self.pytester.runpytest(*base, *args)

    def report(self) -> dict[str, Any]:
        return json.loads((self.path / "tooleval-report" / "report.json").read_text("utf-8"))

    def cases(self) -> dict[str, CaseResult]:
        """The report's cases, typed, by case name."""
        return {case.case: case for case in report_cases(self.report())}

    def markdown(self) -> str:
        return (self.path / "tooleval-report" / "report.md").read_text("utf-8")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Project:
    return Project(pytester, monkeypatch)


WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"], "additionalProperties": False},
    "result": "Izmir: 17.4 C, light rain, wind 23 km/h",
}

NOTES_TOOL = {
    "name": "save_note",
    "description": "Save a note for the user.",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}},
                   "required": ["text"]},
    "result": "saved as note N-4471",
}


def scenario(cases: list[dict[str, Any]], **fields: Any) -> str:
    import yaml

    data = {"name": fields.pop("name", "demo"), "language": "en",
            "tools": fields.pop("tools", [WEATHER_TOOL, NOTES_TOOL]), "cases": cases, **fields}
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


WEATHER_CASE = {"name": "weather", "category": "tool", "steps": [
    {"message": "what's the weather in Izmir?", "expect": "get_weather",
     "evidence": ["17.4"], "forbidden": ["save_note"]}]}
THANKS_CASE = {"name": "thanks", "category": "irrelevance", "marks": ["hardmode"],
               "steps": [{"message": "thanks, that's all"}]}
CHAIN_CASE = {"name": "chain", "category": "chain", "group": "notes", "steps": [
    {"message": "what's the weather in Izmir?", "expect": "get_weather", "evidence": ["17.4"]},
    {"message": "note that down for me", "expect": "save_note", "evidence": ["N-4471"]}]}
