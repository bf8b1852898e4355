"""Per-step checks, the case outcome and the case's contribution to each axis.

The rules are docs/scoring.md's. A check that did not apply is ``None``, never ``True``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from pytest_tooleval.cases.evidence import evidence_found, evidence_key
from pytest_tooleval.cases.model import Case, Step
from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.models.base import TRUNCATED
from pytest_tooleval.result import ErrorInfo, Outcome, StepChecks
from pytest_tooleval.scoring.claims import contradictions

__all__ = ["Outcome", "Scored", "axis_values", "case_outcome", "check_step", "cut_off",
           "score_case"]


def _same_value(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual or expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    if isinstance(expected, str) and isinstance(actual, str | int | float):
        return evidence_key(expected) == evidence_key(str(actual))
    return bool(expected == actual)


def arguments_satisfy(constraints: dict[str, list[Any]], arguments: dict[str, Any]) -> str | None:
    """None when the arguments meet every constraint, else the first reason they do not."""
    for parameter, accepted in constraints.items():
        if parameter not in arguments or arguments[parameter] in (None, ""):
            if "" in accepted:
                continue
            return f"{parameter!r} is missing (accepted: {accepted})"
        if not any(_same_value(value, arguments[parameter]) for value in accepted if value != ""):
            return f"{parameter!r} = {arguments[parameter]!r} (accepted: {accepted})"
    return None


def _route_check(step: Step, ran: list[str]) -> tuple[list[str], int | None]:
    """The tools still missing on the closest route (the first with the fewest), and the
    index of the first route that ran; ``step.routes`` is not empty (the caller's check)."""
    missing = [[name for name in route if name not in ran] for route in step.routes]
    if [] in missing:
        return [], missing.index([])
    return min(missing, key=len), None


def check_step(step: Step, transcript: StepTranscript, language: str = "en",
               today: date | None = None) -> StepChecks:
    ran = transcript.ran
    attempts = transcript.attempts
    expected = step.expected_tools
    checks = StepChecks(
        expect=expected,
        forbidden=list(step.forbidden),
        forbidden_ran=sorted({name for name in ran if name in step.forbidden}),
        routes=step.routes if step.expect_any is not None else None,
    )
    if step.routes:
        checks.tool_missing, checks.route = _route_check(step, ran)
        checks.tool = not checks.tool_missing and not checks.forbidden_ran
    else:
        checks.restraint = not attempts
    if step.args is not None:
        reasons = []
        for attempt in attempts:
            if attempt.valid and attempt.name in expected:
                reason = arguments_satisfy(step.args, attempt.arguments)
                if reason is None:
                    checks.args, checks.args_reason = True, None
                    break
                reasons.append(reason)
        else:
            checks.args = False
            checks.args_reason = reasons[0] if reasons else "the expected tool was not called"
    if transcript.state:
        checks.state_failed = [f"{c['check']}: {c['detail']}" for c in transcript.state
                               if not c["held"]]
        checks.state = not checks.state_failed
    if step.evidence:
        answer = transcript.answer or ""
        items = step.evidence_alternatives()
        asked = [alt for alts in items for alt in alts]
        missing_items = [alts for alts in items
                         if not evidence_found(alts, answer, language, today, asked)]
        checks.evidence = (len(items) - len(missing_items)) / len(items)
        checks.evidence_missing = [" | ".join(alts) for alts in missing_items]
    return checks


def case_outcome(
    steps: list[StepChecks], transcripts: list[StepTranscript],
    contradicted: list[list[str]] | None = None,
) -> tuple[Outcome, list[str]]:
    """The outcome and the human reasons behind anything short of PASS. ``contradicted``:
    per step, why its answer contradicts the case or what happened (scoring/claims.py);
    each such step fails."""
    reasons: list[str] = []
    held_any = False
    failed_any = False
    hard_fail = False
    for number, (step, transcript) in enumerate(zip(steps, transcripts, strict=True), start=1):
        prefix = f"step {number}: " if len(steps) > 1 else ""
        if step.restraint is False:
            attempted = [a.name or ("a reply cut off at max_tokens" if a.reason == TRUNCATED
                                    else "(unparseable)") for a in transcript.attempts]
            hard_fail = True
            reasons.append(f"{prefix}a tool call was attempted where none was wanted "
                           f"({', '.join(attempted)})")
        if step.forbidden_ran:
            hard_fail = True
            reasons.append(f"{prefix}forbidden tool ran: {', '.join(step.forbidden_ran)}")
        for value in (step.tool, step.restraint, step.args, step.state):
            if value is None:
                continue
            held_any |= bool(value)
            failed_any |= not value
        if step.tool is False and step.tool_missing:
            reasons.append(f"{prefix}expected {', '.join(step.tool_missing)} to run; "
                           f"ran: {', '.join(transcript.ran) or 'nothing'}")
        if step.args is False:
            reasons.append(f"{prefix}arguments: {step.args_reason}")
        if step.state is False:
            reasons.append(f"{prefix}state after the step: {'; '.join(step.state_failed)}")
        if step.evidence is not None:
            held_any |= step.evidence > 0
            failed_any |= step.evidence < 1
            if step.evidence_missing:  # else zeroed for a contradiction, given below
                reasons.append(f"{prefix}evidence missing from the answer: "
                               f"{'; '.join(step.evidence_missing)}")
        for reason in (contradicted or [[]] * len(steps))[number - 1]:
            failed_any = True
            reasons.append(f"{prefix}{reason}")
        if not transcript.answered:
            failed_any = True
            reasons.append(f"{prefix}no final answer: {transcript.stopped or 'step limit'}")
    if hard_fail or not held_any:
        return Outcome.FAIL, reasons or ["no check held"]
    if failed_any:
        return Outcome.PARTIAL, reasons
    return Outcome.PASS, []


def axis_values(case: Case, steps: list[StepChecks]) -> dict[str, float]:
    """This case's value on each axis it contributes to (docs/scoring.md's table)."""
    values: dict[str, float] = {}
    if case.category == "tool":
        values["tool"] = 1.0 if steps[0].action_held else 0.0
    elif case.category == "chain":
        values["step"] = sum(s.action_held for s in steps) / len(steps)
    # Every step that expects no tool (a chain's closing "thanks" too) is a restraint test.
    restraint = [s.restraint for s in steps if s.restraint is not None]
    if restraint:
        values["irrelevance"] = 1.0 if all(restraint) else 0.0
    fractions = [s.evidence for s in steps if s.evidence is not None]
    if fractions:
        values["answer"] = sum(fractions) / len(fractions)
    return values


@dataclass
class Scored:
    outcome: Outcome
    reasons: list[str]
    axes: dict[str, float]
    checks: list[StepChecks] = field(default_factory=list)


def cut_off(case: Case, transcripts: list[StepTranscript], error: ErrorInfo) -> bool:
    """The machine's ``error`` cut the run off in its last step, one that expects no tool,
    after the model attempted a call there (as a complete run counts it, a reply cut off
    at max_tokens too): the model's FAIL, scored by ``score_case`` with ``failure``.

    A try that calls no tool there ends the case with its answer and has nothing left to
    fail, so a failure after the step's first reply meets only the tries that called:
    scoring them keeps a one-step case's rate the model's, where rerunning them lowered it.
    Before a later step, both kinds of try would still face its requests, and scoring only
    the calling ones would raise the rate: such a run stays an ERROR, as does one the
    harness or its configuration failed (docs/scoring.md)."""
    if (error.kind in ("harness", "configuration", "preflight") or not transcripts
            or len(transcripts) != len(case.steps)):
        return False
    step, transcript = case.steps[-1], transcripts[-1]
    # Ended (answered, or stopped by the loop): what failed next met every try alike.
    return not (step.routes or transcript.answered or transcript.stopped
                or not transcript.attempts)


def score_case(case: Case, transcripts: list[StepTranscript], language: str = "en",
               today: date | None = None, failure: ErrorInfo | None = None) -> Scored:
    """Score a case from its transcripts alone: the engine never scores. ``language`` is
    the case file's (evidence matching); ``today``, its world clock's day (``case_today``:
    a date in the evidence is also found as "tomorrow" where that day is tomorrow).
    ``failure``: the machine's error that cut the run off (``cut_off``): the last step is
    scored on the call it attempted alone, its answer (never given) left out."""
    checks = [check_step(step, t, language, today)
              for step, t in zip(case.steps, transcripts, strict=True)]
    if failure is not None:
        last = checks[-1]
        checks[-1] = StepChecks(expect=last.expect, forbidden=last.forbidden,
                                forbidden_ran=last.forbidden_ran, restraint=last.restraint)
        kind = failure.kind + (f", {failure.detail}" if failure.detail else "")
        transcripts = [*transcripts[:-1], replace(
            transcripts[-1], stopped=f"the machine failed ({kind}): {failure.message}")]
    contradicted = contradictions(case, transcripts, language)
    for step_checks, reasons_of_step in zip(checks, contradicted, strict=True):
        if reasons_of_step and step_checks.evidence is not None:
            step_checks.evidence = 0.0  # a wrong answer earns nothing for its right parts
    outcome, reasons = case_outcome(checks, transcripts, contradicted)
    return Scored(outcome, reasons, axis_values(case, checks), checks)
