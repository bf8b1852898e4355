"""CI's oracle check on the shipped corpus: every gold path present proves its case.

Steps without a gold path yet, and the measuring guards, are the corpus repair's backlog
(issue 14, item 10); they are counted, not failed, here. A gold path that fails is a case
that cannot be passed as written, and fails this test.
"""

from __future__ import annotations

from pathlib import Path

from pytest_tooleval.check.oracle import ORACLE, run_oracle

ROOT = Path(__file__).resolve().parents[2]
REPAIRED = {"chain-export-author-phone-message", "chain-vet-date-then-last-visit",
            "dogum-gunune-kac-gun", "sadece-cli-commitle"}


def test_every_gold_path_in_the_corpus_proves_its_case(world_base: Path) -> None:
    report = run_oracle([ROOT / "benchmarks", ROOT / "scenarios"], world_base=world_base)
    assert not report.load_errors
    failing = [f for f in report.failures if f.kind == ORACLE]
    assert failing == [], "\n".join(f"{f.file}::{f.case} step {f.step}: {f.reason}"
                                    for f in failing)
    assert report.proven >= len(REPAIRED) + 4  # the repaired cases and benchmarks/example.json
    unproven = {f.case for f in report.failures}
    assert not REPAIRED & unproven, REPAIRED & unproven
