"""pytest-json-report: per-case figures in each test's ``metadata`` and the run's summary in
the report's top-level ``tooleval`` key, through that plugin's own hooks.

Registered only when pytest-json-report is loaded; ``optionalhook`` keeps pluggy quiet when
``--json-report`` is not given (its hook specifications are then never added).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_tooleval.report.junit import call_counts
from pytest_tooleval.report.model import Report
from pytest_tooleval.result import LABELS, CaseResult


def case_metadata(result: CaseResult) -> dict[str, Any]:
    """JSON-typed figures of one case (the JUnit properties are all strings)."""
    return {
        "outcome": result.outcome.value,
        **{key: result.label(key) for key in LABELS},
        "axes": dict(result.axes),
        "reasons": list(result.reasons),
        "error": None if result.error is None else result.error.model_dump(),
        **call_counts(result),
        "latency_s": round(sum(step.latency_s for step in result.transcripts), 4),
        "duration_s": result.duration_s,
    }


def run_summary(report: Report) -> dict[str, Any]:
    summary = report.summary
    rate = summary.deployability.criterion("malformed_rate")
    return {
        "schema": report.schema_name,
        "schema_version": report.schema_version,
        "model": report.run.model.get("name"),
        "grammar": report.run.grammar,
        "score": summary.score,
        "score_interval": None if summary.score_interval is None
        else summary.score_interval.model_dump(mode="json"),
        "axes": {axis: data.model_dump(mode="json") for axis, data in summary.axes.items()},
        "outcomes": summary.outcomes,
        "safety_gate": summary.safety_gate.status,
        "verdict": summary.deployability.verdict,
        "valid": summary.deployability.valid,
        "calls": {**summary.calls.model_dump(mode="json"), "malformed_rate_interval":
                  rate.interval.model_dump(mode="json") if rate and rate.interval else None},
    }


class JsonReportHooks:
    def __init__(self, finish: Callable[[pytest.Session], Report | None]) -> None:
        self.finish = finish
        self.session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    @pytest.hookimpl(optionalhook=True)
    def pytest_json_runtest_metadata(self, item: pytest.Item, call: pytest.CallInfo[None]
                                     ) -> dict[str, Any] | None:
        result = getattr(item, "result", None)
        if call.when != "call" or result is None:
            return None
        return {"tooleval": case_metadata(result)}

    @pytest.hookimpl(optionalhook=True)
    def pytest_json_modifyreport(self, json_report: dict[str, Any]) -> None:
        if self.session is None:
            return
        report = self.finish(self.session)
        if report is not None:
            json_report["tooleval"] = run_summary(report)
        json_report["exitcode"] = int(self.session.exitstatus)  # the run's (a baseline's)
