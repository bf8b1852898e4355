"""scripts/calibrate.py (issue 30, item 7): its fast path is the loop, and on a small
configuration the statistics hold: the intervals cover the true score and axes about as
often as they claim, and compare does not call a regression between two runs of one model.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location("calibrate", ROOT / "scripts" / "calibrate.py")
assert _SPEC is not None and _SPEC.loader is not None
calibrate = importlib.util.module_from_spec(_SPEC)
sys.modules["calibrate"] = calibrate
_SPEC.loader.exec_module(calibrate)


@pytest.fixture(scope="module")
def tables() -> list[Any]:
    """Every plan of 120 cases spread over the corpus (chains, irrelevance, writes)."""
    refs = calibrate.load_refs([ROOT / "benchmarks", ROOT / "scenarios"], 120)
    found, skipped = calibrate.build_tables(refs)
    assert not skipped, skipped
    return found


def test_the_fast_path_is_the_loop(tables: list[Any]) -> None:
    """A case's result read from its table (reads remembered across every plan run) is
    what a fresh session, with nothing remembered, gives for the same plan."""
    rng = random.Random(30)
    chains = [t for t in tables if t.category == "chain"]
    chosen = rng.sample(chains, 6) + rng.sample([t for t in tables if t not in chains], 14)
    runner = calibrate.Runner(remember=False)
    checked = 0
    try:
        for table in chosen:
            for index in rng.sample(range(len(table.plans)), min(3, len(table.plans))):
                fresh = runner.run(table.ref, table.plans[index])
                kept = table.results[index]
                assert (fresh.outcome, fresh.axes, fresh.reasons) == \
                    (kept.outcome, kept.axes, kept.reasons), (table.ref.nodeid,
                                                             table.plans[index])
                checked += 1
    finally:
        runner.close()
    assert checked >= 40
    # The plans differ: the model's slips reach the scorer.
    outcomes = {r.outcome for t in chosen for r in t.results}
    assert {"PASS", "PARTIAL", "FAIL"} <= {o.value for o in outcomes}


def test_the_intervals_hold_and_compare_stays_quiet(tables: list[Any]) -> None:
    found = calibrate.calibrate(tables, 80, seed=5)
    truth = found["truth"]
    drawn = found["drawn"]
    # A 95 % interval: loose bounds for 80 runs, failing for one half as wide (about 67 %).
    for figure, share in drawn["coverage"].items():
        assert 0.85 <= share <= 1.0, (figure, share, found)
    assert abs(drawn["measured"] - truth["score"]) < 1.5, found
    assert found["same model"].get("verdict: regression", 0.0) <= 0.10, found
    # A model 5 points worse in pass rate is worse, and compare sees it some of the time.
    assert found["worse"]["pass_rate"] == pytest.approx(truth["pass_rate"] - 0.05, abs=1e-3)
    assert found["worse"]["called"].get("verdict: regression", 0.0) > 0.0, found
