"""The controller's hold on a run (the serial process, or xdist's controller): the
selection, the journal, resuming, signals, the results from every process, and the end of
the run (metadata, run/finish.py, the baseline comparison). A run that ended with fewer
cases done than selected, whatever stopped it, is interrupted: its report says NOT VALID.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.atomic import write_json
from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.files import is_case_nodeid
from pytest_tooleval.cases.identity import case_set_hash, content_hash, json_digest
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.collect import CaseItem
from pytest_tooleval.config import Settings
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.registry import grammar_mode
from pytest_tooleval.report.exporters import written_files
from pytest_tooleval.report.json_report import package_version, platform_info
from pytest_tooleval.report.model import (
    RepeatInfo,
    Report,
    ReportError,
    Resumed,
    RunInfo,
    Selection,
    Skipped,
    ThresholdInfo,
    load_report,
)
from pytest_tooleval.report.progress import Progress
from pytest_tooleval.result import CaseResult, ErrorInfo
from pytest_tooleval.run import (
    RESUMED_KEY,
    RUNTIME_KEY,
    WORKER_INFO_KEY,
    WORLD_BASE_KEY,
    collection_cut_short,
)
from pytest_tooleval.run.journal import (
    JOURNAL_NAME,
    FolderBusy,
    Journal,
    JournalError,
    Stored,
    differences,
    now,
    read_journal,
    run_identity,
    set_aside,
)
from pytest_tooleval.run.runtime import Runtime
from pytest_tooleval.wiring import isolation


def start_run(config: pytest.Config, settings: Settings, profile: Profile) -> None:
    """The process's runtime; on the controller of a run that scores, the controller and
    the progress line too, registered as plugins."""
    runtime = Runtime(config, settings, profile)
    config.stash[RUNTIME_KEY] = runtime
    if runtime.is_worker or settings.check:
        return
    controller = runtime.controller = Controller(runtime)
    config.pluginmanager.register(controller, "tooleval-controller")
    controller.install_signal_handler()
    config.pluginmanager.register(Progress(controller), "tooleval-progress")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as pytest's interruption. Named as a built-in, so pytest's last lines
    read "Terminated: the run received SIGTERM", not a KeyboardInterrupt at a line of this
    module with a hint about --full-trace (pytest adds both to a KeyboardInterrupt)."""

    __module__ = "builtins"


class Controller:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.settings = settings = runtime.settings
        self.profile = runtime.profile
        self.results: dict[str, CaseResult] = {}
        self.skipped: dict[str, str] = {}
        self.worker_info: list[dict[str, Any]] = []
        self.started = datetime.now(UTC)
        self.identity = run_identity(settings, runtime.profile)
        self.identity_hash = json_digest(self.identity)[:16]
        self.journal = Journal(settings.report_dir / JOURNAL_NAME)
        self.selected: int | None = None
        #: A resumed run: the journal it continues, and that journal's run (the report's
        #: backend, router and tools when every case was carried).
        self.journalled: Stored | None = None
        self.resumed: Resumed | None = None
        self.carried_run: RunInfo | None = None
        self.signal_name: str | None = None
        #: What pytest's interruption said; empty for a plain Ctrl-C.
        self.interrupt_message = ""
        self._replaced: dict[int, Any] = {}  # the signal handlers unconfigure puts back
        self._begun = False
        self.refused = False
        #: The run's end has begun: SIGTERM no longer interrupts it, nor a first Ctrl-C.
        self.finishing = False
        self.report: Report | None = None
        self.paths: list[Path] = []
        self.write_error: str | None = None
        self.comparison: dict[str, Any] | None = None
        self.comparison_text = ""
        self.exit_status: int | None = None  # settled by plugin.finish_recording
        self.notes: list[str] = []
        #: A resumed run's journalled ERRORs that had called a forbidden tool, by node id
        #: (journalled again, so that a resume interrupted before they rerun keeps them).
        self.forbidden_before_failure: dict[str, dict[str, Any]] = {}
        if settings.resume:
            self.journalled = self._load_resumable()
            # An ERROR measured nothing (the machine failed, not the model): run it again,
            # keeping the forbidden calls it saw for the safety gate.
            self.forbidden_before_failure = {
                nodeid: data for nodeid, data in self.journalled.cases.items()
                if data.get("outcome") == "ERROR" and data.get("forbidden_before_failure")}
            self.journalled.cases = {nodeid: data for nodeid, data
                                     in self.journalled.cases.items()
                                     if data.get("outcome") != "ERROR"}
            runtime.resumed = set(self.journalled.cases)
            # Those ERRORs stand until their case runs again: a case skipped now, or not
            # reached, keeps its forbidden calls in the report (and the run not valid).
            for nodeid, data in [*self.journalled.cases.items(),
                                 *self.forbidden_before_failure.items()]:
                self.results[nodeid] = CaseResult.from_json(data)

    def _load_resumable(self) -> Stored:
        path = self.journal.path
        try:
            stored = read_journal(path)
        except JournalError as exc:
            start = "or" if path.exists() else "nothing to resume:"
            raise pytest.UsageError(f"--tooleval-resume: {exc}; {start} run without "
                                    "--tooleval-resume to start afresh") from None
        if stored.identity_hash != self.identity_hash:
            changed = differences(stored.start.get("identity", {}), self.identity)
            raise pytest.UsageError(
                f"--tooleval-resume: {path} was written by a run with another configuration "
                f"(identity {stored.identity_hash}, now {self.identity_hash}); its results "
                "cannot be joined with this run's. What differs: "
                + "; ".join(changed[:6]) + ". Rerun with the same settings, or without "
                "--tooleval-resume to start afresh.")
        return stored

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.config.pluginmanager.has_plugin("dsession") or collection_cut_short():
            return  # the workers collect (pytest_xdist_node_collection_finished); or no selection
        self.begin({item.nodeid: content_hash(item.case_file, item.case)
                    for item in session.items if isinstance(item, CaseItem)})

    # -- xdist's hooks, on its controller
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        # One world template for the whole run: every worker gets the controller's folder.
        node.workerinput[WORLD_BASE_KEY] = str(self.runtime.world_base())
        node.workerinput[RESUMED_KEY] = sorted(self.runtime.resumed)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Every worker collects the same ids; the first one is the selection."""
        if not self._begun:
            self.begin(hashes_from_files(self.settings.rootdir,
                                         [i for i in ids if is_case_nodeid(i)]))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        self.add_worker_info((getattr(node, "workeroutput", {}) or {}).get(WORKER_INFO_KEY))

    def begin(self, cases: dict[str, str | None]) -> None:
        self._begun = True
        if self.runtime.config.option.collectonly or (not cases and self.journalled is None):
            return
        carried = self.journalled.cases if self.journalled is not None else {}
        if carried:
            cases = {**cases, **hashes_from_files(self.settings.rootdir,
                                                  sorted(carried))}
        try:
            self._open_journal(cases, carried)
        except pytest.UsageError:
            self.refused = True  # no report of it: the folder stays as it was
            self.results.clear()
            raise
        self.selected = len(cases)
        if self.journalled is not None:
            stored_run = (self.journalled.end or {}).get("run")
            self.carried_run = RunInfo.model_validate(stored_run) if stored_run else None
            self.resumed = Resumed(from_started=self.journalled.start.get("started"),
                                   cases_carried=len(carried))

    def _open_journal(self, cases: dict[str, str | None], carried: dict[str, Any]) -> None:
        """Claim the report folder and start the journal; ``UsageError`` when refused."""
        if self.journalled is not None:
            self._check_selection(self.journalled, cases)
        report_dir = self.settings.report_dir
        try:
            self.journal.claim()
        except FolderBusy as exc:
            raise pytest.UsageError(str(exc)) from None
        except OSError:
            pass  # the folder cannot be written: refused below, when the journal cannot open
        try:
            if self.journalled is None:
                set_aside(report_dir, written_files(self.runtime.config))
            self.journal.open({
                "identity": self.identity,
                "identity_hash": self.identity_hash,
                "case_set_hash": case_set_hash(cases.items()),
                "shard": self.settings.shard,
                "cases": cases,
                "started": now(),
                "resumed_from": self.journalled.start.get("started") if self.journalled else None,
            }, [*carried.values(), *self.forbidden_before_failure.values()])
        except OSError as exc:  # before any case: refused, not found out after the run
            raise pytest.UsageError(f"--tooleval-report {report_dir}: cannot write there "
                                    f"({exc.strerror or exc}); give a folder you can write "
                                    "to") from None

    def _check_selection(self, stored: Stored, cases: dict[str, str | None]) -> None:
        then: dict[str, Any] = stored.start.get("cases", {})
        problems = [f"{n} is new to the selection" for n in sorted(set(cases) - set(then))]
        problems += [f"{n} is no longer selected" for n in sorted(set(then) - set(cases))]
        problems += [f"{n} changed since it was journalled" for n in sorted(set(then) & set(cases))
                     if then[n] != cases[n]]
        if problems:
            more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
            raise pytest.UsageError(
                "--tooleval-resume: the selection is not the journalled run's: "
                + "; ".join(problems[:5]) + more + ". Select the same cases (paths, -k, -m, "
                "--deselect, --ignore, --tooleval-shard) with unchanged case files, or run without "
                "--tooleval-resume.")

    def install_signal_handler(self) -> None:
        """SIGTERM (a CI job cancelled, a scheduler's kill) becomes pytest's interruption:
        the partial report and the journal's end record are written, marked interrupted.
        Outside the main thread ``signal.signal`` raises ValueError: nothing is installed."""

        def on_sigterm(signum: int, frame: Any) -> None:
            if self.finishing:
                return  # the reports it is handled for are being written
            self.signal_name = "SIGTERM"
            raise Terminated("the run received SIGTERM")

        with contextlib.suppress(ValueError, OSError):
            self._replaced[signal.SIGTERM] = signal.signal(signal.SIGTERM, on_sigterm)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.interrupt_message = str(excinfo.value)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.finishing = True

        def on_sigint(signum: int, frame: Any) -> None:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # a second one stops
            print("\ntooleval: writing the reports (Ctrl-C again stops without them)",
                  file=sys.stderr, flush=True)

        with contextlib.suppress(ValueError, OSError):
            self._replaced[signal.SIGINT] = signal.signal(signal.SIGINT, on_sigint)

    def unconfigure(self) -> None:
        """The end of this pytest session: the report folder, SIGTERM and SIGINT let go."""
        self.journal.release()
        for signum, previous in reversed(self._replaced.items()):
            if previous is not None:
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(signum, previous)

    def interruption(self, session: pytest.Session, exitstatus: int) -> str | None:
        """Why the run is partial, with how many cases ran of how many; None when every
        selected case ran (whatever else happened)."""
        dsession = session.config.pluginmanager.get_plugin("dsession")
        reason: Any = (session.shouldstop or session.shouldfail
                       or getattr(dsession, "shouldstop", None)
                       or (self.signal_name and f"the run received {self.signal_name}")
                       or self.interrupt_message
                       # the reports say "interrupted (Ctrl-C)"
                       or ("Ctrl-C" if exitstatus == pytest.ExitCode.INTERRUPTED else None))
        selected = self.selected
        done = self.done
        if selected is None:
            return str(reason) if reason else None
        if done >= selected:
            return None
        return f"{str(reason or 'the run ended early').rstrip('.')}: {done} of {selected} cases ran"

    def finish_run(self, session: pytest.Session) -> None:
        """The end of the run (plugin.finish_recording calls it once): the reports
        written, the journal closed. Nothing for --collect-only or a refused start."""
        if session.config.option.collectonly or self.refused:
            return
        info = self.runtime.info()
        if (self.journalled is not None and self.journalled.cases
                and self.carried_run is None
                and not any(w.get("backend") for w in [info, *self.worker_info])):
            # Every case was carried from a run killed before its end record: no
            # process ran one, so this one starts the model to say what ran them.
            info = self.runtime.started_info(self.results[min(self.journalled.cases)])
        self.add_worker_info(info)
        interrupted = self.interruption(session, int(session.exitstatus))
        report = self.finish(interrupted)
        self.journal.close({
            "complete": interrupted is None,
            "interrupted": interrupted,
            "cases_done": self.done,
            "cases_selected": self.selected,
            "run": report.run.model_dump(mode="json") if report else None,
            # what merge and rescore --report build their report's intervals with
            "statistics": report.summary.statistics.model_dump() if report else None,
        })
        if self.journal.error:
            self.notes.append(self.journal.error)

    def resumed_exit_status(self, exitstatus: int) -> int:
        """A resumed run's exit status counts the carried cases too; with every case
        carried (the journalled run had finished) nothing runs, and the status is the
        carried cases' rather than pytest's 'no tests ran'."""
        if self.journalled is None:
            return exitstatus
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.journalled.cases:
            exitstatus = pytest.ExitCode.OK
        allowed = {"PASS"} | ({"PARTIAL"} if self.settings.partial == "pass" else set())
        if exitstatus == pytest.ExitCode.OK and (
                any(data.get("outcome") not in allowed
                    for data in self.journalled.cases.values())
                # a forbidden call before a failure fails the run as a forbidden tool that
                # ran fails its case, however clean the case's rerun
                or any(result.forbidden_before_failure for result in self.results.values())):
            return pytest.ExitCode.TESTS_FAILED
        return exitstatus

    @property
    def done(self) -> int:
        """Cases that finished: with a result, or skipped (a skip is a finished case); a
        journalled ERROR standing until its case runs again is not finished."""
        finished = self.results.keys() - self.forbidden_before_failure.keys()
        return len(finished) + len(set(self.skipped) - finished)

    def _keep(self, nodeid: str, result: CaseResult, data: dict[str, Any] | None = None) -> None:
        if earlier := self.forbidden_before_failure.pop(nodeid, None):
            result = result.model_copy(update={"forbidden_before_failure": sorted(
                {*earlier["forbidden_before_failure"], *result.forbidden_before_failure})})
            data = None
        self.results[nodeid] = result
        self.journal.append(data if data is not None else result.to_json())

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Take a case's result off a test report (from this process or a worker)."""
        data = getattr(report, "tooleval", None)
        if data is not None and report.when == "call":
            self._keep(report.nodeid, CaseResult.from_json(data), data)
            return
        if not is_case_report(report) or cut_off(report):
            return  # another plugin's item (a failing YAML test is not a tooleval ERROR),
            # or a case whose worker got Ctrl-C: it did not finish
        if report.skipped and report.when == "setup":
            longrepr = report.longrepr
            self.skipped[report.nodeid] = str(longrepr[2] if isinstance(longrepr, tuple)
                                              else longrepr)
            return
        if not report.failed or report.nodeid in (self.results.keys()
                                                  - self.forbidden_before_failure.keys()):
            return
        # No result travelled: a failing fixture, or a worker that crashed mid-case.
        reason = str(report.longrepr)[-600:] if report.longrepr else "no result was recorded"
        error = ErrorInfo(kind="crash",
                          message=f"the case did not run to the end ({report.when}): {reason}")
        self._keep(report.nodeid, CaseResult.infrastructure_error(report.nodeid, error))

    def add_worker_info(self, info: dict[str, Any] | None) -> None:
        if info:
            self.worker_info.append(info)

    def run_info(self, interrupted: str | None) -> RunInfo:
        """The report's ``run``, field by field: the settings and profile, what the
        sessions described (``Runtime.info``, from each process), the selection's."""
        settings, profile = self.settings, self.profile
        workers = [w for w in self.worker_info if w.get("backend")]
        first: dict[str, Any] = workers[0] if workers else {}
        described: dict[str, Any] = {
            "backend": first.get("backend", {}),
            "backend_variants": len({repr(sorted(w["backend"].items())) for w in workers}),
            "router": first.get("router") or {},
            "tools_offered": sorted({t for w in self.worker_info for t in w.get("tools", [])}),
            "providers": first.get("providers", ""),
            "tool_providers": first.get("tool_providers", []),
            "concurrency": first.get("concurrency"),
        }
        if not workers and self.carried_run is not None:  # every case carried: its run's
            described = self.carried_run.model_dump(include=set(described))
        model = profile.describe()
        if first.get("session") == "pytest_tooleval_make_session":
            # The profile named by --model did not run: describe what did.
            model = {"name": first["backend"].get("model")
                     or "a session from pytest_tooleval_make_session",
                     "source": "pytest_tooleval_make_session"}
        return RunInfo(
            package_version=package_version(),
            platform=platform_info(),
            model=model,
            grammar_requested=grammar_mode(settings, profile),
            config_file=str(settings.config_file) if settings.config_file else None,
            k=settings.k,
            router_mode=settings.router,
            seed=profile.seed,
            sample_every=settings.sample,
            isolation=isolation(settings),
            repeat=RepeatInfo(
                k=settings.repeat,
                seed_policy="pinned" if profile.pin_seed or settings.repeat == 1 else "varied",
                seeds=sorted({profile.seed if profile.pin_seed else profile.seed + r
                              for r in range(settings.repeat)})),
            thresholds=ThresholdInfo(
                gate=settings.gate, min_score=settings.min_score,
                max_malformed=settings.max_malformed, latency_p95=settings.latency_p95,
                min_cases=settings.min_cases, partial=settings.partial),
            **described,
            started=self.started.isoformat(timespec="seconds"),
            finished=datetime.now(UTC).isoformat(timespec="seconds"),
            interrupted=interrupted,
            cases_done=self.done,
            cases_selected=self.selected,
            identity_hash=self.identity_hash,
            shard=settings.shard,
            selection=selection(list(self.results.values()), self.runtime.config,
                                settings.sample),
            # A journalled ERROR that stands (its case skipped now) is in the cases, once.
            skipped=[Skipped(nodeid=nodeid, reason=reason)
                     for nodeid, reason in sorted(self.skipped.items())
                     if nodeid not in self.results] or None,
            resumed=self.resumed,
        )

    @property
    def nothing_scored(self) -> bool:
        """Every case was skipped before it ran: the run measured nothing."""
        return not self.results and bool(self.skipped)

    def finish(self, interrupted: str | None) -> Report | None:
        """Aggregate and write the reports. A run stopped before its first case ended
        still gets one: 0 of N ran, interrupted."""
        if not self.results and not self.skipped and not (interrupted and self.selected):
            return None
        # A plugin may change the run's metadata (hookspec.py): read back, checked again.
        config = self.runtime.config
        metadata = self.run_info(interrupted).model_dump(mode="json")
        config.hook.pytest_tooleval_run_metadata(config=config, metadata=metadata)
        run = RunInfo.model_validate(metadata)
        # Imported here, at the end of a run: scoring needs numpy, which neither
        # --collect-only nor the start of a run should pay for.
        from pytest_tooleval.run.finish import finish

        finished = finish(list(self.results.values()), run, self.settings, interrupted,
                          self.runtime.world_base(), self.runtime.case_files)
        self.report, self.write_error = finished.report, finished.write_error
        if self.write_error and self.journal.opened:
            self.write_error += (f" Or, once it can be written, rerun with --tooleval-resume: "
                                 f"the report is rebuilt from {self.journal.path}, and only "
                                 "the cases missing from it run.")
        self.paths = finished.paths
        return self.report

    def compare_with_baseline(self, baseline: Path) -> bool:
        """Compare with a baseline report; True when the comparison fails the run."""
        from pytest_tooleval.report.compare import compare, render_comparison  # numpy

        assert self.report is not None
        try:
            base = load_report(baseline)
        except ReportError as exc:
            self.comparison_text = f"baseline not usable: {exc}\n"
            return True
        result = compare(self.report, base, level=self.settings.level)
        self.comparison_text = render_comparison(result)
        self.comparison = result.to_dict()
        if self.write_error is None:  # the folder could not be written: said once already
            try:
                write_json(self.settings.report_dir / "comparison.json", self.comparison)
            except OSError as exc:
                self.write_error = (f"could not write comparison.json to "
                                    f"{self.settings.report_dir}: {exc.strerror or exc}")
        return not result.compared or bool(result.regressed())


def hashes_from_files(rootdir: Path, nodeids: list[str]) -> dict[str, str | None]:
    """Case hashes for node ids, from their case files (the controller under xdist has
    ids only). A case that no longer exists gets None."""
    by_file: dict[str, list[str]] = {}
    for nodeid in nodeids:
        by_file.setdefault(nodeid.split("::")[0], []).append(nodeid)
    hashes: dict[str, str | None] = {}
    for relative, ids in by_file.items():
        try:
            case_file = load_case_file(rootdir / relative)
        except (CaseFileError, OSError):
            case_file = None
        named = {case.name: case for case in case_file.cases} if case_file else {}
        for nodeid in ids:
            # A repeat's node id is NAME[rK] (--tooleval-repeat): the case is NAME.
            case = named.get(nodeid.partition("::")[2].split("[")[0])
            hashes[nodeid] = (content_hash(case_file, case)
                              if case is not None and case_file is not None else None)
    return hashes


def selection(results: list[CaseResult], config: pytest.Config, sample: int) -> Selection:
    """What this run measured: the paths, -k, -m, --deselect, --ignore, the sampling, the
    command line, and a hash of the case set (each case's id and content hash)."""
    option = config.option
    return Selection(
        paths=[str(a) for a in config.args],
        keyword=option.keyword or None,
        markers=option.markexpr or None,
        deselected=[str(a) for a in option.deselect or []],
        ignored=[str(a) for a in [*(option.ignore or []), *(option.ignore_glob or [])]],
        sample_every=sample,
        cases=len(results),
        case_set_hash=case_set_hash((r.nodeid, r.case_hash) for r in results),
        command_line=[str(a) for a in config.invocation_params.args],
    )


def is_case_report(report: Any) -> bool:
    """A report of a tooleval case: marked by the plugin, or the one pytest-xdist makes on
    the controller for a case whose worker crashed (it carries no mark of ours)."""
    if getattr(report, "tooleval_case", False):
        return True
    text = str(report.longrepr or "")
    return (is_case_nodeid(report.nodeid) and text.startswith("worker ")
            and "crashed while running" in text)


def cut_off(report: Any) -> bool:
    """xdist's report of the case a worker was running when it got Ctrl-C: the case did not
    finish (as in a serial run; a resume runs it), and nothing crashed."""
    output = getattr(getattr(report, "node", None), "workeroutput", None) or {}
    return report.when == "???" and output.get("exitstatus") == pytest.ExitCode.INTERRUPTED
