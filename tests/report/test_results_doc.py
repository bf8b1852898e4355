"""docs/benchmarks.md's results are generated from the committed reports in docs/results/:
rebuilding them must give the committed text exactly (a hand edit, a report replaced
without regenerating, or a renderer that changed since, all fail here)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_results_are_what_the_committed_reports_give() -> None:
    script = ROOT / "scripts" / "results_doc.py"
    spec = importlib.util.spec_from_file_location("results_doc", script)
    assert spec is not None and spec.loader is not None
    results_doc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(results_doc)
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    committed = re.search(re.escape(results_doc.START) + ".*?" + re.escape(results_doc.END),
                          text, flags=re.DOTALL)
    assert committed, "docs/benchmarks.md has no generated results block"
    rebuilt = results_doc.section()
    for heading in ("| score |", "| group | cases |", "| register (Turkish) | cases |",
                    "| language | cases |", "failing steps by first failed check",
                    "## Case by case (674 paired cases)"):
        assert heading in rebuilt, heading
    assert committed.group(0) == rebuilt, "run: python scripts/results_doc.py"
