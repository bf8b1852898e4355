"""End to end against a real third-party server: llama-cpp-python's own OpenAI-compatible
server (``python -m llama_cpp.server``) serving the embedded default GGUF on loopback,
through vendor mode, "off" with a template file, and "on" through its ``grammar`` field.

Started by the tests (AMX-safe: ``tests/support/llama_cpp_server.py``), stopped after.
Needs the [local] extra and the server's packages (fastapi, starlette-context,
pydantic-settings, uvicorn, sse-starlette: the ``test`` extra). Marked ``realmodel``.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import WEATHER_TOOL, scenario
from tests.models.templates import SMOLLM2

pytestmark = pytest.mark.realmodel
ROOT = Path(__file__).resolve().parent.parent
SERVER_PACKAGES = ("llama_cpp", "fastapi", "starlette_context", "pydantic_settings", "uvicorn",
                   "sse_starlette")
CASES = [
    {"name": "weather", "category": "tool", "steps": [
        {"message": "What is the weather in Izmir?", "expect": "get_weather"}]},
    {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks, bye!"}]},
]


def _missing() -> str | None:
    absent = [name for name in SERVER_PACKAGES if importlib.util.find_spec(name) is None]
    if absent:
        return f"llama-cpp-python's server needs {', '.join(absent)} (the test extra)"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RealServer:
    def __init__(self, log: Path, *options: str) -> None:
        from pytest_tooleval.models.llama import default_model_path

        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        self.model = str(default_model_path())
        command = [sys.executable, "-m", "tests.support.llama_cpp_server", "--model",
                   self.model, "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx",
                   "4096", "--n_threads", "1", "--seed", "1234", *options]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with log.open("w") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out,
                                            stderr=subprocess.STDOUT)
        self._wait_ready(timeout=120)

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited ({self.process.returncode}):\n"
                                   + self.log.read_text()[-3000:])
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError("llama_cpp.server did not start within "
                           f"{timeout:g} s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., RealServer]]:
    reason = _missing()
    if reason:
        pytest.skip(reason)
    started: dict[tuple[str, ...], RealServer] = {}

    def start(*options: str) -> RealServer:
        if options not in started:
            log = tmp_path_factory.mktemp("llama-cpp-server") / "server.log"
            started[options] = RealServer(log, *options)
        return started[options]

    yield start
    for server in started.values():
        server.stop()


def _profile(project: Any, server: RealServer, template: Path | None = None) -> None:
    fields: dict[str, Any] = {"model": "smollm2", "max_tokens": 48, "max_steps": 2,
                              "timeout": 300, "retries": 0}
    if template is not None:
        fields["template"] = str(template)
    project.profile(server.base_url, name="lcp", **fields)


def _run(project: Any, grammar: str) -> dict[str, Any]:
    result = project.run("--model", "lcp", "--grammar", grammar)
    report = project.report()
    errors = [(c["case"], c.get("error")) for c in report["cases"] if c["outcome"] == "ERROR"]
    assert not errors, (errors, result.stdout.str()[-3000:])
    return report


def test_vendor_mode_runs_tool_calls_through_the_real_server(project, real_server) -> None:
    server = real_server("--chat_format", "chatml-function-calling")
    project.write("scenarios/tiny.yaml", scenario(CASES, tools=[WEATHER_TOOL]))
    _profile(project, server)
    report = _run(project, "vendor")
    step = project.cases()["weather"].steps[0].transcript
    # The model called the tool and the conversation went back to the server with the
    # assistant's tool call and the tool's result (HTTP 500 with a null content before).
    assert "get_weather" in step.ran, step
    assert len(step.model_calls) == 2
    backend = report["run"]["backend"]
    assert backend["grammar"] == "vendor" and backend["sampling"]["repeat_penalty"] == 1.0


@pytest.fixture
def cpu_hog():
    """Two busy processes beside the test: a shared CI runner's load."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for hog in hogs:
        hog.kill()
        hog.wait()


def test_vendor_preflight_proves_the_tools_reach_the_prompt(real_server, cpu_hog) -> None:
    """Under load too: the tools probe names its tool, so llama-cpp-python honours
    max_tokens (on "auto" it does not, and the probe ran until the context was full)."""
    from pytest_tooleval.models.openai import OpenAIChatBackend
    from pytest_tooleval.models.profiles import Profile

    server = real_server("--chat_format", "chatml-function-calling")
    backend = OpenAIChatBackend(Profile(name="lcp", base_url=server.base_url, timeout=300))
    started = time.monotonic()
    checked = backend.preflight()["preflight"]
    assert time.monotonic() - started < 60
    assert checked["tools_reach_prompt"].startswith("verified"), checked
    assert checked["models"] == [server.model]


def test_a_template_without_tools_is_refused_by_the_preflight(real_server) -> None:
    """The GGUF's own template (no --chat_format) drops the tools silently."""
    from pytest_tooleval.models.base import ToolsNotShown
    from pytest_tooleval.models.openai import OpenAIChatBackend
    from pytest_tooleval.models.profiles import Profile

    server = real_server()
    backend = OpenAIChatBackend(Profile(name="lcp", base_url=server.base_url, timeout=300))
    with pytest.raises(ToolsNotShown, match="drops the tools"):
        backend.preflight()


@pytest.fixture
def template_file(tmp_path: Path) -> Path:
    path = tmp_path / "smollm2.jinja"
    path.write_text(SMOLLM2, encoding="utf-8")
    return path


def test_off_with_a_template_file(project, real_server, template_file: Path) -> None:
    server = real_server("--chat_format", "chatml-function-calling")
    project.write("scenarios/tiny.yaml", scenario(CASES, tools=[WEATHER_TOOL]))
    _profile(project, server, template_file)
    backend = _run(project, "off")["run"]["backend"]
    assert backend["grammar"] == "off" and backend["constraint"] == "none"
    assert backend["chat_template"] == "template file" and backend["server"] == "openai"


def test_on_through_the_servers_grammar_field(project, real_server, template_file: Path) -> None:
    server = real_server("--chat_format", "chatml-function-calling")
    project.write("scenarios/tiny.yaml", scenario(CASES, tools=[WEATHER_TOOL]))
    _profile(project, server, template_file)
    report = _run(project, "on")
    backend = report["run"]["backend"]
    assert backend["canary"] == "passed"
    assert "grammar (GBNF" in backend["constraint"], backend
    for case in project.cases().values():  # constrained: every turn is an answer or a
        for step in case.steps:  # valid call, unless cut off at max_tokens
            for attempt in step.transcript.attempts:
                assert attempt.malformed is None or (attempt.reason or "").startswith(
                    "truncated"), attempt


def test_the_launcher_turns_extra_buffer_types_off_where_llama_reads_them() -> None:
    """The AMX guard, checked on any CPU: the patched defaults are the ones ``Llama``
    builds its model parameters from."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    code = ("from tests.support.llama_cpp_server import disable_extra_buffer_types as d\n"
            "import llama_cpp.llama as L\n"
            "before = L.llama_cpp.llama_model_default_params().use_extra_bufts\n"
            "d()\n"
            "print(before, L.llama_cpp.llama_model_default_params().use_extra_bufts)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]
