"""The wall clock of one tool call, for every provider's tools (``Catalogue.call``).

A call runs in a thread of its own and the caller waits for it at most ``seconds``; a
call past them is the machine's failure (an ERROR naming the tool: ``too_slow``). Python
cannot kill a thread, so at the clock the call is also stopped: ``ToolTimedOut`` is raised
inside its thread (``PyThreadState_SetAsyncExc``), which ends Python code at its next bytecode: a
loop over documents, a regex search between lines, a user's ``while True``. Code blocked
inside one C call (``time.sleep``, a socket read without a timeout) stops only when that
call returns; the run does not wait for it. On CPython 3.11 under a trace or profile
function the exception is held back from a call that looks idle (``_SPINS_WHEN_TRACED``):
it ends in the background, and so does a loop that mostly sleeps there. Because the
thread is the call's alone, the exception can never land in the caller's code, however
late it arrives.

Parts that must not be torn in the middle (a jailed process and its clean-up, copying a
world) run ``shielded()``: no exception is raised inside them; a call stopped meanwhile
ends when the shield ends, and a shield entered after the clock raises at once. Built-in
tools that run a jailed process give the jail the call's ``remaining()`` time at most, so
the process ends before the call's clock and writes nothing to the world after it.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

#: The wall clocks of one tool call and of one case, in seconds, unless the run sets others
#: (``--tooleval-tool-timeout``, ``--tooleval-case-timeout``; ``engine/loop.py``).
TOOL_TIMEOUT_S = 30.0
CASE_TIMEOUT_S = 600.0
#: The longest clock a configuration may set (a day): a thread's join cannot wait for 1e300.
MAX_TIMEOUT_S = 86_400
#: How long a stopped call may take to end before the caller stops waiting for it.
STOP_GRACE_S = 0.25


class ToolTimedOut(BaseException):
    """Raised inside a call's thread at its wall clock. A ``BaseException``, so that a
    tool's own ``except Exception`` does not turn it into a result."""


class CallExpired(Exception):
    """Raised to the caller: the call ran past ``seconds``; ``stopped`` says whether its
    thread has ended (else it is still inside a C call, and ends when that returns)."""

    def __init__(self, seconds: float, stopped: bool) -> None:
        super().__init__(f"the call ran past its {seconds:g} s wall clock")
        self.seconds, self.stopped = seconds, stopped


class _Call:
    def __init__(self, seconds: float) -> None:
        self.lock = threading.Lock()
        self.expired = False
        self.shields = 0
        self.seconds, self.ends = seconds, time.monotonic() + seconds


_local = threading.local()


def _set_async_exc() -> Any:
    api = getattr(ctypes, "pythonapi", None)  # CPython only
    function = getattr(api, "PyThreadState_SetAsyncExc", None)
    if function is not None:
        function.argtypes = (ctypes.c_ulong, ctypes.py_object)
        function.restype = ctypes.c_int
    return function


_RAISE_IN = _set_async_exc()

#: CPython 3.11 under a trace or profile function (coverage, a debugger, cProfile): while an
#: exception set for a thread waits for that thread to leave a C call, an interpreter-wide
#: flag stays up and every traced thread spins at its next function call (measured: the
#: caller stuck for the rest of a 3 s ``Event.wait``, for good behind a call that never
#: returns). 3.10, 3.12 and 3.13 do not. Not covered: a tracer on another thread only (pdb
#: on the main thread, the call on a lane), and a call that blocks within about 50 ms of
#: its last CPU use.
_SPINS_WHEN_TRACED = sys.version_info[:2] == (3, 11)


def _traced() -> bool:
    return any(get() is not None for get in (sys.gettrace, threading.gettrace,
                                              sys.getprofile, threading.getprofile))


def _idle(ident: int) -> bool:
    """Whether the thread used under 1 ms of CPU in the last 50 ms (the caller sleeping
    meanwhile): a thread waiting inside a C call uses none, one running Python code does.
    Where a thread's CPU time cannot be read (not on Linux), it counts as idle."""
    try:
        clock = time.pthread_getcpuclockid(ident)
        used = time.clock_gettime(clock)
        time.sleep(0.05)
        return time.clock_gettime(clock) - used < 0.001
    except (AttributeError, OSError):
        return True


def call_within(seconds: float, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``, or ``CallExpired`` once it has run ``seconds``. What the
    function raises is raised here (with its traceback)."""
    call = _Call(seconds)
    outcome: list[tuple[bool, Any]] = []
    context = contextvars.copy_context()

    def work() -> None:
        try:
            _local.call = call
            try:
                outcome.append((True, context.run(function, *args)))
            except BaseException as exc:  # handed to the caller, or dropped after the clock
                outcome.append((False, exc))
        except ToolTimedOut:  # arrived after the function ended: nothing left to stop
            pass

    thread = threading.Thread(target=work, name="tooleval-tool-call", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive() or not outcome:
        ident = thread.ident
        held_back = (_SPINS_WHEN_TRACED and not call.shields and ident is not None
                     and _traced() and _idle(ident))
        with call.lock:
            call.expired = True
            if not (call.shields or held_back) and ident is not None and _RAISE_IN is not None:
                _RAISE_IN(ident, ToolTimedOut)
        thread.join(STOP_GRACE_S)
        raise CallExpired(seconds, stopped=not thread.is_alive())
    done, value = outcome[0]
    if done:
        return value
    raise value


def remaining(limit: float) -> float:
    """Seconds left on this thread's tool call clock less ``STOP_GRACE_S`` (a process ended
    then has its result back in time), at most ``limit`` (``limit`` outside ``call_within``)."""
    call: _Call | None = getattr(_local, "call", None)
    left = limit if call is None else call.ends - STOP_GRACE_S - time.monotonic()
    return max(0.0, min(limit, left))


def clock(limit: float) -> float:
    """This thread's whole tool call clock, at most ``limit`` (``limit`` outside
    ``call_within``)."""
    call: _Call | None = getattr(_local, "call", None)
    return limit if call is None else min(limit, call.seconds)


def too_slow(name: str, seconds: float, option: bool = True) -> str:
    """Why a call of ``name`` past its clock of ``seconds`` is an ERROR, never the model's
    failure; ``option``: the run's tool call clock bound it, not the tool's own."""
    return (f"{name} did not finish within {seconds:g} s, "
            + ("the time limit of one tool call" if option else "its own wall clock")
            + ": the machine was busy (or the tool is slow), which is not the model's failure; "
            + ("raise --tooleval-tool-timeout" if option else "run on a quieter machine"))


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """A part of a tool call that the clock does not tear: see the module's docstring.
    Outside ``call_within`` it does nothing."""
    call: _Call | None = getattr(_local, "call", None)
    if call is None:
        yield
        return
    with call.lock:
        if call.expired:
            raise ToolTimedOut
        call.shields += 1
    try:
        yield
    finally:
        with call.lock:
            call.shields -= 1
            stop = call.expired and not call.shields
        if stop:
            raise ToolTimedOut
