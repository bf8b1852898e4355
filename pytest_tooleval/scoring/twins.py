"""The language gap on twins: cases that ask the same job, with the same fact, in two
languages share a ``job`` id; their scores side by side measure the language alone."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_tooleval.result import CaseResult


def language_gap(results: list[CaseResult]) -> dict[str, Any]:
    """Per language, the score over the twin jobs every language of the run asks.

    Only jobs with a scored case in at least two languages count; within one language the
    job's cases (its registers, say) are averaged first, so a job phrased in seven
    registers weighs as much as one asked once.
    """
    from pytest_tooleval.scoring.aggregate import axes_of, score_of

    by_job: dict[str, dict[str, list[CaseResult]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        if result.scored and result.job and result.language:
            by_job[result.job][result.language].append(result)
    twins = {job: langs for job, langs in by_job.items() if len(langs) >= 2}
    languages = sorted({lang for langs in twins.values() for lang in langs})
    scores: dict[str, float | None] = {}
    for language in languages:
        per_job = [score_of(axes_of(langs[language])) for langs in twins.values()
                   if language in langs]
        values = [s for s in per_job if s is not None]
        scores[language] = sum(values) / len(values) if values else None
    shared = [job for job, langs in twins.items() if all(lang in langs for lang in languages)]
    gap = None
    if len(languages) == 2 and None not in scores.values():
        first, second = languages
        gap = round(float(scores[second] or 0.0) - float(scores[first] or 0.0), 4)
    return {"jobs": len(twins), "jobs_in_every_language": len(shared),
            "languages": languages, "scores": scores,
            "gap": gap, "gap_is": f"{languages[1]} − {languages[0]}" if gap is not None else None}
