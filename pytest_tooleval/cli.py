"""The ``tooleval`` command: the same measurements as the pytest plugin, from a shell.

``run`` is a thin front over pytest; ``check`` and ``route`` need no model; ``gap`` and
``compare`` work on runs and reports.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

DEFAULT_PATHS = ("benchmarks", "scenarios")


def pytest_args_for_run(options: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    args: list[str] = []
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        args += ["-p", "pytest_tooleval.plugin"]
    paths = options.paths or [p for p in DEFAULT_PATHS if os.path.isdir(p)]
    args += list(paths)
    if options.model:
        args += ["--model", options.model]
    if options.grammar:
        args += ["--grammar", options.grammar]
    if options.report:
        args += ["--tooleval-report", options.report]
    if options.workers:
        args += ["-p", "xdist", "-n", options.workers] if os.environ.get(
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD") else ["-n", options.workers]
    if options.marks:
        args += ["-m", options.marks]
    if options.keyword:
        args += ["-k", options.keyword]
    args += ["-q", "-p", "no:cacheprovider", *extra]
    return args


def run_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tooleval run",
        description="Run benchmark and scenario files against a model (a front over pytest). "
        "Arguments after -- go to pytest unchanged.",
    )
    parser.add_argument("paths", nargs="*", help="files or folders (default: benchmarks scenarios)")
    parser.add_argument("--model", help="profile name, ollama:MODEL, or a .gguf path")
    parser.add_argument("--grammar", choices=("on", "off", "vendor"))
    parser.add_argument("--report", help="report directory (default tooleval-report)")
    parser.add_argument("-n", "--workers", help="xdist workers (needs pytest-xdist)")
    parser.add_argument("-m", dest="marks", help="pytest marker expression, e.g. hardmode")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression, e.g. TC-7")
    argv = list(argv)
    extra: list[str] = []
    if "--" in argv:
        index = argv.index("--")
        argv, extra = argv[:index], argv[index + 1:]
    options = parser.parse_args(argv)
    import pytest

    return int(pytest.main(pytest_args_for_run(options, extra)))


def _commands() -> dict[str, tuple[str, Callable[[Sequence[str]], int]]]:
    commands: dict[str, tuple[str, Callable[[Sequence[str]], int]]] = {
        "run": ("run cases against a model (a front over pytest)", run_main),
    }
    return commands


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _commands()
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: tooleval COMMAND [options]\n\ncommands:")
        for name, (summary, _) in commands.items():
            print(f"  {name:<8} {summary}")
        print("\n`tooleval COMMAND --help` describes each command.")
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in commands:
        print(f"tooleval: unknown command {name!r}; try one of: {', '.join(commands)}",
              file=sys.stderr)
        return 2
    return commands[name][1](rest)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
