"""The model-backend interface: one conversation turn in (OpenAI chat messages), one model
turn out. Every failure of a backend is a ``BackendError``: the machine's, so the case becomes
ERROR, never FAIL; ``kind`` names its failure class in the report.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_tooleval.tools.base import ToolSpec, call_extension, extension_name

if TYPE_CHECKING:
    from pytest_tooleval.models.profiles import Profile

Message = dict[str, Any]


class BackendError(Exception):
    """A backend failed: the machine, not the model. ``kind`` names the failure class."""

    kind: str = "backend"


class BackendUnavailable(BackendError):
    """The model could not be reached or did not answer (after retries)."""

    kind = "unavailable"


class ServerUnreachable(BackendUnavailable):
    """No HTTP reply at all: refused connection, DNS failure, connection reset."""

    kind = "unreachable"


class ServerTimeout(BackendUnavailable):
    """The server took longer than the request's wall clock (a slow server, not a dead one)."""

    kind = "timeout"


class ServerStall(ServerTimeout):
    """The server sent nothing for the request's read timeout (replies come whole)."""

    kind = "stall"


class ServerError(BackendError):
    """The server answered 5xx (after retries): it is erroring."""

    kind = "server_error"


class RequestRefused(BackendError):
    """The server answered 4xx: it refused the request as sent."""

    kind = "refused"


class ContextOverflow(RequestRefused):
    """The conversation no longer fits the model's context window."""

    kind = "context_overflow"


class MalformedReply(BackendError):
    """HTTP 200, but the body is not a reply this API can give."""

    kind = "malformed_reply"


class TemplateMissing(BackendError):
    """Grammar on/off needs the model's chat template, and none is available."""

    kind = "template_missing"


class ConstraintIgnored(BackendError):
    """The server answered the canary unconstrained: an "on" run would not be constrained."""

    kind = "constraint_ignored"


class ToolsNotShown(BackendError):
    """The server drops the tools: they never reach the model's prompt."""

    kind = "tools_not_shown"


class BackendConfigError(BackendError):
    """The profile and grammar mode ask for something this backend cannot do."""

    kind = "configuration"


TRUNCATED = "truncated: the generation stopped at max_tokens (finish_reason: length)"


@dataclass
class RawCall:
    """A tool call as the model emitted it, before the harness validated it: ``arguments``
    the raw JSON text (None: none), ``name`` None when not even a name could be read."""

    name: str | None
    arguments: str | None
    call_id: str | None = None
    raw: str = ""
    parse_error: str | None = None  # set when the backend could not parse the call at all


@dataclass
class ModelTurn:
    content: str
    calls: list[RawCall] = field(default_factory=list)
    leaked_calls: list[RawCall] = field(default_factory=list)  # calls left in the text
    latency_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    #: Answered from the response cache (pytest_tooleval/run/cache.py), not by the model.
    cached: bool = False

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


def unimplemented(cls: object) -> str:
    """The abstract methods a class leaves out, as ``complete()``; "" for none."""
    return ", ".join(f"{name}()" for name in sorted(getattr(cls, "__abstractmethods__", ())))


#: The way out a backend's own stray exception is told.
BACKEND_FIX = ("fix the backend, or raise pytest_tooleval.BackendError for a failure of the "
               "machine behind it")


def next_turn(backend: Backend, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
    """``backend.complete``, held to its contract: a plugin backend's stray exception, or a
    reply other than a ``ModelTurn`` with a str ``content`` and ``RawCall``s, is a
    ``BackendError`` naming its class (the machine's failure, never the model's)."""
    turn = call_extension(BackendError, backend, "complete()", BACKEND_FIX, backend.complete,
                          messages, tools)
    name = f"{extension_name(backend) or type(backend).__qualname__}.complete()"
    if not isinstance(turn, ModelTurn):
        raise BackendError(f"{name} returned a {type(turn).__name__}; it must return a "
                           "pytest_tooleval.ModelTurn")
    wrong = next((call for call in (*turn.calls, *turn.leaked_calls)
                  if not isinstance(call, RawCall)), None)
    if wrong is not None:
        raise BackendError(f"{name} returned a ModelTurn whose calls hold a "
                           f"{type(wrong).__name__}; each must be a pytest_tooleval.RawCall")
    if not isinstance(turn.content, str):
        raise BackendError(f"{name} returned a ModelTurn whose content is a "
                           f"{type(turn.content).__name__}; it must be a str ('' beside calls)")
    return turn


def mark_truncated(turn: ModelTurn, call_id: str) -> ModelTurn:
    """A turn cut off at ``max_tokens`` is a malformed turn, never an answer: with no
    complete call in it, its text becomes one unparseable call attempt that says so."""
    if turn.truncated and not any(c.parse_error is None for c in turn.calls):
        turn.calls = [RawCall(None, None, call_id=call_id, raw=turn.content,
                              parse_error=TRUNCATED)]
        turn.leaked_calls = []
    return turn


def stopped_short(turn: ModelTurn, max_tokens: int, fix: str) -> ModelTurn:
    """A turn cut ("length") below ``max_tokens`` was cut by the context window (or a lower
    cap where it runs), not by the model running long: ``ContextOverflow``, with ``fix``.
    No count, or 0 (a server that counts nothing), is no evidence of that."""
    used = turn.completion_tokens
    if turn.truncated and used and used < max_tokens:
        raise ContextOverflow(
            f"the reply stopped at {used} token(s), below max_tokens = {max_tokens} "
            f"(finish_reason: length, after {turn.prompt_tokens} prompt tokens): {fix}")
    return turn


class Backend(ABC):
    """A model behind some API, one instance per pytest process: built by ``from_profile``;
    ``preflight`` once, then ``complete`` per turn, inside ``case_scope`` per case."""

    #: The grammar mode this backend runs ("vendor", "on", "off").
    mode: str = "vendor"
    #: ``--tooleval-order auto`` runs cases grouped by the prompt prefix they share: for a
    #: backend that reuses the state of the prefix it evaluated last (run/ordering.py).
    prefix_order: ClassVar[bool] = False
    #: Why ``fork`` gives no second handle, as ``run.concurrency.why`` says it (None: a
    #: sentence naming the class); a wrapper sets it from what it wraps when fork says no.
    no_fork_reason: str | None = None

    @classmethod
    def from_profile(cls, profile: Profile, grammar: str, *, workers: int = 1) -> Backend:
        """The backend a profile and grammar mode ask for; ``BackendConfigError`` for what it
        cannot do. ``workers``: xdist workers on this machine (they share its cores)."""
        return cls()

    @abstractmethod
    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        """Ask for the next assistant turn given the conversation and the shown tools."""

    def preflight(self) -> dict[str, Any]:
        """Prove the set-up once per run, before the first case: what was checked, or a
        ``BackendError`` saying what is wrong."""
        return {"checked": [], **self.describe()}

    def reseed(self, seed: int) -> None:  # noqa: B027 (optional: most backends have no seed)
        """Use this sampling seed from now on (one try of a repeated case); a backend with
        a seed overrides this and ``current_seed``."""

    def current_seed(self) -> int | None:
        """The seed the next request will carry, where the backend has one."""
        return None

    def describe(self) -> dict[str, Any]:
        """What the report records about the backend (kind, address, model, version).
        ``constraint`` names what constrains the output in every mode ("none" when off)."""
        return {"backend": type(self).__name__, "grammar": self.mode}

    def fork(self) -> Backend | None:
        """Another handle on the same model for a concurrent tool loop (a profile's
        ``concurrency``), sharing connections. None: one case at a time."""
        return None

    def case_scope(self) -> AbstractContextManager[Any]:
        """Entered around each case's run (an HTTP backend keeps a case on one replica)."""
        return contextlib.nullcontext()

    def close(self) -> None:  # noqa: B027 - optional hook
        pass
