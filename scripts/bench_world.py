"""Cost of building the template world once and of giving one case its copy (milliseconds)."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from pytest_tooleval.world.build import build_template
from pytest_tooleval.world.factory import WorldFactory

RUNS = 20


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        builds = []
        for i in range(5):
            start = time.perf_counter()
            build_template(base / f"build-{i}")
            builds.append(time.perf_counter() - start)
        factory = WorldFactory(base / "shared")
        factory.template()
        copies = []
        for i in range(RUNS):
            start = time.perf_counter()
            factory.new_case_world(base / f"case-{i}")
            copies.append(time.perf_counter() - start)
        overridden = []
        for i in range(RUNS):
            start = time.perf_counter()
            factory.new_case_world(
                base / f"ovr-{i}",
                {"clock": "2026-05-01T09:00:00+03:00", "files": {"Notes/x.txt": "x"}},
            )
            overridden.append(time.perf_counter() - start)
        n_files = sum(1 for p in factory.template().root.rglob("*") if p.is_file())
    print(f"template build (median of 5): {median_ms(builds):.1f} ms")
    print(f"case copy (median of {RUNS}): {median_ms(copies):.1f} ms  ({n_files} files incl. .git)")
    print(f"case copy with overrides (median of {RUNS}): {median_ms(overridden):.1f} ms")


if __name__ == "__main__":
    main()
