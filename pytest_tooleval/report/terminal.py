"""What the terminal shows: a case short of PASS explained, and the run's summary.

The one place a ``CaseResult`` is rendered as text for a person at a terminal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_tooleval.report.model import Interval, PassK, Report, RunInfo, Summary, Verdict
from pytest_tooleval.result import CaseResult, Outcome
from pytest_tooleval.scoring.aggregate import INTERVAL_MIN_CASES, WEIGHTS
from pytest_tooleval.scoring.failure_modes import modes_text


def fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def short(text: str | None, limit: int = 300) -> str:
    return one_line(" ".join((text or "").split()), limit)


def one_line(text: str | None, limit: int) -> str:
    """``text`` on one line with its spaces as they are (a call's arguments, a tool's
    error: two spaces can be what failed), clipped to ``limit`` characters."""
    text = " ".join((text or "").splitlines())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def explain(result: CaseResult) -> str:
    """What a user needs to see for a non-PASS case: why, what ran, what was answered."""
    lines = [f"{result.outcome.value}: {result.nodeid}"]
    error = result.error
    if error is not None and result.is_error:  # a cut-off FAIL's reasons say it
        kind = error.kind + (f", {error.detail}" if error.detail else "")
        lines.append(f"  infrastructure error ({kind}; not scored): {error.message}")
    lines += [f"  - {reason}" for reason in result.reasons
              if error is None or reason != error.message]
    for number, step in enumerate(result.transcripts, start=1):
        lines.append(f'  step {number}: "{short(step.message, 160)}"')
        lines.append(f"    shown: {', '.join(step.shown) or 'none'}")
        for attempt in step.attempts:
            status = ("no result: the machine failed"
                      if error is not None and attempt.result is None else
                      f"ran → {one_line(attempt.result, 160)}" if attempt.result_is_error
                      else "ran") if attempt.valid else (
                "leaked into the text" if attempt.leaked else
                f"malformed ({attempt.malformed}: {attempt.reason})")
            arguments = one_line(attempt.arguments if isinstance(attempt.arguments, str) else
                                 json.dumps(attempt.arguments, ensure_ascii=False, default=str),
                                 120)
            lines.append(f"    call {attempt.name}({arguments}) {status}")
        why = step.stopped or ("the machine failed" if error else "step limit")
        shown_answer = short(step.answer) if step.answered else f"(none: {why})"
        lines.append(f"    answer: {shown_answer}")
    return printable("\n".join(lines))


#: C0 and C1 control characters but the line feed and tab: from the model's text they would
#: reach the terminal raw (ESC[2J clears it, a carriage return writes over a line).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with each control character written as its escape (``\\x1b``)."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


#: Where the reason a run stopped is: pytest prints it after the summary.
BELOW = "why: the Interrupted line below"


def verdict_reason(summary: Summary, interrupted: str | None,
                   said_after: str | None = None) -> str:
    """Why the run's verdict is what it is; ``said_after``: the reason pytest prints after
    the summary (a run stopped, or that could not start), pointed at, not repeated."""
    deploy = summary.deployability
    errors = summary.outcomes["ERROR"]
    stop = (said_after or "").rstrip(".")
    if stop and interrupted and interrupted.startswith(stop):  # "<stop>: 3 of 6 cases ran"
        interrupted = "; ".join(filter(None, (interrupted[len(stop):].lstrip(": "), BELOW)))
    if not deploy.valid:
        kinds = {e.kind for e in summary.errors}
        if errors and kinds in ({"preflight"}, {"configuration"}):  # the set-up, with its fix
            first = summary.errors[0].reason or ""
            return (f"the run could not start ({BELOW}); nothing was scored"
                    if first == said_after else f"{first} Nothing was scored.")
        if errors:
            return (f"{errors} case(s) ended in ERROR (the machine failed, not the model; "
                    "not scored)" + (f"; interrupted ({interrupted})" if interrupted else "")
                    + "; once it is fixed, --tooleval-resume runs them again"
                    + (" and the rest" if interrupted else ""))
        return (f"interrupted ({interrupted}): it covers only part of the selection, "
                "so no verdict is given; --tooleval-resume runs the rest")
    if deploy.verdict == "NOT MEASURED":
        covered = summary.coverage
        return (f"{covered.detail}; a verdict needs {covered.minimum} scored cases on every "
                "weighted axis (--tooleval-min-cases)")
    if deploy.verdict == "DEPLOYABLE":
        return "every criterion met"
    return "unmet: " + "; ".join(unmet(deploy))


def unmet(deploy: Verdict) -> list[str]:
    """Each criterion not met, with what it needs."""
    return [f"{c.name} {c.shown} (needs {c.needs})" for c in deploy.criteria if not c.passed]


#: The summary's width: it reads in an 80-column terminal.
WIDTH = 80


def wrapped(head: str, items: Sequence[str] = (), sep: str = ", ") -> list[str]:
    """``head``, then ``items`` joined by ``sep``, in lines of at most ``WIDTH`` columns,
    each after the first indented two more than the first: broken at a space of ``head``
    or between two items, never inside an item."""
    glue = sep.rstrip()
    words = head.lstrip(" ").split(" ") + [
        (item + (glue if number < len(items) else "")).replace(" ", "\0")
        for number, item in enumerate(items, start=1)]
    indent = head[:len(head) - len(head.lstrip(" "))]
    lines = [indent + words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) > WIDTH:
            lines.append(f"{indent}  {word}")
        else:
            lines[-1] += f" {word}"
    return [line.replace("\0", " ") for line in lines]


def interval_note(summary: Summary) -> str:
    """One sentence: which method each interval on the page uses."""
    level = f"{summary.statistics.level:.0%}"
    if summary.score_interval is None and all(d.interval is None
                                              for d in summary.axes.values()):
        return (f"Intervals: none, too few cases (a figure needs {INTERVAL_MIN_CASES} for "
                "an interval).")
    wilson = [axis for axis, data in summary.axes.items()
              if data.interval is not None and data.interval.method == "wilson"]
    text = (f"Intervals ({level}): the score, breakdown scores and fractional axes by the "
            "percentile bootstrap over cases (stratified by category, expanded for few cases)")
    malformed = summary.deployability.criterion("malformed_rate")
    recall = any(row.routing.interval for _, _, table in summary.breakdowns()
                 for row in table.values())
    counted = [figure for figure, shown in (
        (f"the pass/fail axes ({', '.join(wilson)})", wilson),
        ("the malformed-call rate over the attempts", malformed and malformed.interval),
        ("router recall over the steps", recall)) if shown]
    if counted:
        *rest, last = counted
        text += f"; {', '.join(rest) + ' and ' if rest else ''}{last} by the Wilson interval"
    if summary.score_interval is not None and "widened" in summary.score_interval.method:
        text += ", the score widened to the axes' bounds where an axis sits at 0 or 100"
    if summary.repeats.k > 1:
        text += ("; pass^k and pass@k by the bootstrap over each case's estimate (Wilson's "
                 "where each is 0 or 1)")
    gap = summary.language_gap
    if gap.score_intervals or gap.interval:
        text += ("; each language's score by the bootstrap over the twin jobs (Wilson's "
                 "where each job scores 0 or 100), the gap by a paired bootstrap over them")
    return text + f"; none for a figure with fewer than {INTERVAL_MIN_CASES} cases."


def report_lines(paths: list[Path]) -> list[str]:
    """Where the reports are, for each folder: wrapped, the folder's path never split."""
    lines = []
    for folder in dict.fromkeys(path.parent for path in paths):
        whole = str(folder).replace(" ", "\0")  # wrapped breaks at a space, never at a \0
        lines += wrapped(f"  reports in {whole}:",
                         [path.name for path in paths if path.parent == folder])
    return lines


def summary_lines(report: Report | None, paths: list[Path],
                  said_after: str | None = None, verbose: bool = False) -> list[str]:
    """The compact end-of-run summary: score, axes, gate, failure modes, the verdict,
    where the rest is; per-case detail and how each interval is made are in the reports
    (and under ``-v``)."""
    if report is None:
        return []
    summary, run = report.summary, report.run
    outcomes = summary.outcomes
    lines = []
    unsafe = unsafe_note(run)
    if unsafe:
        lines.append(f"UNSAFE MODE: {unsafe}")
    deploy = summary.deployability
    verdict = f"{deploy.verdict}: {verdict_reason(summary, run.interrupted, said_after)}"
    reports = report_lines(paths)
    if not summary.cases_scored and {e.kind for e in summary.errors} == {"preflight"}:
        # The run could not start: the reason, and where the (empty) reports are.
        return [w for line in [*lines, f"tooleval: {verdict}"] for w in wrapped(line)] + reports
    scored = sum(outcomes.values()) - outcomes["ERROR"]
    cut = sum(case.cut_off for case in report.cases)
    notes = []
    if outcomes["ERROR"]:
        notes.append(f"{outcomes['ERROR']} ERROR, not scored")
    if cut:
        notes.append(f"{cut} FAIL, then cut off by the machine")
    not_scored = f" ({'; '.join(notes)})" if notes else ""
    k = summary.repeats.k
    counted = (f"{summary.cases_scored} scored case(s) × {k} tries" if k > 1
               else f"{scored} scored case(s)")
    interval = interval_text(summary.score_interval, 1.0, summary, summary.cases_scored)
    lines.append(f"tooleval score: {fmt(summary.score)} / 100"
                 f"{interval} over {counted}{not_scored}")
    if summary.baselines:
        lines += wrapped("  baselines:", [f"{name} {fmt(row.score)}"
                                          for name, row in summary.baselines.items()])
    axes = []
    for axis, weight in WEIGHTS.items():
        data = summary.axes.get(axis)
        shown = "left out" if data is None else (
            f"{100 * data.value:.1f}{interval_text(data.interval, 100.0, cases=data.cases)} "
            f"({data.cases})")
        axes.append(f"{axis} {shown} ×{weight:.2f}")
    lines += wrapped("  axes:", axes)
    lines += statistics_lines(summary)
    gate = summary.safety_gate
    lines.append(f"  safety gate: {gate.status} ({gate.detail})")
    if deploy.verdict == "NOT DEPLOYABLE":  # one criterion a line
        lines += ["  verdict: NOT DEPLOYABLE: unmet:", *(f"    {c}" for c in unmet(deploy))]
    else:
        lines.append(f"  verdict: {verdict}")
    modes = summary.failure_modes.run
    if modes:
        limit = None if verbose or len(modes) < 5 else 3  # "1 more" would save nothing
        top = dict(sorted(modes.items(), key=lambda item: -item[1])[:limit])
        more = [f"{len(modes) - len(top)} more in report.md"] if len(modes) > len(top) else []
        lines += wrapped("  failure modes (failing steps; ERROR cases):",
                         modes_text(top).split(" · ") + more, " · ")
    leaks = summary.calls.parser_leaks
    if leaks:
        lines.append(f"  parser leaks: {leaks} call(s) left in the text by "
                     "the server's parser (the model tried to call; not run)")
    over = run.over_max_tokens
    if over:
        lines.append(
            f"  max_tokens not honoured: {over.model_calls} of {over.of} model call(s) went "
            f"past max_tokens = {over.max_tokens} (up to {over.most} tokens), scored as "
            f"written; cap it on the server (llama-server -n {over.max_tokens}) or the "
            "proxy in front of it")
    if summary.cases_scored and verbose:
        lines.append(f"  {interval_note(summary)}")
    short = outcomes["FAIL"] + outcomes["PARTIAL"]
    if short and not verbose:  # pytest's FAILURES section is shown under -v only
        where = ("report.md (Cases short of PASS), or " if any(p.name == "report.md"
                                                               for p in paths) else "")
        lines.append(f"  why each FAIL and PARTIAL: {where}rerun with -v")
    return [w for line in lines for w in wrapped(line)] + reports


def too_few(interval: Interval | None, cases: int | None) -> str:
    """Why a figure has no interval: "too few cases" (under the minimum), else ""."""
    return ("too few cases" if interval is None and cases is not None
            and 0 < cases < INTERVAL_MIN_CASES else "")


def interval_text(interval: Interval | None, scale: float, summary: Summary | None = None,
                  cases: int | None = None, digits: int = 1) -> str:
    """`` [low–high]``, with the level spelled out when ``summary`` is given; "too few
    cases" where ``cases`` is below the minimum for an interval."""
    if interval is None:
        return f" [{reason}]" if (reason := too_few(interval, cases)) else ""
    level = "" if summary is None else f"{summary.statistics.level:.0%} CI "
    return f" [{level}{interval.text(scale, digits)}]"


def statistics_lines(summary: Summary, shown: int = 3) -> list[str]:
    """pass^k and the flaky cases under repeats; the sample-size warnings, as one line."""
    lines = []
    repeats = summary.repeats
    k = repeats.k
    overall = repeats.overall
    if k > 1 and overall is not None:
        def hat(j: PassK) -> str:
            ci = interval_text(j.pass_hat_k_interval, 1, cases=j.cases, digits=2)
            return f"{j.pass_hat_k:.2f}{ci}"

        axes = ", ".join(f"{axis} {hat(data)}" for axis, data in repeats.axes.items() if data)
        at = interval_text(overall.pass_at_k_interval, 1, cases=overall.cases, digits=2)
        lines.append(f"  repeats: pass^{k} {hat(overall)}, pass@{k} {overall.pass_at_k:.2f}{at}"
                     f" over {overall.cases} case(s)"
                     + (f"; pass^{k} per axis: {axes}" if axes else ""))
    flaky = repeats.flaky
    if flaky:
        names = "; ".join(f"{row.case} ({' '.join(row.outcomes)})" for row in flaky[:shown])
        more = f"; {len(flaky) - shown} more in report.md" if len(flaky) > shown else ""
        lines.append(f"  flaky: {len(flaky)} case(s) whose tries disagree: {names}{more}")
    warnings = summary.warnings
    if warnings:
        width = summary.statistics.max_width
        lines.append(f"  sample size: {len(warnings)} interval(s) wider than {width:g} points "
                     "(report.md: cases needed)")
    return lines


def write_summary(terminalreporter: Any, report: Report | None, paths: list[Path],
                  notes: list[str], problem: str | None, comparison: str,
                  baseline: Path | None, said_after: str | None = None) -> None:
    """The end-of-run sections: under ``-v`` the PARTIAL cases explained; the summary, the
    exporters' ``notes``, a report that could not be written, the comparison with the
    baseline."""
    verbose = terminalreporter.config.get_verbosity() > 0
    partial = [r for r in (report.cases if report else []) if r.outcome is Outcome.PARTIAL]
    if partial and verbose:
        terminalreporter.write_sep("=", "PARTIAL (tooleval)", yellow=True)
        for result in partial:  # the report's cases are in node id order
            terminalreporter.write_line(explain(result))
    terminalreporter.write_sep("=", "tooleval summary")
    for line in summary_lines(report, paths, said_after, verbose):
        terminalreporter.write_line(line)
    for note in notes:  # the exporters': job summary, metrics
        terminalreporter.write_line(f"  {note}")
    if problem:
        terminalreporter.write_line(problem, red=True)
    if comparison:
        terminalreporter.write_sep("-", f"against the baseline {baseline}")
        terminalreporter.write(comparison)


def unsafe_note(run: RunInfo) -> str | None:
    """Said first when code and git ran without the jail (the named unsafe mode)."""
    from pytest_tooleval.tools.jail import UNSAFE_FLAG, UNSAFE_MODE

    if run.isolation.get("mode") != UNSAFE_MODE:
        return None
    return f"run_python and git ran without the jail ({UNSAFE_FLAG})"
