"""CI's oracle check on the shipped corpus: every case of every benchmark file and
scenario has a gold path, the gold path proves it through the real tools and scorer, and
the measuring guards hold (a write step is checked; a read-only tool is forbidden only
with a reason). A case nobody proved passable does not ship.
"""

from __future__ import annotations

from pathlib import Path

from pytest_tooleval.check.oracle import run_oracle

ROOT = Path(__file__).resolve().parents[2]


def test_every_case_in_the_corpus_is_proven_by_its_gold_path(world_base: Path) -> None:
    report = run_oracle([ROOT / "benchmarks", ROOT / "scenarios"], world_base=world_base)
    assert not report.load_errors
    assert report.failures == [], "\n".join(
        f"{f.kind} {f.file}::{f.case} step {f.step}: {f.reason}" for f in report.failures)
    assert report.proven == report.cases >= 674, (report.proven, report.cases)
