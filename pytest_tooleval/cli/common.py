"""What the commands share: a problem with the input said as ``PROG: message`` (exit 2),
and the case folders taken when none is given."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

Main = Callable[[Sequence[str]], int]
DEFAULT_PATHS = ("benchmarks", "scenarios")


class Refused(Exception):
    """Bad usage or input: the command says why on stderr and exits 2."""


def command(prog: str, *errors: type[Exception]) -> Callable[[Main], Main]:
    """``main`` with ``Refused`` and ``errors`` said on stderr as ``PROG: message``, exit 2."""
    caught: tuple[type[Exception], ...] = (Refused, *errors)

    def wrap(main: Main) -> Main:
        @functools.wraps(main)
        def run(argv: Sequence[str]) -> int:
            try:
                return main(argv)
            except caught as exc:
                print(f"{prog}: {exc}", file=sys.stderr)
                return 2
        return run
    return wrap


def case_paths(paths: Sequence[Path]) -> list[Path]:
    """The paths given, else the default case folders that exist here."""
    return list(paths) or [Path(p) for p in DEFAULT_PATHS if Path(p).is_dir()]
