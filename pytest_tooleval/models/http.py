"""The one HTTP layer of the remote backends: retries, backoff, ``Retry-After``, one status
set, a wall clock per request, and failures sorted into the ``BackendError`` classes.

A request has one wall clock (the profile's ``timeout``) that covers every attempt; it
is also each attempt's read timeout. Replies are not streamed (a server sends one whole
when the generation ends), so a read timeout is a server that sent nothing for that long:
a ``ServerStall``, told apart from a reply still arriving when the clock ran out (a
``ServerTimeout``). Neither is retried: on a serial server (llama-server with one slot,
llama-cpp-python's server) a retry would queue behind the generation the client just
abandoned and time out in turn, so a slow server would pass for a dead one.
Connection failures, 408/409/425/429 and 5xx are retried with exponential backoff (or the
server's ``Retry-After``) while the clock allows. The server's full error text is kept.

Replicas: given several base URLs (a profile's ``base_url`` list), each case's requests
go to one replica, the least loaded when the case began (ties in turn), so a server's
prompt cache keeps the conversation; a request outside a case picks its own. A replica
that fails is that case's ``BackendError``, never retried on another (the failure stays
visible). One ``httpx.Client``, safe to share between threads, holds a pool sized for the
run's concurrency.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

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
MAX_ERROR_TEXT = 20_000  # "full" text, bounded so a runaway page cannot flood the report
# How servers word a prompt that does not fit: llama-server, llama-cpp-python, vLLM, OpenAI.
_CONTEXT_OVERFLOW = re.compile(
    r"context[_ ](?:length|window|size)|maximum context|exceeds? (?:the )?(?:available )?"
    r"context|n_ctx|too many tokens|prompt is too long",
    re.IGNORECASE,
)


def server_message(response: httpx.Response) -> str:
    """The server's own error text: ``error.message`` (OpenAI, llama-server), ``detail``
    (FastAPI), ``message``, else the whole body."""
    text = response.text
    try:
        body = json.loads(text)
    except ValueError:
        return text[:MAX_ERROR_TEXT].strip() or f"(empty body, HTTP {response.status_code})"
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
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class HttpClient:
    """JSON over HTTP to one server, or to replicas of it. ``timeout``: the wall clock of
    one request, all its attempts included; ``retries``: extra attempts after a retryable
    failure; ``connections``: requests in flight at once (the pool's size)."""

    def __init__(
        self,
        base_url: str | Sequence[str],
        *,
        timeout: float = 120.0,
        retries: int = 2,
        backoff: float = 0.5,
        api_key: str | None = None,
        start_hint: str | None = None,
        client: httpx.Client | None = None,
        connect_timeout: float = 10.0,
        max_wait: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        connections: int = 1,
    ) -> None:
        urls = [base_url] if isinstance(base_url, str) else list(base_url)
        if not urls:
            raise ValueError("HttpClient needs at least one base URL")
        self.base_urls = [url.rstrip("/") for url in urls]
        self.base_url = self.base_urls[0]
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.start_hint = start_hint
        self.connect_timeout, self.max_wait = connect_timeout, max_wait
        self._sleep = sleep
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        size = max(1, connections)
        self._client = client or httpx.Client(
            headers=headers,
            limits=httpx.Limits(max_connections=size + 4, max_keepalive_connections=size))
        self._lock = threading.Lock()
        self._load = [0] * len(self.base_urls)
        self._next = 0
        self._local = threading.local()
        #: Requests sent to each replica (index as in ``base_urls``).
        self.sent = [0] * len(self.base_urls)

    # -- replicas ---------------------------------------------------------------------------
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
        block ends: one case's conversation stays on one server."""
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
        if index == 0:
            return url
        first, other = self.base_urls[0], self.base_urls[index]
        if url.startswith(first):
            return other + url[len(first):]
        first_root, other_root = first.removesuffix("/v1"), other.removesuffix("/v1")
        if url.startswith(first_root):
            return other_root + url[len(first_root):]
        return url

    def url(self, path: str) -> str:
        return path if "://" in path else f"{self.base_url}{path}"

    def post(self, path: str, body: dict[str, Any], *, timeout: float | None = None,
             retries: int | None = None) -> Any:
        """POST ``body``; the decoded JSON reply (any JSON value: the caller checks its shape)."""
        return self.request("POST", path, body, timeout=timeout, retries=retries)

    def get(self, path: str, *, timeout: float | None = None, retries: int | None = None) -> Any:
        return self.request("GET", path, None, timeout=timeout, retries=retries)

    def request(self, method: str, path: str, body: dict[str, Any] | None, *,
                timeout: float | None = None, retries: int | None = None) -> Any:
        bound = getattr(self._local, "replica", None)
        replica = bound if bound is not None else self._acquire()
        try:
            return self._request(replica, method, path, body, timeout, retries)
        finally:
            if bound is None:
                self._release(replica)

    def _request(self, replica: int, method: str, path: str, body: dict[str, Any] | None,
                 timeout: float | None, retries: int | None) -> Any:
        url = self._replica_url(self.url(path), replica)
        server = self.base_urls[replica]
        with self._lock:
            self.sent[replica] += 1
        budget = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + budget
        attempts = (self.retries if retries is None else retries) + 1
        # Retried: what ``_attempt`` raises as ``_Retryable``; no attempt would start
        # after the wall clock ran out.
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retryable), wait=self._wait,
            stop=tenacity.stop_after_attempt(attempts) | tenacity.stop_before_delay(budget),
            sleep=self._sleep, reraise=True)
        try:
            return retrying(self._attempt, server, method, url, body, deadline, budget)
        except _Retryable as retryable:
            last = retryable.error
        if isinstance(last, ServerUnreachable):
            hint = f" Start one with: {self.start_hint}" if self.start_hint else ""
            raise ServerUnreachable(f"{last} (after {attempts} attempts).{hint}") from None
        raise last

    def _wait(self, state: tenacity.RetryCallState) -> float:
        """The server's ``Retry-After`` (at most ``max_wait``), else exponential backoff."""
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _Retryable) and error.retry_after is not None:
            return min(error.retry_after, self.max_wait)
        return self.backoff * 2 ** (state.attempt_number - 1)

    def _attempt(self, server: str, method: str, url: str, body: dict[str, Any] | None,
                 deadline: float, budget: float) -> Any:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ServerTimeout(f"no reply from {url} within {budget:g} s")
        timeout = httpx.Timeout(remaining, connect=min(self.connect_timeout, remaining))
        chunks: list[bytes] = []
        try:
            with self._client.stream(method, url, json=body, timeout=timeout) as response:
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise ServerTimeout(
                            f"the model server at {server} was still sending its reply to "
                            f"{url} when the request's {budget:g} s ran out. {_SLOW}")
                status = response.status_code
                headers = response.headers
        except httpx.ConnectTimeout:
            raise _Retryable(ServerUnreachable(
                f"no model server at {server} (connecting timed out)")) from None
        except httpx.ReadTimeout:
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
        content = b"".join(chunks)
        if status < 400:
            with contextlib.suppress(ValueError):  # not JSON: said below, with the text
                return json.loads(content)
        # A failure (rare): a response object for its text and the server's message.
        response = httpx.Response(status, headers=headers, content=content)
        if status >= 400:
            failure = self._status_error(url, response)
            if status in RETRY_STATUS and not isinstance(failure, ContextOverflow):
                raise _Retryable(failure, retry_after_seconds(headers.get("retry-after")))
            raise failure
        try:
            return json.loads(response.content)
        except ValueError:
            text = response.text
            raise MalformedReply(
                f"{url} answered HTTP {status} with a body that is not JSON: "
                f"{text[:300]!r}", detail=text[:MAX_ERROR_TEXT]
            ) from None

    def _status_error(self, url: str, response: httpx.Response) -> BackendError:
        status = response.status_code
        message = server_message(response)
        text = f"{url} answered HTTP {status}: {message}"
        if (400 <= status < 500 or status == 500) and _CONTEXT_OVERFLOW.search(message):
            return ContextOverflow(
                f"{text} (the conversation no longer fits the model's context window: raise "
                "the server's context size, or lower max_tokens)",
                detail=response.text[:MAX_ERROR_TEXT],
            )
        if status >= 500:
            return ServerError(text, detail=response.text[:MAX_ERROR_TEXT])
        return RequestRefused(text, detail=response.text[:MAX_ERROR_TEXT])

    def close(self) -> None:
        self._client.close()


class _Retryable(Exception):
    """Carries a failure that another attempt may cure."""

    def __init__(self, error: BackendError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error, self.retry_after = error, retry_after
