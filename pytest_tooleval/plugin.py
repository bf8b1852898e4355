"""pytest hooks only. Everything else lives in modules imported on first use.

Per process there is one ``Runtime`` (run/runtime.py, kept in ``config.stash``); on the
controller, the ``Controller`` (run/controller.py) gathers results from every worker's
reports.
The run's modules are imported when pytest configures the plugin (``start_run``), not when
it loads.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tooleval.config import Settings, add_options
from pytest_tooleval.run import (
    RESUMED_KEY,
    RUNTIME_KEY,
    WORKER_INFO_KEY,
    WORLD_BASE_KEY,
    ordering,
    runtime_of,
)
from pytest_tooleval.run.casepaths import case_paths_instead_of_testpaths
from pytest_tooleval.run.shard import shard_items

if TYPE_CHECKING:
    from pytest_tooleval.engine.session import ModelSession
    from pytest_tooleval.report.model import Report
    from pytest_tooleval.run.runtime import Runtime

def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_tooleval import hookspec

    pluginmanager.add_hookspecs(hookspec)


def pytest_addoption(parser: pytest.Parser) -> None:
    from pytest_tooleval.report import exporters, progress

    add_options(parser)
    ordering.add_option(parser)
    progress.add_option(parser)
    exporters.add_options(parser)
    parser.addini("tooleval_files", "glob patterns (from the rootdir) of case files to collect",
                  type="linelist", default=[])
    parser.addini("tooleval_paths", "case paths collected instead of testpaths when --model "
                  "(or --tooleval-check) is given without a path; default: benchmarks "
                  "scenarios", type="linelist", default=[])


def pytest_configure(config: pytest.Config) -> None:
    paths = case_paths_instead_of_testpaths(config)
    if paths is not None:
        config.args = paths
    config.addinivalue_line("markers", "hardmode: a hard case (chains, negations, indirect "
                                       "phrasing, registers)")
    from pytest_tooleval.models.profiles import ProfileError, resolve_profile
    from pytest_tooleval.report import exporters

    exporters.check_options(config)
    settings = Settings.from_pytest(config)
    try:
        profile = resolve_profile(settings.model, settings.profiles,
                                  settings.rootdir)
    except ProfileError as exc:
        raise pytest.UsageError(str(exc)) from None
    # The one seam into the run's modules: the session, the engine, the case model.
    from pytest_tooleval.run.controller import start_run

    runtime = start_run(config, settings, profile)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(runtime), "tooleval-xdist")
    if config.pluginmanager.hasplugin("pytest_jsonreport"):
        from pytest_tooleval.report.jsonreport import JsonReportHooks

        config.pluginmanager.register(JsonReportHooks(finish_recording),
                                      "tooleval-json-report")


def pytest_unconfigure(config: pytest.Config) -> None:
    runtime = config.stash.get(RUNTIME_KEY, None)
    if runtime is not None and runtime.controller is not None:
        runtime.controller.restore_signal_handler()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _sample(config, items)
    _shard_and_resume(config, items)
    runtime = runtime_of(config)
    if not runtime.settings.check and ordering.wanted(config, runtime.settings, runtime.profile):
        from pytest_tooleval.collect import CaseItem
        from pytest_tooleval.tools.base import ConfigurationError

        # Ordering needs the session (the router, the catalogue): made only when there
        # are cases to order, so a project's own tests never build one.
        if sum(isinstance(item, CaseItem) for item in items) < 2:
            return
        # A broken configuration is already a collection error; the order stays.
        with contextlib.suppress(ConfigurationError):
            items[:] = ordering.prefix_order(items, runtime.session(),
                                             lambda item: isinstance(item, CaseItem))


def _sample(config: pytest.Config, items: list[pytest.Item]) -> None:
    every = runtime_of(config).settings.sample
    if every <= 1:
        return
    from pytest_tooleval.collect import CaseItem

    seen: dict[tuple[str, str], int] = {}
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        if not isinstance(item, CaseItem):
            keep.append(item)
            continue
        # By case, not by item: every try of a repeated case is kept or dropped together.
        # One count across files, in collection order: each file keeps its share to within
        # a case, and files of one case each (an import) are not all kept.
        index = seen.setdefault((str(item.path), item.case.name), len(seen))
        (keep if index % every == 0 else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _shard_and_resume(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--tooleval-shard`` keeps this shard's cases; a resumed run drops the journalled."""
    runtime = runtime_of(config)
    if runtime.settings.check:
        return
    from pytest_tooleval.collect import CaseItem

    dropped: list[pytest.Item] = []
    if runtime.shard is not None:
        kept, dropped = shard_items(items, runtime.shard,
                                    lambda item: isinstance(item, CaseItem),
                                    lambda item: item.nodeid)
        items[:] = kept
    if runtime.resumed:
        dropped += [item for item in items if item.nodeid in runtime.resumed]
        items[:] = [item for item in items if item.nodeid not in runtime.resumed]
    if dropped:
        config.hook.pytest_deselected(items=dropped)


def pytest_collection_finish(session: pytest.Session) -> None:
    from pytest_tooleval.collect import CaseItem

    runtime_of(session.config).check_configuration(
        any(isinstance(item, CaseItem) for item in session.items))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    from pytest_tooleval.collect import CaseFileCollector, wants_file

    if wants_file(file_path, parent.config):
        return CaseFileCollector.from_parent(parent, path=file_path)
    return None


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder named like a case file, where one would be collected: refused (its
    collector's load says so), never walked silently."""
    from pytest_tooleval.collect import CaseFileCollector, wants_file

    if wants_file(path, parent.config):
        return CaseFileCollector.from_parent(parent, path=path)
    return None


@pytest.fixture(scope="session")
def tooleval_session(pytestconfig: pytest.Config) -> ModelSession:
    """The run's one model session. Bring your own through the
    ``pytest_tooleval_make_session`` hook, not by overriding this fixture."""
    return runtime_of(pytestconfig).session()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    result = getattr(item, "result", None)
    if call.when == "call" and result is not None:
        from pytest_tooleval.report.exporters import case_user_properties

        item.user_properties.extend(case_user_properties(item.config, result))  # → JUnit
    report = yield
    if hasattr(item, "case_file"):  # a CaseItem: the recorder reads only these reports
        report.tooleval_case = True
    if call.when == "call" and result is not None:
        report.tooleval = result.to_json()  # plain JSON data: travels from xdist workers
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if report.when != "call":
        return None
    result = getattr(report, "tooleval", None)
    if result is None:
        return None
    outcome = result["outcome"]
    if outcome == "PARTIAL":
        return "partial", "P", ("PARTIAL", {"yellow": True})
    if outcome == "ERROR":
        return "error", "E", ("ERROR", {"red": True})
    return None


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> Any:
    """Our summary comes last, just before pytest's counts line. At default verbosity the
    cases' detail is in the reports (and under -v): pytest's FAILURES and ERRORS sections
    and its short summary leave the cases out; its counts line still counts them."""
    stats = terminalreporter.stats
    held = {} if config.get_verbosity() > 0 else {
        key: [r for r in stats.get(key, []) if getattr(r, "tooleval_case", False)]
        for key in ("failed", "error")}
    for key, reports in held.items():
        stats[key] = [r for r in stats.get(key, []) if r not in reports]
    try:
        result = yield
        _write_summary(terminalreporter, config)
        return result
    finally:
        for key, reports in held.items():
            if reports:
                stats[key] = stats.get(key, []) + reports


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    runtime = runtime_of(session.config)
    if runtime.is_worker:
        session.config.workeroutput[WORKER_INFO_KEY] = runtime.info()  # type: ignore[attr-defined]
        runtime.close()
        return
    controller = runtime.controller
    if controller is not None:
        controller.finish_run(session)
        session.exitstatus = controller.resumed_exit_status(int(session.exitstatus))
        if controller.nothing_scored:  # every case skipped: nothing was measured
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
        baseline = runtime.settings.baseline
        if (baseline is not None and controller.report is not None
                and controller.compare_with_baseline(baseline)):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        from pytest_tooleval.report.exporters import after_reports

        notes, written = after_reports(
            session.config, controller.report,
            None if controller.write_error else runtime.settings.report_dir,
            controller.comparison)
        controller.notes += notes
        controller.paths += written
    runtime.close()


def finish_recording(session: pytest.Session) -> Report | None:
    """The report, made once on the controller (pytest-json-report asks before our
    sessionfinish); None on a worker or in a check run."""
    controller = runtime_of(session.config).controller
    return controller.finish_run(session) if controller is not None else None


def _write_summary(terminalreporter: Any, config: pytest.Config) -> None:
    runtime = runtime_of(config)
    check_report = runtime.last_check_report
    if runtime.settings.check and check_report is not None:
        terminalreporter.write_sep("=", "tooleval check")
        for line in check_report.render_table().splitlines()[-12:]:
            terminalreporter.write_line(line)
    recorder = runtime.controller
    if recorder is not None and (recorder.results or (recorder.report is not None
                                                      and not recorder.nothing_scored)):
        # The second: a run stopped before its first case ended (0 of N ran, interrupted).
        from pytest_tooleval.report.terminal import write_summary

        # pytest ends a stopped run with the stop's reason: the verdict does not repeat it
        session = getattr(terminalreporter, "_session", None)
        write_summary(terminalreporter, recorder.report, recorder.paths, recorder.notes,
                      recorder.write_error, recorder.comparison_text, runtime.settings.baseline,
                      session.shouldstop or None if session is not None else None)
    elif recorder is not None and recorder.nothing_scored:
        terminalreporter.write_sep("=", "tooleval summary", red=True)
        terminalreporter.write_line(
            f"tooleval: NOTHING WAS SCORED: all {len(recorder.skipped)} case(s) were skipped "
            f"(exit {int(pytest.ExitCode.NO_TESTS_COLLECTED)}); the first reason: "
            + next(iter(recorder.skipped.values())))
        for path in recorder.paths:
            terminalreporter.write_line(f"  report: {path}")


class _XdistHooks:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def pytest_configure_node(self, node: Any) -> None:
        # One world template for the whole run: every worker gets the controller's folder.
        node.workerinput[WORLD_BASE_KEY] = str(self.runtime.world_base())
        node.workerinput[RESUMED_KEY] = sorted(self.runtime.resumed)

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self.runtime.controller is not None:
            self.runtime.controller.on_worker_collection(list(ids))

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {}) or {}
        if self.runtime.controller is not None:
            self.runtime.controller.add_worker_info(output.get(WORKER_INFO_KEY))
