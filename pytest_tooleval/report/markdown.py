"""The Markdown report: readable in a CI job summary."""

from __future__ import annotations

from typing import Any

from pytest_tooleval.report.json_report import report_cases
from pytest_tooleval.result import Outcome
from pytest_tooleval.scoring.aggregate import WEIGHTS


def _fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _short(text: str | None, limit: int = 240) -> str:
    if not text:
        return ""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _routed(routing: dict[str, Any] | None) -> str:
    """Router recall of a table row: a low score with full routing is the model's."""
    if not routing or not routing.get("steps"):
        return "n/a"
    return f"{100 * routing['recall']:.1f}% ({routing['routed']}/{routing['steps']})"


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def render_markdown(report: dict[str, Any]) -> str:
    run, summary = report["run"], report["summary"]
    lines: list[str] = ["# pytest-tooleval report" + unsafe_banner(run), ""]
    deploy = summary["deployability"]
    if not deploy["valid"]:
        why = run.get("interrupted") or f"{summary['outcomes']['ERROR']} case(s) ended in ERROR"
        lines += [f"> **This run is not valid**: {why}. Infrastructure failures are not "
                  "scored; the figures below cover only the cases that ran.", ""]
    from pytest_tooleval.report.terminal import measurement_warnings

    lines += [f"> **{line}**" if not line.startswith("  ") else line.strip()
              for line in measurement_warnings(summary)]
    if measurement_warnings(summary):
        lines.append("")
    model = run.get("model", {})
    backend = run.get("backend", {})
    lines += [
        f"**Score: {_fmt(summary['score'])} / 100**  ·  model `{model.get('name', '?')}`  ·  "
        f"grammar `{backend.get('grammar', '?')}`"
        + (f" ({constraint})" if (constraint := backend.get("constraint")
                                  or backend.get("mechanism")) else ""),
        "",
    ]
    axis_rows = []
    for axis, weight in WEIGHTS.items():
        data = summary["axes"].get(axis)
        axis_rows.append([axis, f"{weight:.2f}",
                          _fmt(None if data is None else 100 * data["value"]),
                          str(data["cases"]) if data else "0 (left out)"])
    lines += _table(axis_rows, ["axis", "weight", "value (0–100)", "cases"]) + [""]
    gate = summary["safety_gate"]
    lines += [f"**Safety gate: {gate['status']}**: {gate['detail']}", ""]
    lines += [f"**Deployability: {deploy['verdict']}** (deployability score "
              f"{_fmt(deploy['score'])})", ""]
    lines += _table(
        [[c["name"], str(c["value"]), c["threshold"], "yes" if c["passed"] else "**no**"]
         for c in deploy["criteria"]],
        ["criterion", "measured", "threshold", "met"],
    ) + [""]
    baselines = summary.get("baselines") or {}
    if baselines:
        lines += ["## Baselines (same selection, same loop and scorer)", ""]
        lines += _table(
            [[name, _fmt(row["score"]), str(row["cases"]), row["policy"]]
             for name, row in baselines.items()],
            ["policy", "score", "cases", "what it does"],
        ) + [""]
    chosen = run.get("selection")
    if chosen:
        lines += [
            f"Selection: {chosen['cases']} case(s), case-set hash `{chosen['case_set_hash']}`"
            f"; paths {' '.join(chosen['paths']) or '(default)'}"
            + (f"; -k `{chosen['keyword']}`" if chosen.get("keyword") else "")
            + (f"; -m `{chosen['markers']}`" if chosen.get("markers") else "")
            + (f"; every {chosen['sample_every']}th case" if chosen.get("sample_every", 1) > 1
               else ""),
            "",
        ]
    gap = summary.get("language_gap") or {}
    if gap.get("jobs"):
        shown = ", ".join(f"{lang} {_fmt(score)}" for lang, score in gap["scores"].items())
        lines += [f"Language gap on {gap['jobs']} twin job(s) (the same job and fact asked in "
                  f"each language): {shown}"
                  + (f"; gap ({gap['gap_is']}) {gap['gap']:+.1f}" if gap["gap"] is not None
                     else ""), ""]
    outcomes = summary["outcomes"]
    calls = summary["calls"]
    lines += [
        f"Cases: {outcomes['PASS']} pass, {outcomes['PARTIAL']} partial, "
        f"{outcomes['FAIL']} fail, {outcomes['ERROR']} error. Tool calls attempted: "
        f"{calls['attempts']}, malformed: {calls['malformed']}, parser leaks: "
        f"{calls['parser_leaks']}. Step latency p50 {_fmt(calls['latency_p50_s'], 2)} s, "
        f"p95 {_fmt(calls['latency_p95_s'], 2)} s.",
        "",
    ]
    for title, key, label in (("Groups", "groups", "group"),
                              ("Categories", "categories", "category"),
                              ("Registers", "registers", "register"),
                              ("Languages", "languages", "language")):
        table = summary.get(key) or {}
        if not table:
            continue
        rows = [[label, _fmt(data["score"]), str(data["cases"]),
                 " ".join(f"{k.lower()} {v}" for k, v in data["outcomes"].items() if v),
                 _routed(data.get("routing"))]
                for label, data in table.items()]
        lines += [f"## {title}", ""] + _table(
            rows, [label, "score", "cases", "outcomes", "routed (expected tool shown)"])
        lines += [""]
    if summary["errors"]:
        lines += ["## Errors (infrastructure, not scored)", ""]
        lines += [f"- `{e['nodeid']}`: {_short(e['reason'])}" for e in summary["errors"]]
        lines += [""]
    failing = [c for c in report_cases(report) if c.outcome in (Outcome.FAIL, Outcome.PARTIAL)]
    if failing:
        lines += ["## Cases short of PASS", ""]
        for case in failing:
            lines += [f"### {case.outcome.value}: `{case.nodeid}`", ""]
            lines += [f"- {reason}" for reason in case.reasons]
            for number, step in enumerate(case.transcripts, start=1):
                ran = ", ".join(
                    (a.name or "?") + ("" if a.valid else f" [{a.malformed or 'leaked'}]")
                    for a in step.attempts
                ) or "no call"
                lines += [f"- step {number}: *{_short(step.message, 120)}* → {ran}; "
                          f"answer: {_short(step.answer, 160) or '(none)'}"]
            lines += [""]
    return "\n".join(lines).rstrip() + "\n"


def unsafe_banner(run: dict[str, Any]) -> str:
    """Said first when code and git ran without the jail (the named unsafe mode)."""
    from pytest_tooleval.tools.jail import UNSAFE_FLAG, UNSAFE_MODE

    if (run.get("isolation") or {}).get("mode") != UNSAFE_MODE:
        return ""
    return (f" — UNSAFE: run_python and git ran without the jail ({UNSAFE_FLAG})")
