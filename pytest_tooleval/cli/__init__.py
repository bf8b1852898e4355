"""The ``tooleval`` command: the same measurements as the pytest plugin, from a shell.

One module per command (``cli/<command>.py``, each with ``main(argv) -> int``). ``main``
imports a command's module only when that command runs, so ``tooleval --help`` stays fast.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

#: Command, its module under ``pytest_tooleval.cli`` and its line in ``tooleval --help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init", "a starting project: a profile, an example tool, three proven cases"),
    "run": ("run", "run cases against a model (a front over pytest)"),
    "check": ("check", "no model: guards, requires, router coverage, near-duplicates"),
    "split": ("split", "a router evaluation folder's tuning and frozen halves (make, record)"),
    "route": ("route", "show the tools the router picks for a message, and why"),
    "call": ("call", "no model: one call of a configured tool on a fresh world (for gold "
             "paths)"),
    "gap": ("gap", "grammar on against off: the difference per axis and group"),
    "compare": ("compare", "a run against a baseline report: deltas, regressions first"),
    "board": ("board", "several runs of the same cases ranked side by side (N models)"),
    "rescore": ("rescore", "no model: the current case files applied to a stored run's "
                "transcripts"),
    "merge": ("merge", "join the shards of a run (journals or reports) into one report"),
    "doctor": ("doctor", "the isolation for run_python and git here, and a short escape "
               "battery"),
    "power": ("power", "cases or repeats needed to detect a change; what a selection can "
              "detect"),
    "html": ("html", "write report.html (or gap.html) from report.json files"),
    "export": ("export", "the corpus and a run's results as a Hugging Face dataset (Parquet)"),
    "import": ("import_", "convert BFCL files into benchmark files"),
}


def _usage() -> None:
    print("usage: tooleval COMMAND [options]\n\ncommands:")
    for name, (_module, summary) in COMMANDS.items():
        print(f"  {name:<8} {summary}")
    print("\n`tooleval COMMAND --help` describes each command.")
    sys.stdout.flush()  # a closed pipe shows here, buffered or not: the same exit code


def _dispatch(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        _usage()
        return 0 if argv else 2
    if argv[0] not in COMMANDS:
        print(f"tooleval: unknown command {argv[0]!r}; try one of: {', '.join(COMMANDS)}",
              file=sys.stderr)
        return 2
    # The one lazy seam: only the command that runs is imported.
    module = importlib.import_module(f"{__name__}.{COMMANDS[argv[0]][0]}")
    return int(module.main(argv[1:]))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    code: int | None = None
    try:
        try:
            code = _dispatch(argv)
        except SystemExit as exit_:  # argparse's --help and usage errors, pytest's exit
            code = _exit_code(exit_)
        sys.stdout.flush()  # inside the try: a reader that left shows here, not at exit
        return code
    except BrokenPipeError:
        # `tooleval gap … | head`: the reader left. Stop writing quietly, as cat does, and
        # keep the command's own verdict when it had one (a regression must still fail a
        # `set -o pipefail` job); otherwise 141, the shell's code for a closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return code if code is not None else 141


def _exit_code(exit_: SystemExit) -> int:
    """``sys.exit``'s code as the process would end with it (a text: printed, then 1)."""
    if exit_.code is None or isinstance(exit_.code, int):
        return int(exit_.code or 0)
    print(exit_.code, file=sys.stderr)
    return 1
