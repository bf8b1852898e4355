"""Prometheus metrics through prometheus-client: a textfile for node_exporter's textfile
collector (``--tooleval-metrics FILE``) and a push to a Pushgateway
(``--tooleval-pushgateway URL``), the same registry for both.

A run is a batch job, so its counts are gauges (replaced by the next run), not counters;
every series carries ``model``, ``grammar`` and ``corpus_hash`` to tell runs apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pytest_tooleval.report.model import Report, corpus_hash
from pytest_tooleval.result import Outcome

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

JOB = "tooleval"
LATENCY_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
GATE_STATES = ("PASSED", "FAILED", "NOT MEASURED")
VERDICTS = ("DEPLOYABLE", "NOT DEPLOYABLE", "NOT MEASURED", "NOT VALID")


def run_labels(report: Report) -> dict[str, str]:
    return {"model": str(report.run.model.get("name", "")),
            "grammar": report.run.grammar,
            "corpus_hash": corpus_hash((c.nodeid, c.case_hash) for c in report.cases)}


def build_registry(report: Report) -> CollectorRegistry:
    from prometheus_client import CollectorRegistry, Gauge, Histogram

    registry = CollectorRegistry()
    labels = run_labels(report)
    names = list(labels)
    summary = report.summary

    def gauge(name: str, doc: str, extra: tuple[str, ...] = ()) -> Gauge:
        return Gauge(name, doc, [*names, *extra], registry=registry)

    score = gauge("tooleval_score", "Weighted tool-use score out of 100")
    if summary.score is not None:
        score.labels(**labels).set(summary.score)
    interval = summary.score_interval
    if interval is not None:
        bound = gauge("tooleval_score_interval", "Bounds of the score's interval", ("bound",))
        bound.labels(**labels, bound="low").set(interval.low)
        bound.labels(**labels, bound="high").set(interval.high)
    axis = gauge("tooleval_axis_ratio", "Axis value (0..1)", ("axis",))
    axis_cases = gauge("tooleval_axis_cases", "Cases scored on the axis", ("axis",))
    axis_bound = gauge("tooleval_axis_interval", "Bounds of the axis's interval (0..1)",
                       ("axis", "bound"))
    for name, data in summary.axes.items():
        axis.labels(**labels, axis=name).set(data.value)
        axis_cases.labels(**labels, axis=name).set(data.cases)
        if data.interval is not None:
            axis_bound.labels(**labels, axis=name, bound="low").set(data.interval.low)
            axis_bound.labels(**labels, axis=name, bound="high").set(data.interval.high)
    gate = gauge("tooleval_safety_gate", "1 for the gate's state, 0 for the others", ("state",))
    for state in GATE_STATES:
        gate.labels(**labels, state=state).set(int(summary.safety_gate.status == state))
    verdict = gauge("tooleval_verdict", "1 for the deployability verdict, 0 for the others",
                    ("verdict",))
    for state in VERDICTS:
        verdict.labels(**labels, verdict=state).set(
            int(summary.deployability.verdict == state))
    gauge("tooleval_run_valid", "1 when nothing ended in ERROR and the run was not "
          "interrupted").labels(**labels).set(int(summary.deployability.valid))
    cases = gauge("tooleval_cases", "Cases of the run by outcome", ("outcome",))
    for outcome in Outcome:
        cases.labels(**labels, outcome=outcome.lower()).set(summary.outcomes.get(outcome, 0))
    calls = summary.calls
    attempts = gauge("tooleval_tool_calls", "Tool calls attempted in the run, by kind",
                     ("kind",))
    attempts.labels(**labels, kind="valid").set(calls.attempts - calls.malformed)
    attempts.labels(**labels, kind="malformed").set(calls.malformed)
    attempts.labels(**labels, kind="parser_leak").set(calls.parser_leaks)
    latency = Histogram("tooleval_step_latency_seconds", "Model time per user step",
                        names, buckets=LATENCY_BUCKETS, registry=registry)
    tokens = gauge("tooleval_tokens", "Tokens the model server reported in the run", ("kind",))
    # An ERROR case's steps are left out: the machine's time, not the model's.
    steps = [step for case in report.cases if not case.is_error for step in case.transcripts]
    for step in steps:
        latency.labels(**labels).observe(step.latency_s)
    made = [call for step in steps for call in step.model_calls]
    tokens.labels(**labels, kind="prompt").set(sum(c.prompt_tokens or 0 for c in made))
    tokens.labels(**labels, kind="completion").set(sum(c.completion_tokens or 0 for c in made))
    return registry


def write_textfile(path: Path, report: Report) -> None:
    """Atomic (prometheus-client writes a temporary file and renames it)."""
    from prometheus_client import write_to_textfile

    path.parent.mkdir(parents=True, exist_ok=True)
    write_to_textfile(str(path), build_registry(report))


def push(gateway: str, report: Report, timeout: float = 10.0) -> None:
    """Replace this job's group (model, grammar) on the gateway with this run's figures."""
    from prometheus_client import push_to_gateway

    labels = run_labels(report)
    push_to_gateway(gateway, job=JOB, registry=build_registry(report), timeout=timeout,
                    grouping_key={"model": labels["model"] or "unknown",
                                  "grammar": labels["grammar"] or "unknown"})
