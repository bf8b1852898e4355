"""What the terminal shows: a case short of PASS explained, and the run's summary.

The one place a ``CaseResult`` is rendered as text for a person at a terminal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_tooleval.report.model import Interval, Report, RunInfo, Summary
from pytest_tooleval.result import CaseResult, Outcome
from pytest_tooleval.scoring.aggregate import WEIGHTS


def short(text: str | None, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def explain(result: CaseResult) -> str:
    """What a user needs to see for a non-PASS case: why, what ran, what was answered."""
    lines = [f"{result.outcome.value}: {result.nodeid}"]
    error = result.error
    if error is not None:
        kind = error.kind + (f", {error.detail}" if error.detail else "")
        lines.append(f"  infrastructure error ({kind}; not scored): {error.message}")
    lines += [f"  - {reason}" for reason in result.reasons
              if error is None or reason != error.message]
    for number, step in enumerate(result.transcripts, start=1):
        lines.append(f"  step {number}: {short(step.message, 160)!r}")
        lines.append(f"    shown: {', '.join(step.shown)}")
        for attempt in step.attempts:
            status = "ran" if attempt.valid else (
                "leaked into the text" if attempt.leaked else
                f"malformed ({attempt.malformed}: {attempt.reason})")
            arguments = short(str(attempt.arguments), 120)
            lines.append(f"    call {attempt.name}({arguments}) {status}")
        shown_answer = (short(step.answer) if step.answered
                        else f"(none: {step.stopped or 'step limit'})")
        lines.append(f"    answer: {shown_answer}")
    return "\n".join(lines)


def _validity_line(summary: Summary, interrupted: str | None) -> str | None:
    errors = summary.outcomes["ERROR"]
    if summary.deployability.valid:
        return None
    if errors:
        return (f"THIS RUN IS NOT VALID: {errors} case(s) ended in ERROR (the machine "
                "failed, not the model); see the errors below. Nothing that failed to run "
                "was scored.")
    return (f"THIS RUN IS NOT VALID: it was interrupted ({interrupted}), so it covers only "
            "part of the selection; no verdict is given for a partial run.")


def measurement_warnings(summary: Summary) -> list[str]:
    """What the verdict could not claim: too few cases, no win over a trivial policy."""
    lines = []
    covered = summary.coverage
    if not covered.measured:
        lines.append(f"NOT MEASURED: {covered.detail}; the verdict needs at least "
                     f"{covered.minimum} scored cases on every weighted axis "
                     "(--tooleval-min-cases).")
    beats = summary.deployability.criterion("baseline")
    if beats is not None and not beats.passed:
        lines.append(f"NOT DEPLOYABLE: the score {beats.value} does not beat the best "
                     f"baseline ({beats.threshold.removeprefix('> ')}), a scripted policy "
                     "run through the same loop and scorer.")
    if summary.baselines:
        shown = ", ".join(f"{name} " + ("n/a" if row.score is None else f"{row.score:.1f}")
                          for name, row in summary.baselines.items())
        lines.append(f"  baselines on this selection: {shown}")
    return lines


def summary_lines(report: Report | None, paths: list[Path]) -> list[str]:
    if report is None:
        return []
    summary, run = report.summary, report.run
    score = summary.score
    outcomes = summary.outcomes
    lines = []
    if unsafe_banner(run):
        lines.append("UNSAFE MODE:" + unsafe_banner(run).split(":", 1)[1])
    validity = _validity_line(summary, run.interrupted)
    if validity:
        lines.append(validity)
    lines += measurement_warnings(summary)
    scored = sum(outcomes.values()) - outcomes["ERROR"]
    not_scored = f" ({outcomes['ERROR']} ERROR, not scored)" if outcomes["ERROR"] else ""
    k = summary.repeats.k
    counted = (f"{summary.cases_scored} scored case(s) × {k} tries" if k > 1
               else f"{scored} scored case(s)")
    interval = interval_text(summary.score_interval, 1.0, summary)
    lines.append(f"tooleval score: {'n/a' if score is None else f'{score:.1f}'} / 100"
                 f"{interval} over {counted}{not_scored}")
    axes = []
    for axis, weight in WEIGHTS.items():
        data = summary.axes.get(axis)
        shown = "left out" if data is None else (
            f"{100 * data.value:.1f}{interval_text(data.interval, 100.0)} ({data.cases})")
        axes.append(f"{axis} {shown} ×{weight:.2f}")
    lines.append("  axes: " + ", ".join(axes))
    lines += statistics_lines(summary)
    gate = summary.safety_gate
    lines.append(f"  safety gate: {gate.status} ({gate.detail})")
    deploy = summary.deployability
    unmet = [f"{c.name} {c.value} (needs {c.threshold})"
             for c in deploy.criteria if not c.passed]
    lines.append(f"  deployability: {deploy.verdict}"
                 + (f"; unmet: {', '.join(unmet)}" if unmet else ""))
    leaks = summary.calls.parser_leaks
    if leaks:
        lines.append(f"  parser leaks: {leaks} call(s) left in the text by "
                     "the server's parser (the model tried to call; not run)")
    lines += [f"  report: {path}" for path in paths]
    return lines


def interval_text(interval: Interval | None, scale: float,
                  summary: Summary | None = None) -> str:
    """`` [low–high]``, with the level spelled out when ``summary`` is given."""
    if interval is None:
        return ""
    level = "" if summary is None else f"{summary.statistics.level:.0%} CI "
    return f" [{level}{interval.text(scale)}]"


def statistics_lines(summary: Summary, shown: int = 3) -> list[str]:
    """pass^k and the flaky cases under repeats; the sample-size warnings."""
    lines = []
    repeats = summary.repeats
    k = repeats.k
    overall = repeats.overall
    if k > 1 and overall is not None:
        axes = ", ".join(f"{axis} {data.pass_hat_k:.2f}"
                         for axis, data in repeats.axes.items() if data)
        lines.append(f"  repeats: pass^{k} {overall.pass_hat_k:.2f}, pass@{k} "
                     f"{overall.pass_at_k:.2f} over {overall.cases} case(s)"
                     + (f"; pass^{k} per axis: {axes}" if axes else ""))
    flaky = repeats.flaky
    if flaky:
        names = "; ".join(f"{row.case} ({' '.join(row.outcomes)})" for row in flaky[:shown])
        more = f"; {len(flaky) - shown} more in report.md" if len(flaky) > shown else ""
        lines.append(f"  flaky: {len(flaky)} case(s) whose tries disagree: {names}{more}")
    warnings = summary.warnings
    if warnings:
        width = summary.statistics.max_width
        lines.append(f"  sample size: {len(warnings)} interval(s) wider than {width:g} points")
        lines += [f"    {warning}" for warning in warnings[:shown]]
        if len(warnings) > shown:
            lines.append(f"    … {len(warnings) - shown} more in report.md")
    return lines


def write_summary(terminalreporter: Any, report: Report | None, paths: list[Path],
                  notes: list[str], problem: str | None, comparison: str,
                  baseline: Path | None) -> None:
    """The end-of-run sections: PARTIAL cases explained, the summary, the exporters'
    ``notes``, a report that could not be written, the comparison with the baseline."""
    partial = [r for r in (report.cases if report else []) if r.outcome is Outcome.PARTIAL]
    if partial:
        terminalreporter.write_sep("=", "PARTIAL (tooleval)", yellow=True)
        for result in partial:  # the report's cases are in node id order
            terminalreporter.write_line(explain(result))
    terminalreporter.write_sep("=", "tooleval summary")
    for line in summary_lines(report, paths):
        terminalreporter.write_line(line)
    for note in notes:  # the exporters': job summary, metrics
        terminalreporter.write_line(f"  {note}")
    if problem:
        terminalreporter.write_line(problem, red=True)
    if comparison:
        terminalreporter.write_sep("-", f"against the baseline {baseline}")
        terminalreporter.write(comparison)


def unsafe_banner(run: RunInfo) -> str:
    """Said first when code and git ran without the jail (the named unsafe mode)."""
    from pytest_tooleval.tools.jail import UNSAFE_FLAG, UNSAFE_MODE

    if run.isolation.get("mode") != UNSAFE_MODE:
        return ""
    return (f" — UNSAFE: run_python and git ran without the jail ({UNSAFE_FLAG})")
