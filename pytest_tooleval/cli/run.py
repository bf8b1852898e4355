"""``tooleval run``: a front over pytest. Its tooleval options are the plugin's own
(``config.OPTIONS``: the same flags, help texts and defaults), a few with a short name;
pytest's common options are named here; everything after ``--`` goes to pytest unchanged."""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Collection, Sequence

import pytest

from pytest_tooleval.cli.common import DEFAULT_PATHS, Refused, refusals
from pytest_tooleval.config import OPTIONS
from pytest_tooleval.hints import did_you_mean

#: The short names the command gives some of the plugin's flags (both are accepted).
SHORT = {"report_dir": "--report", "sample": "--sample", "repeat": "--repeat",
         "resume": "--resume", "shard": "--shard"}
_PYTEST_FLAGS = {"lf": "--lf", "ff": "--ff", "exitfirst": "-x"}
#: The plugin's options outside ``config.OPTIONS`` (command line only), passed on as given.
_PASSED = ("--tooleval-order", "--tooleval-progress", "--tooleval-html", "--tooleval-metrics",
           "--tooleval-pushgateway")


def run_parser(prog: str, description: str, *, leave_out: Collection[str] = (),
               defaults: dict[str, str] | None = None) -> argparse.ArgumentParser:
    """The options `run` and `gap` share: the plugin's (less ``leave_out``; ``defaults``
    replace the plugin's) and pytest's common ones."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("paths", nargs="*", help="files or folders (default: benchmarks scenarios)")
    defaults = defaults or {}
    for option in OPTIONS:
        if option.dest in leave_out:
            continue
        flags = [SHORT[option.dest], option.flag] if option.dest in SHORT else [option.flag]
        if option.is_flag:
            parser.add_argument(*flags, dest=option.dest, action="store_true", default=None,
                                help=option.help)
            continue
        default = defaults.get(option.dest, option.default)
        shown = f" (default {default})" if default is not None else ""
        parser.add_argument(*flags, dest=option.dest, choices=option.choices,
                            default=defaults.get(option.dest), help=option.help + shown)
    for flag in _PASSED:
        parser.add_argument(flag, help="as in pytest --help")
    parser.add_argument("-n", "--workers", help="xdist workers (needs pytest-xdist)")
    parser.add_argument("-m", dest="marks", help="pytest marker expression, e.g. hardmode")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression, e.g. TC-7")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="one line per case (as pytest -v)")
    parser.add_argument("-q", "--quiet", action="count", default=0,
                        help="less output: no progress lines (as pytest -q)")
    parser.add_argument("--lf", "--last-failed", dest="lf", action="store_true",
                        help="rerun only the cases that did not pass last time (as pytest --lf)")
    parser.add_argument("--ff", "--failed-first", dest="ff", action="store_true",
                        help="run the cases that did not pass last time first")
    parser.add_argument("-x", "--exitfirst", action="store_true",
                        help="stop at the first case that does not pass")
    parser.add_argument("--maxfail", type=int, metavar="N", help="stop after N cases not passed")
    return parser


def pytest_args_for_run(options: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    """The pytest command line of ``options`` (a namespace of ``run_parser``)."""
    autoload_off = bool(os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"))
    args: list[str] = ["-p", "pytest_tooleval.plugin"] if autoload_off else []
    args += list(options.paths or [p for p in DEFAULT_PATHS if os.path.isdir(p)])
    for option in OPTIONS:
        value = getattr(options, option.dest, None)
        if value is None or value is False:
            continue
        # FLAG=VALUE, one word: pytest takes a separate word that names an existing path
        # for a test path when it picks the rootdir, before the plugin's options are known.
        args.append(option.flag if option.is_flag else f"{option.flag}={value}")
    for flag in _PASSED:
        value = getattr(options, flag[2:].replace("-", "_"), None)
        if value is not None:
            args.append(f"{flag}={value}")
    if getattr(options, "workers", None):
        args += [*(["-p", "xdist"] if autoload_off else []), "-n", options.workers]
    if getattr(options, "marks", None):
        args += ["-m", options.marks]
    if getattr(options, "keyword", None):
        args += ["-k", options.keyword]
    verbosity = getattr(options, "verbose", 0) - getattr(options, "quiet", 0)
    if verbosity:
        args.append("-" + ("v" if verbosity > 0 else "q") * abs(verbosity))
    args += [flag for dest, flag in _PYTEST_FLAGS.items() if getattr(options, dest, False)]
    if getattr(options, "maxfail", None):
        args += ["--maxfail", str(options.maxfail)]
    return [*args, *extra]


def split_passthrough(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """The command's own arguments, and those after ``--`` (for pytest)."""
    argv = list(argv)
    if "--" not in argv:
        return argv, []
    index = argv.index("--")
    return argv[:index], argv[index + 1:]


def refuse_unknown(parser: argparse.ArgumentParser, unknown: list[str]) -> None:
    """A usage error for arguments the command does not know: the nearest option when one
    is close (a typo), else where pytest's other options go."""
    known = [flag for action in parser._actions for flag in action.option_strings]
    for word in unknown:
        # a long option is not offered a short one: --k is not -k (a filter of the cases)
        alike = [flag for flag in known if flag.startswith("--") == word.startswith("--")]
        hint = did_you_mean(word.split("=", 1)[0], alike) if word.startswith("-") else ""
        if hint:
            parser.error(f"unrecognized argument {word}{hint}")
    parser.error(f"unrecognized arguments: {' '.join(unknown)}; pytest's other options go "
                 f"after --, e.g. tooleval run -- {' '.join(unknown)}")


def missing_for(options: argparse.Namespace) -> str | None:
    """What an option asks for that is not installed; nothing is installed behind your back."""
    if options.workers and importlib.util.find_spec("xdist") is None:
        return (f"-n {options.workers} runs cases in parallel through pytest-xdist, which is "
                "not installed. Install it with: pip install 'pytest-tooleval[xdist]' "
                "(or pip install pytest-xdist), or leave out -n to run serially.")
    return None


@refusals("tooleval run")
def main(argv: Sequence[str]) -> int:
    parser = run_parser("tooleval run", "Run benchmark and scenario files against a model "
                        "(a front over pytest). Arguments after -- go to pytest unchanged.")
    own, extra = split_passthrough(argv)
    options, unknown = parser.parse_known_args(own)
    if unknown:
        refuse_unknown(parser, unknown)
    missing = missing_for(options)
    if missing:
        raise Refused(missing)
    return int(pytest.main(pytest_args_for_run(options, extra)))
