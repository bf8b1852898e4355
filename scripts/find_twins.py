"""Candidate EN/TR twins for the corpus's `job` ids: cases of the same category that expect
the same tools and share an evidence value (after normalisation). Prints one line per
candidate pair; a reviewer decides and writes the shared `job` id into both cases.

    python scripts/find_twins.py [benchmarks]
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from pytest_tooleval.cases.evidence import evidence_key
from pytest_tooleval.cases.load import load_case_file


def signature(case) -> tuple[str, tuple[str, ...]]:
    tools = sorted({tool for step in case.steps for tool in step.expected_tools})
    return case.category, tuple(tools)


def facts(case) -> set[str]:
    return {evidence_key(alt) for step in case.steps
            for alts in step.evidence_alternatives() for alt in alts if len(alt.strip()) > 2}


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path("benchmarks")
    by_language: dict[str, list[tuple[str, object]]] = defaultdict(list)
    for path in sorted(root.rglob("*.json")):
        case_file = load_case_file(path)
        for case in case_file.cases:
            by_language[case_file.language].append((f"{path}::{case.name}", case))
    english, turkish = by_language.get("en", []), by_language.get("tr", [])
    found = 0
    for en_id, en_case in english:
        for tr_id, tr_case in turkish:
            if signature(en_case) != signature(tr_case):
                continue
            shared = facts(en_case) & facts(tr_case)
            if shared:
                found += 1
                jobs = f" (jobs: {en_case.job} / {tr_case.job})" if en_case.job or tr_case.job \
                    else ""
                print(f"{en_id}  <->  {tr_id}  shared: {', '.join(sorted(shared))}{jobs}")
    print(f"{found} candidate pair(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
