"""The baselines scored in a second process, on another core, while the run goes on.

At concurrency above 1 a run's process is short of CPU (one interpreter lock for the
lanes, the items and the reports): baselines scored on a thread there (scoring/
background.py) lengthen the cases by much of what they save at the end. They depend on
the cases alone, never on the model's replies, so a child process
(scoring/baseline_worker.py) is given the selected cases as soon as they are known
(``expect``: a serial run's collection; under xdist each case as it is reported) and
scores them on its own; the end of the run sends it the cases the run scored, in the
run's order, and gets back the policies' table: the same figures as scoring them at the
end, since a policy's result on a case depends on that case alone.

A plain ``subprocess`` with JSON lines, rather than multiprocessing's spawn: nothing of
the run's ``__main__`` is re-imported in the child (a script calling ``pytest.main()``
without a ``__main__`` guard would otherwise run again), and the child can be killed
outright. Nothing here may lose or hang a run: a child that cannot start leaves the run
on the thread (``start`` returns False); one that crashes, answers an error, or gives no
sign of progress for ``HANDOVER_S`` is killed, and the end of the run scores the
baselines afresh. The child ignores Ctrl-C (an interrupted run still reports its
baselines) and exits when the run's process goes (its stdin closes).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pytest_tooleval import trace
from pytest_tooleval.scoring.background import prepare_end

if TYPE_CHECKING:
    from pytest_tooleval.result import CaseResult

log = logging.getLogger(__name__)

#: How long the end of a run waits for the child's next sign of progress.
HANDOVER_S = 10.0

#: What the environment variable ``TOOLEVAL_BASELINES`` may say: ``process`` (the
#: child, whatever the run's size), ``thread`` (never the child), ``auto`` (the child for
#: a selection of ``PROCESS_MIN_CASES`` or more cases).
MODES = ("auto", "process", "thread")

#: Below this many selected cases a thread costs the run less than starting a Python.
PROCESS_MIN_CASES = 100


def mode() -> str:
    value = os.environ.get("TOOLEVAL_BASELINES", "auto").strip().lower() or "auto"
    if value not in MODES:
        log.warning("tooleval: TOOLEVAL_BASELINES=%s is not one of %s; using auto",
                    value, ", ".join(MODES))
        return "auto"
    return value


def child_command() -> list[str]:
    """The child's command line (tests replace it with one that crashes or hangs)."""
    return [sys.executable, "-m", "pytest_tooleval.scoring.baseline_worker"]


def _child_env() -> dict[str, str]:
    """The run's environment, with the folder this pytest_tooleval was imported from first
    on PYTHONPATH, so that the child imports the same one (a checkout, an installed copy).
    Not the run's whole sys.path: a project folder pytest put there could hold a module
    that shadows one of the standard library's in a fresh interpreter."""
    import pytest_tooleval

    root = str(Path(pytest_tooleval.__file__).resolve().parent.parent)
    given = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys([root, *given]))}


class ProcessBaselines:
    """The run's side of the child: what it is sent, and the table it answers."""

    def __init__(self, *, k: int, builtin: bool, world_base: Path | None, rootdir: Path,
                 warm_ups: tuple[Callable[[], object], ...] = ()) -> None:
        self.init = {"k": k, "builtin": builtin, "rootdir": str(rootdir),
                     "world_base": str(world_base) if world_base is not None else None}
        self.warm_ups = warm_ups
        #: Why the child was given up on, for the log.
        self.failure: str | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._replies: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._sent: set[tuple[str, str, str]] = set()
        self._warmed = False

    # -- starting, and what the child is given -------------------------------------------
    def start(self) -> bool:
        """Start the child; False (and why, in ``failure``) when it cannot start."""
        try:
            # Kept open for the child's life, read when it fails: no context manager.
            self._stderr = tempfile.TemporaryFile(prefix="tooleval-baselines-")  # noqa: SIM115
            self._process = subprocess.Popen(
                child_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._stderr, env=_child_env(), close_fds=True)
        except (OSError, ValueError) as exc:
            self.failure = f"the baselines' process could not start: {exc}"
            log.warning("tooleval: %s; scoring them on a thread", self.failure)
            return False
        assert self._process.stdin is not None and self._process.stdout is not None
        trace.mark(f"baselines: child {self._process.pid} started")
        threading.Thread(target=self._write, args=(self._process.stdin,), daemon=True,
                         name="tooleval-baselines-out").start()
        threading.Thread(target=self._read, args=(self._process.stdout,), daemon=True,
                         name="tooleval-baselines-in").start()
        self._send({"init": self.init})
        return True

    def expect(self, specs: list[tuple[str, str, str]]) -> None:
        """Cases the run will report (``baselines.spec_of``): scored from now on."""
        new = [spec for spec in specs if spec not in self._sent and spec[1]]
        if new:
            self._sent.update(new)
            self._send({"cases": new})

    def add(self, result: CaseResult) -> None:
        """A case the run just reported; the first also prepares the end of the run."""
        from pytest_tooleval.scoring.baselines import spec_of

        if not self._warmed:
            self._warmed = True
            prepare_end(self.warm_ups)
        if result.scored and result.file:
            self.expect([spec_of(result)])

    def _send(self, message: dict[str, Any]) -> None:
        self._outbox.put(json.dumps(message).encode("utf-8") + b"\n")

    # -- the threads that talk to it (never the run's own: a full pipe blocks them only) -
    def _write(self, stream: IO[bytes]) -> None:
        try:
            while (line := self._outbox.get()) is not None:
                stream.write(line)
                stream.flush()
        except (OSError, ValueError):  # the child is gone: the end finds out and says why
            pass
        finally:
            with contextlib.suppress(OSError):
                stream.close()

    def _read(self, stream: IO[bytes]) -> None:
        try:
            for line in stream:
                try:
                    self._replies.put(json.loads(line))
                except ValueError:
                    self._replies.put({"error": f"an unreadable reply: {line[:200]!r}"})
        except (OSError, ValueError):
            pass
        finally:
            self._replies.put({"gone": True})

    # -- the end of the run ----------------------------------------------------------------
    def table(self, results: list[CaseResult], timeout: float | None = None
              ) -> dict[str, dict[str, Any]] | None:
        """The policies' table over the scored ``results``, in their order; None when the
        child failed, or showed no progress for ``timeout`` (``HANDOVER_S``) seconds, or
        the wait was interrupted: the caller then scores afresh."""
        from pytest_tooleval.scoring.baselines import spec_of

        if self._process is None:
            return None
        wait = HANDOVER_S if timeout is None else timeout
        self._send({"table": [spec_of(r) for r in results if r.scored and r.file]})
        self._outbox.put(None)  # and then the child's stdin closes
        try:
            while True:
                try:
                    reply = self._replies.get(timeout=wait)
                except queue.Empty:
                    self.failure = (f"the baselines' process showed no progress in "
                                    f"{wait:.0f} s")
                    return None
                if "table" in reply:
                    return reply["table"]
                if "error" in reply:
                    self.failure = f"the baselines' process failed: {reply['error']}"
                    return None
                if "gone" in reply:
                    self.failure = ("the baselines' process ended without an answer "
                                    f"(exit {self._process.poll()}){self._stderr_tail()}")
                    return None
        except KeyboardInterrupt:
            self.failure = "the wait for the baselines' process was interrupted"
            return None
        finally:
            if self.failure is not None:
                log.warning("tooleval: %s; scoring the baselines afresh", self.failure)
            self.close()

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            tail = self._stderr.read().decode("utf-8", "replace").strip()[-600:]
        except (OSError, ValueError):
            return ""
        return f": {tail}" if tail else ""

    def close(self) -> None:
        """The child is done or is killed. Done, it has closed what it used before it
        answered and is exiting: not waited on. Otherwise it is killed, and reaped."""
        process, self._process = self._process, None
        if process is not None:
            self._outbox.put(None)
            if self.failure is not None and process.poll() is None:
                process.kill()
                try:
                    process.wait(timeout=1.0)
                except subprocess.TimeoutExpired:
                    log.warning("tooleval: the baselines' process %d did not end",
                                process.pid)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
