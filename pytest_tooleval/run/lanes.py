"""Concurrent tool loops in one process (a profile's ``concurrency: N``).

N daemon threads ("lanes"; a stuck request cannot hold the process at exit) each own a
fork of the model session and run the selected cases ahead of pytest's items. Each item
waits for its own case's transcripts and is scored and reported in the main thread, so
everything downstream sees what a serial run sees. Stopping submits nothing more; a case
a lane ran but no item reported is dropped, never counted as run.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_tooleval.engine.session import (
    CannotFork,
    CaseRef,
    CaseRun,
    ModelSession,
    classify_error,
)


@dataclass
class _Pending:
    ref: CaseRef
    done: threading.Event = field(default_factory=threading.Event)
    run: CaseRun | None = None
    #: The lane's session, whose router description the report reads.
    session: ModelSession | None = None


class Lanes:
    """Runs submitted cases on ``len(sessions)`` threads. ``window``: how many cases after
    the waiting item's are submitted (``upcoming``), so lanes run at most that far ahead."""

    def __init__(self, sessions: list[ModelSession]) -> None:
        self.window = 2 * len(sessions)
        self._queue: deque[_Pending] = deque()
        self._pending: dict[str, _Pending] = {}
        self._cond = threading.Condition()
        self._stopped = False
        self._threads = [
            threading.Thread(target=self._serve, args=(session,), daemon=True,
                             name=f"tooleval-lane-{index}")
            for index, session in enumerate(sessions)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, refs: Iterable[CaseRef]) -> None:
        """Queue cases in the order given, skipping any already queued; nothing once
        stopped. A case queued but never waited for (xdist moved it to another worker) is
        run and dropped."""
        with self._cond:
            for ref in refs:
                if self._stopped:
                    return
                if ref.nodeid in self._pending:
                    continue
                pending = _Pending(ref)
                self._pending[ref.nodeid] = pending
                self._queue.append(pending)
                self._cond.notify()

    def wait(self, ref: CaseRef) -> tuple[CaseRun, ModelSession | None]:
        """This case's run (submitting it first if it is not queued yet). Waits in short
        slices so that Ctrl-C reaches the main thread at once."""
        with self._cond:
            pending = self._pending.get(ref.nodeid)
            if pending is None:
                pending = _Pending(ref)
                self._pending[ref.nodeid] = pending
                self._queue.appendleft(pending)  # the item waiting for it goes first
                self._cond.notify()
        while not pending.done.wait(0.1):
            pass
        with self._cond:
            self._pending.pop(ref.nodeid, None)
        assert pending.run is not None
        return pending.run, pending.session

    def stop(self) -> None:
        """Submit nothing more; queued cases that no lane started are dropped."""
        with self._cond:
            self._stopped = True
            self._queue.clear()
            self._cond.notify_all()

    def join(self, timeout: float = 5.0) -> bool:
        """Wait for the lanes to finish the case in hand; False if some did not in time."""
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads)

    def _serve(self, session: ModelSession) -> None:
        try:
            while True:
                with self._cond:
                    while not self._queue and not self._stopped:
                        self._cond.wait()
                    if self._stopped:
                        return
                    pending = self._queue.popleft()
                pending.run = _run(session, pending.ref)
                pending.session = session
                pending.done.set()
        finally:
            session.close()  # its providers' case state (a world), never the shared client


def _run(session: ModelSession, ref: CaseRef) -> CaseRun:
    """``session.run``; anything that still escapes (pytest.exit inside a tool) is this
    case's harness ERROR, never an item waiting forever."""
    try:
        return session.run(ref)
    except BaseException as exc:  # in a lane, nothing may escape: the item would hang
        return CaseRun([], classify_error(exc), 0.0)


def start_lanes(session: ModelSession, requested: int
                ) -> tuple[Lanes | None, dict[str, object]]:
    """Lanes for ``requested`` concurrent tool loops, or None with why not; and the
    report's ``run.concurrency``."""
    info: dict[str, object] = {"requested": requested, "used": 1}
    try:
        sessions = [session.fork() for _ in range(requested)]
    except CannotFork as exc:
        info["why"] = str(exc)
        return None, info
    info["used"] = requested
    return Lanes(sessions), info


def upcoming(item: Any, limit: int) -> list[Any]:
    """The cases (``item``'s class) this process will run after ``item``: the rest of
    ``session.items`` serially; under xdist, what the controller has queued on this worker."""
    if not hasattr(item.config, "workerinput"):
        return _ahead_serially(item.session, item, limit)
    interactor = next((plugin for plugin in item.config.pluginmanager.get_plugins()
                       if type(plugin).__name__ == "WorkerInteractor"), None)
    queue = getattr(interactor, "torun", None)
    if queue is None:
        return []
    with queue.lock() as queued:
        indices = [getattr(interactor, "nextitem_index", None), *queued]
    items = item.session.items
    chosen = [items[i] for i in indices if isinstance(i, int) and 0 <= i < len(items)]
    wanted = [other for other in chosen
              if isinstance(other, type(item)) and other.get_closest_marker("skip") is None]
    return wanted[:limit]


def _ahead_serially(session: Any, item: Any, limit: int) -> list[Any]:
    """The next ``limit`` cases after ``item`` in ``session.items`` not marked skip, worked
    out once per run (marker look-ups per item cost 1 s in 8 of a 300-case run)."""
    items = session.items
    cached = getattr(session, "_tooleval_ahead", None)
    if cached is None or cached[0] != len(items):
        positions = {id(other): index for index, other in enumerate(items)}
        runnable = [index for index, other in enumerate(items)
                    if isinstance(other, type(item))
                    and other.get_closest_marker("skip") is None]
        cached = (len(items), positions, runnable)
        session._tooleval_ahead = cached
    _, positions, runnable = cached
    where = positions.get(id(item))
    if where is None:
        return []
    start = bisect.bisect_right(runnable, where)
    return [items[index] for index in runnable[start:start + limit]]
