"""The Markdown report: readable in a CI job summary."""

from __future__ import annotations

import re

from pytest_tooleval.report.model import Interval, PassK, Repeats, Report, Routing, Summary
from pytest_tooleval.report.progress import counted
from pytest_tooleval.report.terminal import (
    fmt,
    interval_note,
    printable,
    short,
    too_few,
    unsafe_note,
    verdict_reason,
)
from pytest_tooleval.result import Outcome
from pytest_tooleval.scoring.aggregate import WEIGHTS
from pytest_tooleval.scoring.failure_modes import MODES

#: A ``<`` that could open a tag or a comment.
_TAG = re.compile(r"<(?=[A-Za-z/!?])")


def routed_cell(routing: Routing) -> str:
    """Router recall of a table row: a low score with full routing is the model's."""
    if not routing.steps or routing.recall is None:
        return "n/a"
    return (f"{100 * routing.recall:.1f}%{_interval(routing.interval, 100.0)} "
            f"({routing.routed}/{routing.steps})")


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_one_line(cell).replace("|", "\\|") for cell in row) + " |"
              for row in rows]
    return lines


def _one_line(text: str) -> str:
    """``text`` on one line: a line break in a case file's or the model's text would end a
    table row or list item there, and could start an HTML block (``<!--``) that swallows
    the rest of the report; and no tag either, where Markdown is rendered (GitHub's job
    summary): the model's ``<details>`` would hide the rest of the page."""
    return _TAG.sub("&lt;", " ".join(text.splitlines()))


def _quoted(text: str | None, limit: int) -> str:
    """The model's or a case's text, shortened to one line, control characters escaped."""
    return _one_line(printable(short(text, limit)))


def _interval(interval: Interval | None, scale: float = 1.0, cases: int | None = None,
              digits: int = 1) -> str:
    if interval is None:
        return f" {reason}" if (reason := too_few(interval, cases)) else ""
    return f" [{interval.text(scale, digits)}]"


def failure_mode_section(summary: Summary) -> list[str]:
    """The failure modes: over the run, then per group and per language."""
    modes = summary.failure_modes
    if not modes.run:
        return []
    lines = ["## Failure modes", "",
             "Each failing step counted once, by its first failed check; ERROR cases by "
             "kind.", ""]
    lines += _table([[MODES.get(key, key), f"`{key}`",
                      f"{count} {'case' if key.startswith('error_') else 'step'}(s)"]
                     for key, count in modes.run.items()], ["mode", "key", "count"]) + [""]
    for title, table in (("group", modes.groups), ("language", modes.languages)):
        if len(table) > 1:
            lines += _table([[name, ", ".join(f"{MODES.get(k, k)} {v}" for k, v in row.items())
                              or "none"] for name, row in table.items()],
                            [title, "failure modes"]) + [""]
    return lines


#: What the repeats table shows (report.md and report.html).
PASS_K_NOTE = ("pass^k: the chance that all k of k tries pass; pass@k: that at least one "
               "does (unbiased estimates from each case's tries).")


def pass_k_rows(repeats: Repeats) -> list[list[str]]:
    """pass^k and pass@k with their intervals: the curve k = 1..K, then each axis at K."""
    def row(label: str, j: PassK) -> list[str]:
        return [label, f"{j.pass_hat_k:.3f}" + _interval(j.pass_hat_k_interval, 1, j.cases, 3),
                f"{j.pass_at_k:.3f}" + _interval(j.pass_at_k_interval, 1, j.cases, 3),
                str(j.cases)]

    return [row(f"overall, k = {j.k}", j) for j in repeats.curve] + [
        row(f"axis {axis}", data) for axis, data in repeats.axes.items() if data]


def statistics_sections(summary: Summary) -> list[str]:
    """Repeats (pass^k, per-case rates, flaky cases) and the sample-size warnings."""
    lines: list[str] = []
    repeats = summary.repeats
    k = repeats.k
    if k > 1:
        lines += [f"## Repeats (k = {k})", "", PASS_K_NOTE, ""]
        lines += _table(pass_k_rows(repeats), ["", "pass^k", "pass@k", "cases"]) + [""]
    flaky = repeats.flaky
    if flaky:
        lines += [f"## Flaky cases ({len(flaky)}): tries that disagree", ""]
        lines += _table([[f"`{row.case}`", " ".join(row.outcomes), fmt(row.pass_rate, 2)]
                         for row in flaky],
                        ["case", "outcome per try", "pass rate"]) + [""]
    warnings = summary.warnings
    if warnings:
        lines += [f"## Sample size: {len(warnings)} interval(s) wider than "
                  f"{summary.statistics.max_width:g} points", ""]
        lines += [f"- {warning}" for warning in warnings] + [""]
    return lines


def selection_line(report: Report) -> str:
    """What was selected, in report.md's words ("" for a report without it)."""
    chosen = report.run.selection
    if chosen is None:
        return ""
    return (f"Selection: {counted([case.nodeid for case in report.cases])}, case-set hash "
            f"`{chosen.case_set_hash}`"
            f"; paths {' '.join(chosen.paths) or '(default)'}"
            + (f"; -k `{chosen.keyword}`" if chosen.keyword else "")
            + (f"; -m `{chosen.markers}`" if chosen.markers else "")
            + (f"; --deselect `{' '.join(chosen.deselected)}`" if chosen.deselected else "")
            + (f"; --ignore `{' '.join(chosen.ignored)}`" if chosen.ignored else "")
            + (f"; every {chosen.sample_every}th case" if chosen.sample_every > 1 else ""))


def language_gap_line(summary: Summary) -> str:
    """Each language's score over the twin jobs and the gap ("" without twin jobs)."""
    gap = summary.language_gap
    if not gap.jobs:
        return ""
    shown = ", ".join(f"{lang} {fmt(score)}{_interval(gap.score_intervals.get(lang))}"
                      for lang, score in gap.scores.items())
    return (f"Language gap on {gap.jobs} twin job(s) (the same job and fact asked in each "
            f"language): {shown}"
            + (f"; gap ({gap.gap_is}) {gap.gap:+.1f}"
               + (f" [{gap.interval.low:+.1f} to {gap.interval.high:+.1f}]" if gap.interval
                  else " (too few jobs for an interval)") if gap.gap is not None else ""))


def calls_line(summary: Summary) -> str:
    """The outcomes, the tool calls and the step latency (report.md and report.html)."""
    calls, outcomes = summary.calls, summary.outcomes
    return (f"{'Tries' if summary.repeats.k > 1 else 'Cases'}: {outcomes['PASS']} pass, "
            f"{outcomes['PARTIAL']} partial, "
            f"{outcomes['FAIL']} fail, {outcomes['ERROR']} error. Tool calls attempted: "
            f"{calls.attempts}, malformed: {calls.malformed}, parser leaks: "
            f"{calls.parser_leaks}. Step latency "
            + ("n/a (no step answered)" if calls.latency_p50_s is None else
               f"p50 {fmt(calls.latency_p50_s, 2)} s, p95 {fmt(calls.latency_p95_s, 2)} s")
            + ".")


def render_markdown(report: Report) -> str:
    run, summary = report.run, report.summary
    unsafe = unsafe_note(run)
    lines = ["# pytest-tooleval report" + (f" — UNSAFE: {unsafe}" if unsafe else ""), ""]
    deploy = summary.deployability
    lines += [f"> **{deploy.verdict}**: {verdict_reason(summary, run.interrupted)}", ""]
    lines += [
        f"**Score: {fmt(summary.score)} / 100**"
        f"{_interval(summary.score_interval, cases=summary.cases_scored)}"
        f"  ·  model `{run.model_name}`  ·  grammar `{run.grammar}`"
        + (f" ({run.constraint})" if run.constraint else ""),
        "",
    ]
    level = f"{summary.statistics.level:.0%}"
    axis_rows = []
    for axis, weight in WEIGHTS.items():
        data = summary.axes.get(axis)
        axis_rows.append([axis, f"{weight:.2f}",
                          fmt(None if data is None else 100 * data.value),
                          _interval(data.interval if data else None, 100.0,
                                    data.cases if data else None).strip() or "n/a",
                          str(data.cases) if data else "0 (left out)"])
    lines += _table(axis_rows, ["axis", "weight", "value (0–100)", f"{level} interval",
                                "cases"]) + [""]
    gate = summary.safety_gate
    lines += [f"**Safety gate: {gate.status}**: {gate.detail}", ""]
    lines += [f"**Deployability: {deploy.verdict}** (deployability score "
              f"{fmt(deploy.score)})", ""]
    lines += _table(
        [[c.name, c.shown, c.needs, "yes" if c.passed else "**no**"]
         for c in deploy.criteria],
        ["criterion", "measured", "threshold", "met"],
    ) + ["", interval_note(summary), ""]
    lines += failure_mode_section(summary)
    if summary.baselines:
        lines += ["## Baselines (same selection, same loop and scorer)", ""]
        lines += _table(
            [[name, fmt(row.score), str(row.cases), row.policy]
             for name, row in summary.baselines.items()],
            ["policy", "score", "cases", "what it does"],
        ) + [""]
    for line in (selection_line(report), language_gap_line(summary), calls_line(summary)):
        lines += [line, ""] if line else []
    for title, label, table in summary.breakdowns():
        if not table:
            continue
        rows = [[name, fmt(row.score), _interval(row.interval, 1.0, row.cases).strip()
                 or "n/a",
                 str(row.cases) + (f" ({row.tries} tries)" if row.tries is not None else ""),
                 " ".join(f"{k.lower()} {v}" for k, v in row.outcomes.items() if v),
                 routed_cell(row.routing)]
                for name, row in table.items()]
        lines += [f"## {title}", ""] + _table(
            rows, [label, "score", f"{level} interval", "cases", "outcomes",
                   "routed (expected tool shown)"])
        lines += [""]
    lines += statistics_sections(summary)
    if summary.errors:
        lines += ["## Errors (infrastructure, not scored)", ""]
        lines += [f"- `{e.nodeid}`: {short(e.reason, 240)}" for e in summary.errors]
        lines += [""]
    cut = [c for c in report.cases if c.cut_off]
    if cut:  # scored FAILs (docs/scoring.md, Outcomes): the machine failed all the same
        lines += ["## Cut off by the machine after a call where none was wanted (FAIL)", ""]
        lines += [f"- `{c.nodeid}` ({c.error.kind}): {short(c.error.message, 240)}"
                  for c in cut if c.error]
        lines += [""]
    failing = [c for c in report.cases if c.outcome in (Outcome.FAIL, Outcome.PARTIAL)]
    if failing:
        lines += ["## Cases short of PASS", ""]
        for case in failing:
            lines += [f"### {case.outcome.value}: `{case.nodeid}`", ""]
            lines += [f"- {_one_line(reason)}" for reason in case.reasons]
            for number, step in enumerate(case.transcripts, start=1):
                ran = ", ".join(
                    _one_line(a.name or "?")
                    + ("" if a.valid else f" [{a.malformed or 'leaked'}]")
                    + (f" ran → {_quoted(a.result, 160)}" if a.valid and a.result_is_error
                       else " [no result: the machine failed]" if a.valid and a.result is None
                       else "")
                    for a in step.attempts
                ) or "no call"
                lines += [f"- step {number}: *{_quoted(step.message, 120)}* → {ran}; "
                          f"answer: {_quoted(step.answer, 160) or '(none)'}"]
            lines += [""]
    return "\n".join(lines).rstrip() + "\n"
