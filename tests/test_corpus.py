"""The shipped corpora: counts, names, guards, registers, router coverage, no near-duplicates.

A later edit that drops a case, breaks a guard or routes an expected tool out of the nine
fails here, before any model is asked.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.check.static import run_check
from pytest_tooleval.router.catalogue import offered_builtin_names

ROOT = Path(__file__).resolve().parent.parent
EN_GROUPS = {"arithmetic-time": 40, "documents": 40, "files-archives": 40, "code-git": 40,
             "web": 40, "memory-calendar": 40, "irrelevance": 45, "chains": 29}
TR_MINIMUM = {"arithmetic-time": 33, "documents": 33, "files-archives": 33, "code-git": 33,
              "web": 33, "memory-calendar": 33, "irrelevance": 40, "chains": 25,
              "register": 42}
REGISTERS = {"formal", "whatsapp", "elderly", "anatolian", "ascii", "caps", "emoji"}


def corpus(language: str) -> list:
    files = sorted((ROOT / "benchmarks" / language).glob("*.json"))
    return [load_case_file(path) for path in files]


def group_counts(files: list) -> Counter:
    return Counter(case.group or case.category for f in files for case in f.cases)


def test_english_groups_have_their_counts() -> None:
    files = corpus("en")
    assert dict(group_counts(files)) == EN_GROUPS
    assert sum(len(f.cases) for f in files) == 314
    assert all(f.language == "en" for f in files)
    chains = [c for f in files for c in f.cases if c.group == "chains"]
    assert all(c.category == "chain" and 2 <= len(c.steps) <= 4 for c in chains)


def test_turkish_groups_meet_their_minimums() -> None:
    files = corpus("tr")
    counts = group_counts(files)
    for group, minimum in TR_MINIMUM.items():
        assert counts[group] >= minimum, f"{group}: {counts[group]} < {minimum}"
    assert sum(len(f.cases) for f in files) >= 319
    assert all(f.language == "tr" for f in files)
    web = next(f for f in files if any(c.group == "web" for c in f.cases))
    assert "web_search" in web.requires


def test_turkish_registers_are_complete() -> None:
    jobs: dict[str, dict[str, tuple]] = defaultdict(dict)
    for case_file in corpus("tr"):
        for case in case_file.cases:
            if case.group != "register":
                continue
            assert case.job and case.register in REGISTERS, case.name
            step = case.steps[0]
            jobs[case.job][case.register] = (tuple(step.expect), json.dumps(step.evidence),
                                             tuple(step.forbidden))
            assert ("hardmode" in case.marks) == (case.register != "formal"), case.name
    assert len(jobs) >= 6
    for job, registers in jobs.items():
        assert set(registers) == REGISTERS, f"job {job} lacks {REGISTERS - set(registers)}"
        # Only the phrasing varies: tool, evidence and forbidden are the job's own.
        assert len(set(registers.values())) == 1, f"job {job} varies more than its phrasing"


def test_case_names_are_unique_per_file_and_scenario_ids_across_files() -> None:
    scenario_ids = [case.name for path in sorted((ROOT / "scenarios").glob("*.yaml"))
                    for case in load_case_file(path).cases]
    assert len(scenario_ids) == len(set(scenario_ids))
    assert all(name.startswith("TC-") for name in scenario_ids)
    english = [n for n in scenario_ids if int(n[3:]) < 41]
    turkish = [n for n in scenario_ids if int(n[3:]) >= 41]
    assert len(english) >= 24 and len(turkish) >= 8
    assert sorted(int(n[3:]) for n in english) == list(range(1, len(english) + 1))


@pytest.mark.parametrize("paths", [["benchmarks/en", "scenarios", "benchmarks/example.json"],
                                   ["benchmarks/tr"]], ids=["en+scenarios", "tr"])
def test_guards_router_coverage_and_no_near_duplicates(paths: list[str]) -> None:
    report = run_check([ROOT / p for p in paths], offered_tools=offered_builtin_names())
    assert report.cases > 0
    assert [f"{f.kind} {f.file}::{f.case} step {f.step}: {f.detail}"
            for f in report.failures] == []
    assert report.recall.recall == 1.0
