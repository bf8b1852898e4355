"""The controller's side of a run: gathers per-case results from reports, aggregates once,
writes the reports and prints the summary. Never runs on an xdist worker.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.files import is_case_nodeid
from pytest_tooleval.config import Settings
from pytest_tooleval.journal import Journal
from pytest_tooleval.report.json_report import build_report
from pytest_tooleval.report.write import write_atomic, write_json
from pytest_tooleval.result import CaseResult, ErrorInfo

log = logging.getLogger(__name__)


def selection(results: list[CaseResult], config: Any, sample: int) -> dict[str, Any]:
    """What this run measured: the paths, -k, -m, the sampling, the command line, and a
    hash of the case set (each case's id and content hash)."""
    import hashlib
    import json

    pairs = sorted((r.nodeid, r.case_hash or "") for r in results)
    digest = hashlib.sha256(json.dumps(pairs).encode("utf-8")).hexdigest()[:16]
    option = getattr(config, "option", None)
    invocation = getattr(config, "invocation_params", None)
    return {
        "paths": [str(a) for a in getattr(config, "args", [])],
        "keyword": getattr(option, "keyword", "") or None,
        "markers": getattr(option, "markexpr", "") or None,
        "sample_every": sample,
        "cases": len(results),
        "case_set_hash": digest,
        "command_line": [str(a) for a in invocation.args] if invocation else [],
    }


def _is_case_report(report: Any) -> bool:
    """A report of a tooleval case: marked by the plugin, or the one pytest-xdist makes on
    the controller for a case whose worker crashed (it carries no mark of ours)."""
    if getattr(report, "tooleval_case", False):
        return True
    text = str(report.longrepr or "")
    return (is_case_nodeid(report.nodeid) and text.startswith("worker ")
            and "crashed while running" in text)


class Recorder:
    def __init__(self, settings: Settings, run_info: dict[str, Any]) -> None:
        self.settings = settings
        self.run_info = run_info
        self.results: dict[str, CaseResult] = {}
        self.worker_info: list[dict[str, Any]] = []
        self.started = datetime.now(UTC)
        self.report: dict[str, Any] | None = None
        self.paths: list[Path] = []
        self.comparison_text = ""
        self.write_error: str | None = None
        self.baseline_error: str | None = None
        #: Cases skipped before they ran (``--tooleval-skip-missing``), with the reason.
        self.skipped: dict[str, str] = {}
        self.comparison: dict[str, Any] | None = None
        self.notes: list[str] = []
        #: Set by the run control (pytest_tooleval/control.py): the journal every result
        #: is appended to as it arrives, the count of selected cases, extra run metadata.
        self.journal: Journal | None = None
        self.selected: int | None = None
        self.extra_run: dict[str, Any] = {}
        #: From a resumed journal: what its run's session described, used when no case
        #: runs here (every case carried), so the report still names the backend.
        self.carried_run: dict[str, Any] = {}
        #: The run's world base (runtime.world_base): the baselines reuse its template.
        self.world_base: Any = None

    @property
    def done(self) -> int:
        """Cases that finished: with a result, or skipped (a skip is a finished case)."""
        return len(self.results) + len(set(self.skipped) - set(self.results))

    def _keep(self, nodeid: str, result: CaseResult, data: dict[str, Any] | None = None) -> None:
        self.results[nodeid] = result
        if self.journal is not None:
            self.journal.append(data if data is not None else result.to_json())

    def add_report(self, report: Any) -> None:
        """Take a case's result off a test report (from this process or a worker)."""
        data = getattr(report, "tooleval", None)
        if data is not None and report.when == "call":
            self._keep(report.nodeid, CaseResult.from_json(data), data)
            return
        if not _is_case_report(report):
            return  # another plugin's item (a failing YAML test is not a tooleval ERROR)
        if report.skipped and report.when == "setup":
            longrepr = report.longrepr
            self.skipped[report.nodeid] = str(longrepr[2] if isinstance(longrepr, tuple)
                                              else longrepr)
            return
        if not report.failed:
            return
        if report.nodeid in self.results:
            return
        # No result travelled: a failing fixture, or a worker that crashed mid-case.
        reason = str(report.longrepr)[-600:] if report.longrepr else "no result was recorded"
        error = ErrorInfo(kind="crash",
                          message=f"the case did not run to the end ({report.when}): {reason}")
        self._keep(report.nodeid, CaseResult.infrastructure_error(report.nodeid, error))

    def add_worker_info(self, info: dict[str, Any] | None) -> None:
        if info:
            self.worker_info.append(info)

    def _run_metadata(self, interrupted: str | None) -> dict[str, Any]:
        backends = [w["backend"] for w in self.worker_info if w.get("backend")]
        tools = sorted({t for w in self.worker_info for t in w.get("tools", [])})
        routers = [w["router"] for w in self.worker_info if w.get("router")]
        providers = next((w["providers"] for w in self.worker_info if w.get("providers")), "")
        run_info = dict(self.run_info)
        if any(w.get("session") == "pytest_tooleval_make_session" for w in self.worker_info):
            # The profile named by --model did not run: describe what did.
            name = backends[0].get("model") if backends else None
            run_info["model"] = {"name": name or "a session from pytest_tooleval_make_session",
                                 "source": "pytest_tooleval_make_session"}
        return {
            **run_info,
            "backend": backends[0] if backends else {},
            "backend_variants": len({repr(sorted(b.items())) for b in backends}),
            "router": routers[0] if routers else {},
            "tools_offered": tools,
            "providers": providers,
            # Each provider's describe(): MCP servers with the name and version they gave.
            "tool_providers": next((w["tool_providers"] for w in self.worker_info
                                    if w.get("tool_providers")), []),
            "started": self.started.isoformat(timespec="seconds"),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "interrupted": interrupted,
            # Concurrent tool loops per process: asked for, used, and why not (a profile's
            # concurrency; docs/usage.md).
            "concurrency": next((w["concurrency"] for w in self.worker_info
                                 if w.get("concurrency")), None),
            **(self.carried_run if not backends else {}),
            "cases_done": self.done,
            "cases_selected": self.selected,
            **self.extra_run,
        }

    @property
    def nothing_scored(self) -> bool:
        """Every case was skipped before it ran: the run measured nothing."""
        return not self.results and bool(self.skipped)

    def finish(self, interrupted: str | None, config: Any = None) -> dict[str, Any] | None:
        """Aggregate and write the reports, once (pytest-json-report asks first). A run
        stopped before its first case ended still gets one: 0 of N ran, interrupted."""
        if self.report is not None:
            return self.report
        if not self.results and not self.skipped and not (interrupted and self.selected):
            return None
        metadata = self._run_metadata(interrupted)
        metadata["selection"] = selection(list(self.results.values()), config,
                                          self.settings.sample)
        if self.skipped:
            metadata["skipped"] = [{"nodeid": nodeid, "reason": reason}
                                   for nodeid, reason in sorted(self.skipped.items())]
        if config is not None:
            config.hook.pytest_tooleval_run_metadata(config=config, metadata=metadata)
        return self.build_and_write(interrupted, metadata)

    def build_and_write(self, interrupted: str | None,
                        metadata: dict[str, Any]) -> dict[str, Any]:
        """Summarise what the recorder holds, build the report and write it (also used by
        ``tooleval merge``, with the shards' metadata)."""
        # Imported here, at the end of a run: scoring needs numpy, which neither
        # --collect-only nor the start of a run should pay for.
        from pytest_tooleval.report.markdown import render_markdown
        from pytest_tooleval.scoring.aggregate import summarize

        results = list(self.results.values())
        summary = summarize(results, self.settings.thresholds(), interrupted,
                            self._baselines(results))
        self.report = build_report(metadata, results, summary)
        directory = self.settings.report_dir
        json_path, md_path = directory / "report.json", directory / "report.md"
        try:
            write_json(json_path, self.report)
            write_atomic(md_path, render_markdown(self.report))
        except OSError as exc:
            self.write_error = (f"could not write the report to {directory}: "
                                f"{exc.strerror or exc}. Pass --tooleval-report DIR with a "
                                "folder you can write to.")
            return self.report
        self.paths = [json_path, md_path]
        return self.report

    def _baselines(self, results: list[CaseResult]) -> dict[str, Any]:
        """The scripted policies' scores on the cases this run scored (never fatal)."""
        from pytest_tooleval.scoring.baselines import refs_for_results, score_policies

        try:
            return score_policies(refs_for_results(results, self.settings.rootdir),
                                  k=self.settings.k, builtin=not self.settings.no_builtin,
                                  world_base=self.world_base() if self.world_base else None)
        except Exception as exc:  # the baselines are a measurement aid; never lose a run
            log.warning("the baselines could not be scored", exc_info=True)
            self.baseline_error = f"the baselines could not be scored: {exc}"
            return {}

    def compare_with_baseline(self, baseline: Path) -> bool:
        """Compare with a baseline report; True when the comparison fails the run."""
        from pytest_tooleval.report.compare import (
            ReportError,
            compare,
            load_report,
            render_comparison,
        )

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
