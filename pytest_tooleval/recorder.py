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
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.report.json_report import build_report, package_version, platform_info
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
from pytest_tooleval.report.write import write_atomic, write_json
from pytest_tooleval.result import CaseResult, ErrorInfo
from pytest_tooleval.wiring import grammar_mode, isolation

log = logging.getLogger(__name__)


def selection(results: list[CaseResult], config: Any, sample: int) -> Selection:
    """What this run measured: the paths, -k, -m, the sampling, the command line, and a
    hash of the case set (each case's id and content hash)."""
    import hashlib
    import json

    pairs = sorted((r.nodeid, r.case_hash or "") for r in results)
    digest = hashlib.sha256(json.dumps(pairs).encode("utf-8")).hexdigest()[:16]
    option = getattr(config, "option", None)
    invocation = getattr(config, "invocation_params", None)
    return Selection(
        paths=[str(a) for a in getattr(config, "args", [])],
        keyword=getattr(option, "keyword", "") or None,
        markers=getattr(option, "markexpr", "") or None,
        sample_every=sample,
        cases=len(results),
        case_set_hash=digest,
        command_line=[str(a) for a in invocation.args] if invocation else [],
    )


def _is_case_report(report: Any) -> bool:
    """A report of a tooleval case: marked by the plugin, or the one pytest-xdist makes on
    the controller for a case whose worker crashed (it carries no mark of ours)."""
    if getattr(report, "tooleval_case", False):
        return True
    text = str(report.longrepr or "")
    return (is_case_nodeid(report.nodeid) and text.startswith("worker ")
            and "crashed while running" in text)


class Recorder:
    def __init__(self, settings: Settings, profile: Profile | None) -> None:
        self.settings = settings
        #: The --model profile (None for ``tooleval merge``, which takes the parts' run).
        self.profile = profile
        self.results: dict[str, CaseResult] = {}
        self.worker_info: list[dict[str, Any]] = []
        self.started = datetime.now(UTC)
        self.report: Report | None = None
        self.paths: list[Path] = []
        self.comparison_text = ""
        self.write_error: str | None = None
        self.baseline_error: str | None = None
        #: Cases skipped before they ran (``--tooleval-skip-missing``), with the reason.
        self.skipped: dict[str, str] = {}
        self.comparison: dict[str, Any] | None = None
        self.notes: list[str] = []
        #: Set by the run control (pytest_tooleval/control.py): the journal every result
        #: is appended to as it arrives, the count of selected cases, the run's identity
        #: and shard, and what a resumed run carried over.
        self.journal: Journal | None = None
        self.selected: int | None = None
        self.identity_hash: str | None = None
        self.shard: str | None = None
        self.resumed: Resumed | None = None
        #: From a resumed journal: its run, used when no case runs here (every case
        #: carried), so the report still names the backend, router and tools.
        self.carried_run: RunInfo | None = None
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

    def run_info(self, interrupted: str | None, config: Any) -> RunInfo:
        """The report's ``run``, field by field: the settings and profile, what the
        sessions described (``Runtime.info``, from each process), the run control's."""
        settings, profile = self.settings, self.profile
        assert profile is not None
        workers = [w for w in self.worker_info if w.get("backend")]
        first: dict[str, Any] = workers[0] if workers else {}
        carried = self.carried_run if not workers else None
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
            # Which configuration file the run used (docs/usage.md).
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
            backend=carried.backend if carried else first.get("backend", {}),
            backend_variants=carried.backend_variants if carried else
            len({repr(sorted(w["backend"].items())) for w in workers}),
            router=carried.router if carried else first.get("router") or {},
            tools_offered=carried.tools_offered if carried else
            sorted({t for w in self.worker_info for t in w.get("tools", [])}),
            providers=carried.providers if carried else first.get("providers", ""),
            # Each provider's describe(): MCP servers with the name and version they gave.
            tool_providers=carried.tool_providers if carried else
            first.get("tool_providers", []),
            started=self.started.isoformat(timespec="seconds"),
            finished=datetime.now(UTC).isoformat(timespec="seconds"),
            interrupted=interrupted,
            # Concurrent tool loops per process: asked for, used, and why not.
            concurrency=carried.concurrency if carried else first.get("concurrency"),
            cases_done=self.done,
            cases_selected=self.selected,
            identity_hash=self.identity_hash,
            shard=self.shard,
            selection=selection(list(self.results.values()), config, settings.sample),
            skipped=[Skipped(nodeid=nodeid, reason=reason)
                     for nodeid, reason in sorted(self.skipped.items())] or None,
            resumed=self.resumed,
        )

    @property
    def nothing_scored(self) -> bool:
        """Every case was skipped before it ran: the run measured nothing."""
        return not self.results and bool(self.skipped)

    def finish(self, interrupted: str | None, config: Any = None) -> Report | None:
        """Aggregate and write the reports, once (pytest-json-report asks first). A run
        stopped before its first case ended still gets one: 0 of N ran, interrupted."""
        if self.report is not None:
            return self.report
        if not self.results and not self.skipped and not (interrupted and self.selected):
            return None
        run = self.run_info(interrupted, config)
        if config is not None:
            # A plugin may add to or change the run's metadata (hookspec.py): its dict is
            # read back once, so what it wrote is checked like the rest.
            metadata = run.model_dump(mode="json")
            config.hook.pytest_tooleval_run_metadata(config=config, metadata=metadata)
            run = RunInfo.model_validate(metadata)
        return self.build_and_write(interrupted, run)

    def build_and_write(self, interrupted: str | None, run: RunInfo) -> Report:
        """Summarise what the recorder holds, build the report and write it (also used by
        ``tooleval merge``, with the shards' metadata)."""
        # Imported here, at the end of a run: scoring needs numpy, which neither
        # --collect-only nor the start of a run should pay for.
        from pytest_tooleval.report.markdown import render_markdown
        from pytest_tooleval.scoring.aggregate import summarize

        results = list(self.results.values())
        summary = summarize(results, self.settings.thresholds(), interrupted,
                            self._baselines(results))
        self.report = build_report(run, results, summary)
        directory = self.settings.report_dir
        json_path, md_path = directory / "report.json", directory / "report.md"
        try:
            write_json(json_path, self.report.to_json())
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
        from pytest_tooleval.report.compare import compare, render_comparison

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
