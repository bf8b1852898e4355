"""The per-process state of a run (one per pytest process, so one per xdist worker):
settings, the resolved profile, the model session built on first use, the case files
collected, and on the controller the recorder. Kept apart so that plugin.py holds hooks only.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tooleval.config import Settings

WORKER_INFO_KEY = "tooleval_run"

if TYPE_CHECKING:
    from pytest_tooleval.cases.model import CaseFile
    from pytest_tooleval.engine.session import ModelSession
    from pytest_tooleval.models.profiles import Profile
    from pytest_tooleval.recorder import Recorder
    from pytest_tooleval.check.report import CheckReport

class Runtime:
    def __init__(self, config: pytest.Config, settings: Settings, profile: Profile) -> None:
        self.config = config
        self.settings = settings
        self.profile = profile
        self.is_worker = hasattr(config, "workerinput")
        self._session: ModelSession | None = None
        self._world_base: Path | None = None
        self._configuration_error: str | None = None
        self._case_files: list[Path] = []
        self._check_report: CheckReport | None = None
        self.recorder: Recorder | None = None

    def world_base(self) -> Path:
        """Shared by all xdist workers of this run: the world template is built once."""
        if self._world_base is None:
            factory = self.config._tmp_path_factory  # type: ignore[attr-defined]
            base = factory.getbasetemp()
            self._world_base = base.parent if self.is_worker else base
        return self._world_base

    def session(self) -> ModelSession:
        if self._session is None:
            from pytest_tooleval.wiring import build_session

            conftests = [
                plugin for plugin in self.config.pluginmanager.get_plugins()
                if isinstance(plugin, ModuleType)
                and str(getattr(plugin, "__file__", "")).endswith("conftest.py")
            ]
            workers = int(getattr(self.config, "workerinput", {}).get("workercount", 1))
            self._session = build_session(self.settings, self.profile, self.world_base,
                                          conftests, workers)
        return self._session

    def offered_tools(self) -> set[str]:
        """The run's catalogue, built once; a configuration mistake becomes one clear
        message (a collection error for each file), never a traceback."""
        if self._configuration_error is None:
            from pytest_tooleval.tools.base import ConfigurationError

            try:
                return self.session().offered_tools()
            except ConfigurationError as exc:
                self._configuration_error = str(exc)
        raise pytest.Collector.CollectError(
            f"the tool configuration is not usable: {self._configuration_error}"
        )

    def requires_problem(self, case_file: CaseFile, nodeid: str) -> str | None:
        """None when every required tool is offered; a skip reason when skipping is opted
        into; otherwise the run stops with a collection error naming what is missing."""
        if self.settings.check:
            return None  # the check items report unmet requires themselves
        offered = self.offered_tools() | set(case_file.inline_tool_names)
        session = self.session()
        missing = [name for name in case_file.requires if name not in offered]
        if not missing:
            return None
        message = (
            f"{nodeid} requires tools that no provider on this machine offers: "
            f"{', '.join(missing)}. Providers: {session.describe_providers()}. "
            "Add an MCP server or Python tool that offers them (docs/your-tools.md)"
        )
        if self.settings.skip_missing:
            return message
        raise pytest.Collector.CollectError(
            message + ", or pass --tooleval-skip-missing to skip this file's cases instead."
        )

    def register_case_file(self, path: Path) -> None:
        self._case_files.append(path)

    def check_report(self) -> CheckReport:
        """``tooleval check`` over every case file this process collected, run once."""
        if self._check_report is None:
            from pytest_tooleval.check.static import run_check

            offered = self.offered_tools()
            self._check_report = run_check(sorted(set(self._case_files)), k=self.settings.k,
                                           offered_tools=offered)
        return self._check_report

    def close(self) -> None:
        if self._session is not None:
            self._session.close()


RUNTIME_KEY = pytest.StashKey[Runtime]()


def runtime_of(config: pytest.Config) -> Runtime:
    return config.stash[RUNTIME_KEY]


def worker_info(runtime: Runtime) -> dict[str, Any]:
    session = runtime._session
    if session is None or runtime._configuration_error is not None:
        return {}
    return {
        "backend": session.describe_backend(),
        "tools": sorted(session.offered_tools()),
        "providers": session.describe_providers(),
        "router": session.describe_router(),
    }
