"""What the commands share: the parser built from each command's arguments, a problem with
the input said as ``PROG: message`` (exit 2), and the case folders taken when none is given."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Main = Callable[[Sequence[str]], int]
Body = Callable[[argparse.Namespace, argparse.ArgumentParser], int]
DEFAULT_PATHS = ("benchmarks", "scenarios")


class Refused(Exception):
    """Bad usage or input: the command says why on stderr and exits 2."""


def arg(*flags: str, **options: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    """One ``add_argument`` of a command, as ``command`` takes it."""
    return flags, options


def refusals(prog: str, *errors: type[Exception]) -> Callable[[Main], Main]:
    """``main`` with ``Refused``, ``errors`` and a refused file (``OSError``) said on stderr
    as ``PROG: message``, exit 2."""
    caught: tuple[type[Exception], ...] = (Refused, *errors)

    def wrap(main: Main) -> Main:
        @functools.wraps(main)
        def run(argv: Sequence[str]) -> int:
            try:
                return main(argv)
            except caught as exc:
                print(f"{prog}: {exc}", file=sys.stderr)
                return 2
            except BrokenPipeError:
                raise  # the reader left: cli.main ends quietly
            except OSError as exc:  # an input or output the system refuses: a folder, no room
                # os.replace names the temporary file first and the one asked for second
                where = exc.filename2 if exc.filename2 is not None else exc.filename
                print(f"{prog}: {where}: {exc.strerror}" if where is not None and exc.strerror
                      else f"{prog}: {exc}", file=sys.stderr)
                return 2
        return run
    return wrap


def command(prog: str, description: str | None,
            *arguments: tuple[tuple[str, ...], dict[str, Any]],
            errors: tuple[type[Exception], ...] = (), raw: bool = False) -> Callable[[Body], Main]:
    """``main(argv)``: ``arguments`` parsed (``raw``: the description kept as written), the
    body run on the options, its refusals said as ``refusals`` says them."""
    def wrap(body: Body) -> Main:
        @refusals(prog, *errors)
        @functools.wraps(body)
        def main(argv: Sequence[str]) -> int:
            parser = argparse.ArgumentParser(
                prog=prog, description=description,
                formatter_class=argparse.RawDescriptionHelpFormatter if raw
                else argparse.HelpFormatter)
            for flags, options in arguments:
                parser.add_argument(*flags, **options)
            return body(parser.parse_args(list(argv)), parser)
        return main
    return wrap


def case_paths(paths: Sequence[Path]) -> list[Path]:
    """The paths given, else the default case folders that exist here."""
    return list(paths) or [Path(p) for p in DEFAULT_PATHS if Path(p).is_dir()]
