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
    if getattr(options, "sample", None):
        args += ["--tooleval-sample", str(options.sample)]
    if getattr(options, "repeat", None):
        args += ["--tooleval-repeat", str(options.repeat)]
    verbosity = getattr(options, "verbose", 0) - getattr(options, "quiet", 0)
    if verbosity:
        args.append("-" + ("v" if verbosity > 0 else "q") * abs(verbosity))
    for flag in ("lf", "ff", "exitfirst"):
        if getattr(options, flag, False):
            args.append({"lf": "--lf", "ff": "--ff", "exitfirst": "-x"}[flag])
    if getattr(options, "maxfail", None):
        args += ["--maxfail", str(options.maxfail)]
    if getattr(options, "resume", False):
        args.append("--tooleval-resume")
    if getattr(options, "shard", None):
        args += ["--tooleval-shard", options.shard]
    return [*args, *extra]


def _run_parser(prog: str, description: str, *, grammar: bool,
                report_default: str | None) -> argparse.ArgumentParser:
    """The options `run` and `gap` share; everything after `--` goes to pytest unchanged."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("paths", nargs="*", help="files or folders (default: benchmarks scenarios)")
    parser.add_argument("--model", help="profile name, ollama:MODEL, or a .gguf path")
    if grammar:
        parser.add_argument("--grammar", choices=("on", "off", "vendor"))
    parser.add_argument("--report", default=report_default,
                        help=f"report directory (default {report_default or 'tooleval-report'})")
    parser.add_argument("-n", "--workers", help="xdist workers (needs pytest-xdist)")
    parser.add_argument("-m", dest="marks", help="pytest marker expression, e.g. hardmode")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression, e.g. TC-7")
    parser.add_argument("--sample", "--tooleval-sample", type=int, metavar="N",
                        help="run every Nth case (each file keeps its share): a quick measurement")
    parser.add_argument("--repeat", "--tooleval-repeat", type=int, metavar="K",
                        help="run each case K times: pass^k, flaky cases, intervals over cases")
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


def _split_passthrough(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    argv = list(argv)
    if "--" not in argv:
        return argv, []
    index = argv.index("--")
    return argv[:index], argv[index + 1:]


def run_main(argv: Sequence[str]) -> int:
    parser = _run_parser("tooleval run", "Run benchmark and scenario files against a model "
                         "(a front over pytest). Arguments after -- go to pytest unchanged.",
                         grammar=True, report_default=None)
    parser.add_argument("--resume", action="store_true",
                        help="continue the run journalled in the report folder "
                        "(as --tooleval-resume)")
    parser.add_argument("--shard", metavar="I/N",
                        help="run shard I of N of the selection (as --tooleval-shard)")
    own, extra = _split_passthrough(argv)
    options, unknown = parser.parse_known_args(own)
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}; pytest's other options go "
                     f"after --, e.g. tooleval run -- {' '.join(unknown)}")
    missing = missing_for(options)
    if missing:
        print(f"tooleval run: {missing}", file=sys.stderr)
        return 2
    import pytest

    return int(pytest.main(pytest_args_for_run(options, extra)))


def missing_for(options: argparse.Namespace) -> str | None:
    """What an option asks for that is not installed; nothing is installed behind your back."""
    import importlib.util

    if options.workers and importlib.util.find_spec("xdist") is None:
        return (f"-n {options.workers} runs cases in parallel through pytest-xdist, which is "
                "not installed. Install it with: pip install 'pytest-tooleval[xdist]' "
                "(or pip install pytest-xdist), or leave out -n to run serially.")
    return None


def compare_main(argv: Sequence[str]) -> int:
    from pathlib import Path

    from pytest_tooleval.report.compare import compare, render_comparison
    from pytest_tooleval.report.model import ReportError, load_report
    from pytest_tooleval.report.write import write_json

    parser = argparse.ArgumentParser(
        prog="tooleval compare",
        description="A run against a baseline, paired case by case (by content hash): per "
        "axis, the pass rate and the score, the difference with its paired interval and "
        "test, and a verdict. Exit 1 on a regression (a drop outside the noise at the level "
        "and beyond the tolerance) or a refused comparison; 0 on 'no detectable change' or "
        "an improvement; 2 on unreadable input.",
    )
    parser.add_argument("new", type=Path, help="report.json of the new run")
    parser.add_argument("baseline", type=Path, help="report.json of the baseline run")
    parser.add_argument("--tolerance", type=float, default=1.0,
                        help="a significant drop must also exceed this many points out of "
                        "100 to count as a regression (default 1.0)")
    parser.add_argument("--level", type=float, default=0.95,
                        help="confidence level of the intervals and the regression test "
                        "(default 0.95)")
    parser.add_argument("--force", action="store_true",
                        help="compare runs that differ in platform, tools, cases or grammar")
    parser.add_argument("--json", type=Path, help="also write the comparison as JSON")
    options = parser.parse_args(list(argv))
    try:
        new, base = load_report(options.new), load_report(options.baseline)
    except ReportError as exc:
        print(f"tooleval compare: {exc}", file=sys.stderr)
        return 2
    if not 0.5 <= options.level < 1:
        print(f"tooleval compare: --level must lie in [0.5, 1), got {options.level}",
              file=sys.stderr)
        return 2
    result = compare(new, base, force=options.force, tolerance=options.tolerance,
                     level=options.level)
    print(render_comparison(result), end="")
    if options.json:
        write_json(options.json, result.to_dict())
    return 1 if (not result.compared or result.regressed()) else 0


def gap_main(argv: Sequence[str]) -> int:
    import subprocess
    from pathlib import Path

    from pytest_tooleval.report.compare import differences
    from pytest_tooleval.report.gap import gap_of, render_gap
    from pytest_tooleval.report.model import Report, ReportError, load_report
    from pytest_tooleval.report.write import write_atomic, write_json

    parser = _run_parser(
        "tooleval gap",
        "Run the cases with grammar on and with grammar off (same prompt, same seed) and "
        "report the difference per axis and group, with validity figures.",
        grammar=False, report_default="tooleval-report/gap")
    parser.add_argument("--from-reports", nargs=2, metavar=("ON.json", "OFF.json"),
                        type=Path, help="build the gap from two report.json files run before "
                        "(for example on different days or machines) instead of running")
    parser.add_argument("--force", action="store_true",
                        help="with --from-reports: build the gap even when the two runs differ "
                        "in platform, tools offered or case set")
    own, extra = _split_passthrough(argv)
    options = parser.parse_args(own)
    missing = missing_for(options)
    if missing and not options.from_reports:
        print(f"tooleval gap: {missing}", file=sys.stderr)
        return 2
    out = Path(options.report)
    reports: dict[str, Report] = {}
    if options.from_reports:
        try:
            reports = {arm: load_report(path)
                       for arm, path in zip(("on", "off"), options.from_reports, strict=True)}
        except ReportError as exc:
            print(f"tooleval gap: {exc}", file=sys.stderr)
            return 2
        grammars = [reports[arm].run.backend.get("grammar") for arm in ("on", "off")]
        if grammars != ["on", "off"]:
            print(f"tooleval gap: the reports ran with grammar {grammars[0]} and {grammars[1]}; "
                  "give the grammar-on report first, then the grammar-off one", file=sys.stderr)
            return 2
        # The constraint is meant to differ; nothing else may.
        found = [d for d in differences(reports["on"], reports["off"])
                 if not d.startswith("grammar mechanism differs")]
        if found and not options.force:
            print("tooleval gap: the two runs differ beyond the grammar (pass --force to build "
                  "the gap over the cases both scored anyway):", file=sys.stderr)
            for line in found:
                print(f"  - {line}", file=sys.stderr)
            return 2
        if found:
            print("tooleval gap: --force: building the gap although the runs differ:",
                  file=sys.stderr)
            for line in found:
                print(f"  - {line}", file=sys.stderr)
    for arm in ("on", "off"):
        if arm in reports:
            continue
        arm_options = argparse.Namespace(**vars(options))
        arm_options.grammar = arm
        arm_options.report = str(out / arm)
        args = pytest_args_for_run(arm_options, [*extra, "--tooleval-partial", "pass"])
        print(f"tooleval gap: grammar {arm}: pytest {' '.join(args)}", flush=True)
        code = subprocess.call([sys.executable, "-m", "pytest", *args])
        if code not in (0, 1):
            print(f"tooleval gap: the grammar-{arm} run stopped (pytest exit {code})",
                  file=sys.stderr)
            return 2
        try:
            reports[arm] = load_report(out / arm / "report.json")
        except ReportError as exc:
            print(f"tooleval gap: {exc}", file=sys.stderr)
            return 2
    gap = gap_of(reports["on"], reports["off"])
    text = render_gap(gap)
    write_json(out / "gap.json", gap)
    write_atomic(out / "gap.md", text)
    from pytest_tooleval.report.html import write_gap_html

    write_gap_html(out / "gap.html", gap, reports["on"], reports["off"])
    print(text, end="")
    print(f"written: {out / 'gap.json'}, {out / 'gap.md'}, {out / 'gap.html'}")
    return 0


def merge_main(argv: Sequence[str]) -> int:
    from pathlib import Path

    from pytest_tooleval.merge import MergeError, merge

    parser = argparse.ArgumentParser(
        prog="tooleval merge",
        description="Join the shards of a run (--tooleval-shard I/N), given as report "
        "folders, journals or report.json files, into one report. Refused (exit 2) when the "
        "parts differ in configuration, a shard is missing or given twice, or a part did "
        "not finish.")
    parser.add_argument("parts", nargs="+", type=Path,
                        help="report folders, journal.jsonl or report.json files")
    parser.add_argument("--report", type=Path, default=Path("tooleval-report"),
                        help="folder for the merged report (default tooleval-report)")
    options = parser.parse_args(list(argv))
    try:
        report, recorder = merge(list(options.parts), options.report, Path.cwd())
    except MergeError as exc:
        print(f"tooleval merge: {exc}", file=sys.stderr)
        return 2
    if recorder.write_error:
        print(f"tooleval merge: {recorder.write_error}", file=sys.stderr)
        return 2
    score = report.summary.score
    print(f"tooleval merge: {len(report.cases)} cases from {len(options.parts)} part(s); "
          f"score {'n/a' if score is None else f'{score:.1f}'}, "
          f"{report.summary.deployability.verdict}")
    print(f"written: {', '.join(str(p) for p in recorder.paths)}")
    return 0


def _lazy(module: str, name: str) -> Callable[[Sequence[str]], int]:
    def command(argv: Sequence[str]) -> int:
        import importlib

        return int(getattr(importlib.import_module(module), name)(list(argv)))

    return command


def _commands() -> dict[str, tuple[str, Callable[[Sequence[str]], int]]]:
    commands: dict[str, tuple[str, Callable[[Sequence[str]], int]]] = {
        "init": ("a starting project: a profile, an example tool, three proven cases",
                 _lazy("pytest_tooleval.scaffold", "init_main")),
        "run": ("run cases against a model (a front over pytest)", run_main),
        "check": ("no model: guards, requires, router coverage, near-duplicates",
                  _lazy("pytest_tooleval.check.cli", "check_main")),
        "split": ("a router evaluation folder's tuning and frozen halves (make, record)",
                  _lazy("pytest_tooleval.check.split", "split_main")),
        "route": ("show the tools the router picks for a message, and why",
                  _lazy("pytest_tooleval.check.cli", "route_main")),
        "call": ("no model: one built-in tool call on a fresh world (for gold paths)",
                 _lazy("pytest_tooleval.check.oracle", "call_main")),
        "gap": ("grammar on against off: the difference per axis and group", gap_main),
        "compare": ("a run against a baseline report: deltas, regressions first", compare_main),
        "rescore": ("no model: the current case files applied to a stored run's transcripts",
                    _lazy("pytest_tooleval.rescore", "rescore_main")),
        "merge": ("join the shards of a run (journals or reports) into one report",
                  merge_main),
        "doctor": ("the isolation for run_python and git here, and a short escape battery",
                   _lazy("pytest_tooleval.tools.doctor", "doctor_main")),
        "power": ("cases or repeats needed to detect a change; what a selection can detect",
                  _lazy("pytest_tooleval.report.power", "power_main")),
        "html": ("write report.html (or gap.html) from report.json files",
                 _lazy("pytest_tooleval.report.html_cli", "html_main")),
        "export": ("the corpus and a run's results as a Hugging Face dataset (Parquet)",
                   _lazy("pytest_tooleval.report.dataset", "export_main")),
        "import": ("convert BFCL files into benchmark files",
                   _lazy("pytest_tooleval.cases.bfcl", "import_main")),
    }
    return commands


def _usage(commands: dict[str, tuple[str, Callable[[Sequence[str]], int]]], code: int) -> (
        Callable[[Sequence[str]], int]):
    def usage(_: Sequence[str]) -> int:
        print("usage: tooleval COMMAND [options]\n\ncommands:")
        for name, (summary, _command) in commands.items():
            print(f"  {name:<8} {summary}")
        print("\n`tooleval COMMAND --help` describes each command.")
        sys.stdout.flush()  # a closed pipe shows here, buffered or not: the same exit code
        return code

    return usage


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _commands()
    if not argv or argv[0] in ("-h", "--help"):
        command, rest = _usage(commands, 0 if argv else 2), argv
    elif argv[0] not in commands:
        print(f"tooleval: unknown command {argv[0]!r}; try one of: {', '.join(commands)}",
              file=sys.stderr)
        return 2
    else:
        command, rest = commands[argv[0]][1], argv[1:]
    code: int | None = None
    try:
        try:
            code = command(rest)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
