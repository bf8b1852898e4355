"""pytest-json-report: per-case figures in each test's ``metadata`` and the run's summary in
the report's top-level ``tooleval`` key, through that plugin's own hooks.

Registered only when pytest-json-report is loaded; ``optionalhook`` keeps pluggy quiet when
``--json-report`` is not given (its hook specifications are then never added).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_tooleval.report.junit import case_properties


def case_metadata(result: dict[str, Any]) -> dict[str, Any]:
    """JSON-typed figures of one case (the JUnit properties are all strings)."""
    props = dict(case_properties(result))
    transcript = result.get("transcript", [])
    return {
        "outcome": result["outcome"],
        "category": result.get("category"),
        "group": result.get("group"),
        "register": result.get("register"),
        "language": result.get("language"),
        "axes": dict(result.get("axes") or {}),
        "reasons": list(result.get("reasons") or []),
        "error": result.get("error"),
        "tool_calls": int(props["tooleval.tool_calls"]),
        "tool_calls_attempted": int(props["tooleval.tool_calls_attempted"]),
        "malformed_calls": int(props["tooleval.malformed_calls"]),
        "parser_leaks": int(props["tooleval.parser_leaks"]),
        "tools_ran": [a["name"] for s in transcript for a in s.get("attempts", [])
                      if a.get("valid") and a.get("name")],
        "latency_s": float(props["tooleval.latency_s"] or 0.0),
        "duration_s": result.get("duration_s"),
    }


def run_summary(report: dict[str, Any]) -> dict[str, Any]:
    summary = report["summary"]
    return {
        "schema": report["schema"],
        "schema_version": report["schema_version"],
        "model": report["run"].get("model", {}).get("name"),
        "grammar": report["run"].get("backend", {}).get("grammar"),
        "score": summary["score"],
        "axes": summary["axes"],
        "outcomes": summary["outcomes"],
        "safety_gate": summary["safety_gate"]["status"],
        "verdict": summary["deployability"]["verdict"],
        "valid": summary["deployability"]["valid"],
        "calls": summary["calls"],
    }


class JsonReportHooks:
    def __init__(self, finish: Callable[[pytest.Session], dict[str, Any] | None]) -> None:
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
