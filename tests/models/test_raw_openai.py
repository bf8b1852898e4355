"""Grammar on/off through raw completions, against the loopback fake server: each mode sends
the harness's prompt (with a schema for "on", none for "off"), and the canary refuses a
server that ignores the constraint."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pytest_tooleval.models import raw_openai
from pytest_tooleval.models.base import (
    BackendUnavailable,
    ContextOverflow,
    MalformedReply,
    ServerError,
    TemplateMissing,
)
from pytest_tooleval.models.grammar import envelope_schema
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.raw_openai import (
    CANARY_SCHEMA,
    CANARY_VALUE,
    ConstraintIgnored,
    RawCompletionBackend,
)
from pytest_tooleval.tools.base import ToolSpec
from tests.models.templates import SMOLLM2
from tests.support.fake_openai import FakeOpenAI, Rule, answer, body, call


def raw(url: str, grammar: str, flavor: str | None = None, **fields: object
        ) -> RawCompletionBackend:
    return RawCompletionBackend(Profile(name="t", base_url=url, **fields), grammar,
                                flavor=flavor)


QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]
CANARY_OK = Rule("three fruits", [answer(json.dumps({"canary": CANARY_VALUE}))])
WEATHER_CALL = Rule("weather", [call("get_weather", {"city": "Paris"})])


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI([CANARY_OK, WEATHER_CALL]) as fake:
        yield fake


def _generations(fake: FakeOpenAI) -> list[tuple[str, dict]]:
    paths = ("/completion", "/v1/completions")
    return [(path, body) for path, body in fake.requests if path in paths]


def test_off_sends_the_rendered_prompt_and_no_constraint(
    server: FakeOpenAI, tools: list[ToolSpec]
) -> None:
    backend = raw(server.base_url, "off", retries=0)
    turn = backend.complete(QUESTION, tools)
    assert [(c.name, json.loads(c.arguments or "")) for c in turn.calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    (path, body), = _generations(server)
    assert path == "/completion"
    assert "json_schema" not in body and "grammar" not in body
    assert body["prompt"] == backend.prompt.build(QUESTION, tools)
    assert "You can use these tools" in body["prompt"]  # the fake's template drops tools
    assert body["seed"] == 1234 and body["temperature"] == 0.0 and body["cache_prompt"] is True
    described = backend.describe()
    assert described["constraint"] == "none" and described["server"] == "llama-server"
    assert described["tools_shown"] == "injected"


def test_on_runs_the_canary_then_sends_the_envelope_schema(
    server: FakeOpenAI, tools: list[ToolSpec]
) -> None:
    backend = raw(server.base_url, "on", retries=0)
    backend.complete(QUESTION, tools)
    (_, canary), (_, step) = _generations(server)
    assert canary["json_schema"] == CANARY_SCHEMA
    assert step["json_schema"] == envelope_schema(tools)
    off = raw(server.base_url, "off", retries=0)
    assert step["prompt"] == off.prompt.build(QUESTION, tools)  # same prompt in both modes
    assert backend.describe()["canary"] == "passed"
    assert "llama-server /completion json_schema" in backend.describe()["constraint"]


def test_canary_refuses_a_server_that_ignores_the_constraint(tools: list[ToolSpec]) -> None:
    with FakeOpenAI([WEATHER_CALL]) as fake:  # answers "ok" to the canary: unconstrained
        backend = raw(fake.base_url, "on", retries=0)
        with pytest.raises(ConstraintIgnored, match="refused"):
            backend.complete(QUESTION, tools)
        assert len(_generations(fake)) == 1  # the case itself was never sent


def test_openai_flavor_uses_v1_completions_with_a_template(tools: list[ToolSpec]) -> None:
    with FakeOpenAI([CANARY_OK, WEATHER_CALL]) as fake:
        backend = raw(fake.base_url, "on", "openai", template=SMOLLM2, model="m", retries=0)
        turn = backend.complete(QUESTION, tools)
        assert [c.name for c in turn.calls] == ["get_weather"]
        assert not [p for p, _ in fake.requests if p == "/apply-template"]
        (path, canary), (_, step) = _generations(fake)
        assert path == "/v1/completions"
        assert canary["structured_outputs"] == {"json": CANARY_SCHEMA}
        assert step["structured_outputs"] == {"json": envelope_schema(tools)}
        assert "guided_json" not in step  # silently ignored by vLLM >= 0.12
        assert step["model"] == "m"
        assert "structured_outputs" in backend.describe()["constraint"]


def test_openai_flavor_without_a_template_says_what_to_do(tools: list[ToolSpec]) -> None:
    with FakeOpenAI() as fake:
        backend = raw(fake.base_url, "off", "openai")
        with pytest.raises(TemplateMissing, match=r"--grammar vendor.*template ="):
            backend.complete(QUESTION, tools)


@pytest.mark.parametrize(("flavor", "reply"), [
    ("llama-server", {"error": {"code": 503, "message": "Loading model"}}),
    ("openai", {"choices": [{"index": 0, "finish_reason": "stop"}]}),
    ("openai", {"choices": [{"index": 0, "text": None, "finish_reason": "stop"}]}),
], ids=["completion-without-content", "choice-without-text", "choice-text-null"])
def test_a_200_reply_without_generated_text_is_malformed_not_an_empty_answer(
        flavor: str, reply: dict, tools: list[ToolSpec]) -> None:
    """An empty answer would be scored against the model (a FAIL); the server's reply
    carried no generation at all: the machine's failure, an ERROR."""
    with FakeOpenAI([Rule("weather", [body(reply)])]) as fake:
        backend = raw(fake.base_url, "off", flavor, template=SMOLLM2, retries=0)
        with pytest.raises(MalformedReply, match="text"):
            backend.complete(QUESTION, tools)


@pytest.mark.parametrize("predicted", [64, 65, 63])
def test_llama_servers_stop_at_n_predict_is_a_length_finish(tools: list[ToolSpec],
                                                            predicted: int) -> None:
    """llama-server says a generation was cut with ``stop_type: limit``: at ``n_predict``
    (or a token past it) a truncated turn; below it, at the context: the machine's."""
    reply = answer('{"answer": "It is 17.4 C and the', finish_reason="length")
    with FakeOpenAI([Rule("weather", [reply.with_usage(900, predicted)])]) as fake:
        backend = raw(fake.base_url, "off", retries=0, max_tokens=64)
        if predicted < 64:
            with pytest.raises(ContextOverflow, match="stopped at 63 token"):
                backend.complete(QUESTION, tools)
        else:
            assert backend.complete(QUESTION, tools).truncated


def test_unreachable_server_is_backend_unavailable(tools: list[ToolSpec]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    backend = raw(f"http://127.0.0.1:{port}/v1", "off", retries=0, timeout=2)
    with pytest.raises(BackendUnavailable):
        backend.complete(QUESTION, tools)


def test_thinking_flag_reaches_apply_template(server: FakeOpenAI, tools: list[ToolSpec]) -> None:
    raw(server.base_url, "off", retries=0).complete(QUESTION, tools)
    bodies = [b for p, b in server.requests if p == "/apply-template" and len(b["messages"]) > 1]
    assert bodies[-1]["chat_template_kwargs"] == {"enable_thinking": False}


def test_preflight_without_apply_template_or_template_is_one_message(
    tools: list[ToolSpec],
) -> None:
    """vLLM and Ollama have no /apply-template: grammar on/off without ``template =`` is
    refused before any case, with what to do, and no generation is sent."""
    with FakeOpenAI(apply_template=False) as fake:
        backend = RawCompletionBackend.from_profile(
            Profile(name="vllm", base_url=fake.base_url, model="m", retries=0), "on")
        with pytest.raises(TemplateMissing) as caught:
            backend.preflight()
        assert caught.value.kind == "template_missing"
        assert "--grammar vendor" in str(caught.value) and "template =" in str(caught.value)
        assert not _generations(fake)


def test_a_server_without_apply_template_is_detected() -> None:
    with FakeOpenAI(apply_template=False) as fake:
        backend = raw(fake.base_url, "off", template=SMOLLM2, retries=0)
        assert backend.flavor == "openai"


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="building GBNF needs llama-cpp-python")
def test_on_through_a_grammar_field_found_by_the_canary(tools: list[ToolSpec]) -> None:
    """llama-cpp-python's server: no structured_outputs (ignored), a GBNF ``grammar``."""
    with FakeOpenAI([WEATHER_CALL], constrains=("grammar",)) as fake:
        backend = raw(fake.base_url, "on", "openai", template=SMOLLM2, retries=0)
        info = backend.preflight()
        first, second, step = [b for _, b in _generations(fake)][:2] + [None]
        assert "structured_outputs" in first and "grammar" in second
        assert "canary-7f3e" in second["grammar"]
        turn = backend.complete(QUESTION, tools)
        assert [c.name for c in turn.calls] == ["get_weather"]
        step = _generations(fake)[-1][1]
        assert "get_weather" in step["grammar"] and "root ::=" in step["grammar"]
        assert "structured_outputs" not in step
    assert info["preflight"]["canary"].startswith("passed")
    assert "grammar (GBNF" in backend.describe()["constraint"]


def test_a_constraint_field_the_server_refuses_moves_the_canary_on(no_gbnf: None) -> None:
    from tests.support.fake_openai import status

    refuse = Rule("three fruits", [status(422, body={"detail": "extra field"})])
    with FakeOpenAI([refuse], constrains=("json_schema",)) as fake:
        backend = raw(fake.base_url, "on", "openai", template=SMOLLM2, retries=0)
        backend.canary()
        sent = [b for _, b in _generations(fake)]
    assert backend._constraint_field == "json_schema"
    assert ["structured_outputs" in sent[0], "json_schema" in sent[1]] == [True, True]


def test_every_field_refused_or_ignored_is_named_in_the_refusal(no_gbnf: None) -> None:
    from tests.support.fake_openai import status

    refuse = Rule("three fruits", [status(422, body={"detail": "extra field"})])
    with FakeOpenAI([refuse]) as fake:
        backend = raw(fake.base_url, "on", "openai", template=SMOLLM2, retries=0)
        with pytest.raises(ConstraintIgnored) as caught:
            backend.canary()
    message = str(caught.value)
    assert "structured_outputs: refused" in message and "extra field" in message
    assert "grammar: skipped" in message and "response_format: refused" in message


@pytest.fixture
def no_gbnf(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(schema: object) -> str:
        raise ImportError("no llama_cpp here")

    monkeypatch.setattr(raw_openai.envelope, "schema_to_gbnf", missing)


def test_a_template_file_that_does_not_exist_is_named(tmp_path) -> None:
    with pytest.raises(TemplateMissing, match=r"chat\.jinja': no such file"):
        raw("http://127.0.0.1:9/v1", "off", template=str(tmp_path / "chat.jinja"))
    path = tmp_path / "real.jinja"
    path.write_text(SMOLLM2)
    backend = raw("http://127.0.0.1:9/v1", "off", template=str(path))
    assert backend.template_origin == "template file"


def test_describe_after_the_server_went_away_does_not_raise(tools: list[ToolSpec]) -> None:
    """The report describes the backend at the end of the run: a server that answered, then
    died (its cases ERRORs of kind unreachable), must not turn that into a traceback and no
    report. What the template does with tool results was never needed, so never learned."""
    with FakeOpenAI([Rule("", [answer('{"answer": "You are welcome."}')])]) as fake:
        backend = raw(fake.base_url, "off", retries=0)
        assert backend.complete(QUESTION, tools).content == "You are welcome."
    described = backend.describe()
    assert described["server"] == "llama-server" and described["constraint"] == "none"


class _Loading(BaseHTTPRequestHandler):
    """llama-server while it loads its model: HTTP 503 on every endpoint."""

    def _loading(self) -> None:
        data = json.dumps({"error": {"code": 503, "message": "Loading model",
                                     "type": "unavailable_error"}}).encode()
        self.send_response(503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._loading()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._loading()

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_llama_server_still_loading_is_a_server_error_not_a_missing_template() -> None:
    """A 5xx from /apply-template is a server erroring, not a server without the endpoint:
    the preflight says what the server said, and does not send the user to --grammar vendor
    (nor remember the server as one that is not llama-server)."""
    loading = ThreadingHTTPServer(("127.0.0.1", 0), _Loading)
    thread = threading.Thread(target=loading.serve_forever, daemon=True)
    thread.start()
    try:
        backend = raw(f"http://127.0.0.1:{loading.server_port}/v1", "off", retries=0)
        with pytest.raises(ServerError) as caught:
            backend.preflight()
    finally:
        loading.shutdown()
        loading.server_close()
    assert "/apply-template answered HTTP 503: Loading model" in str(caught.value)
    assert backend.describe()["server"] == "unknown"
