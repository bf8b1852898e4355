"""A loopback OpenAI-compatible server whose "model" does exactly what a script says.

Replies are chosen by rules, never by a global sequence, so a script gives the same answers
whatever order pytest-xdist runs the cases in: a rule applies when its ``match`` is a
substring (case-insensitive) of the latest user message, and the reply index is the number
of assistant turns since that message (the round within the step).

Endpoints: ``POST /v1/chat/completions``, ``GET /v1/models``, and llama-server's raw
``POST /completion`` and ``POST /apply-template`` plus ``POST /v1/completions``.

Options that make it behave like a particular real server: ``drops_tools`` (a chat
template without tool support: the tools never reach the prompt or the prompt-token
count), ``strict_content`` (llama.cpp servers' HTTP 500 on a null or missing content, and,
as vLLM too, on tool-call arguments in the history that are not JSON),
``serial`` (one generation at a time, as llama-cpp-python's server; otherwise every
request is served on its own thread, so parallel clients overlap, and ``peak_in_flight``
says how many generations were in progress at once), ``latency`` (seconds added to every
generation), ``keep_alive`` (HTTP/1.1 persistent connections, as llama-server, vLLM and
Ollama keep them; the default answers one request per connection, so ``stop()`` never has an
idle client socket to cut; not for the fault tests: ``kill_after`` closes only the listener,
so a kept connection is still answered, and ``wait_idle`` waits for kept idle ones),
``props`` (llama-server's ``GET /props``), ``constrains`` (request fields it applies as
constraints: the canary then gets its one valid reply),
``apply_template=False`` (no llama-server ``/apply-template``, as vLLM and Ollama),
``strict_model`` (vLLM's HTTP 404 to a model name other than the one it serves), and
``body(...)`` replies for malformed 200 bodies.

Run it as a process with ``python -m tests.support.fake_openai --rules rules.json``: the base
URL is the first line on stdout. See ``rules_to_json`` for the file format.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

ReplyKind = Literal["answer", "calls", "leak", "status", "delay", "drop", "body"]

HOST = "127.0.0.1"
CREATED = 1_700_000_000  # a fixed timestamp keeps replies byte-for-byte repeatable


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class ScriptedCall:
    """One tool call; ``arguments`` is the exact text sent, valid JSON or not."""

    name: str
    arguments: str
    call_id: str | None = None

    def text_form(self) -> str:
        """The call as a Hermes/Qwen ``<tool_call>`` block (arguments inserted verbatim)."""
        body = f'{{"name": {json.dumps(self.name)}, "arguments": {self.arguments}}}'
        return f"<tool_call>{body}</tool_call>"


@dataclass(frozen=True)
class Reply:
    """What the fake model does for one request. Build it with the constructors below."""

    kind: ReplyKind
    content: str = ""
    calls: tuple[ScriptedCall, ...] = ()
    finish_reason: str | None = None
    usage: tuple[int, int] | None = None  # (prompt, completion); None: derived from lengths
    status_code: int = 200
    retry_after: float | None = None
    body: str | dict[str, Any] | None = None
    seconds: float = 0.0
    then: Reply | None = None
    partial: bool = True

    def with_usage(self, prompt_tokens: int, completion_tokens: int) -> Reply:
        """The same reply, reporting these token counts instead of derived ones."""
        return replace(self, usage=(prompt_tokens, completion_tokens))

    def text_form(self) -> str:
        """The reply as raw generated text (for /completion and /v1/completions)."""
        parts = [self.content] if self.content else []
        parts.extend(c.text_form() for c in self.calls)
        return "\n".join(parts)


def answer(text: str, *, finish_reason: str = "stop") -> Reply:
    """A final answer (no tool calls)."""
    return Reply("answer", content=text, finish_reason=finish_reason)


def call(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    call_id: str | None = None,
    content: str = "",
) -> Reply:
    """One well-formed tool call."""
    args = json.dumps(arguments or {}, ensure_ascii=False)
    return Reply("calls", content=content, calls=(ScriptedCall(name, args, call_id),))


def calls(items: Iterable[tuple[str, dict[str, Any]]], *, content: str = "") -> Reply:
    """Several tool calls in one turn (parallel calls)."""
    scripted = tuple(ScriptedCall(n, json.dumps(a, ensure_ascii=False)) for n, a in items)
    if not scripted:
        raise ValueError("calls() needs at least one (name, arguments) pair")
    return Reply("calls", content=content, calls=scripted)


def raw_call(
    name: str, arguments_text: str, *, call_id: str | None = None, content: str = ""
) -> Reply:
    """A tool call whose arguments text is sent as given (e.g. malformed JSON)."""
    return Reply("calls", content=content, calls=(ScriptedCall(name, arguments_text, call_id),))


def leak(text: str) -> Reply:
    """A call written into the content with ``tool_calls: []`` (a server parser miss)."""
    return Reply("leak", content=text)


def status(
    code: int, retry_after: float | None = None, body: str | dict[str, Any] | None = None
) -> Reply:
    """An HTTP error reply. ``body``: a dict is sent as JSON, a str as text; None: an
    OpenAI-style error object."""
    return Reply("status", status_code=code, retry_after=retry_after, body=body)


def body(value: Any) -> Reply:
    """HTTP 200 with exactly this JSON body (any value: malformed replies), or this text
    when ``value`` is a ``str``."""
    return Reply("body", body=value)


def delay(seconds: float, then: Reply | None = None) -> Reply:
    """Wait ``seconds``, then do ``then`` (default: answer "ok")."""
    return Reply("delay", seconds=seconds, then=then)


def drop(*, partial: bool = True) -> Reply:
    """Close the connection without a valid HTTP reply.

    ``partial``: first send the status line, headers and part of the body (the client sees
    an incomplete message); otherwise close before sending anything.
    """
    return Reply("drop", partial=partial)


DEFAULT_REPLY = answer("ok")


@dataclass
class Rule:
    """``replies[i]`` answers round ``i`` of a step whose latest user message contains
    ``match`` (case-insensitive); past the end the last reply repeats. "" matches all.
    With ``seeds``, the rule applies only to requests carrying one of those sampling seeds
    (a scripted model whose answer depends on the try of a repeated case)."""

    match: str
    replies: list[Reply] = field(default_factory=list)
    seeds: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.replies, Reply):
            self.replies = [self.replies]
        self.replies = list(self.replies)
        if not self.replies:
            raise ValueError(f"rule {self.match!r} has no replies")

    def applies(self, user_text: str, seed: Any = None) -> bool:
        if self.seeds and seed not in self.seeds:
            return False
        return self.match.casefold() in user_text.casefold()

    def reply_for(self, index: int) -> Reply:
        return self.replies[min(max(index, 0), len(self.replies) - 1)]


def choose_reply(rules: Sequence[Rule], default: Reply, user_text: str, index: int,
                 seed: Any = None) -> Reply:
    """The first matching rule's reply for this round, else ``default``."""
    for rule in rules:
        if rule.applies(user_text, seed):
            return rule.reply_for(index)
    return default


# ------------------------------------------------------------------ reading requests


def _content_text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def chat_position(messages: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """(latest user message text, assistant messages after it)."""
    last_user = -1
    for i, message in enumerate(messages):
        if message.get("role") == "user":
            last_user = i
    user_text = _content_text(messages[last_user].get("content")) if last_user >= 0 else ""
    rounds = sum(1 for m in messages[last_user + 1 :] if m.get("role") == "assistant")
    return user_text, rounds


IM_START, IM_END = "<|im_start|>", "<|im_end|>"


def prompt_position(prompt: str) -> tuple[str, int]:
    """(latest user turn, completed assistant turns after it) in a ChatML prompt.

    User turns that only carry ``<tool_response>`` (how Qwen templates render tool results)
    are not user messages. Without ChatML user markers the whole prompt is the user text.
    """
    turns: list[tuple[str, str, bool]] = []  # (role, content, closed)
    for segment in prompt.split(IM_START)[1:]:
        role, _, rest = segment.partition("\n")
        turns.append((role.strip(), rest.split(IM_END)[0], IM_END in rest))
    users = [i for i, (role, _, _) in enumerate(turns) if role == "user"]
    if not users:
        return prompt, 0
    real = [i for i in users if not turns[i][1].lstrip().startswith("<tool_response>")]
    last = (real or users)[-1]
    rounds = sum(1 for role, _, closed in turns[last + 1 :] if role == "assistant" and closed)
    return turns[last][1].strip(), rounds


def render_chatml(messages: Sequence[dict[str, Any]], add_generation_prompt: bool = True) -> str:
    """A plain ChatML rendering (Qwen style for tool calls and tool results)."""
    out: list[str] = []
    for message in messages:
        role = str(message.get("role", "user"))
        text = _content_text(message.get("content"))
        if role == "tool":
            role, text = "user", f"<tool_response>\n{text}\n</tool_response>"
        elif role == "assistant":
            blocks = [text] if text else []
            for tc in message.get("tool_calls") or []:
                fn = tc.get("function") or {}
                args = fn.get("arguments")
                args_text = args if isinstance(args, str) else json.dumps(args or {})
                blocks.append(ScriptedCall(str(fn.get("name", "")), args_text).text_form())
            text = "\n".join(blocks)
        out.append(f"{IM_START}{role}\n{text}{IM_END}\n")
    if add_generation_prompt:
        out.append(f"{IM_START}assistant\n")
    return "".join(out)


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: about four characters a token."""
    return (len(text) + 3) // 4


def _messages_tokens(messages: Sequence[dict[str, Any]], tools: Any = None) -> int:
    total = count_tokens(json.dumps(tools)) if tools else 0
    for m in messages:
        total += 4 + count_tokens(_content_text(m.get("content")))  # 4: role and markers
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") or {}
            total += count_tokens(str(fn.get("name", "")) + str(fn.get("arguments", "")))
    return total


# ------------------------------------------------------------------------- the server


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 makes bursts of clients wait a 1 s SYN retry

    def __init__(self, fake: FakeOpenAI, port: int) -> None:
        self.fake = fake
        super().__init__((HOST, port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn, a DNS lookup that can stall.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = HOST, self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # a client or stop() closed the connection: expected here
        super().handle_error(request, client_address)


GENERATION_PATHS = {
    "/v1/chat/completions": "chat",
    "/chat/completions": "chat",
    "/v1/completions": "completions",
    "/completion": "completion",
}


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"  # one request per connection: stop() leaves no idle sockets
    timeout = 30

    def setup(self) -> None:
        super().setup()
        if self.server.fake.keep_alive:
            self.protocol_version = "HTTP/1.1"  # several requests per connection
            # The headers and the body go out in two writes: on a kept connection Nagle's
            # algorithm holds the second until the client's delayed ACK (about 40 ms), a
            # delay real servers do not have (asyncio and uvicorn set TCP_NODELAY).
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.fake._track(self.connection, add=True)
        if self.server.fake._stopping.is_set():  # accepted just as stop() ran
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.fake.verbose:
            super().log_message(format, *args)

    # -- plumbing

    def _send(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(payload, str):
            data, ctype = payload.encode(), "text/plain; charset=utf-8"
        else:
            data, ctype = json.dumps(payload).encode(), "application/json"
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, code: int, message: str) -> None:
        self._send(code, {"error": {"message": message, "type": "fake_openai", "code": code}})

    def _drop(self, partial: bool) -> None:
        if partial:
            self.wfile.write(
                b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"
                b'Content-Length: 4096\r\n\r\n{"id": "chatcmpl-dropped", "choi'
            )
            self.wfile.flush()
        self.close_connection = True

    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/") or "/"

    # -- routes

    def do_GET(self) -> None:
        path = self._path()
        self.server.fake._record(path, None)
        if path in ("/v1/models", "/models"):
            model = self.server.fake.model
            entry = {"id": model, "object": "model", "created": CREATED, "owned_by": "fake"}
            self._send(200, {"object": "list", "data": [entry]})
        elif path == "/health":
            self._send(200, {"status": "ok"})
        elif path == "/props" and self.server.fake.props is not None:
            self._send(200, self.server.fake.props)
        else:
            self._error(404, f"no route for GET {path}")

    def do_POST(self) -> None:
        path = self._path()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            self.server.fake._record(path, raw.decode("utf-8", "replace"))
            self._error(400, "the body is not JSON")
            return
        self.server.fake._record(path, body)
        if not isinstance(body, dict):
            self._error(400, "the body must be a JSON object")
        elif path == "/apply-template" and self.server.fake.apply_template:
            self._apply_template(body)
        elif path in GENERATION_PATHS:
            self._generate(GENERATION_PATHS[path], body)
        else:
            self._error(404, f"no route for POST {path}")

    def _apply_template(self, body: dict[str, Any]) -> None:
        messages = body.get("messages")
        if not isinstance(messages, list):
            self._error(400, "'messages' must be a list")
            return
        add = bool(body.get("add_generation_prompt", True))
        self._send(200, {"prompt": render_chatml(messages, add)})

    def _generate(self, endpoint: str, body: dict[str, Any]) -> None:
        fake = self.server.fake
        if body.get("stream"):
            self._error(400, "FakeOpenAI does not stream")
            return
        if endpoint == "chat":
            messages = body.get("messages")
            if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
                self._error(400, "'messages' must be a list of objects")
                return
            if fake.strict_content:
                for i, m in enumerate(messages):
                    if not isinstance(m.get("content"), str | list):
                        # llama-server and llama-cpp-python's server both refuse this
                        self._error(500, f"messages[{i}]: content must be a string, not "
                                         f"{type(m.get('content')).__name__}")
                        return
                    for tc in m.get("tool_calls") or []:
                        try:
                            json.loads((tc.get("function") or {}).get("arguments") or "{}")
                        except ValueError:
                            self._error(500, "Failed to parse tool call arguments as JSON")
                            return
            user_text, index = chat_position(messages)
            tools = None if fake.drops_tools else body.get("tools")
            prompt_tokens = _messages_tokens(messages, tools)
        else:
            prompt = body.get("prompt")
            if not isinstance(prompt, str):
                self._error(400, "'prompt' must be a string")
                return
            user_text, index = prompt_position(prompt)
            prompt_tokens = count_tokens(prompt)

        reply = fake._choose(user_text, index, body.get("seed"))
        choice = body.get("tool_choice") if endpoint == "chat" and body.get("tools") else None
        if isinstance(choice, dict) and fake.refuses_named_choice:
            self._error(400, "tool_choice must be one of 'none', 'auto', 'required'")
            return
        if choice == "auto" and fake.auto_tools_hang:
            reply = delay(fake.auto_tools_hang, reply)
        if endpoint != "chat" and _constrained_canary(body, fake.constrains):
            reply = answer(json.dumps({"canary": CANARY}))
        with fake._generation_slot(), fake._in_flight():
            self._reply(endpoint, body, reply, index, prompt_tokens)

    def _reply(self, endpoint: str, body: dict[str, Any], reply: Reply, index: int,
               prompt_tokens: int) -> None:
        fake = self.server.fake
        if fake.strict_model and body.get("model") != fake.model:
            self._error(404, f"The model `{body.get('model')}` does not exist.")
            return
        if fake.latency:
            fake._stopping.wait(fake.latency)
        last = fake._count_model_call(body)
        while reply.kind == "delay":
            if fake._stopping.wait(reply.seconds):
                reply = drop(partial=False)  # stop() during the wait
            else:
                reply = reply.then or DEFAULT_REPLY
        if last:
            fake._close_listener()  # before replying, so the client's next connect is refused

        if reply.kind == "drop":
            self._drop(reply.partial)
        elif reply.kind == "status":
            self._send_status(reply)
        elif reply.kind == "body":
            self._send(200, reply.body)
        else:
            self._send(200, _payload(endpoint, reply, body, fake.model, index, prompt_tokens))

    def _send_status(self, reply: Reply) -> None:
        headers = {}
        if reply.retry_after is not None:
            ra = reply.retry_after
            headers["Retry-After"] = str(int(ra)) if float(ra).is_integer() else str(ra)
        payload: Any = reply.body
        if payload is None:
            payload = {
                "error": {
                    "message": f"scripted HTTP {reply.status_code}",
                    "type": "fake_openai",
                    "code": reply.status_code,
                }
            }
        self._send(reply.status_code, payload, headers)


CANARY = "canary-7f3e"  # the value pytest_tooleval.models.raw_openai's canary asks for


def _constrained_canary(body: dict[str, Any], fields: frozenset[str]) -> bool:
    """Whether the request carries the canary's constraint in a field this fake applies."""
    return any(field in body and CANARY in json.dumps(body[field]) for field in fields)


def _payload(
    endpoint: str,
    reply: Reply,
    body: dict[str, Any],
    default_model: str,
    index: int,
    prompt_tokens: int,
) -> dict[str, Any]:
    """The 200 reply body for one generation endpoint."""
    model = body.get("model") or default_model
    if endpoint == "chat":
        completion_text = reply.content + "".join(c.name + c.arguments for c in reply.calls)
    else:
        completion_text = reply.text_form()
    p_tok, c_tok = reply.usage or (prompt_tokens, count_tokens(completion_text))
    usage = {"prompt_tokens": p_tok, "completion_tokens": c_tok, "total_tokens": p_tok + c_tok}

    if endpoint == "completion":  # llama-server's native endpoint
        return {
            "content": completion_text,
            "model": model,
            "stop": True,
            "stop_type": "limit" if reply.finish_reason == "length" else "eos",
            "tokens_predicted": c_tok,
            "tokens_evaluated": p_tok,
        }
    if endpoint == "completions":
        choice = {
            "index": 0,
            "text": completion_text,
            "logprobs": None,
            "finish_reason": reply.finish_reason or "stop",
        }
        return {
            "id": "cmpl-fake",
            "object": "text_completion",
            "created": CREATED,
            "model": model,
            "choices": [choice],
            "usage": usage,
        }

    n_messages = len(body.get("messages") or [])
    tool_calls = [
        {
            # the message count keeps ids unique within a conversation, and deterministic
            "id": c.call_id or f"call_{n_messages}_{i}",
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments},
        }
        for i, c in enumerate(reply.calls)
    ]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.content if (reply.content or not tool_calls) else None,
    }
    if tool_calls or reply.kind == "leak":
        message["tool_calls"] = tool_calls
    finish = reply.finish_reason or ("tool_calls" if tool_calls else "stop")
    return {
        "id": f"chatcmpl-fake-{n_messages}-{index}",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }


class FakeOpenAI:
    """A scripted OpenAI-compatible server on 127.0.0.1 (a free port unless ``port``)."""

    def __init__(
        self,
        rules: Sequence[Rule] = (),
        *,
        default: Reply | None = None,
        model: str = "fake-model",
        port: int = 0,
        verbose: bool = False,
        drops_tools: bool = False,
        strict_content: bool = False,
        serial: bool = False,
        latency: float = 0.0,
        keep_alive: bool = False,
        props: dict[str, Any] | None = None,
        constrains: Iterable[str] = (),
        apply_template: bool = True,
        refuses_named_choice: bool = False,
        strict_model: bool = False,
        auto_tools_hang: float = 0.0,
    ) -> None:
        self.model = model
        # A server that answers HTTP 400 to a tool_choice naming a tool; one where a request
        # with tools and tool_choice "auto" takes this long whatever max_tokens says
        # (llama-cpp-python's chatml-function-calling).
        self.refuses_named_choice, self.auto_tools_hang = refuses_named_choice, auto_tools_hang
        self.strict_model = strict_model  # HTTP 404 to any model name but its own, as vLLM
        self.verbose = verbose
        self.drops_tools, self.strict_content = drops_tools, strict_content
        self.latency, self.props = latency, props
        self.keep_alive = keep_alive
        self.connections_opened = 0  # connections accepted over the server's life
        self.constrains = frozenset(constrains)
        self.apply_template = apply_template  # False: 404 there, as vLLM and Ollama
        self._serial = threading.Lock() if serial else None
        self._port_wanted = port
        self._lock = threading.Lock()
        self._rules = list(rules)
        self._default = default or DEFAULT_REPLY
        self._requests: list[tuple[str, Any]] = []
        self._model_calls = 0
        self._busy = 0
        self._peak = 0
        self._kill_at: int | None = None
        self._kill_containing: str | None = None
        self._matching_calls = 0
        self._stopping = threading.Event()
        self._listener_lock = threading.Lock()
        self._listener_closed = False
        self._httpd: _HTTPServer | None = None
        self._serve_thread: threading.Thread | None = None
        self._connections: dict[socket.socket, threading.Thread] = {}

    @classmethod
    def from_json(cls, data: dict[str, Any] | list[Any], **kwargs: Any) -> FakeOpenAI:
        """A server from the JSON form written by ``rules_to_json``; kwargs override it."""
        if isinstance(data, list):
            data = {"rules": data}
        rules = [rule_from_json(r) for r in data.get("rules", [])]
        if "default" in data and "default" not in kwargs:
            kwargs["default"] = reply_from_json(data["default"])
        if "model" in data and "model" not in kwargs:
            kwargs["model"] = data["model"]
        return cls(rules, **kwargs)

    # -- lifecycle

    def start(self) -> FakeOpenAI:
        if self._httpd is not None:
            raise RuntimeError("FakeOpenAI was already started (it cannot be restarted)")
        self._httpd = _HTTPServer(self, self._port_wanted)
        self._serve_thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"FakeOpenAI-{self.port}",
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close the listening socket (new connections are refused), cut open connections,
        and wait for the server's threads."""
        self._stopping.set()
        self._close_listener()
        with self._lock:
            open_connections = dict(self._connections)
        for conn in open_connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + timeout
        threads = [*open_connections.values(), self._serve_thread]
        for thread in threads:
            if thread is not None and thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no connection is being served; False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if not self._connections:
                    return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def kill_after(self, n: int, containing: str | None = None) -> None:
        """Stop accepting connections once ``n`` more model calls have been answered.

        Model calls: chat completions, /completion and /v1/completions (any reply, faults
        included); with ``containing``, only those whose request body has that text (the
        cases' calls, not each xdist worker's preflight probes). The socket closes before
        the n-th reply is sent, so the client's next connection is refused. ``n == 0``
        closes it now.
        """
        if n < 0:
            raise ValueError("n must be >= 0")
        with self._lock:
            self._kill_containing = containing
            self._matching_calls = 0
            self._kill_at = (self._model_calls if containing is None else 0) + n
        if n == 0:
            self._close_listener()

    def _close_listener(self) -> None:
        with self._listener_lock:
            if self._listener_closed or self._httpd is None:
                return
            self._listener_closed = True
            self._httpd.shutdown()  # ends serve_forever (which runs in another thread)
            self._httpd.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- state

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAI is not started")
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` (llama-server's raw endpoints live here)."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what an OpenAI client takes as base URL."""
        return f"{self.root_url}/v1"

    @property
    def running(self) -> bool:
        """True while the listening socket accepts connections."""
        return self._httpd is not None and not self._listener_closed

    @property
    def requests(self) -> list[tuple[str, Any]]:
        """A copy of (path, parsed JSON body) for every request so far, in arrival order.
        GET requests have body None; a body that is not JSON is kept as text."""
        with self._lock:
            return list(self._requests)

    @property
    def model_calls(self) -> int:
        with self._lock:
            return self._model_calls

    @property
    def peak_in_flight(self) -> int:
        """The most generations this server had in progress at one moment."""
        with self._lock:
            return self._peak

    def set_rules(self, rules: Sequence[Rule], default: Reply | None = None) -> None:
        """Replace the script while running."""
        with self._lock:
            self._rules = list(rules)
            if default is not None:
                self._default = default

    # -- used by the handler

    def _record(self, path: str, body: Any) -> None:
        with self._lock:
            self._requests.append((path, body))

    def _choose(self, user_text: str, index: int, seed: Any = None) -> Reply:
        with self._lock:
            rules, default = list(self._rules), self._default
        return choose_reply(rules, default, user_text, index, seed)

    @contextlib.contextmanager
    def _generation_slot(self) -> Iterator[None]:
        """One generation at a time when ``serial`` (later requests queue, as on a server
        with one slot); otherwise no wait."""
        if self._serial is None:
            yield
            return
        with self._serial:
            yield

    @contextlib.contextmanager
    def _in_flight(self) -> Iterator[None]:
        with self._lock:
            self._busy += 1
            self._peak = max(self._peak, self._busy)
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1

    def _count_model_call(self, body: dict[str, Any] | None = None) -> bool:
        """Count one model call; True when it is the last before kill_after fires."""
        with self._lock:
            self._model_calls += 1
            wanted = self._kill_containing
            if wanted is None:
                counted = self._model_calls
            elif wanted in json.dumps(body or {}, ensure_ascii=False):
                self._matching_calls += 1
                counted = self._matching_calls
            else:
                return False
            return self._kill_at is not None and counted >= self._kill_at

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections[conn] = threading.current_thread()
                self.connections_opened += 1
            else:
                self._connections.pop(conn, None)


# ------------------------------------------------------------------------ JSON form


def reply_to_json(reply: Reply) -> dict[str, Any]:
    """The JSON form of a reply (``reply_from_json`` reads it back)."""
    out: dict[str, Any]
    if reply.kind == "answer":
        out = {"answer": reply.content}
    elif reply.kind == "leak":
        out = {"leak": reply.content}
    elif reply.kind == "calls":
        items = []
        for c in reply.calls:
            item: dict[str, Any] = {"name": c.name, "arguments_text": c.arguments}
            if c.call_id:
                item["id"] = c.call_id
            items.append(item)
        out = {"calls": items}
        if reply.content:
            out["content"] = reply.content
    elif reply.kind == "status":
        out = {"status": reply.status_code}
        if reply.retry_after is not None:
            out["retry_after"] = reply.retry_after
        if reply.body is not None:
            out["body"] = reply.body
    elif reply.kind == "delay":
        out = {"delay": reply.seconds}
        if reply.then is not None:
            out["then"] = reply_to_json(reply.then)
    elif reply.kind == "body":
        out = {"body_200": reply.body}
    else:
        out = {"drop": True, "partial": reply.partial}
    if reply.finish_reason is not None and reply.finish_reason != "stop":
        out["finish_reason"] = reply.finish_reason
    if reply.usage is not None:
        out["usage"] = list(reply.usage)
    return out


def reply_from_json(data: dict[str, Any]) -> Reply:
    """Read one reply. Forms: {"answer": text}, {"call": name, "arguments": {...}},
    {"calls": [[name, {...}], {"name", "arguments" | "arguments_text", "id"?}, ...]},
    {"raw_call": name, "arguments_text": text}, {"leak": text},
    {"status": code, "retry_after"?, "body"?}, {"delay": seconds, "then"?: reply},
    {"drop": true, "partial"?: bool}; any may add "finish_reason", "usage": [p, c],
    and call forms "content"."""
    content = str(data.get("content", ""))
    reply: Reply
    if "answer" in data:
        reply = answer(str(data["answer"]))
    elif "leak" in data:
        reply = leak(str(data["leak"]))
    elif "call" in data:
        reply = call(
            data["call"], data.get("arguments") or {}, call_id=data.get("id"), content=content
        )
    elif "raw_call" in data:
        reply = raw_call(
            data["raw_call"], str(data["arguments_text"]), call_id=data.get("id"), content=content
        )
    elif "calls" in data:
        scripted = []
        for item in data["calls"]:
            if isinstance(item, list | tuple):
                item = {"name": item[0], "arguments": item[1] if len(item) > 1 else {}}
            text = item.get("arguments_text")
            if text is None:
                text = json.dumps(item.get("arguments") or {}, ensure_ascii=False)
            scripted.append(ScriptedCall(str(item["name"]), str(text), item.get("id")))
        if not scripted:
            raise ValueError("'calls' needs at least one call")
        reply = Reply("calls", content=content, calls=tuple(scripted))
    elif "status" in data:
        reply = status(int(data["status"]), data.get("retry_after"), data.get("body"))
    elif "delay" in data:
        then = reply_from_json(data["then"]) if data.get("then") is not None else None
        reply = delay(float(data["delay"]), then)
    elif "drop" in data:
        reply = drop(partial=bool(data.get("partial", True)))
    elif "body_200" in data:
        reply = body(data["body_200"])
    else:
        raise ValueError(f"unknown reply form: {data!r}")
    if "finish_reason" in data:
        reply = replace(reply, finish_reason=data["finish_reason"])
    if data.get("usage") is not None:
        p_tok, c_tok = data["usage"]
        reply = reply.with_usage(int(p_tok), int(c_tok))
    return reply


def rule_from_json(data: dict[str, Any]) -> Rule:
    return Rule(str(data.get("match", "")), [reply_from_json(r) for r in data["replies"]],
                tuple(int(s) for s in data.get("seeds", ())))


def rules_to_json(
    rules: Sequence[Rule], *, default: Reply | None = None, model: str | None = None
) -> dict[str, Any]:
    """The JSON form of a script: {"rules": [{"match", "replies": [...]}], "default"?,
    "model"?}. A bare list of rules is accepted on reading too."""
    out: dict[str, Any] = {
        "rules": [
            {"match": r.match, "replies": [reply_to_json(x) for x in r.replies],
             **({"seeds": list(r.seeds)} if r.seeds else {})} for r in rules
        ]
    }
    if default is not None:
        out["default"] = reply_to_json(default)
    if model is not None:
        out["model"] = model
    return out


# ----------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.fake_openai",
        description="Serve a scripted OpenAI-compatible model; prints the base URL first.",
    )
    parser.add_argument("--rules", type=Path, help="a JSON script (see rules_to_json)")
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--model", help="the model name /v1/models reports")
    parser.add_argument("--kill-after", type=int, help="exit after this many model calls")
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    parser.add_argument("--latency", type=float, default=0.0,
                        help="seconds added to every generation (parallel requests overlap)")
    parser.add_argument("--serial", action="store_true",
                        help="one generation at a time, as a server with one slot")
    parser.add_argument("--keep-alive", action="store_true",
                        help="HTTP/1.1 persistent connections, as real servers keep them")
    args = parser.parse_args(argv)

    data: Any = json.loads(args.rules.read_text()) if args.rules else {"rules": []}
    kwargs: dict[str, Any] = {"port": args.port, "verbose": args.verbose,
                              "latency": args.latency, "serial": args.serial,
                              "keep_alive": args.keep_alive}
    if args.model:
        kwargs["model"] = args.model
    server = FakeOpenAI.from_json(data, **kwargs)
    server.start()
    if args.kill_after is not None:
        server.kill_after(args.kill_after)
    print(server.base_url, flush=True)

    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    try:
        while server.running and not done.wait(0.1):
            pass
        if not done.is_set():
            server.wait_idle()  # killed by --kill-after: let the last reply go out
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
