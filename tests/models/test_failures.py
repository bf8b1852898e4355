"""Every failure class of a remote backend, kept apart and named, against the loopback fake
server: unreachable, slow, 5xx, 4xx, context overflow, malformed 200 bodies, truncation."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_tooleval.models.base import (
    TRUNCATED,
    BackendError,
    ContextOverflow,
    MalformedReply,
    ModelTurn,
    RequestRefused,
    ServerError,
    ServerStall,
    ServerTimeout,
    ServerUnreachable,
    stopped_short,
)
from pytest_tooleval.models.http import HttpClient, retry_after_seconds
from pytest_tooleval.models.openai import OpenAIChatBackend
from pytest_tooleval.models.profiles import Profile
from tests.support.fake_openai import FakeOpenAI, Rule, answer, body, delay, status

QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]
LLAMA_CPP_PYTHON_OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 2048 tokens. However, you requested "
                   "2100 tokens (2000 in the messages, 100 in the completion). Please reduce "
                   "the length of the messages or completion.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
    }
}


def backend(fake: FakeOpenAI | str, **fields: Any) -> OpenAIChatBackend:
    url = fake if isinstance(fake, str) else fake.base_url
    fields.setdefault("retries", 2)
    return OpenAIChatBackend(Profile(name="t", base_url=url, model="m", **fields), backoff=0.01)


def chats(fake: FakeOpenAI) -> int:
    return sum(1 for path, _ in fake.requests if path == "/v1/chat/completions")


@pytest.fixture
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_is_its_own_class_with_the_start_hint(free_port: int) -> None:
    chat = backend(f"http://127.0.0.1:{free_port}/v1", start_hint="llama-server -m x.gguf")
    with pytest.raises(ServerUnreachable) as caught:
        chat.complete(QUESTION, [])
    assert caught.value.kind == "unreachable"
    assert "no model server at" in str(caught.value) and "after 3 attempts" in str(caught.value)
    assert "Start one with: llama-server -m x.gguf" in str(caught.value)
    with pytest.raises(ServerUnreachable) as caught:  # no hint in the profile: still a fix
        backend(f"http://127.0.0.1:{free_port}/v1").complete(QUESTION, [])
    assert str(caught.value).endswith(" Start the server, or fix the profile's base_url.")


def test_a_server_that_sends_nothing_is_a_stall_not_unreachable_and_is_not_retried() -> None:
    with FakeOpenAI([Rule("", [delay(2)])]) as fake:
        started = time.monotonic()
        with pytest.raises(ServerStall) as caught:
            backend(fake, timeout=0.4).complete(QUESTION, [])
        assert time.monotonic() - started < 1.5  # one wall clock, not one per attempt
        assert caught.value.kind == "stall" and "no model server" not in str(caught.value)
        assert "sent nothing for 0.4 s" in str(caught.value)
        assert chats(fake) == 1


@contextlib.contextmanager
def slow_reply(headers_after: float, byte_every: float | None) -> Iterator[str]:
    """A server that sends its headers after ``headers_after`` s, then its body one byte
    every ``byte_every`` s (None: nothing more)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            stop.wait(headers_after)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n")
            with contextlib.suppress(OSError):
                while not stop.wait(byte_every or 30):
                    conn.sendall(b" ")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join(5)
    listener.close()


@pytest.mark.parametrize(("headers_after", "byte_every"), [(0, 0.1), (0.8, None)],
                         ids=["trickle", "late-headers-then-silence"])
def test_a_reply_still_arriving_when_the_clock_runs_out_is_a_timeout_not_a_stall(
    headers_after: float, byte_every: float | None,
) -> None:
    """Cut at the clock, not a read timeout after it (late headers then silence took 1.8 s)."""
    with slow_reply(headers_after, byte_every) as url:
        client = HttpClient(url, timeout=1, retries=2)
        started = time.monotonic()
        with pytest.raises(ServerTimeout) as caught:
            client.post("/chat/completions", {})
        assert time.monotonic() - started < 1.4
    assert caught.value.kind == "timeout" and "still sending" in str(caught.value)
    assert "the request's 1 s ran out" in str(caught.value) and "raise the profile's timeout" \
        in str(caught.value)


@contextlib.contextmanager
def endless_head(first: bytes, then: bytes, every: float) -> Iterator[str]:
    """A server that sends ``first``, then ``then`` every ``every`` s (0: as fast as it can):
    a reply's head that never ends. It gives up after 5 s, so an unbounded client fails
    here instead of hanging."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, contextlib.suppress(OSError):
            conn.recv(65536)
            conn.sendall(first)
            ends = time.monotonic() + 5
            while not stop.wait(every) and time.monotonic() < ends:
                conn.sendall(then)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join(10)
    listener.close()


@pytest.mark.parametrize(("first", "then", "every"), [
    (b"HTTP/1.1 200 OK\r\n", b"X-Slow: a\r\n", 0.2),
    (b"", b"HTTP/1.1 102 Processing\r\n\r\n", 0.2),
    (b"", b"HTTP/1.1 102 Processing\r\n\r\n", 0),
], ids=["header-lines", "1xx", "1xx-flood"])
def test_a_head_that_never_ends_is_cut_at_the_clock(first: bytes, then: bytes,
                                                     every: float) -> None:
    """httpx's timeout is per read: each header line or 102 restarted it, and the request
    never ended (the profile's timeout and the case clock were both ignored)."""
    with endless_head(first, then, every) as url:
        client = HttpClient(url, timeout=1, retries=2)
        started = time.monotonic()
        with pytest.raises(ServerTimeout) as caught:
            client.post("/chat/completions", {})
        assert time.monotonic() - started < 1.4
    message = str(caught.value)
    assert f"the model server at {url} was still sending its reply to {url}/chat/completions" \
        in message and "the request's 1 s ran out" in message


def test_a_stall_is_an_error_of_the_machine_with_its_kind_in_the_case_result() -> None:
    from tests.engine.test_loop import ref, session_with

    with FakeOpenAI([Rule("", [delay(2)])]) as fake:
        run = session_with(backend(fake, timeout=0.4)).run(ref())
    assert run.error is not None and run.error.kind == "backend"  # ERROR, never a FAIL
    assert run.error.detail == "stall" and "sent nothing for 0.4 s" in run.error.message


def test_after_a_timeout_a_serial_server_still_answers_the_next_request() -> None:
    """The abandoned generation holds a serial server; a retry would have queued behind it.
    The next request (the next case) gets its own full wall clock and an answer."""
    rules = [Rule("slow", [delay(0.8, answer("late"))]), Rule("", [answer("fine")])]
    with FakeOpenAI(rules, serial=True) as fake:
        chat = backend(fake, timeout=0.3)
        with pytest.raises(ServerTimeout):
            chat.complete([{"role": "user", "content": "slow please"}], [])
        chat = backend(fake, timeout=5)
        assert chat.complete(QUESTION, []).content == "fine"


def test_5xx_is_retried_then_server_error_with_the_full_text() -> None:
    cause = "content must be a string " + "x" * 400 + " END-OF-CAUSE"
    with FakeOpenAI([Rule("", [status(500, body={"error": {"message": cause}})])]) as fake:
        with pytest.raises(ServerError) as caught:
            backend(fake).complete(QUESTION, [])
        assert chats(fake) == 3
        assert caught.value.kind == "server_error"
        assert "END-OF-CAUSE" in str(caught.value)  # not cut at 200 or 300 characters


def test_llama_servers_parse_failure_says_what_it_means_and_the_way_round_it() -> None:
    """--grammar vendor: llama-server's own parser fails on the model's reply. A machine
    ERROR still (a parser regression is the server's), but the message says what it means."""
    cause = "Failed to parse input at pos 184: <tool_call>\n<function=write>"
    body = {"error": {"code": 500, "message": cause, "type": "server_error"}}
    with FakeOpenAI([Rule("", [status(500, body=body)])]) as fake, \
            pytest.raises(ServerError) as caught:
        backend(fake).complete(QUESTION, [])
    assert cause in str(caught.value)
    assert "model broke its call format" in str(caught.value)
    assert "--grammar on or off" in str(caught.value)


def test_4xx_is_refused_at_once() -> None:
    with FakeOpenAI([Rule("", [status(400, body={"error": {"message": "bad tool_choice"}})])]) \
            as fake:
        with pytest.raises(RequestRefused) as caught:
            backend(fake).complete(QUESTION, [])
        assert chats(fake) == 1 and caught.value.kind == "refused"
        assert "HTTP 400: bad tool_choice" in str(caught.value)


def test_context_overflow_is_named_apart_from_other_refusals() -> None:
    with FakeOpenAI([Rule("", [status(400, body=LLAMA_CPP_PYTHON_OVERFLOW)])]) as fake:
        with pytest.raises(ContextOverflow) as caught:
            backend(fake).complete(QUESTION, [])
        assert chats(fake) == 1 and caught.value.kind == "context_overflow"
        assert "maximum context length is 2048" in str(caught.value)


def test_llama_server_overflow_wording_is_recognised() -> None:
    text = {"error": {"code": 400, "type": "exceed_context_size_error",
                      "message": "the request exceeds the available context size, try "
                                 "increasing it"}}
    with FakeOpenAI([Rule("", [status(400, body=text)])]) as fake, \
            pytest.raises(ContextOverflow):
        backend(fake).complete(QUESTION, [])


def test_429_waits_for_retry_after_then_succeeds() -> None:
    waits: list[float] = []
    with FakeOpenAI([Rule("", [status(429, retry_after=2)])]) as fake:

        def sleep(seconds: float) -> None:  # the server recovers while the client waits
            waits.append(seconds)
            fake.set_rules([Rule("", [answer("ok")])])

        http = HttpClient(fake.base_url, retries=2, backoff=0.01, sleep=sleep)
        reply = http.post("/chat/completions", {"messages": QUESTION})
        assert reply["choices"][0]["message"]["content"] == "ok"
        assert waits == [2.0] and chats(fake) == 2


def test_429_that_persists_ends_refused_after_the_retries() -> None:
    waits: list[float] = []
    with FakeOpenAI([Rule("", [status(429, retry_after=1)])]) as fake:
        http = HttpClient(fake.base_url, retries=2, backoff=0.01, sleep=waits.append)
        with pytest.raises(RequestRefused, match="HTTP 429"):
            http.post("/chat/completions", {"messages": QUESTION})
        assert waits == [1.0, 1.0] and chats(fake) == 3


def test_retry_after_is_bounded_by_the_wall_clock() -> None:
    waits: list[float] = []
    with FakeOpenAI([Rule("", [status(503, retry_after=60)])]) as fake:
        http = HttpClient(fake.base_url, timeout=5, retries=3, backoff=0.01, sleep=waits.append)
        with pytest.raises(ServerError):
            http.post("/chat/completions", {"messages": QUESTION})
        assert waits == []  # 30 s (the cap) would pass the 5 s clock: no retry at all


@pytest.mark.parametrize("code, error", [(429, RequestRefused), (503, ServerError)])
def test_a_retry_after_past_the_clock_is_not_retried_sooner_and_is_named(code: int,
                                                                         error: type) -> None:
    """A server that asks for an hour is not asked again after 30 s (three times, 90 s of
    the clock, per request): it answers what it said it would."""
    waits: list[float] = []
    with FakeOpenAI([Rule("", [status(code, retry_after=3600)])]) as fake:
        http = HttpClient(fake.base_url, timeout=120, retries=3, sleep=waits.append)
        with pytest.raises(error) as caught:
            http.post("/chat/completions", {"messages": QUESTION})
        assert waits == [] and chats(fake) == 1
    assert "Retry-After: 3600 s" in str(caught.value) and "timeout" in str(caught.value)


def test_a_retry_after_within_the_clock_is_waited_in_full() -> None:
    waits: list[float] = []
    with FakeOpenAI([Rule("", [status(503, retry_after=45)])]) as fake:
        http = HttpClient(fake.base_url, timeout=120, retries=1, sleep=waits.append)
        with pytest.raises(ServerError):
            http.post("/chat/completions", {"messages": QUESTION})
    assert waits == [45.0]  # as asked, not cut to 30 s


@pytest.mark.parametrize("value, expected", [("3", 3.0), ("0.5", 0.5), ("", None),
                                             ("soon", None)])
def test_retry_after_forms(value: str, expected: float | None) -> None:
    assert retry_after_seconds(value) == expected


def test_retry_after_as_an_http_date() -> None:
    from email.utils import formatdate

    seconds = retry_after_seconds(formatdate(time.time() + 10, usegmt=True))
    assert seconds is not None and 8 <= seconds <= 10


MALFORMED = [
    ([1, 2], "not an object"),
    (5, "not an object"),
    (None, "not an object"),
    ({"choices": ["x"]}, "choices[0]"),
    ({"choices": []}, "no choices"),
    ({"choices": [{"message": "hello"}]}, "message"),
    ({"choices": [{"message": {"content": "", "tool_calls": {"a": 1}}}]}, "not a list"),
    ({"choices": [{"message": {"tool_calls": [{"function": {"name": {"x": 1}}}]}}]},
     "name is not a string"),
    ({"choices": [{"message": {"tool_calls": ["get_weather"]}}]}, "tool_calls[0]"),
    ({"choices": [{"message": {"content": 7}}]}, "must be a string"),
    ({"choices": [{"message": {"content": [{"type": "image_url"}]}}]}, "without text"),
    ("<html>busy</html>", "not JSON"),
]


@pytest.mark.parametrize("reply, words", MALFORMED, ids=[repr(m[0])[:30] for m in MALFORMED])
def test_malformed_200_bodies_are_malformed_reply_errors(reply: Any, words: str) -> None:
    with FakeOpenAI([Rule("", [body(reply)])]) as fake:
        with pytest.raises(MalformedReply, match=re.escape(words)) as caught:
            backend(fake).complete(QUESTION, [])
        assert isinstance(caught.value, BackendError) and caught.value.kind == "malformed_reply"
        assert chats(fake) == 1


def test_a_content_parts_list_of_text_is_read_as_text() -> None:
    parts = {"choices": [{"message": {"content": [{"type": "text", "text": "sun"},
                                                  {"type": "text", "text": "ny"}]}}]}
    with FakeOpenAI([Rule("", [body(parts)])]) as fake:
        assert backend(fake).complete(QUESTION, []).content == "sunny"


def test_finish_reason_length_is_a_malformed_turn_not_an_answer() -> None:
    """Through the real session and loop, as a run goes: the loop marks every backend's
    cut-off turn (tests/engine/test_loop.py has the same for a backend of any kind)."""
    from tests.engine.test_loop import ref, session_with

    cut = answer("It is sunny and the", finish_reason="length").with_usage(40, 64)
    with FakeOpenAI([Rule("", [cut])]) as fake:
        run = session_with(backend(fake, max_tokens=64)).run(ref())
    step = run.transcripts[0]
    assert not step.answered and step.answer is None
    assert step.attempts and all(not a.valid and a.malformed == "unparseable"
                                 and a.reason == TRUNCATED for a in step.attempts)


def test_a_reply_cut_below_max_tokens_is_the_servers_context_not_the_model() -> None:
    """llama-server stops at its context (-c, shared by --parallel slots) or its own -n cap
    with finish_reason "length": 40 tokens of 512 is no model running long."""
    cut = answer("It is sunny and the", finish_reason="length").with_usage(4056, 40)
    with FakeOpenAI([Rule("", [cut])]) as fake, pytest.raises(ContextOverflow) as caught:
        backend(fake, max_tokens=512).complete(QUESTION, [])
    assert str(caught.value) == (
        "the reply stopped at 40 token(s), below max_tokens = 512 (finish_reason: length, "
        f"after 4056 prompt tokens): the conversation filled the context of the server at "
        f"{fake.base_url.removesuffix('/v1')} (llama-server -c, shared by its --parallel "
        "slots), or it caps replies lower (-n); raise that, or lower the profile's max_tokens")
    assert caught.value.kind == "context_overflow" and chats(fake) == 1


@pytest.mark.parametrize("used", [None, 0])
def test_a_cut_reply_without_a_token_count_stays_the_models_truncated_turn(
        used: int | None) -> None:
    """A server that reports no completion tokens, or 0 for a reply with text in it, says
    nothing about where the reply was cut."""
    turn = ModelTurn(content="It is sunny and the", finish_reason="length",
                     completion_tokens=used)
    assert stopped_short(turn, 512, "fix") is turn and turn.truncated


@pytest.mark.parametrize("partial", [True, False])
def test_a_dropped_connection_after_reaching_the_server_is_a_server_error(
        partial: bool) -> None:
    """Mid-reply or before any byte of it (a reset, a crash): the server was reached, so
    it is a server error, retried (docs/usage.md's table says so), not unreachable."""
    from tests.support.fake_openai import drop

    with FakeOpenAI([Rule("", [drop(partial=partial)])]) as fake:
        with pytest.raises(ServerError, match="broke the connection"):
            backend(fake, retries=1).complete(QUESTION, [])
        assert chats(fake) == 2


@pytest.fixture
def hung() -> Iterator[FakeOpenAI]:
    with FakeOpenAI([Rule("", [delay(30)])]) as fake:
        yield fake


def test_a_generation_that_never_stops_is_cut_by_the_wall_clock(hung: FakeOpenAI) -> None:
    started = time.monotonic()
    with pytest.raises(ServerTimeout):
        HttpClient(hung.base_url, timeout=0.5, retries=3).post(
            "/chat/completions", {"messages": QUESTION})
    assert time.monotonic() - started < 2


def test_the_report_kind_of_every_class_is_distinct() -> None:
    from pytest_tooleval.models import base

    kinds = [cls.kind for cls in vars(base).values()
             if isinstance(cls, type) and issubclass(cls, BackendError)]
    assert len(kinds) == len(set(kinds))
    assert {"unreachable", "timeout", "stall", "server_error", "refused", "context_overflow",
            "malformed_reply", "template_missing", "constraint_ignored",
            "tools_not_shown"} <= set(kinds)
    assert json.dumps(kinds)  # plain strings, as the report records them


def test_a_retried_failure_is_not_the_models_latency() -> None:
    """A 503 answered again after the backoff (0.4 s here): the turn's latency is the
    attempt that answered, not the failed one and the wait. The user's run read 'latency
    p95 0.507 s' through a balancer that failed one request in seven, NOT DEPLOYABLE under
    a 0.3 s budget, against 0.008 s direct (rule 1)."""
    with FakeOpenAI([Rule("", [status(503)])]) as fake:
        chat = OpenAIChatBackend(Profile(name="t", base_url=fake.base_url, model="m",
                                         retries=2), backoff=0.4)
        real_sleep = chat.http._sleep

        def recover(seconds: float) -> None:  # the server is back during the wait
            fake.set_rules([Rule("", [answer("fine")])])
            real_sleep(seconds)

        chat.http._sleep = recover
        started = time.perf_counter()
        turn = chat.complete(QUESTION, [])
        assert turn.content == "fine" and chats(fake) == 2
        assert time.perf_counter() - started >= 0.4
        assert turn.latency_s < 0.2, turn.latency_s
