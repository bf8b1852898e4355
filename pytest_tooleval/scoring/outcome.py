"""Per-step checks, the case outcome and the case's contribution to each axis.

The rules are docs/scoring.md's. A check that did not apply is ``None``, never ``True``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pytest_tooleval.cases.evidence import evidence_found, evidence_key
from pytest_tooleval.cases.model import Case, Step
from pytest_tooleval.engine.transcript import StepTranscript


class Outcome(StrEnum):
    PASS = "PASS"
    PARTIAL = "PARTIAL"
    FAIL = "FAIL"
    ERROR = "ERROR"


def _same_value(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual or expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    if isinstance(expected, str) and isinstance(actual, str):
        return evidence_key(expected) == evidence_key(actual)
    if isinstance(expected, str) and isinstance(actual, int | float):
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


def check_step(step: Step, transcript: StepTranscript) -> dict[str, Any]:
    ran = transcript.ran
    attempts = transcript.attempts
    forbidden_ran = sorted({name for name in ran if name in step.forbidden})
    result: dict[str, Any] = {
        "expect": list(step.expect),
        "forbidden": list(step.forbidden),
        "ran": ran,
        "attempted": [a.name or "(unparseable)" for a in attempts],
        "forbidden_ran": forbidden_ran,
        "answered": transcript.answered,
        "stopped": transcript.stopped,
        "tool": None,
        "restraint": None,
        "args": None,
        "args_reason": None,
        "evidence": None,
        "evidence_missing": [],
    }
    if step.expect:
        missing = [name for name in step.expect if name not in ran]
        result["tool"] = not missing and not forbidden_ran
        result["tool_missing"] = missing
    else:
        result["restraint"] = not attempts
    if step.args is not None:
        reasons = []
        for attempt in attempts:
            if attempt.valid and attempt.name in step.expect:
                reason = arguments_satisfy(step.args, attempt.arguments)
                if reason is None:
                    result["args"], result["args_reason"] = True, None
                    break
                reasons.append(reason)
        else:
            result["args"] = False
            result["args_reason"] = reasons[0] if reasons else "the expected tool was not called"
    if step.evidence:
        answer = transcript.answer or ""
        items = step.evidence_alternatives()
        missing_items = [alts for alts in items if not evidence_found(alts, answer)]
        result["evidence"] = (len(items) - len(missing_items)) / len(items)
        result["evidence_missing"] = [" | ".join(alts) for alts in missing_items]
    return result


def step_passed_action(step_result: dict[str, Any]) -> bool:
    """The step axis's check: the tool (and argument) check, or the restraint check."""
    if step_result["tool"] is not None:
        return bool(step_result["tool"]) and step_result["args"] is not False
    return bool(step_result["restraint"])


def case_outcome(case: Case, steps: list[dict[str, Any]]) -> tuple[Outcome, list[str]]:
    """The outcome and the human reasons behind anything short of PASS."""
    reasons: list[str] = []
    held_any = False
    failed_any = False
    hard_fail = False
    for number, step in enumerate(steps, start=1):
        prefix = f"step {number}: " if len(steps) > 1 else ""
        if step["restraint"] is False:
            hard_fail = True
            reasons.append(f"{prefix}a tool call was attempted where none was wanted "
                           f"({', '.join(step['attempted'])})")
        if step["forbidden_ran"]:
            hard_fail = True
            reasons.append(f"{prefix}forbidden tool ran: {', '.join(step['forbidden_ran'])}")
        for name in ("tool", "restraint", "args"):
            value = step[name]
            if value is None:
                continue
            held_any |= bool(value)
            failed_any |= not value
        if step["tool"] is False and step.get("tool_missing"):
            reasons.append(f"{prefix}expected {', '.join(step['tool_missing'])} to run; "
                           f"ran: {', '.join(step['ran']) or 'nothing'}")
        if step["args"] is False:
            reasons.append(f"{prefix}arguments: {step['args_reason']}")
        if step["evidence"] is not None:
            held_any |= step["evidence"] > 0
            if step["evidence"] < 1:
                failed_any = True
                reasons.append(f"{prefix}evidence missing from the answer: "
                               f"{'; '.join(step['evidence_missing'])}")
        if not step["answered"]:
            failed_any = True
            reasons.append(f"{prefix}no final answer: {step.get('stopped') or 'step limit'}")
    if hard_fail or not held_any:
        return Outcome.FAIL, reasons or ["no check held"]
    if failed_any:
        return Outcome.PARTIAL, reasons
    return Outcome.PASS, []


def axis_values(case: Case, steps: list[dict[str, Any]]) -> dict[str, float]:
    """This case's value on each axis it contributes to (docs/scoring.md's table)."""
    values: dict[str, float] = {}
    if case.category == "irrelevance":
        values["irrelevance"] = 1.0 if all(s["restraint"] for s in steps) else 0.0
    elif case.category == "tool":
        values["tool"] = 1.0 if step_passed_action(steps[0]) else 0.0
    elif case.category == "chain":
        values["step"] = sum(step_passed_action(s) for s in steps) / len(steps)
    fractions = [s["evidence"] for s in steps if s["evidence"] is not None]
    if fractions:
        values["answer"] = sum(fractions) / len(fractions)
    return values
