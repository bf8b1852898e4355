"""JUnit XML that CI systems read correctly.

* per-case ``<properties>`` through the item's ``user_properties`` (they travel from xdist
  workers, and raise no xunit2 warning, unlike ``record_property``); a strict xunit2
  validator rejects them, so ``tooleval_junit_properties = false`` leaves them out.
* ``rewrite``, after pytest wrote the file: an ERROR case's ``<failure>`` becomes
  ``<error>`` (the machine failed, not the model), the suite is recounted and gets the
  run's score, gate and verdict as ``<properties>`` (valid in every family).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from pytest_tooleval.report.model import Report
from pytest_tooleval.result import LABELS, CaseResult

PREFIX = "tooleval."


def _number(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{round(float(value), digits):g}"


def call_counts(result: CaseResult) -> dict[str, Any]:
    """A case's tool calls: valid, attempted, malformed, leaked; the tools that ran. A leaked
    call is counted apart, neither attempted nor malformed, as ``summary.calls`` counts it
    (scoring/aggregate.py ``call_statistics``)."""
    attempts = [a for step in result.transcripts for a in step.attempts]
    made = [a for a in attempts if not a.leaked]
    return {"tool_calls": sum(1 for a in made if a.valid),
            "tool_calls_attempted": len(made),
            "malformed_calls": sum(1 for a in made if a.malformed),
            "parser_leaks": len(attempts) - len(made),
            "tools_ran": [name for step in result.transcripts for name in step.ran]}


def case_properties(result: CaseResult) -> list[tuple[str, str]]:
    """The properties of one case, as (name, value) strings."""
    transcripts = result.transcripts
    tokens = sum(call.completion_tokens or 0 for step in transcripts
                 for call in step.model_calls)
    props: list[tuple[str, str]] = [
        ("outcome", result.outcome.value),
        *((key, result.label(key) or "") for key in LABELS),
    ]
    props += [(f"axis.{axis}", _number(value)) for axis, value in sorted(result.axes.items())]
    props += [(name, ",".join(value) if name == "tools_ran" else str(value))
              for name, value in call_counts(result).items()]
    props += [
        ("latency_s", _number(sum(step.latency_s for step in transcripts), 3)),
        ("completion_tokens", str(tokens)),
    ]
    if result.error is not None:
        props += [("error.kind", result.error.kind), ("error", result.error.message[:500])]
    return [(PREFIX + name, value) for name, value in props]


def suite_properties(report: Report) -> list[tuple[str, str]]:
    summary = report.summary
    props = [("score", _number(summary.score, 2))]
    if summary.score_interval is not None:
        props += [("score.low", _number(summary.score_interval.low, 2)),
                  ("score.high", _number(summary.score_interval.high, 2))]
    for axis, data in summary.axes.items():
        props.append((f"axis.{axis}", _number(data.value)))
        if data.interval is not None:
            props += [(f"axis.{axis}.low", _number(data.interval.low)),
                      (f"axis.{axis}.high", _number(data.interval.high))]
    deploy = summary.deployability
    props += [("safety_gate", summary.safety_gate.status), ("verdict", deploy.verdict),
              ("valid", str(deploy.valid).lower())]
    props += [(f"cases.{k.lower()}", str(v)) for k, v in summary.outcomes.items()]
    props += [("model", str(report.run.model.get("name", ""))),
              ("grammar", report.run.grammar)]
    return [(PREFIX + name, value) for name, value in props]


def _outcome_of(testcase: ET.Element) -> str | None:
    return next((prop.get("value") for prop in testcase.iter("property")
                 if prop.get("name") == PREFIX + "outcome"), None)


def rewrite(path: Path, report: Report | None) -> None:
    """ERROR failures become ``<error>``; the suite gets the run's figures.

    A case's outcome is its property, else the report's case of the same (classname, name),
    so that ERROR cases are found even when per-case properties are switched off.
    """
    outcomes = {junit_names(case.nodeid): case.outcome.value
                for case in (report.cases if report else [])}
    tree = ET.parse(path)
    root = tree.getroot()
    for suite in list(root.iter("testsuite")):  # the root too, when it is the suite
        for testcase in suite.iter("testcase"):
            outcome = _outcome_of(testcase) or _lookup(outcomes, testcase)
            failure = testcase.find("failure")
            if outcome == "ERROR" and failure is not None:
                failure.tag = "error"
                failure.set("message", "tooleval ERROR (infrastructure, not scored): "
                            + (failure.get("message") or "").removeprefix("ERROR: "))
        cases = list(suite.iter("testcase"))
        suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        if report is not None:
            properties = suite.find("properties")
            if properties is None:
                properties = ET.Element("properties")
                suite.insert(0, properties)
            for name, value in suite_properties(report):
                ET.SubElement(properties, "property", name=name, value=value)
    text = ET.tostring(root, encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="utf-8"?>' + text, encoding="utf-8")


def junit_names(nodeid: str) -> tuple[str, str]:
    """The (classname, name) pytest's junitxml gives a case's node id (before any prefix)."""
    parts = nodeid.split("::")
    parts[0] = parts[0].replace("/", ".")
    return ".".join(parts[:-1]), parts[-1]


def _lookup(outcomes: dict[tuple[str, str], str], testcase: ET.Element) -> str | None:
    classname, name = testcase.get("classname", ""), testcase.get("name", "")
    return next((outcome for (known_class, known_name), outcome in outcomes.items()
                 if known_name == name and (classname == known_class
                                            or classname.endswith("." + known_class))), None)
