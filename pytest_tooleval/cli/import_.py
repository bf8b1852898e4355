"""``tooleval import``: another benchmark's files converted into tooleval benchmark files."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from pytest_tooleval.cases.bfcl import KINDS, BadEntry, BfclError, import_bfcl, write_all
from pytest_tooleval.cli.common import Refused, arg, command


@command("tooleval import",
         "Convert another benchmark's local files into tooleval benchmark files. bfcl: "
         "Berkeley Function-Calling Leaderboard question files under BFCL's own names (kinds: "
         f"{', '.join(KINDS)}); simple and multiple kinds need their possible_answer file "
         "(default: possible_answer/ beside the question file). Nothing is written unless "
         "every entry converts (see --skip-bad).",
         arg("source", choices=("bfcl",), metavar="bfcl", help="the format: bfcl"),
         arg("paths", nargs="+", type=Path, metavar="FILE",
             help="BFCL question files (JSON Lines)"),
         arg("--answers", type=Path, help="folder of the possible_answer files"),
         arg("--out", type=Path, default=Path("benchmarks/bfcl"),
             help="a new or empty folder for the benchmark files (default benchmarks/bfcl)"),
         arg("--skip-bad", action="store_true",
             help="import the entries that convert and list the others"),
         errors=(BfclError,))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    out: Path = options.out
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise Refused(f"{out} is not an empty folder; give a new one with --out (or remove "
                      "it): an import into it would mix with what is there")
    imported = import_bfcl(options.paths, options.answers)
    if imported.bad and not options.skip_bad:
        print(f"tooleval import: {len(imported.bad)} entries cannot be converted, so "
              "nothing was written (--skip-bad imports the others):", file=sys.stderr)
        for bad in imported.bad:
            print(f"  {bad}", file=sys.stderr)
        return 1
    if not imported.files:
        raise Refused("no entry converted, so nothing was written")
    write_all(imported.files, out)
    for bad in imported.bad:
        print(f"skipped {bad}")
    if imported.duplicates:
        print(f"{len(imported.duplicates)} entries left out as near-duplicates of earlier "
              "ones (BFCL's own: the same question under other functions):")
        for line in imported.duplicates:
            print(f"  {line}")
    if imported.skipped_constraints:
        print(f"{imported.skipped_constraints} nested-dictionary argument constraint(s) left "
              "out of 'args' (only scalar and list values are checked; the gold call has them)")
    print(f"wrote {imported.cases} cases in {len(imported.files)} file(s) under {out}"
          + (f"; skipped {len(imported.bad)} entries: {_reasons(imported.bad)}"
             if imported.bad else "")
          + (f"; {len(imported.duplicates)} near-duplicates left out"
             if imported.duplicates else ""))
    print(f"prove them with: tooleval check --oracle --no-builtin {out}")
    print(f"run them with: pytest {out} --model M --tooleval-no-builtin")
    return 0


def _reasons(bad: list[BadEntry]) -> str:
    counts = Counter(b.reason for b in bad)
    return "; ".join(f"{n} × {reason}" for reason, n in counts.most_common())
