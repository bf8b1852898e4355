"""The one HTTP layer of the remote backends: retries, ``Retry-After``, a wall clock per
request, and failures sorted into the ``BackendError`` classes.

One wall clock (the profile's ``timeout``) covers every attempt and bounds every read of the
socket (httpx's timeout is per read: a header line or a ``102`` each second restarted it
forever). Replies come whole, so a server that sent nothing by the clock is a stall
(``ServerStall``), told apart from a reply still arriving (``ServerTimeout``); neither is
retried (on a serial server a retry would queue behind the abandoned generation). Replicas:
each case's requests go to one replica, the least loaded when the case began, so its prompt
cache keeps the conversation.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

import httpcore
import httpx
import tenacity

from pytest_tooleval.models.base import (
    BackendError,
    ContextOverflow,
    MalformedReply,
    RequestRefused,
    ServerError,
    ServerStall,
    ServerTimeout,
    ServerUnreachable,
)

#: The fix for a stall or a timeout, and why it is not retried.
_SLOW = ("Lower max_tokens, give the server more cores (and fewer other jobs), or raise the "
         "profile's timeout. Not retried: on a serial server a retry would wait behind the "
         "abandoned generation.")
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
CONNECT_TIMEOUT_S = 10.0
MAX_ERROR_TEXT = 20_000  # "full" text, bounded so a runaway page cannot flood the report
# How servers word a prompt that does not fit: llama-server, llama-cpp-python, vLLM, OpenAI.
_CONTEXT_OVERFLOW = re.compile(
    r"context[_ ](?:length|window|size)|maximum context|exceeds? (?:the )?(?:available )?"
    r"context|n_ctx|too many tokens|prompt is too long",
    re.IGNORECASE,
)

# llama-server's parser failing on the model's reply in --grammar vendor (the server reads
# the calls there): "Failed to parse input at pos 184: <tool_call>…" as HTTP 500.
_SERVER_PARSE = re.compile(r"failed to parse input", re.IGNORECASE)


def server_message(text: str, status: int) -> str:
    """The server's own error text: ``error.message`` (OpenAI, llama-server), ``detail``
    (FastAPI), ``message``, else the whole body."""
    try:
        body = json.loads(text)
    except ValueError:
        return text[:MAX_ERROR_TEXT].strip() or f"(empty body, HTTP {status})"
    message: Any = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            message = error.get("message")
        elif isinstance(error, str):
            message = error
        message = message or body.get("detail") or body.get("message")
    if message is None:
        return text[:MAX_ERROR_TEXT]
    if not isinstance(message, str):
        message = json.dumps(message, ensure_ascii=False)
    return message[:MAX_ERROR_TEXT]


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    with contextlib.suppress(ValueError):
        return max(0.0, float(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class HttpClient:
    """JSON over HTTP to one server, or to replicas of it. ``timeout``: one request's wall
    clock, all attempts included; ``connections``: requests in flight at once."""

    def __init__(
        self,
        base_url: str | Sequence[str],
        *,
        timeout: float = 120.0,
        retries: int = 2,
        backoff: float = 0.5,
        api_key: str | None = None,
        start_hint: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        connections: int = 1,
    ) -> None:
        urls = [base_url] if isinstance(base_url, str) else base_url
        self.base_urls = [url.rstrip("/") for url in urls]
        self.base_url = self.base_urls[0]
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.start_hint = start_hint
        self._sleep = sleep
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(
            headers=headers,
            limits=httpx.Limits(max_connections=connections + 4,
                                max_keepalive_connections=connections))
        self._lock = threading.Lock()
        self._load = [0] * len(self.base_urls)
        self._next = 0
        self._local = threading.local()
        #: Every connection's socket, for ``close`` to shut down; closed ends retries.
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._closed = threading.Event()

    def _acquire(self) -> int:
        with self._lock:
            count = len(self.base_urls)
            order = [(self._next + i) % count for i in range(count)]
            chosen = min(order, key=lambda index: self._load[index])
            self._next = (chosen + 1) % count
            self._load[chosen] += 1
            return chosen

    def _release(self, index: int) -> None:
        with self._lock:
            self._load[index] -= 1

    @contextlib.contextmanager
    def case_replica(self) -> Iterator[int]:
        """Send this thread's requests to one replica (the least loaded now) until the
        block ends."""
        previous = getattr(self._local, "replica", None)
        if previous is not None or len(self.base_urls) == 1:
            yield previous or 0
            return
        index = self._acquire()
        self._local.replica = index
        try:
            yield index
        finally:
            self._local.replica = None
            self._release(index)

    @contextlib.contextmanager
    def primary(self) -> Iterator[None]:
        """This thread's requests go to the first replica (the preflight proves that one)."""
        previous = getattr(self._local, "replica", None)
        self._local.replica = 0
        try:
            yield
        finally:
            self._local.replica = previous

    def _replica_url(self, url: str, index: int) -> str:
        """``url`` (written against the first replica) on replica ``index``."""
        first, other = self.base_urls[0], self.base_urls[index]
        if url.startswith(first):
            return other + url[len(first):]
        first_root, other_root = first.removesuffix("/v1"), other.removesuffix("/v1")
        if url.startswith(first_root):
            return other_root + url[len(first_root):]
        return url

    def post(self, path: str, body: dict[str, Any], *, timeout: float | None = None) -> Any:
        """POST ``body``; the decoded JSON reply (the caller checks its shape)."""
        return self.request("POST", path, body, timeout=timeout)

    def get(self, path: str, *, timeout: float | None = None, retries: int | None = None) -> Any:
        return self.request("GET", path, None, timeout=timeout, retries=retries)

    def request(self, method: str, path: str, body: dict[str, Any] | None, *,
                timeout: float | None = None, retries: int | None = None) -> Any:
        bound = getattr(self._local, "replica", None)
        replica = bound if bound is not None else self._acquire()
        url = self._replica_url(path if "://" in path else f"{self.base_url}{path}", replica)
        budget = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + budget
        attempts = (self.retries if retries is None else retries) + 1
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retryable), wait=self._wait,
            stop=(tenacity.stop_after_attempt(attempts) | tenacity.stop_before_delay(budget)
                  | tenacity.stop_when_event_set(self._closed)),
            sleep=self._sleep, reraise=True)
        started = time.perf_counter()
        try:
            reply = retrying(self._attempt, self.base_urls[replica], method, url, body,
                             deadline, budget)
            # Failed attempts and the waits between them are the machine's, not the model's
            # latency: the backends take them off (``retry_time``).
            self._local.retry_s = self.retry_time() + self._local.attempt_started - started
            return reply
        except _Retryable as retryable:
            last = retryable.error
        finally:
            if bound is None:
                self._release(replica)
        if isinstance(last, ServerUnreachable):
            hint = (f" Start one with: {self.start_hint}" if self.start_hint else
                    " Start the server, or fix the profile's base_url.")
            raise ServerUnreachable(f"{last} (after {attempts} attempts).{hint}") from None
        raise last

    def retry_time(self) -> float:
        """Seconds this thread's requests spent on attempts that failed and the waits after
        them, in all (a backend's turn latency leaves out what grew during the turn)."""
        return float(getattr(self._local, "retry_s", 0.0))

    def _wait(self, state: tenacity.RetryCallState) -> float:
        """The server's ``Retry-After`` (``_attempt`` retries none past the clock), else
        backoff."""
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _Retryable) and error.retry_after is not None:
            return error.retry_after
        return self.backoff * 2 ** (state.attempt_number - 1)

    def _attempt(self, server: str, method: str, url: str, body: dict[str, Any] | None,
                 deadline: float, budget: float) -> Any:
        self._local.attempt_started = time.perf_counter()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ServerTimeout(f"no reply from {url} within {budget:g} s")
        timeout = httpx.Timeout(remaining, connect=min(CONNECT_TIMEOUT_S, remaining))
        self._local.deadline, self._local.heard = deadline, False
        try:
            response = self._client.request(method, url, json=body, timeout=timeout,
                                            extensions={"trace": self._trace})
        except httpx.ConnectTimeout:
            raise _Retryable(ServerUnreachable(
                f"no model server at {server} (connecting timed out)")) from None
        except httpx.ReadTimeout:
            if self._local.heard:
                raise ServerTimeout(
                    f"the model server at {server} was still sending its reply to {url} "
                    f"when the request's {budget:g} s ran out. {_SLOW}") from None
            raise ServerStall(
                f"the model server at {server} sent nothing for {round(remaining, 1):g} s "
                f"in reply to {url} (a stall: a reply comes whole when its generation ends, "
                f"so the generation did not end in time, or the server is stuck). {_SLOW}"
            ) from None
        except httpx.TimeoutException:
            raise ServerTimeout(
                f"the model server at {server} did not answer {url} within {budget:g} s. "
                f"{_SLOW}") from None
        except httpx.ConnectError as error:
            raise _Retryable(ServerUnreachable(
                f"no model server at {server} ({type(error).__name__}: {error})"
            )) from None
        except httpx.TransportError as error:  # reached, then the connection broke
            raise _Retryable(ServerError(
                f"the model server at {server} broke the connection during {url} "
                f"({type(error).__name__}: {error})"
            )) from None
        finally:
            self._local.deadline = None
        status, headers, content = response.status_code, response.headers, response.content
        if status >= 400:
            failure = self._status_error(url, status, content.decode("utf-8", "replace"))
            if status in RETRY_STATUS and not isinstance(failure, ContextOverflow):
                after = retry_after_seconds(headers.get("retry-after"))
                if after is None or time.monotonic() + after < deadline:
                    raise _Retryable(failure, after)
                raise type(failure)(
                    f"{failure} (Retry-After: {after:g} s, past the request's {budget:g} s "
                    "timeout, so not retried: try again later, or raise the profile's timeout)")
            raise failure
        try:
            return json.loads(content)
        except ValueError:
            text = content.decode("utf-8", "replace")
            raise MalformedReply(
                f"{url} answered HTTP {status} with a body that is not JSON: "
                f"{text[:300]!r}") from None

    @staticmethod
    def _status_error(url: str, status: int, body: str) -> BackendError:
        message = server_message(body, status)
        text = f"{url} answered HTTP {status}: {message}"
        if status <= 500 and _CONTEXT_OVERFLOW.search(message):
            return ContextOverflow(
                f"{text} (the conversation no longer fits the model's context window: raise "
                "the server's context size, or lower max_tokens)")
        if status >= 500:
            if _SERVER_PARSE.match(message):
                text += (" (the server's parser could not read the model's reply as a tool "
                         "call: the model broke its call format, or this server build's "
                         "parser is at fault. With --grammar on or off the harness reads the "
                         "reply, and a broken call is scored as the model's malformed call)")
            return ServerError(text)
        if status == 404:
            text += (" (check the profile's base_url (OpenAI-compatible servers answer under "
                     ".../v1) and model)")
        return RequestRefused(text)

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace: keeps each new connection's socket (plain, then TLS), and bounds
        its reads by the request's clock."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info["return_value"]
            stream.read = functools.partial(self._read, stream.read)
            sock = stream.get_extra_info("socket")
            if sock is not None:
                with self._lock:
                    self._sockets.add(sock)

    def _read(self, read: Callable[[int, float | None], bytes], max_bytes: int,
              timeout: float | None = None) -> bytes:
        """One read of a connection, cut at the deadline of this thread's request."""
        deadline = getattr(self._local, "deadline", None)
        if deadline is None:
            return read(max_bytes, timeout)
        left = deadline - time.monotonic()
        if left <= 0:  # checked before reading: a flood of 1xx lines is always readable
            raise httpcore.ReadTimeout("the request's clock ran out")
        data = read(max_bytes, left if timeout is None else min(timeout, left))
        if data:
            self._local.heard = True
        return data

    def close(self) -> None:
        """Close the client; requests in flight in other threads end now (shut down:
        closing a socket does not wake a read waiting on it), and are not retried."""
        self._closed.set()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._client.close()


class _Retryable(Exception):
    """Carries a failure that another attempt may cure."""

    def __init__(self, error: BackendError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error, self.retry_after = error, retry_after
