"""A case's run made a typed ``CaseResult``, in one place for items, lanes, baselines, rescore."""

from __future__ import annotations

from typing import Any

from pytest_tooleval.cases.identity import content_hash
from pytest_tooleval.cases.model import Case, CaseFile, case_today
from pytest_tooleval.engine.session import CaseRef, CaseRun
from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.result import CaseResult, ErrorInfo, StepResult
from pytest_tooleval.scoring.outcome import cut_off, score_case


def case_identity(ref: CaseRef) -> dict[str, Any]:
    """Who the case is, as every result of it records."""
    return {
        "file": ref.path,
        "file_name": ref.case_file.name,
        "case": ref.case.name,
        "category": ref.case.category,
        "group": ref.case.group,
        "register": ref.case.register,
        "language": ref.case_file.language,
        "job": ref.case.job,
        "marks": sorted({*ref.case_file.marks, *ref.case.marks}),
        "case_hash": content_hash(ref.case_file, ref.case),
        "repeat": ref.repeat,
        "seed": ref.seed,
    }


def verdict(case_file: CaseFile, case: Case, transcripts: list[StepTranscript],
            failure: ErrorInfo | None = None) -> dict[str, Any]:
    """``score_case``'s verdict on a case's transcripts (``failure``: the machine's error
    that cut it off, ``cut_off``), as ``CaseResult`` fields (a run's result, and
    ``tooleval rescore``'s)."""
    scored = score_case(case, transcripts, case_file.language, case_today(case_file), failure)
    return {"outcome": scored.outcome, "reasons": scored.reasons, "axes": scored.axes,
            "error": failure,
            "steps": [StepResult(transcript=t, checks=c)
                      for t, c in zip(transcripts, scored.checks, strict=True)]}


def forbidden_called(case: Case, transcripts: list[StepTranscript]) -> set[str]:
    """The forbidden tools the model called (valid calls) in the steps reached, run or not
    (a partial run has fewer transcripts than the case has steps)."""
    return {attempt.name for step, transcript in zip(case.steps, transcripts, strict=False)
            for attempt in transcript.attempts
            if attempt.valid and attempt.name and attempt.name in step.forbidden}


def score_run(ref: CaseRef, run: CaseRun) -> CaseResult:
    """The typed result of a case's run: ``score_case``'s verdict (for a run the machine
    cut off after the model's call where none was wanted, ``cut_off``, a FAIL that keeps
    the error); for any other failure of the machine, an ERROR with its partial transcript."""
    identity = case_identity(ref)
    called = forbidden_called(ref.case, run.transcripts)
    if run.error is not None and not cut_off(ref.case, run.transcripts, run.error):
        return CaseResult.infrastructure_error(
            ref.nodeid, run.error, transcripts=run.transcripts, duration_s=run.duration_s,
            forbidden_before_failure=sorted(called), **identity,
        )
    result = CaseResult(nodeid=ref.nodeid, duration_s=run.duration_s, **identity,
                        **verdict(ref.case_file, ref.case, run.transcripts, run.error))
    result.forbidden_before_failure = sorted(called - set(result.forbidden_ran))
    return result
