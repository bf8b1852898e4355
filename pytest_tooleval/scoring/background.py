"""The end of a run off its critical path: the baselines scored case by case on a daemon
thread while the model is waited on, and what the reports import, imported at the first
case instead of at the end.

The baselines depend on the cases alone, never on the model's replies, so each case a run
reports can be given to the scripted policies at once; the end of the run scores only the
cases the thread had not reached and sums up (``BaselineScorer.table``, in the run's
order): the same figures as scoring every case at the end.

Nothing here may lose or hang a run. The thread is a daemon (it never holds the process
at exit); the end of the run asks it to stop after the case in hand and waits at most
``HANDOVER_S`` for it; if it failed, or is stuck in a case, the end of the run scores the
baselines afresh itself, as it did before this thread existed.
"""

from __future__ import annotations

import importlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_tooleval.result import CaseResult
    from pytest_tooleval.scoring.baselines import BaselineScorer

log = logging.getLogger(__name__)

#: How long the end of a run waits for the thread to finish the case in hand.
HANDOVER_S = 10.0

#: The thread's pause between two policies' runs and between cases (see ``_pause``).
PAUSE_S = 0.0002

#: Imported when the first case is reported: the end of a run needs them (numpy for the
#: statistics, the report builders); while the model is waited on they cost the run less.
MODULES = ("pytest_tooleval.scoring.aggregate", "pytest_tooleval.report.json_report",
           "pytest_tooleval.report.markdown")


def _pause() -> None:
    """Let the lanes and the main thread take the interpreter: they wait on the model, and
    should not wait on this thread when it answers (a thread that wants the interpreter
    may otherwise wait a whole switch interval, 5 ms, for a busy one to let go)."""
    time.sleep(PAUSE_S)


def _first_use() -> None:
    """What numpy sets up on its first quantile and resample, on a table of no run's."""
    from pytest_tooleval.scoring.statistics import bootstrap

    bootstrap([{"tool": 0.5}, {"tool": 1.0}] * 3, ["tool"] * 6, {"tool": 1.0}, resamples=8)


def prepare_end(warm_ups: tuple[Callable[[], object], ...] = ()) -> None:
    """What the end of the run needs, done at its first case, on the run's own thread, not
    on the baselines': two threads importing the same modules at once is what this avoids
    (the main thread imports the report's modules as it reports a failing case). The
    baselines' thread then imports little the run has not (the world's builder, when a
    baseline needs the world first). Never fatal: the end of the run imports again."""
    try:
        for name in MODULES:
            importlib.import_module(name)
        _first_use()
        for warm_up in warm_ups:
            warm_up()
    except Exception:  # the end of the run imports them itself, and says why
        log.warning("tooleval: preparing the end of the run failed", exc_info=True)


class BackgroundBaselines:
    """Feeds each scored case of a run to a ``BaselineScorer`` on a thread of its own."""

    def __init__(self, scorer: BaselineScorer, rootdir: Path,
                 warm_ups: tuple[Callable[[], object], ...] = ()) -> None:
        self.scorer = scorer
        self.rootdir = rootdir
        self.warm_ups = warm_ups
        #: Why the thread stopped early (an exception it raised), for the log.
        self.failure: str | None = None
        self._queue: queue.SimpleQueue[CaseResult | None] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, result: CaseResult) -> None:
        """A case the run just reported; started on the first."""
        if not result.scored or not result.file or self._stop.is_set():
            return
        if self._thread is None:
            prepare_end(self.warm_ups)
            self._thread = threading.Thread(target=self._serve, daemon=True,
                                            name="tooleval-baselines")
            self._thread.start()
        self._queue.put(result)

    def _serve(self) -> None:
        from pytest_tooleval.scoring.baselines import refs_for_results

        try:
            while not self._stop.is_set():
                result = self._queue.get()
                if result is None or self._stop.is_set():
                    return
                for ref in refs_for_results([result], self.rootdir, self.scorer.files):
                    self.scorer.score(ref, pause=_pause)
                _pause()
        except BaseException as exc:  # never lose a run: the end scores afresh
            self.failure = f"{type(exc).__name__}: {exc}"
            log.warning("tooleval: the baselines' thread stopped: %s", self.failure,
                        exc_info=True)

    def expect(self, specs: list[tuple[str, str, str]]) -> None:
        """The selection, known early: the thread takes cases as they are reported."""

    def table(self, results: list[CaseResult]) -> dict[str, dict[str, Any]] | None:
        """The policies' table over the scored ``results``, in their order (what the
        thread had not reached scored now); None when the thread failed or is stuck."""
        from pytest_tooleval.scoring.baselines import refs_for_results

        scorer = self.handover()
        if scorer is None:
            return None
        try:
            return scorer.table(refs_for_results(results, self.rootdir, scorer.files))
        finally:
            scorer.close()

    def handover(self, timeout: float | None = None) -> BaselineScorer | None:
        """Stop the thread after the case in hand; its scorer, with every case it scored,
        or None when it failed or did not stop within ``timeout`` (``HANDOVER_S``)."""
        self._stop.set()
        thread = self._thread
        if thread is None:
            return self.scorer
        self._queue.put(None)
        thread.join(HANDOVER_S if timeout is None else timeout)
        if thread.is_alive():
            log.warning("tooleval: the baselines' thread did not finish its case in %.0f s; "
                        "scoring the baselines afresh", HANDOVER_S if timeout is None
                        else timeout)
            return None
        return None if self.failure is not None else self.scorer
