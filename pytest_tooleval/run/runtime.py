"""The per-process state of a run (one per xdist worker): settings, profile, the one model
session (its only creator, through ``pytest_tooleval_make_session``), the case files
collected. It runs each item's case (here, or on the lanes) and scores it (``run.score``).
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import CaseFile
from pytest_tooleval.config import Settings
from pytest_tooleval.engine.session import CaseRef, ModelSession, classify_error
from pytest_tooleval.hints import did_you_mean
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.result import CaseResult, ErrorInfo
from pytest_tooleval.run import RESUMED_KEY, WORLD_BASE_KEY
from pytest_tooleval.run.lanes import Lanes, start_lanes, upcoming
from pytest_tooleval.run.score import case_identity, score_run
from pytest_tooleval.run.shard import ShardError, parse_shard
from pytest_tooleval.tools.base import ConfigurationError, describe_providers, type_name
from pytest_tooleval.tools.builtin.provider import unavailable_tools
from pytest_tooleval.tools.python import python_providers, tools_in_module
from pytest_tooleval.wiring import build_session

if TYPE_CHECKING:
    from pytest_tooleval.check.report import CheckReport
    from pytest_tooleval.run.controller import Controller


class Runtime:
    def __init__(self, config: pytest.Config, settings: Settings, profile: Profile) -> None:
        self.config = config
        self.settings = settings
        self.profile = profile
        self.is_worker = hasattr(config, "workerinput")
        self._session: ModelSession | None = None
        #: The conftest.py modules whose @tool functions the built-in session offers.
        self._conftests: list[ModuleType] = []
        self._world_base: Path | None = None
        self._owns_world_base = False
        self._configuration_error: str | None = None
        #: Every case file this process collected, as loaded, by its resolved path (the
        #: baselines reuse them).
        self.case_files: dict[Path, CaseFile] = {}
        self.last_check_report: CheckReport | None = None
        #: Set when the run cannot go on (a failed preflight): every later case stops.
        self.stop_reason: str | None = None
        self._preflight_error: ErrorInfo | None = None
        #: ERRORs in a row, the last case's included (the stop after ``--tooleval-max-errors``).
        self.consecutive_errors = 0
        self.controller: Controller | None = None
        self.shard: tuple[int, int] | None = None
        if settings.shard:
            try:
                self.shard = parse_shard(settings.shard)
            except ShardError as exc:
                raise pytest.UsageError(str(exc)) from None
        self.session_source: str | None = None
        #: Node ids a resumed run takes from the journal instead of running them.
        self.resumed: set[str] = set(getattr(config, "workerinput", {}).get(
            RESUMED_KEY, []))
        #: Concurrent tool loops (run/lanes.py), decided at the first case.
        self._lanes: Lanes | None = None
        self.concurrency: dict[str, Any] | None = None
        #: ``id()`` of the items already submitted to the lanes (items live for the session).
        self._submitted: set[int] = set()

    def world_base(self) -> Path:
        """Shared by all xdist workers of this run, so the world template is built once:
        the controller makes the folder and hands its path to each worker."""
        if self._world_base is None:
            given = getattr(self.config, "workerinput", {}).get(WORLD_BASE_KEY)
            self._owns_world_base = not given
            self._world_base = Path(given or tempfile.mkdtemp(prefix="tooleval-worlds-"))
        return self._world_base

    def session(self) -> ModelSession:
        """The process's one model session: the hook's, or the built-in wiring's."""
        if self._session is None:
            made = self.config.hook.pytest_tooleval_make_session(
                config=self.config, settings=self.settings, profile=self.profile
            )
            self.session_source = "builtin" if made is None else "pytest_tooleval_make_session"
            if made is None:
                made = self._builtin_session()
            elif not isinstance(made, ModelSession):
                raise ConfigurationError(
                    f"pytest_tooleval_make_session returned a {type_name(made)}; it must "
                    "return a pytest_tooleval.ModelSession (or None for the built-in "
                    "session). See docs/usage.md, 'Your own model session'."
                )
            self._session = made
        return self._session

    def _loaded_conftests(self) -> list[ModuleType]:
        return [
            plugin for plugin in self.config.pluginmanager.get_plugins()
            if isinstance(plugin, ModuleType)
            and str(getattr(plugin, "__file__", "")).endswith("conftest.py")
        ]

    def _builtin_session(self) -> ModelSession:
        self._conftests = self._loaded_conftests()
        workers = int(getattr(self.config, "workerinput", {}).get("workercount", 1))
        return build_session(self.settings, self.profile, self.world_base, self._conftests,
                             workers)

    def case_ref(self, item: Any) -> CaseRef:
        """The case a ``CaseItem`` runs (its file relative to the rootdir). Try r of a
        repeated case runs with seed + r − 1, unless the profile pins the seed."""
        seed = None
        if item.repeat is not None:
            seed = self.profile.seed + (0 if self.profile.pin_seed else item.repeat - 1)
        return CaseRef(item.nodeid, item.nodeid.split("::")[0], item.case_file, item.case,
                       repeat=item.repeat, seed=seed)

    def case_result(self, item: Any) -> CaseResult:
        """The item's case, run and scored; ``consecutive_errors`` counts it."""
        result = self._case_result(item)
        self.consecutive_errors = self.consecutive_errors + 1 if result.is_error else 0
        return result

    def _case_result(self, item: Any) -> CaseResult:
        """The item's case, run here or by the lanes (a profile's ``concurrency`` above 1),
        which run the following cases meanwhile; scored here, in item order."""
        ref = self.case_ref(item)
        lanes = self._lanes_for_run()
        if lanes is None:
            return self.run_case(ref)
        stopping = bool(item.session.shouldstop or item.session.shouldfail)
        if not stopping and self.stop_reason is None:
            # Only what was not submitted yet is made a CaseRef; items are told apart by
            # identity (pytest's ``nodeid`` property is not cheap).
            submitted = self._submitted
            fresh = [other for other in upcoming(item, lanes.window) if id(other) not in submitted]
            submitted.update(id(other) for other in fresh)
            lanes.submit([ref, *(self.case_ref(other) for other in fresh)])
        run, lane = lanes.wait(ref)
        if lane is not None:
            self.session()._router_info = lane.describe_router()
        return score_run(ref, run)

    def _lanes_for_run(self) -> Lanes | None:
        if self.concurrency is None:
            requested = self.profile.concurrency
            self.concurrency = {"requested": requested, "used": 1}
            if requested > 1 and self.start() is None:
                self._lanes, self.concurrency = start_lanes(self.session(), requested)
                if self._lanes is None:
                    warnings.warn(pytest.PytestWarning(
                        f"tooleval: concurrency {requested} asked for, running one case at "
                        f"a time: {self.concurrency.get('why')}"), stacklevel=1)
        return self._lanes

    def run_case(self, ref: CaseRef) -> CaseResult:
        """Run and score one case. A failure of the machine is an ERROR with its partial
        transcript; a failed preflight is one message, and the run stops."""
        preflight_error = self.start()
        if preflight_error is not None:
            return CaseResult.infrastructure_error(ref.nodeid, preflight_error,
                                                   **case_identity(ref))
        return score_run(ref, self.session().run(ref))

    def start(self) -> ErrorInfo | None:
        """Start the model, once: before the first case (the progress line's), else at the
        first case. None when the set-up is proven; otherwise the ErrorInfo every case
        reports."""
        if self._preflight_error is None and self.stop_reason is None:
            try:
                self.session().preflight()
            except Exception as exc:  # classified, then reported once for the run
                info = classify_error(exc)
                self._preflight_error = ErrorInfo(
                    kind="preflight", message=f"the run cannot start: {info.message}",
                    detail=info.detail or info.kind,
                )
                self.stop_reason = self._preflight_error.message
        return self._preflight_error

    def check_configuration(self, session: pytest.Session) -> None:
        """After collection: an unusable tool set-up is one interruption, not an ERROR per
        case (on an xdist worker, which raising would crash: a stop with no items).
        Nothing is started for ``--collect-only``, a check run, or no cases."""
        from pytest_tooleval.collect import CaseItem

        if (self.settings.check or self.config.option.collectonly
                or not any(isinstance(item, CaseItem) for item in session.items)):
            return
        try:
            self.offered_tools()
        except pytest.Collector.CollectError as exc:
            if not self.is_worker:
                raise session.Interrupted(str(exc)) from None
            session.shouldstop = str(exc)
            session.items.clear()

    def offered_tools(self) -> set[str]:
        """The run's catalogue, with the @tool functions of every conftest.py pytest has
        loaded so far; a configuration mistake is a collection error, never a traceback."""
        if self._configuration_error is None:
            try:
                session = self.session()
                late = [m for m in self._loaded_conftests() if m not in self._conftests]
                if late and self.session_source == "builtin":  # loaded while collecting
                    self._conftests += late
                    session.add_providers(list(python_providers(
                        tool for module in late for tool in tools_in_module(module))))
                return session.offered_tools()
            except ConfigurationError as exc:
                self._configuration_error = str(exc)
        raise pytest.Collector.CollectError(
            f"the tool configuration is not usable: {self._configuration_error}"
        )

    def requires_problem(self, case_file: CaseFile, nodeid: str) -> str | None:
        """None when every required tool is offered (or under ``--collect-only``, which
        starts nothing, or when the tool set-up is unusable: ``check_configuration`` says
        so once); a skip reason with ``--tooleval-skip-missing``; otherwise a collection
        error naming what is missing."""
        if self.settings.check or not case_file.requires or self.config.option.collectonly:
            return None  # the check items report unmet requires themselves
        try:
            offered = self.offered_tools() | set(case_file.inline_tool_names)
        except pytest.Collector.CollectError:
            return None
        missing = [name for name in case_file.requires if name not in offered]
        if not missing:
            return None
        close = set() if self.session().failed_providers else offered  # else: their reason
        message = (
            f"{nodeid} requires tools that no provider on this machine offers: "
            f"{', '.join(name + did_you_mean(name, close) for name in missing)}. "
            f"Providers: {self.session().describe_providers()}. "
            + _builtin_hints(missing)
            + "Add an MCP server or Python tool that offers them (docs/your-tools.md)"
        )
        if self.settings.skip_missing:
            return message
        raise pytest.Collector.CollectError(
            message + ", or pass --tooleval-skip-missing to skip this file's cases instead."
        )

    def check_report(self) -> CheckReport:
        """``tooleval check`` over every case file this process collected, run once."""
        if self.last_check_report is None:
            # Only a check run needs it: its fuzzy matching (rapidfuzz) is not a run's.
            from pytest_tooleval.check.static import run_check

            self.offered_tools()  # a configuration mistake: one message
            session = self.session()
            self.last_check_report = run_check(
                sorted(self.case_files), k=self.settings.k,
                catalogue=session.catalogue.specs,
                catalogue_sources=[session.describe_providers()])
        return self.last_check_report

    def info(self) -> dict[str, Any]:
        """What this process's session ran with, for the report's metadata."""
        session = self._session
        if session is None or self._configuration_error is not None:
            return {}
        try:
            tools = sorted(session.offered_tools())
        except ConfigurationError:
            return {}
        return {
            "backend": session.describe_backend(),
            "tools": tools,
            "providers": session.describe_providers(),
            "tool_providers": describe_providers(session.catalogue.providers,
                                                 session.failed_providers),
            "router": session.describe_router(),
            "session": self.session_source,
            "concurrency": self.concurrency,
        }

    def started_info(self, carried: CaseResult) -> dict[str, Any]:
        """``info`` of a process that ran no case, with the model started (preflight,
        lanes) and the router described for a ``carried`` case, as running it would have."""
        self.start()
        self._lanes_for_run()
        path = (self.settings.rootdir / carried.file).resolve()
        try:  # collected here, or (the xdist controller collects nothing) read again
            case_file = self.case_files.get(path) or load_case_file(path)
        except (CaseFileError, OSError):
            return self.info()
        case = next((c for c in case_file.cases if c.name == carried.case), None)
        if case is not None:
            self.session().router_for(case_file, case)
        return self.info()

    def close(self) -> None:
        lanes, self._lanes = self._lanes, None
        if lanes is not None:
            lanes.stop()  # nothing more is started; a case in hand finishes or is cut off
            lanes.join(timeout=1.0)
        if self._session is not None:
            self._session.close()  # closes the shared HTTP client: stuck requests end
        if lanes is not None:
            lanes.join()
        if self._owns_world_base and self._world_base is not None:
            shutil.rmtree(self._world_base, ignore_errors=True)


def _builtin_hints(missing: list[str]) -> str:
    """Why built-in tools are missing here and how to fix it (a binary, the jail)."""
    reasons = unavailable_tools()
    hints = sorted({reasons[name] for name in missing if name in reasons})
    return "".join(f"Built-in tools missing because {hint}. " for hint in hints)
