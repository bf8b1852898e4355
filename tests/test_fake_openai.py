"""Tests of the scripted OpenAI-compatible test server (tests/support/fake_openai.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    Rule,
    answer,
    call,
    calls,
    chat_position,
    delay,
    drop,
    leak,
    prompt_position,
    raw_call,
    render_chatml,
    reply_from_json,
    reply_to_json,
    rules_to_json,
    status,
)

REPO_ROOT = Path(__file__).resolve().parents[1]

WEATHER = Rule(
    "weather",
    [call("get_weather", {"city": "Paris"}), answer("It is sunny in Paris.")],
)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def chat(server: FakeOpenAI, messages: list[dict[str, Any]], **kw: Any) -> httpx.Response:
    payload = {"model": "m", "messages": messages}
    return httpx.post(f"{server.base_url}/chat/completions", json=payload, **kw)


def message_of(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return dict(response.json()["choices"][0]["message"])


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    rules = [
        WEATHER,
        Rule("two tools", [calls([("a", {"x": 1}), ("b", {"y": [1, 2]})])]),
        Rule("broken", [raw_call("get_weather", '{"city": "Paris"')]),
        Rule("leaky", [leak('<tool_call>{"name": "f", "arguments": {}}</tool_call>')]),
        Rule("rate", [status(429, retry_after=2)]),
        Rule("crash", [status(500)]),
        Rule("teapot", [status(418, body="short and stout")]),
        Rule("slow", [delay(0.3, then=answer("late"))]),
        Rule("hang", [delay(30)]),
        Rule("cut", [drop()]),
        Rule("empty drop", [drop(partial=False)]),
    ]
    with FakeOpenAI(rules=rules) as srv:
        yield srv


# ------------------------------------------------------------------- reply kinds


def test_answer_shape_and_usage(server: FakeOpenAI) -> None:
    response = chat(server, [user("Hello there")])
    data = response.json()
    message = message_of(response)
    assert message == {"role": "assistant", "content": "ok"}  # the default reply
    assert data["choices"][0]["finish_reason"] == "stop"
    usage = data["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] == 1
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert chat(server, [user("Hello there")]).json() == data  # deterministic


def test_call_shape(server: FakeOpenAI) -> None:
    response = chat(server, [user("What's the WEATHER like?")])
    message = message_of(response)
    assert message["content"] is None
    [tool_call] = message["tool_calls"]
    assert tool_call["type"] == "function"
    assert tool_call["id"]
    assert tool_call["function"]["name"] == "get_weather"
    assert isinstance(tool_call["function"]["arguments"], str)
    assert json.loads(tool_call["function"]["arguments"]) == {"city": "Paris"}
    assert response.json()["choices"][0]["finish_reason"] == "tool_calls"


def test_several_calls_in_one_turn(server: FakeOpenAI) -> None:
    message = message_of(chat(server, [user("use two tools")]))
    names = [tc["function"]["name"] for tc in message["tool_calls"]]
    assert names == ["a", "b"]
    assert len({tc["id"] for tc in message["tool_calls"]}) == 2
    assert json.loads(message["tool_calls"][1]["function"]["arguments"]) == {"y": [1, 2]}


def test_raw_call_sends_malformed_arguments(server: FakeOpenAI) -> None:
    message = message_of(chat(server, [user("broken call please")]))
    arguments = message["tool_calls"][0]["function"]["arguments"]
    assert arguments == '{"city": "Paris"'
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments)


def test_leak_puts_the_call_in_content(server: FakeOpenAI) -> None:
    message = message_of(chat(server, [user("be leaky")]))
    assert message["tool_calls"] == []
    assert '<tool_call>{"name": "f"' in message["content"]


def test_call_id_content_finish_reason_and_usage_overrides() -> None:
    rules = [
        Rule("id", [call("f", {}, call_id="call_fixed", content="Let me check.")]),
        Rule("long", [answer("trunc", finish_reason="length").with_usage(100, 7)]),
    ]
    with FakeOpenAI(rules) as srv:
        message = message_of(chat(srv, [user("id")]))
        assert message["content"] == "Let me check."
        assert message["tool_calls"][0]["id"] == "call_fixed"
        data = chat(srv, [user("long")]).json()
        assert data["choices"][0]["finish_reason"] == "length"
        assert data["usage"] == {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107}


# ---------------------------------------------------------------------- matching


def test_rule_matches_latest_user_message_only(server: FakeOpenAI) -> None:
    messages = [
        {"role": "system", "content": "You may check the weather."},
        user("weather in Paris?"),
        {"role": "assistant", "content": "Sunny."},
        user("thanks, bye"),
    ]
    assert message_of(chat(server, messages)) == {"role": "assistant", "content": "ok"}


def test_content_parts_are_matched() -> None:
    with FakeOpenAI([WEATHER]) as srv:
        parts = [{"type": "text", "text": "the "}, {"type": "text", "text": "Weather?"}]
        assert "tool_calls" in message_of(chat(srv, [user(parts)]))  # type: ignore[arg-type]


def test_reply_index_is_the_round_within_the_step(server: FakeOpenAI) -> None:
    messages = [user("weather in Paris?")]
    first = message_of(chat(server, messages))
    assert first["tool_calls"][0]["function"]["name"] == "get_weather"
    messages += [
        first,
        {"role": "tool", "tool_call_id": first["tool_calls"][0]["id"], "content": "sunny"},
    ]
    second = message_of(chat(server, messages))
    assert second["content"] == "It is sunny in Paris."
    messages += [second, {"role": "tool", "tool_call_id": "x", "content": "?"}]
    assert message_of(chat(server, messages))["content"] == "It is sunny in Paris."  # repeats
    # a new step: the round count starts again after the new user message
    messages.append(user("and the weather in Rome?"))
    assert "tool_calls" in message_of(chat(server, messages))


def test_first_matching_rule_wins_and_default_is_configurable() -> None:
    rules = [Rule("apple", [answer("first")]), Rule("apple pie", [answer("second")])]
    with FakeOpenAI(rules, default=answer("nothing matched")) as srv:
        assert message_of(chat(srv, [user("Apple pie")]))["content"] == "first"
        assert message_of(chat(srv, [user("banana")]))["content"] == "nothing matched"
        srv.set_rules([Rule("", [answer("catch-all")])])
        assert message_of(chat(srv, [user("banana")]))["content"] == "catch-all"


def test_chat_position() -> None:
    assert chat_position([]) == ("", 0)
    assert chat_position([{"role": "assistant", "content": "hi"}]) == ("", 1)
    messages = [
        user("a"),
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "content": "r"},
    ]
    assert chat_position(messages) == ("a", 1)


def test_rule_needs_replies() -> None:
    with pytest.raises(ValueError):
        Rule("x", [])


# ------------------------------------------------------------------------ faults


def test_status_429_with_retry_after(server: FakeOpenAI) -> None:
    response = chat(server, [user("rate limit me")])
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"
    assert response.json()["error"]["code"] == 429


def test_status_500_and_custom_body(server: FakeOpenAI) -> None:
    response = chat(server, [user("crash now")])
    assert response.status_code == 500
    assert "error" in response.json()
    response = chat(server, [user("teapot")])
    assert response.status_code == 418
    assert response.text == "short and stout"


def test_delay(server: FakeOpenAI) -> None:
    started = time.perf_counter()
    message = message_of(chat(server, [user("slow one")]))
    assert time.perf_counter() - started >= 0.3
    assert message["content"] == "late"
    with pytest.raises(httpx.ReadTimeout):
        chat(server, [user("slow one")], timeout=0.05)


def test_stop_does_not_wait_for_a_long_delay() -> None:
    srv = FakeOpenAI([Rule("hang", [delay(60)])]).start()
    errors: list[BaseException] = []

    def client() -> None:
        try:
            chat(srv, [user("hang")], timeout=10)
        except httpx.HTTPError as exc:
            errors.append(exc)

    thread = threading.Thread(target=client)
    thread.start()
    time.sleep(0.2)
    started = time.perf_counter()
    srv.stop()
    thread.join(5)
    assert time.perf_counter() - started < 2
    assert not thread.is_alive()
    assert errors and isinstance(errors[0], httpx.TransportError)


@pytest.mark.parametrize("text", ["cut it", "empty drop"])
def test_drop_gives_a_transport_error(server: FakeOpenAI, text: str) -> None:
    with pytest.raises(httpx.TransportError):
        chat(server, [user(text)])
    assert message_of(chat(server, [user("fine")]))["content"] == "ok"  # still serving


def test_stop_refuses_connections() -> None:
    srv = FakeOpenAI().start()
    url = srv.base_url
    assert httpx.get(f"{url}/models").status_code == 200
    srv.stop()
    assert not srv.running
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/models")
    srv.stop()  # idempotent


def test_kill_after() -> None:
    with FakeOpenAI() as srv:
        srv.kill_after(2)
        assert message_of(chat(srv, [user("one")]))["content"] == "ok"
        assert message_of(chat(srv, [user("two")]))["content"] == "ok"
        assert not srv.running
        with pytest.raises(httpx.ConnectError):
            chat(srv, [user("three")])
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{srv.base_url}/models")
        assert srv.model_calls == 2


def test_kill_after_counts_from_now_and_zero_closes_at_once() -> None:
    with FakeOpenAI() as srv:
        chat(srv, [user("before")])
        srv.kill_after(1)
        assert chat(srv, [user("after")]).status_code == 200
        with pytest.raises(httpx.ConnectError):
            chat(srv, [user("again")])
    with FakeOpenAI() as srv:
        srv.kill_after(0)
        with pytest.raises(httpx.ConnectError):
            chat(srv, [user("x")])


def test_kill_after_containing_counts_only_the_matching_calls() -> None:
    with FakeOpenAI() as srv:
        srv.kill_after(2, containing="thanks")
        for text in ("probe", "thanks a lot", "another probe"):
            assert chat(srv, [user(text)]).status_code == 200
        assert srv.running  # one matching call so far
        assert chat(srv, [user("thanks again")]).status_code == 200
        with pytest.raises(httpx.ConnectError):
            chat(srv, [user("probe")])
        assert srv.model_calls == 4


# -------------------------------------------------------------- server plumbing


def test_requests_are_recorded_thread_safely() -> None:
    with FakeOpenAI() as srv, httpx.Client() as client:
        client.get(f"{srv.base_url}/models")

        def send(i: int) -> None:
            payload = {"messages": [user(f"message {i}")]}
            client.post(f"{srv.base_url}/chat/completions", json=payload).raise_for_status()

        threads = [threading.Thread(target=send, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        recorded = srv.requests
    assert recorded[0] == ("/v1/models", None)
    chats = [body for path, body in recorded if path == "/v1/chat/completions"]
    assert sorted(b["messages"][0]["content"] for b in chats) == sorted(
        f"message {i}" for i in range(20)
    )


def test_models_health_and_bad_requests() -> None:
    with FakeOpenAI(model="qwen-fake") as srv:
        data = httpx.get(f"{srv.base_url}/models").json()
        assert data["data"][0]["id"] == "qwen-fake"
        assert httpx.get(f"{srv.root_url}/health").json() == {"status": "ok"}
        assert httpx.get(f"{srv.base_url}/nowhere").status_code == 404
        response = httpx.post(f"{srv.base_url}/chat/completions", content=b"{not json")
        assert response.status_code == 400
        assert srv.requests[-1] == ("/v1/chat/completions", "{not json")
        stream = {"messages": [user("x")], "stream": True}
        assert httpx.post(f"{srv.base_url}/chat/completions", json=stream).status_code == 400


def test_base_url_shape_and_threads_end() -> None:
    before = set(threading.enumerate())
    with FakeOpenAI() as srv:
        assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"
        chat(srv, [user("x")])
    time.sleep(0.05)
    assert set(threading.enumerate()) <= before


def test_not_started() -> None:
    srv = FakeOpenAI()
    with pytest.raises(RuntimeError):
        _ = srv.base_url
    srv.stop()  # harmless


# -------------------------------------------------------------- raw endpoints


def test_apply_template_renders_chatml() -> None:
    messages = [
        {"role": "system", "content": "sys"},
        user("weather?"),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    with FakeOpenAI() as srv:
        prompt = httpx.post(f"{srv.root_url}/apply-template", json={"messages": messages})
    assert prompt.json()["prompt"] == (
        "<|im_start|>system\nsys<|im_end|>\n"
        "<|im_start|>user\nweather?<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>{"name": "w", "arguments": {}}</tool_call><|im_end|>\n'
        "<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_prompt_position() -> None:
    assert prompt_position("just a prompt") == ("just a prompt", 0)
    base = [user("Weather?")]
    assert prompt_position(render_chatml(base)) == ("Weather?", 0)
    after_tool = [
        *base,
        {"role": "assistant", "content": "", "tool_calls": []},
        {"role": "tool", "content": "sunny"},
    ]
    assert prompt_position(render_chatml(after_tool)) == ("Weather?", 1)


def test_raw_completion_endpoint() -> None:
    with FakeOpenAI([WEATHER]) as srv:
        first = [user("weather in Paris?")]
        prompt = render_chatml(first)
        data = httpx.post(f"{srv.root_url}/completion", json={"prompt": prompt}).json()
        assert data["content"] == (
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
        )
        assert data["tokens_predicted"] > 0 and data["tokens_evaluated"] > 0
        second = [
            *first,
            {"role": "assistant", "content": data["content"]},
            {"role": "tool", "content": "sunny"},
        ]
        prompt = render_chatml(second)
        data = httpx.post(f"{srv.root_url}/completion", json={"prompt": prompt}).json()
        assert data["content"] == "It is sunny in Paris."


def test_v1_completions_endpoint_and_raw_faults() -> None:
    rules = [
        Rule("weather", [raw_call("get_weather", '{"city": ')]),
        Rule("crash", [status(503)]),
    ]
    with FakeOpenAI(rules) as srv:
        url = f"{srv.base_url}/completions"
        prompt = render_chatml([user("weather")])
        data = httpx.post(url, json={"prompt": prompt}).json()
        assert data["choices"][0]["text"] == (
            '<tool_call>{"name": "get_weather", "arguments": {"city": }</tool_call>'
        )
        assert data["usage"]["total_tokens"] > 0
        assert httpx.post(url, json={"prompt": "crash"}).status_code == 503
        assert httpx.post(url, json={"prompt": "other"}).json()["choices"][0]["text"] == "ok"


# -------------------------------------------------------------- JSON and __main__


def test_json_round_trip() -> None:
    replies: list[Reply] = [
        answer("a"),
        answer("b", finish_reason="length").with_usage(3, 4),
        call("f", {"x": 1}, call_id="id1", content="c"),
        calls([("f", {}), ("g", {"y": 2})]),
        raw_call("f", "{bad"),
        leak("text"),
        status(429, retry_after=1.5, body={"e": 1}),
        delay(0.1, then=call("f", {})),
        delay(0.2),
        drop(),
        drop(partial=False),
    ]
    for reply in replies:
        assert reply_from_json(json.loads(json.dumps(reply_to_json(reply)))) == reply
    assert reply_from_json({"call": "f", "arguments": {"x": 1}}) == call("f", {"x": 1})
    assert reply_from_json({"calls": [["f", {"x": 1}]]}) == calls([("f", {"x": 1})])
    assert reply_from_json({"raw_call": "f", "arguments_text": "{"}) == raw_call("f", "{")
    with pytest.raises(ValueError):
        reply_from_json({"nonsense": 1})

    script = rules_to_json([WEATHER], default=answer("d"), model="m")
    srv = FakeOpenAI.from_json(json.loads(json.dumps(script)))
    assert srv.model == "m"
    with srv:
        assert message_of(chat(srv, [user("nothing")]))["content"] == "d"
        assert "tool_calls" in message_of(chat(srv, [user("weather")]))


def _spawn(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(rules_to_json([WEATHER], model="sub-model")))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fake_openai", "--rules", str(rules), *extra],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()))  # type: ignore[union-attr]
    reader.start()
    reader.join(15)
    if not line or not line[0].startswith("http://"):
        proc.kill()
        _, err = proc.communicate(timeout=5)
        pytest.fail(f"no base URL from the subprocess: {line!r} {err}")
    return proc, line[0].strip()


def test_main_entry_in_a_subprocess(tmp_path: Path) -> None:
    proc, base_url = _spawn(tmp_path)
    try:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        assert httpx.get(f"{base_url}/models").json()["data"][0]["id"] == "sub-model"
        payload = {"messages": [user("weather?")]}
        data = httpx.post(f"{base_url}/chat/completions", json=payload).json()
        assert data["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_main_kill_after_exits(tmp_path: Path) -> None:
    proc, base_url = _spawn(tmp_path, "--kill-after", "1")
    try:
        payload = {"messages": [user("hello")]}
        assert httpx.post(f"{base_url}/chat/completions", json=payload).status_code == 200
        assert proc.wait(timeout=10) == 0
        with pytest.raises(httpx.ConnectError):
            httpx.post(f"{base_url}/chat/completions", json=payload)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_keep_alive_serves_several_requests_on_one_connection_and_stop_cuts_it() -> None:
    before = set(threading.enumerate())
    url = "/chat/completions"
    with FakeOpenAI([Rule("cut", [drop()])], keep_alive=True) as srv, \
            httpx.Client(timeout=5) as client:
        for _ in range(3):
            got = client.post(srv.base_url + url, json={"model": "m", "messages": [user("x")]})
            assert got.status_code == 200 and got.http_version == "HTTP/1.1"
        assert srv.connections_opened == 1
        # A dropped reply closes the kept connection; the next request opens a second.
        with pytest.raises(httpx.TransportError):
            client.post(srv.base_url + url, json={"model": "m", "messages": [user("cut")]})
        assert client.post(srv.base_url + url,
                           json={"model": "m", "messages": [user("y")]}).status_code == 200
        assert srv.connections_opened == 2
    # stop() cut the idle persistent connection: its thread is gone.
    time.sleep(0.05)
    assert set(threading.enumerate()) <= before


def test_without_keep_alive_each_request_has_its_own_connection() -> None:
    with FakeOpenAI() as srv, httpx.Client(timeout=5) as client:
        for _ in range(3):
            assert client.post(f"{srv.base_url}/chat/completions",
                               json={"model": "m", "messages": [user("x")]}).status_code == 200
        assert srv.connections_opened == 3
