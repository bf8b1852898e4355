"""A case's run made a typed ``CaseResult``, in one place for items, lanes, baselines, rescore."""

from __future__ import annotations

from typing import Any

from pytest_tooleval.cases.identity import content_hash
from pytest_tooleval.cases.model import Case, CaseFile, case_today
from pytest_tooleval.engine.session import CaseRef, CaseRun
from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.result import CaseResult, StepResult
from pytest_tooleval.scoring.outcome import Scored, score_case, score_cut_off


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
            scored: Scored | None = None) -> dict[str, Any]:
    """``score_case``'s verdict on a case's transcripts (or ``scored``, one already made),
    as ``CaseResult`` fields (a run's result, and ``tooleval rescore``'s)."""
    if scored is None:
        scored = score_case(case, transcripts, case_file.language, case_today(case_file))
    return {"outcome": scored.outcome, "reasons": scored.reasons, "axes": scored.axes,
            "steps": [StepResult(transcript=t, checks=c)
                      for t, c in zip(transcripts, scored.checks, strict=True)]}


def score_run(ref: CaseRef, run: CaseRun) -> CaseResult:
    """The typed result of a case's run: ``score_case``'s verdict; for a failure of the
    machine, an ERROR with its partial transcript, or ``score_cut_off``'s FAIL (the error
    kept on it) where the model had called a tool where none was wanted."""
    identity = case_identity(ref)
    if run.error is None:
        return CaseResult(nodeid=ref.nodeid, duration_s=run.duration_s,
                          **verdict(ref.case_file, ref.case, run.transcripts), **identity)
    # The steps reached: a partial run has fewer transcripts than the case has steps.
    reached = zip(ref.case.steps, run.transcripts, strict=False)
    called = sorted({attempt.name for step, transcript in reached
                     for attempt in transcript.attempts
                     if attempt.valid and attempt.name and attempt.name in step.forbidden})
    cut = score_cut_off(ref.case, run.transcripts, run.error)
    if cut is not None:
        ran = cut.checks[-1].forbidden_ran if cut.checks[-1] else []  # the gate's already
        return CaseResult(nodeid=ref.nodeid, duration_s=run.duration_s, error=run.error,
                          forbidden_before_failure=[n for n in called if n not in ran],
                          **verdict(ref.case_file, ref.case, run.transcripts, cut), **identity)
    return CaseResult.infrastructure_error(
        ref.nodeid, run.error, transcripts=run.transcripts, duration_s=run.duration_s,
        forbidden_before_failure=called, **identity,
    )
