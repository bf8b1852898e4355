"""What the plugin's hooks hand to the exporters: one call per moment, logic elsewhere.

Each exporter is imported only when asked for, so a plain run loads nothing heavy.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_tooleval.report.model import Report
    from pytest_tooleval.result import CaseResult


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tooleval")
    group.addoption("--tooleval-metrics", dest="tooleval_metrics", default=None,
                    metavar="FILE", help="write the run's figures in Prometheus' textfile "
                    "format (needs the [metrics] extra: prometheus-client)")
    group.addoption("--tooleval-pushgateway", dest="tooleval_pushgateway", default=None,
                    metavar="URL", help="push the same figures to a Prometheus Pushgateway "
                    "(needs the [metrics] extra)")
    group.addoption("--tooleval-html", dest="tooleval_html", default=None,
                    choices=("on", "off"), help="write report.html beside report.json "
                    "(default on)")
    parser.addini("tooleval_junit_properties", "write per-case <properties> into JUnit XML "
                  "(a strict xunit2 validator rejects them)", type="bool", default=True)
    parser.addini("tooleval_metrics", "path of the Prometheus textfile to write", default=None)
    parser.addini("tooleval_pushgateway", "Prometheus Pushgateway URL to push to", default=None)
    parser.addini("tooleval_html", "write report.html beside report.json (on/off)",
                  default=None)


def _setting(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(f"tooleval_{name}", default=None) or config.getini(
        f"tooleval_{name}")
    return value or None


def check_options(config: pytest.Config) -> None:
    """Fail at start, not after an hour of cases, when an asked-for extra is missing."""
    import importlib.util

    for name, flag in (("metrics", "--tooleval-metrics"),
                       ("pushgateway", "--tooleval-pushgateway")):
        if _setting(config, name) and importlib.util.find_spec("prometheus_client") is None:
            raise pytest.UsageError(
                f"{flag} needs prometheus-client, which is not installed: "
                "pip install 'pytest-tooleval[metrics]'")


def case_user_properties(config: pytest.Config, result: CaseResult) -> list[tuple[str, str]]:
    if not config.getini("tooleval_junit_properties"):
        return []
    from pytest_tooleval.report.junit import case_properties

    return case_properties(result)


def written_files(config: pytest.Config) -> list[Path]:
    """The files besides report.* this run writes (the metrics textfile, JUnit XML): a
    run's start moves an earlier run's out of the report folder (journal.set_aside)."""
    paths = [_setting(config, "metrics"), getattr(config.option, "xmlpath", None)]
    return [Path(path) for path in paths if path]


def after_reports(config: pytest.Config, report: Report | None, html_dir: Path | None,
                  comparison: dict[str, Any] | None) -> tuple[list[str], list[Path]]:
    """Called on the controller once report.json is written (``html_dir``: its folder, None
    when it could not be written); returns lines to print and the files written.

    Each exporter is on its own: one that cannot write says so, and the others still run.
    """
    notes: list[str] = []
    written: list[Path] = []
    xmlpath = getattr(config.option, "xmlpath", None)
    if xmlpath and Path(xmlpath).is_file():
        from pytest_tooleval.report.junit import rewrite

        _guarded(notes, "JUnit XML", lambda: rewrite(Path(xmlpath), report))
    if report is None:
        return notes, written
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        from pytest_tooleval.report.github import append_step_summary

        if _guarded(notes, "job summary", lambda: append_step_summary(
                Path(summary_file), report, comparison)):
            notes.append(f"job summary: appended to {summary_file}")
    if (_setting(config, "html") or "on") == "on" and html_dir is not None:
        from pytest_tooleval.report.html import write_html

        path = html_dir / "report.html"
        if _guarded(notes, "report.html", lambda: write_html(path, report)):
            written.append(path)
    metrics_file = _setting(config, "metrics")
    gateway = _setting(config, "pushgateway")
    if metrics_file or gateway:
        from pytest_tooleval.report.metrics import push, write_textfile

        if metrics_file and _guarded(notes, "metrics",
                                     lambda: write_textfile(Path(metrics_file), report)):
            notes.append(f"metrics: {metrics_file}")
        if gateway:
            try:
                push(gateway, report)
                notes.append(f"metrics: pushed to {gateway}")
            except OSError as exc:  # the run's reports are written; say so, do not crash
                notes.append(f"metrics: could not push to {gateway}: {exc}")
    return notes, written


def _guarded(notes: list[str], what: str, write: Callable[[], None]) -> bool:
    try:
        write()
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        notes.append(f"{what}: could not write{where}: {exc.strerror or exc}")
        return False
    return True
