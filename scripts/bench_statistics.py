"""How long the statistics take: summarize() (intervals on every figure) and a paired
compare, on a reference report and on a synthetic corpus-sized run with repeats.

Usage: python scripts/bench_statistics.py   (prints seconds; nothing is asserted)
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from pytest_tooleval.report.compare import compare
from pytest_tooleval.report.json_report import build_report
from pytest_tooleval.report.model import load_report
from pytest_tooleval.result import CaseResult, Outcome
from pytest_tooleval.scoring.aggregate import Thresholds, summarize

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = ("irrelevance", "tool", "chain")
AXIS = {"irrelevance": "irrelevance", "tool": "tool", "chain": "step"}


def synthetic(cases: int, repeats: int, seed: int) -> list[CaseResult]:
    rng = random.Random(seed)
    results = []
    for i in range(cases):
        category = CATEGORIES[i % 3]
        for r in range(1, repeats + 1):
            passed = rng.random() < 0.7
            axes = {AXIS[category]: float(passed), "answer": rng.choice((0.0, 0.5, 1.0))}
            suffix = f"[r{r}]" if repeats > 1 else ""
            results.append(CaseResult(
                nodeid=f"f{i % 20}.json::c{i}{suffix}", file=f"f{i % 20}.json", case=f"c{i}",
                outcome=Outcome.PASS if passed else Outcome.FAIL, axes=axes,
                category=category, group=f"g{i % 12}", language=("en", "tr")[i % 2],
                case_hash=f"h{i}", repeat=r if repeats > 1 else None))
    return results


def timed(label: str, call) -> object:
    started = time.perf_counter()
    value = call()
    print(f"{label}: {time.perf_counter() - started:.2f} s")
    return value


def main() -> None:
    on = load_report(ROOT / "docs/results/gap-sample4/on/report.json")
    off = load_report(ROOT / "docs/results/gap-sample4/off/report.json")
    timed(f"summarize, reference report ({len(on.cases)} cases)",
          lambda: summarize(on.cases, Thresholds()))
    timed("compare, reference reports (paired)", lambda: compare(on, off, force=True))
    for cases, repeats in ((674, 1), (674, 5)):
        results = synthetic(cases, repeats, 1)
        other = synthetic(cases, repeats, 2)
        summary = timed(f"summarize, synthetic {cases} cases × {repeats}",
                        lambda r=results: summarize(r, Thresholds()))
        a, b = build_report(on.run, results, summary), build_report(on.run, other, summary)
        timed(f"compare, synthetic {cases} cases × {repeats}",
              lambda a=a, b=b: compare(a, b))


if __name__ == "__main__":
    main()
