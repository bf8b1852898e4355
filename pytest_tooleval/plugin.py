"""pytest hooks only. The run's modules (run/runtime.py per process, run/controller.py on
the controller) are imported when pytest configures the plugin, not when it loads.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_tooleval.config import Settings, add_options
from pytest_tooleval.run import (
    RUNTIME_KEY,
    WORKER_INFO_KEY,
    collection_cut_short,
    ordering,
    runtime_of,
)
from pytest_tooleval.run.casepaths import case_paths_instead_of_testpaths
from pytest_tooleval.run.shard import shard_items

if TYPE_CHECKING:
    from pytest_tooleval.engine.session import ModelSession
    from pytest_tooleval.report.model import Report

def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_tooleval import hookspec

    pluginmanager.add_hookspecs(hookspec)


def pytest_addoption(parser: pytest.Parser) -> None:
    from pytest_tooleval.report import exporters, progress

    add_options(parser)
    ordering.add_option(parser)
    progress.add_option(parser)
    exporters.add_options(parser)
    parser.addini("tooleval_files", "glob patterns (from the rootdir; in a folder named on "
                  "the command line, from the folder pytest runs in too, if inside it) of case "
                  "files to collect", type="linelist", default=[])
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
    from pytest_tooleval.run.controller import start_run

    exporters.check_options(config)
    settings = Settings.from_pytest(config)
    try:
        profile = resolve_profile(settings.model, settings.profiles, settings.rootdir,
                                  settings.config_file)
    except ProfileError as exc:
        raise pytest.UsageError(str(exc)) from None

    start_run(config, settings, profile)
    if config.pluginmanager.hasplugin("pytest_jsonreport"):
        from pytest_tooleval.report.pytest_json_report import JsonReportHooks

        config.pluginmanager.register(JsonReportHooks(finish_recording),
                                      "tooleval-json-report")


def pytest_unconfigure(config: pytest.Config) -> None:
    runtime = config.stash.get(RUNTIME_KEY, None)
    if runtime is not None and runtime.controller is not None:
        runtime.controller.unconfigure()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _select(config, items)
    runtime = runtime_of(config)
    from pytest_tooleval.collect import CaseItem
    from pytest_tooleval.tools.base import ConfigurationError

    # Ordering builds the session: only when there are cases to order.
    if runtime.settings.check or sum(isinstance(item, CaseItem) for item in items) < 2:
        return
    # A broken configuration is already a collection error; the order stays.
    with contextlib.suppress(ConfigurationError):
        if ordering.wanted(config, runtime):
            items[:] = ordering.prefix_order(items, runtime.session(),
                                             lambda item: isinstance(item, CaseItem))


def _select(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--tooleval-sample`` keeps every Nth case, then ``--tooleval-shard`` this shard's;
    a resumed run drops the journalled ones."""
    from pytest_tooleval.collect import CaseItem

    runtime = runtime_of(config)
    kept = list(items)
    if runtime.settings.sample > 1:
        # By case, so every try of a repeated case is kept or dropped together; one count
        # across files, so files of one case each are not all kept.
        seen: dict[tuple[str, str], int] = {}
        kept = [item for item in kept if not isinstance(item, CaseItem) or seen.setdefault(
            (str(item.path), item.case.name), len(seen)) % runtime.settings.sample == 0]
    if not runtime.settings.check:
        if runtime.shard is not None:
            kept = shard_items(kept, runtime.shard, lambda item: isinstance(item, CaseItem),
                               lambda item: item.nodeid)
        kept = [item for item in kept if item.nodeid not in runtime.resumed]
    if len(kept) < len(items):
        chosen = {id(item) for item in kept}
        config.hook.pytest_deselected(items=[item for item in items if id(item) not in chosen])
        items[:] = kept


@pytest.hookimpl(tryfirst=True)  # before xdist sends a worker's collection
def pytest_collection_finish(session: pytest.Session) -> None:
    if not collection_cut_short():  # nothing is started after a Ctrl-C
        runtime_of(session.config).check_configuration(session)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    from pytest_tooleval.collect import CaseFileCollector, wants_file

    if wants_file(file_path, parent.config):
        return CaseFileCollector.from_parent(parent, path=file_path)
    return None


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder named like a case file is refused by its collector, never walked."""
    return pytest_collect_file(path, parent)


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


#: pytest's status of the outcomes it has no word for (PASS and FAIL are its own).
_STATUS = {"PARTIAL": ("partial", "P", ("PARTIAL", {"yellow": True})),
           "ERROR": ("error", "E", ("ERROR", {"red": True}))}


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if report.when == "???" and report.failed:  # xdist's: the case's worker crashed
        from pytest_tooleval.run.controller import cut_off, is_case_report

        if not is_case_report(report):
            return None
        return ("", "", "") if cut_off(report) else _STATUS["ERROR"]
    result = getattr(report, "tooleval", None) if report.when == "call" else None
    return None if result is None else _STATUS.get(result["outcome"])


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> Any:
    """Our summary comes last, before pytest's counts line. At default verbosity pytest's
    FAILURES and ERRORS sections and short summary leave the cases out (they are in the
    reports, and under -v); the counts line still counts them."""
    stats = terminalreporter.stats
    held = {} if config.get_verbosity() > 0 else {
        key: [r for r in stats.get(key, []) if getattr(r, "tooleval_case", False)]
        for key in ("failed", "error")}
    for key, reports in held.items():
        stats[key] = [r for r in stats.get(key, []) if r not in reports]
    try:
        result = yield
        _write_summary(terminalreporter, config, exitstatus)
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
        finish_recording(session)
        from pytest_tooleval.report.exporters import after_reports

        notes, written = after_reports(
            session.config, controller.report,
            None if controller.write_error else runtime.settings.report_dir,
            controller.comparison)
        controller.notes += notes
        controller.paths += written
    runtime.close()


def finish_recording(session: pytest.Session) -> Report | None:
    """The report and the run's exit status, settled once (pytest-json-report asks before
    our sessionfinish); None on a worker or in a check run."""
    runtime = runtime_of(session.config)
    controller = runtime.controller
    if controller is None:
        return None
    if controller.exit_status is None:
        controller.finish_run(session)
        session.exitstatus = controller.resumed_exit_status(int(session.exitstatus))
        if controller.nothing_scored:  # every case skipped: nothing was measured
            session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
        baseline = runtime.settings.baseline
        if (baseline is not None and controller.report is not None
                and controller.compare_with_baseline(baseline)):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        controller.exit_status = int(session.exitstatus)
    return controller.report


def _write_summary(terminalreporter: Any, config: pytest.Config, exitstatus: int) -> None:
    runtime = runtime_of(config)
    check_report = runtime.last_check_report
    if runtime.settings.check and check_report is not None:
        terminalreporter.write_sep("=", "tooleval check")
        for line in check_report.render_table().splitlines()[-12:]:
            terminalreporter.write_line(line)
    recorder = runtime.controller
    if recorder is not None and (recorder.results or (recorder.report is not None
                                                      and not recorder.nothing_scored)):
        # (the second: a run stopped before its first case ended)
        from pytest_tooleval.report.terminal import write_summary

        # pytest ends a stopped run with the stop's reason (xdist's, its workers'): the
        # verdict does not repeat it
        stops = (getattr(terminalreporter, "_session", None),
                 config.pluginmanager.get_plugin("dsession"))
        write_summary(terminalreporter, recorder.report, recorder.paths, recorder.notes,
                      recorder.write_error, recorder.comparison_text, runtime.settings.baseline,
                      next(filter(None, (getattr(s, "shouldstop", None) for s in stops)), None))
    elif recorder is not None and recorder.nothing_scored:
        from pytest_tooleval.report.terminal import report_lines, wrapped

        terminalreporter.write_sep("=", "tooleval summary", red=True)
        for line in [*wrapped(
                f"tooleval: NOTHING WAS SCORED: all {len(recorder.skipped)} case(s) were "
                f"skipped (exit {int(pytest.ExitCode.NO_TESTS_COLLECTED)}); the first reason: "
                + next(iter(recorder.skipped.values()))), *report_lines(recorder.paths)]:
            terminalreporter.write_line(line)
    elif recorder is not None and recorder.selected is None and not config.option.collectonly:
        # -k or -m left no case, or the run was stopped before its selection was known; the
        # folder still holds another run's report, as it was
        # (Ctrl-C or SIGTERM; a stop for a collection error or the tool set-up says its reason)
        stopped = exitstatus == pytest.ExitCode.INTERRUPTED and (
            recorder.signal_name or not recorder.interrupt_message)
        why = "interrupted during collection: " if stopped else ""
        line = f"tooleval: {why}no case ran, no report written"
        if (runtime.settings.report_dir / "report.json").exists():
            terminalreporter.write_line(f"{line}: the reports in {runtime.settings.report_dir} "
                                        "are an earlier run's")
        elif why:
            terminalreporter.write_line(line)
