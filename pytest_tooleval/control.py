"""The controller's hold on a run: what was selected, the journal, resuming, signals, and
whether the run was interrupted.

Registered on the controller only (the serial process, or xdist's controller), beside the
recorder. The selection is counted where pytest knows it: ``session.items`` in a serial
run, the first worker's collected ids (``pytest_xdist_node_collection_finished``) under
xdist. A run that ended with fewer cases done than selected is interrupted, whatever
stopped it (Ctrl-C, SIGTERM, ``-x``, ``--maxfail``, the consecutive-error stop), and its
report says so: NOT VALID, with how many cases ran of how many.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tooleval.journal import (
    JOURNAL_NAME,
    Journal,
    JournalError,
    Stored,
    case_set_hash,
    differences,
    identity_hash,
    now,
    read_journal,
    run_identity,
    set_aside,
)
from pytest_tooleval.report.model import Resumed, RunInfo

if TYPE_CHECKING:
    from pytest_tooleval.recorder import Recorder
    from pytest_tooleval.runtime import Runtime

#: workerinput key: the node ids a resumed run must not run again.
RESUMED_KEY = "tooleval_resumed"


class RunControl:
    def __init__(self, runtime: Runtime, recorder: Recorder) -> None:
        self.runtime = runtime
        self.recorder = recorder
        settings = runtime.settings
        self.identity = run_identity(settings, runtime.profile)
        self.identity_hash = identity_hash(self.identity)
        self.journal = Journal(settings.report_dir / JOURNAL_NAME)
        self.resumed: Stored | None = None
        self.signal_name: str | None = None
        #: What pytest's interruption said ("1 error during collection", pytest.exit's
        #: reason); empty for a plain Ctrl-C.
        self.interrupt_message = ""
        self._previous_handler: Any = None
        self._begun = False
        if settings.resume:
            self.resumed = self._load_resumable()
            runtime.resumed = set(self.resumed.cases)
            from pytest_tooleval.result import CaseResult

            for nodeid, data in self.resumed.cases.items():
                recorder.results[nodeid] = CaseResult.from_json(data)
        recorder.journal = self.journal

    # -- resuming -----------------------------------------------------------------------
    def _load_resumable(self) -> Stored:
        path = self.journal.path
        try:
            stored = read_journal(path)
        except JournalError as exc:
            raise pytest.UsageError(f"--tooleval-resume: {exc}; nothing to resume (run "
                                    "without --tooleval-resume to start afresh)") from None
        if stored.identity_hash != self.identity_hash:
            changed = differences(stored.start.get("identity", {}), self.identity)
            raise pytest.UsageError(
                f"--tooleval-resume: {path} was written by a run with another configuration "
                f"(identity {stored.identity_hash}, now {self.identity_hash}); its results "
                "cannot be joined with this run's. What differs: "
                + "; ".join(changed[:6]) + ". Rerun with the same settings, or without "
                "--tooleval-resume to start afresh.")
        return stored

    # -- the selection and the journal's start --------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.config.pluginmanager.has_plugin("dsession"):
            return  # the workers collect; see pytest_xdist_node_collection_finished
        from pytest_tooleval.collect import CaseItem
        from pytest_tooleval.runtime import content_hash

        items = [item for item in session.items if isinstance(item, CaseItem)]
        cases: dict[str, str | None] = {
            item.nodeid: content_hash(item.case_file, item.case) for item in items}
        self.begin(cases)

    def on_worker_collection(self, ids: list[str]) -> None:
        """Under xdist: every worker collects the same ids; the first one is the selection."""
        if self._begun:
            return
        from pytest_tooleval.cases.files import is_case_nodeid

        self.begin(hashes_from_files(self.runtime.settings.rootdir,
                                     [i for i in ids if is_case_nodeid(i)]))

    def begin(self, cases: dict[str, str | None]) -> None:
        self._begun = True
        config = self.runtime.config
        if config.option.collectonly or (not cases and self.resumed is None):
            return
        carried = self.resumed.cases if self.resumed is not None else {}
        if carried:
            cases = {**cases, **hashes_from_files(self.runtime.settings.rootdir,
                                                  sorted(carried))}
        if self.resumed is not None:
            self._check_selection(self.resumed, cases)
        self.recorder.selected = len(cases)
        self.recorder.identity_hash = self.identity_hash
        self.recorder.shard = self.runtime.settings.shard
        report_dir = self.runtime.settings.report_dir
        try:
            if self.resumed is None:
                from pytest_tooleval.report.exporters import written_files

                set_aside(report_dir, written_files(config))
            self.journal.open({
                "identity": self.identity,
                "identity_hash": self.identity_hash,
                "case_set_hash": case_set_hash(cases),
                "shard": self.runtime.settings.shard,
                "cases": cases,
                "started": now(),
                "resumed_from": self.resumed.start.get("started") if self.resumed else None,
            }, carried.values())
        except OSError as exc:
            self.recorder.write_error = (f"could not write the journal in {report_dir}: "
                                         f"{exc.strerror or exc}")
        if self.resumed is not None:
            stored_run = (self.resumed.end or {}).get("run")
            self.recorder.carried_run = RunInfo.model_validate(stored_run) if stored_run \
                else None
            self.recorder.resumed = Resumed(from_started=self.resumed.start.get("started"),
                                            cases_carried=len(carried))

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
                "--tooleval-shard) with unchanged case files, or run without "
                "--tooleval-resume.")

    # -- signals --------------------------------------------------------------------------
    def install_signal_handler(self) -> None:
        """SIGTERM (a CI job cancelled, a scheduler's kill) becomes pytest's interruption:
        the partial report and the journal's end record are written, marked interrupted."""
        if threading.current_thread() is not threading.main_thread():
            return

        def on_sigterm(signum: int, frame: Any) -> None:
            self.signal_name = "SIGTERM"
            raise KeyboardInterrupt("SIGTERM")

        with contextlib.suppress(ValueError, OSError):
            self._previous_handler = signal.signal(signal.SIGTERM, on_sigterm)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.interrupt_message = str(excinfo.value)

    def restore_signal_handler(self) -> None:
        if self._previous_handler is not None:
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signal.SIGTERM, self._previous_handler)
            self._previous_handler = None

    # -- the end ---------------------------------------------------------------------------
    def interruption(self, session: pytest.Session, exitstatus: int) -> str | None:
        """Why the run is partial, with how many cases ran of how many; None when every
        selected case ran (whatever else happened)."""
        reason: Any = session.shouldstop or session.shouldfail
        dsession = session.config.pluginmanager.get_plugin("dsession")
        if not reason and dsession is not None:
            reason = getattr(dsession, "shouldstop", None)
        if not reason and self.signal_name:
            reason = f"the run received {self.signal_name}"
        if not reason and self.interrupt_message:
            reason = self.interrupt_message
        if not reason and exitstatus == pytest.ExitCode.INTERRUPTED:
            reason = "interrupted (Ctrl-C)"
        selected = self.recorder.selected
        done = self.recorder.done
        if selected is None:
            return str(reason) if reason else None
        if done >= selected:
            return None
        return f"{reason or 'the run ended early'}: {done} of {selected} cases ran"

    def end(self, interrupted: str | None) -> None:
        report = self.recorder.report
        self.journal.close({
            "complete": interrupted is None,
            "interrupted": interrupted,
            "cases_done": self.recorder.done,
            "cases_selected": self.recorder.selected,
            "run": report.run.model_dump(mode="json") if report else None,
        })

    def resumed_exit_status(self, exitstatus: int) -> int:
        """A resumed run's exit status counts the carried cases too; with every case
        carried (the journalled run had finished) nothing runs, and the status is the
        carried cases' rather than pytest's 'no tests ran'."""
        if self.resumed is None or not self.resumed.cases:
            return exitstatus
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            exitstatus = pytest.ExitCode.OK
        if exitstatus == pytest.ExitCode.OK and self.carried_not_passed():
            return pytest.ExitCode.TESTS_FAILED
        return exitstatus

    def carried_not_passed(self) -> bool:
        """A resumed run's exit status counts the carried cases too."""
        if self.resumed is None:
            return False
        allowed = {"PASS"} | ({"PARTIAL"} if self.runtime.settings.partial == "pass" else set())
        return any(data.get("outcome") not in allowed for data in self.resumed.cases.values())


def hashes_from_files(rootdir: Any, nodeids: list[str]) -> dict[str, str | None]:
    """Case hashes for node ids, from their case files (the controller under xdist has
    ids only). A case that no longer exists gets None."""
    from pathlib import Path

    from pytest_tooleval.cases.errors import CaseFileError
    from pytest_tooleval.cases.load import load_case_file
    from pytest_tooleval.runtime import content_hash

    by_file: dict[str, list[str]] = {}
    for nodeid in nodeids:
        by_file.setdefault(nodeid.split("::")[0], []).append(nodeid)
    hashes: dict[str, str | None] = {}
    for relative, ids in by_file.items():
        try:
            case_file = load_case_file(Path(rootdir) / relative)
        except (CaseFileError, OSError):
            case_file = None
        named = {case.name: case for case in case_file.cases} if case_file else {}
        for nodeid in ids:
            # A repeat's node id is NAME[rK] (--tooleval-repeat): the case is NAME.
            case = named.get(nodeid.partition("::")[2].split("[")[0])
            hashes[nodeid] = (content_hash(case_file, case)
                              if case is not None and case_file is not None else None)
    return hashes

