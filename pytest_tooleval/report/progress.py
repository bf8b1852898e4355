"""What a run says while it runs, on the controller: what runs, the model's start as a
timed phase of its own (serial runs: so the ETA counts cases only; under xdist the ETA
counts from the first finished case), then a progress line every ``--tooleval-progress``
seconds. Nothing but the header lines under ``-q``."""

from __future__ import annotations

import itertools
import time
import warnings
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tooleval.cases.files import DEFAULT_PATTERNS
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.registry import grammar_mode
from pytest_tooleval.result import without_repeat
from pytest_tooleval.run import collection_cut_short

if TYPE_CHECKING:
    from pytest_tooleval.run.controller import Controller

DEFAULT_INTERVAL_S = 30.0


def add_option(parser: pytest.Parser) -> None:
    parser.getgroup("tooleval").addoption(
        "--tooleval-progress", type=float, default=DEFAULT_INTERVAL_S, metavar="SECONDS",
        dest="tooleval_progress",
        help="a progress line (cases done, elapsed, ETA, running score) every SECONDS; 0 "
        f"after every case, a negative value never (default {DEFAULT_INTERVAL_S:g})")


def clock(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def progress_line(done: int, total: int, elapsed: float, eta: float | None,
                  score: float | None, outcomes: dict[str, int]) -> str:
    counts = " ".join(f"{count} {name}" for name, count in outcomes.items() if count)
    shown = "n/a" if score is None else f"{score:.1f}"
    return (f"tooleval: {done}/{total} cases, {clock(elapsed)} elapsed, ETA "
            f"{'?' if eta is None else clock(eta)}, running score {shown}"
            + (f" ({counts})" if counts else ""))


def served(profile: Profile) -> str:
    """The model and how it is served, in a few words."""
    if profile.kind == "llama":
        return f"{profile.name} (embedded llama.cpp, gguf {profile.gguf or 'default'})"
    if profile.kind != "openai":  # a plugin's kind: which fields it reads is its own
        return f"{profile.name} (backend kind {profile.kind})"
    where = ", ".join(profile.base_urls) or "no base_url"
    return f"{profile.name} ({profile.model or 'default'} at {where}, {profile.kind} server)"


def counted(nodeids: list[str]) -> str:
    """"15 case(s) × 3 tries from 2 file(s)": under --tooleval-repeat an item is one try."""
    cases = len({without_repeat(nodeid) for nodeid in nodeids})
    tries = f" × {len(nodeids) // cases} tries" if len(nodeids) > cases else ""
    return (f"{cases} case(s){tries} from {len({nodeid.split('::')[0] for nodeid in nodeids})}"
            " file(s)")


class Progress:
    """Registered on the controller of a run that scores (not a check run)."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.config = config = controller.runtime.config
        self.interval = float(config.getoption("tooleval_progress", DEFAULT_INTERVAL_S))
        self.distributed = bool(config.pluginmanager.has_plugin("dsession")
                                or getattr(config.option, "numprocesses", None))
        self.total = 0
        self.done = 0
        self.started = time.monotonic()
        #: The ETA's clock: when it started, and the cases done by then.
        self.clock_from: float | None = None
        self.clock_done = 0
        self.last = self.started

    @property
    def speaks(self) -> bool:
        return (self.config.get_verbosity() >= 0
                and self.config.pluginmanager.get_plugin("terminalreporter") is not None)

    def pytest_report_header(self, config: pytest.Config) -> str:
        settings, profile = self.controller.settings, self.controller.profile
        model = f"{served(profile)}, grammar {grammar_mode(settings, profile)}"
        hooks = [impl.plugin_name for impl in
                 config.hook.pytest_tooleval_make_session.get_hookimpls()]
        if hooks:  # it returns the session, or None for the built-in one
            model = f"the session of pytest_tooleval_make_session ({', '.join(hooks)}; if it " \
                    f"returns None: {model})"
        return f"tooleval: model {model}; reports in {settings.report_dir}"

    def pytest_report_collectionfinish(self, config: pytest.Config,
                                       items: list[pytest.Item]) -> str | None:
        if collection_cut_short():
            return None  # the end of the run says so
        cases = [item.nodeid for item in items if hasattr(item, "case_file")]
        # (a case file that failed to collect says so itself, and pytest counts the cases
        # -k, -m or --deselect left out: no "no case found" above either)
        failed = getattr(config.pluginmanager.get_plugin("session"), "testsfailed", 0)
        deselected = getattr(config.pluginmanager.get_plugin("terminalreporter"), "stats",
                             {}).get("deselected")
        if not items and not config.getoption("collectonly") and not failed and not deselected:
            patterns = config.getini("tooleval_files") or DEFAULT_PATTERNS
            # pytest took an option's path value for a test path when it chose the rootdir
            words = [str(a) for a in config.invocation_params.args]
            split = next((f"; write {flag}={value}, as one word: pytest took {value} for a "
                          "test path when it chose the rootdir"
                          for flag, value in itertools.pairwise(words)
                          if flag.startswith("--tooleval-") and "=" not in flag
                          and (config.invocation_params.dir / value).exists()), "")
            here = config.invocation_params.dir
            folders = [arg for arg in config.args if (here / arg).is_dir()
                       and (here / arg).resolve() not in (here.resolve(), config.rootpath)]
            named = (f"; a folder named there ({', '.join(folders)}) is searched with these "
                     "patterns: name its files, or add the folder to ini tooleval_paths"
                     if folders else "")
            return (f"tooleval: no case found: case files are {', '.join(patterns)} under "
                    f"{config.rootpath} (ini tooleval_files), or files named on the command line"
                    f"{named}; `tooleval init` writes a three-case example benchmark here"
                    f"{split}")
        if not cases:
            return None
        return f"tooleval: {counted(cases)}"

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = sum(hasattr(item, "case_file") for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self.total:
            return
        # The controller collects nothing: the first worker's collection gives the total
        # (case files are never Python files; a project's own tests are left out).
        cases = [nodeid for nodeid in ids if not nodeid.split("::")[0].endswith(".py")]
        self.total = len(cases)
        if cases:
            self._say(f"tooleval: {counted(cases)}; "
                      "each worker starts the model before its first case")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Start the model before the first case that runs: its own phase, timed. Not
        when every case is skipped (unmet ``requires``): the model is never contacted."""
        if (self.distributed or session.testsfailed or session.config.option.collectonly
                or not any(hasattr(item, "case_file") and item.get_closest_marker("skip") is None
                           for item in session.items)):
            return
        self._say("tooleval: starting the model (loading it, or reaching the server) …")
        began = time.monotonic()
        start = self.controller.runtime.start
        with warnings.catch_warnings(record=True) as caught:  # to pytest's warnings summary,
            failed = start() is not None  # as a case's are (a preflight's: "not listed")
        for message in caught:
            session.config.hook.pytest_warning_recorded.call_historic(kwargs={
                "warning_message": message, "when": "runtest", "nodeid": "", "location": None})
        took = clock(time.monotonic() - began)
        self._say(f"tooleval: the model did not start ({took}); why is at the end" if failed
                  else f"tooleval: model ready in {took}")
        self.clock_from = time.monotonic()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not getattr(report, "tooleval_case", False):
            return
        if report.when != "call" and (report.when != "setup" or report.passed):
            return  # a case ends with its call, or at a setup that did not pass (a skip)
        self.done += 1
        now = time.monotonic()
        if self.clock_from is None:  # under xdist: from the first finished case
            self.clock_from, self.clock_done = now, self.done
        if (not self.speaks or self.interval < 0 or self.done >= self.total
                or now - self.last < self.interval):
            return
        self.last = now
        self._say(self.line(now))

    def line(self, now: float) -> str:
        # The running score only: no intervals or baselines (summarize would bootstrap on
        # every progress line).
        from pytest_tooleval.scoring.aggregate import axes_of, outcome_counts, score_of

        results = list(self.controller.results.values())
        outcomes = outcome_counts(results)
        score = score_of(axes_of(results)) if results else None
        eta = None
        counted = self.done - self.clock_done
        if self.clock_from is not None and counted > 0:
            eta = (now - self.clock_from) / counted * (self.total - self.done)
        return progress_line(self.done, self.total, now - self.started, eta, score, outcomes)

    def _say(self, text: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or not self.speaks:
            return
        if reporter._tw.width_of_current_line:
            reporter._tw.line()
        # Serially pytest ends the line itself, naming the file again before the next
        # result; under xdist its letters would follow on the same line.
        reporter.write(text + ("\n" if self.distributed else ""), flush=True)
        reporter.currentfspath = None
