"""The end of a run and of ``tooleval merge``: the results summarised (with the scripted
baselines), ``report.json`` and ``report.md`` written. Imported at the end: numpy.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tooleval.atomic import write_atomic
from pytest_tooleval.cases.model import CaseFile
from pytest_tooleval.config import Settings
from pytest_tooleval.report.json_report import build_report
from pytest_tooleval.report.markdown import render_markdown
from pytest_tooleval.report.model import OverMaxTokens, Report, RunInfo, StatisticsInfo
from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.aggregate import summarize
from pytest_tooleval.scoring.baselines import refs_for_results, score_policies

log = logging.getLogger(__name__)


@dataclass
class Finished:
    """The report, the files written, and why they could not be (the folder named)."""

    report: Report
    paths: list[Path] = field(default_factory=list)
    write_error: str | None = None


def settings_for(run: RunInfo, statistics: StatisticsInfo | None, rootdir: Path,
                 report_dir: Path) -> Settings:
    """The settings a stored run ran with, as far as its report depends on them: what
    ``tooleval merge`` and ``tooleval rescore --report`` finish with. ``statistics``: its
    report's (None: not recorded, the defaults)."""
    thresholds = run.thresholds
    intervals = statistics.model_dump(include={"level", "max_width"}) if statistics else {}
    return Settings(rootdir=rootdir, report_dir=report_dir, k=run.k, gate=thresholds.gate,
                    min_score=thresholds.min_score, max_malformed=thresholds.max_malformed,
                    latency_p95=thresholds.latency_p95, min_cases=thresholds.min_cases,
                    **intervals)


def finish(results: list[CaseResult], run: RunInfo, settings: Settings,
           interrupted: str | None = None, world_base: Path | None = None,
           loaded: Mapping[Path, CaseFile] | None = None,
           report_option: str = "--tooleval-report") -> Finished:
    """Summarise ``results``, build the report and write it to ``settings.report_dir``.
    ``loaded``: case files already read (by their resolved path); the others are read.
    ``report_option``: the option that names the folder, for the message when it cannot be
    written (``tooleval merge`` and ``rescore`` call it ``--report``)."""
    run = run.model_copy(update={"over_max_tokens": over_max_tokens(results, run)})
    summary = summarize(results, settings.thresholds(), interrupted,
                        _baselines(results, settings, world_base, loaded or {}))
    finished = Finished(build_report(run, results, summary))
    directory = settings.report_dir
    json_path, md_path = directory / "report.json", directory / "report.md"
    try:
        # pydantic's own serializer: the same data and form as json.dumps (a number below
        # 1e-4 is written 0.000099, not 9.9e-05), six times faster.
        write_atomic(json_path, finished.report.model_dump_json(indent=2, by_alias=True) + "\n")
        write_atomic(md_path, render_markdown(finished.report))
    except OSError as exc:
        finished.write_error = (f"could not write the report to {directory}: "
                                f"{exc.strerror or exc}. Pass {report_option} DIR with a "
                                "folder you can write to.")
        return finished
    finished.paths = [json_path, md_path]
    return finished


def over_max_tokens(results: list[CaseResult], run: RunInfo) -> OverMaxTokens | None:
    """The model calls that ended by themselves (not at the limit, which llama.cpp may pass
    by a token or two) with more completion tokens than the profile's max_tokens."""
    limit = run.model.get("max_tokens")
    if not isinstance(limit, int):
        return None
    counted = [call for result in results for step in result.transcripts
               for call in step.model_calls if call.completion_tokens is not None]
    over = [call.completion_tokens or 0 for call in counted
            if call.finish_reason != "length" and (call.completion_tokens or 0) > limit]
    return OverMaxTokens(max_tokens=limit, model_calls=len(over), of=len(counted),
                         most=max(over)) if over else None


def _baselines(results: list[CaseResult], settings: Settings, world_base: Path | None,
               loaded: Mapping[Path, CaseFile]) -> dict[str, Any]:
    """The scripted policies' scores on the cases this run scored (never fatal)."""
    try:
        return score_policies(refs_for_results(results, settings.rootdir, loaded), k=settings.k,
                              builtin=not settings.no_builtin, world_base=world_base)
    except Exception:  # the baselines are a measurement aid; never lose a run
        log.warning("the baselines could not be scored", exc_info=True)
        return {}
