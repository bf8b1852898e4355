"""``tooleval split``: make or update a router evaluation folder's tuning and frozen halves
(check/split.py describes the discipline)."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from pytest_tooleval.check import split as halves
from pytest_tooleval.cli.common import Refused, arg, command


@command("tooleval split", halves.__doc__,
         arg("folder", type=Path),
         arg("--record", metavar="WHY", help="record edits to an existing split"),
         arg("--seed", default=halves.DEFAULT_SEED, help="seed of a new split"),
         errors=(ValueError,), raw=True)
def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``tooleval split FOLDER [--record WHY] [--seed S]``: make or update the split."""
    if not args.folder.is_dir():
        raise Refused(f"no such folder: {args.folder}")
    split = halves.load_split(args.folder)
    if split is None:
        split = halves.make_split(args.folder, args.seed)
        message = "written"
    elif args.record:
        touched = halves.record_changes(split, args.record)
        message = f"recorded {len(touched)} change(s)"
    else:
        raise Refused(f"{split.path} exists; to record edits pass --record 'why'")
    split.path.write_text(halves.dump(split), encoding="utf-8")
    count = Counter(entry.half for entry in split.entries.values())
    print(f"{split.path}: {message}; {count[halves.TUNING]} tuning, {count[halves.FROZEN]} "
          "frozen case(s)")
    return 0

