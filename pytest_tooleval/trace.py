"""Timestamps of a run's end, for finding where its time goes: ``TOOLEVAL_TRACE_END=1``.

Each mark is one line on the process's real standard error (a copy of file descriptor 2
taken when this module is imported, before pytest captures output), or appended to a
file where the variable names one (``TOOLEVAL_TRACE_END=/tmp/end.log``):

    tooleval-trace: 1764633600.1234 cpu 2.3456 main 1.2345 pid 4242 report.json written

the wall clock (``time.time()``, so that another process can line marks up with its own
clock), the process's CPU time (every thread), the main thread's CPU time, the pid, and
what just happened. Unset (the default), ``mark`` does nothing and costs one test of a
module-level flag. scripts/bench_concurrency.py ``--trace`` sets it and prints, for each
run, the time between consecutive marks from the last case to the process's exit.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time
from collections.abc import Generator
from typing import Any

import pytest

ENV = "TOOLEVAL_TRACE_END"
PREFIX = "tooleval-trace:"

_where = os.environ.get(ENV, "").strip()
ENABLED = _where not in ("", "0")
_fd: int | None = None
if ENABLED:
    try:
        if _where in ("1", "stderr"):
            _fd = os.dup(2)
        else:
            _fd = os.open(_where, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError:
        ENABLED = False


def mark(label: str) -> None:
    """One line: when, how much CPU so far (process, main thread), and ``label``."""
    if not ENABLED or _fd is None:
        return
    main = (time.thread_time() if threading.current_thread() is threading.main_thread()
            else float("nan"))
    line = (f"{PREFIX} {time.time():.4f} cpu {time.process_time():.4f} main {main:.4f} "
            f"pid {os.getpid()} {label}\n")
    with contextlib.suppress(OSError):
        os.write(_fd, line.encode("utf-8", "replace"))


def mark_exit_begins() -> None:
    """Registered at the end of the run, so it runs first of the interpreter's exit
    handlers (they run last registered first): the threads are joined by then."""
    if ENABLED:
        atexit.register(mark, "exit handlers begin (non-daemon threads joined)")


class Hooks:
    """Registered only when tracing: marks around pytest's own steps of the end."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        try:
            return (yield)
        finally:
            mark("the items' loop ended")

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, Any, Any]:
        mark("sessionfinish begins (every plugin's)")
        try:
            return (yield)
        finally:
            mark("sessionfinish done (pytest's summary printed)")

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_unconfigure(self, config: pytest.Config) -> Generator[None, Any, Any]:
        mark("unconfigure begins")
        try:
            return (yield)
        finally:
            mark("unconfigure done")


if ENABLED:  # registered at import, so it runs last of the exit handlers
    atexit.register(mark, "exit handlers done (interpreter teardown follows)")
