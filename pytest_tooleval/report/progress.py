"""Progress on long runs: cases done of the total, elapsed, ETA, the running score.

A line every ``--tooleval-progress`` seconds (30 by default; 0: after every case) on the
controller of a serial run, between pytest's own output. Nothing under ``-q``, nothing
under xdist (pytest-xdist prints its own progress), nothing for a check run.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

DEFAULT_INTERVAL_S = 30.0


def add_option(parser: pytest.Parser) -> None:
    parser.getgroup("tooleval").addoption(
        "--tooleval-progress", type=float, default=DEFAULT_INTERVAL_S, metavar="SECONDS",
        dest="tooleval_progress",
        help="a progress line (cases done, elapsed, ETA, running score) every SECONDS on a "
        f"serial run; 0 after every case, a negative value never (default {DEFAULT_INTERVAL_S:g})")


def clock(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def progress_line(done: int, total: int, elapsed: float, score: float | None,
                  outcomes: dict[str, int]) -> str:
    eta = clock(elapsed / done * (total - done)) if done else "?"
    counts = " ".join(f"{count} {name}" for name, count in outcomes.items() if count)
    shown = "n/a" if score is None else f"{score:.1f}"
    return (f"tooleval: {done}/{total} cases, {clock(elapsed)} elapsed, ETA {eta}, "
            f"running score {shown}" + (f" ({counts})" if counts else ""))


class Progress:
    """Registered on the controller; decides at the end of collection whether to speak."""

    def __init__(self, config: pytest.Config, recorder: Any, settings: Any) -> None:
        self.config = config
        self.recorder = recorder
        self.settings = settings
        self.interval = float(config.getoption("tooleval_progress", DEFAULT_INTERVAL_S))
        self.cases: set[str] = set()
        self.done = 0
        self.active = False
        self.started = 0.0
        self.last = 0.0

    def _should_speak(self) -> bool:
        if self.interval < 0 or self.config.get_verbosity() < 0:
            return False
        plugins = self.config.pluginmanager
        if plugins.has_plugin("dsession") or getattr(self.config.option, "numprocesses", None):
            return False
        return plugins.get_plugin("terminalreporter") is not None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from pytest_tooleval.collect import CaseItem

        self.cases = {item.nodeid for item in session.items if isinstance(item, CaseItem)}
        self.active = bool(self.cases) and self._should_speak()
        self.started = self.last = time.monotonic()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        if not self.active or nodeid not in self.cases:
            return
        self.done += 1
        now = time.monotonic()
        if self.done >= len(self.cases) or now - self.last < self.interval:
            return
        self.last = now
        self._write(self.line(now - self.started))

    def line(self, elapsed: float) -> str:
        # The running score only: no intervals or baselines (summarize would bootstrap on
        # every progress line).
        from pytest_tooleval.scoring.aggregate import axes_of, outcome_counts, score_of

        results = list(self.recorder.results.values())
        outcomes = outcome_counts(results)
        score = score_of(axes_of(results)) if results else None
        return progress_line(self.done, len(self.cases), elapsed, score, outcomes)

    def _write(self, text: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:  # -p no:terminal
            return
        reporter.ensure_newline()
        reporter.write(text, flush=True)
        # pytest then ends this line itself and names the file again before the next result
        reporter.currentfspath = None
