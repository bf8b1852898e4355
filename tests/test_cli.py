"""The `tooleval` command: dispatch, help, and the no-model commands end to end."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.check.report import REQUIRES, CheckReport, Failure
from pytest_tooleval.cli import COMMANDS as CLI_COMMANDS
from pytest_tooleval.cli import main
from pytest_tooleval.cli.run import pytest_args_for_run, run_parser
from pytest_tooleval.config import OPTIONS
from pytest_tooleval.scoring.statistics import cases_needed
from pytest_tooleval.tools import jail
from tests.providers._support import TOY

ROOT = Path(__file__).resolve().parent.parent


def test_help_lists_every_command(capsys) -> None:
    assert main([]) == 2
    out = capsys.readouterr().out
    for command in ("run", "check", "route", "gap", "compare"):
        assert f"  {command}" in out
    assert main(["nosuch"]) == 2


def test_route_explains_its_choice(capsys) -> None:
    assert main(["route", "dolar kuru bugün ne kadar?", "--language", "tr"]) == 0
    out = capsys.readouterr().out
    assert "web_search" in out.split("\n", 2)[1]  # ranked first


def test_check_on_a_broken_file_exits_1_and_writes_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "b", "requires": ["calculator"], "cases": [
        {"name": "x", "category": "tool", "steps": [
            {"message": "what is 18*1000", "expect": "calculator", "evidence": ["7"]}]}]}))
    out = tmp_path / "check.json"
    process = subprocess.run([sys.executable, "-m", "pytest_tooleval.cli", "check", str(bad),
                              "--json", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert process.returncode == 1, process.stdout + process.stderr
    assert "single digit" in process.stdout
    assert json.loads(out.read_text())["failures"]


def test_a_run_through_the_cli_ends_without_a_warnings_summary(tmp_path: Path) -> None:
    """``tooleval run`` imports the package before pytest loads it as a plugin: every run
    ended with "PytestAssertRewriteWarning: Module already imported so cannot be
    rewritten; pytest_tooleval" under a warnings summary, after the tooleval summary.
    With the repository on the path, its metadata lists the package's files, as an installed
    wheel's does (an editable install's lists none, and pytest marks nothing to rewrite)."""
    assert main(["init", str(tmp_path / "p")]) == 0
    process = subprocess.run([sys.executable, "-m", "pytest_tooleval.cli", "run", "--",
                              "--co", "-q"], capture_output=True, text=True, cwd=tmp_path / "p",
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.returncode == 0, process.stdout + process.stderr
    assert "tests collected" in process.stdout
    assert "PytestAssertRewriteWarning" not in process.stdout + process.stderr


COMMANDS = ["init", "run", "check", "split", "route", "call", "gap", "compare", "board", "rescore",
            "merge", "doctor", "power", "html", "export", "import"]


def test_every_command_is_in_the_help_pipe_test() -> None:
    assert sorted(CLI_COMMANDS) == sorted(COMMANDS)


def test_one_module_per_command_each_with_its_main() -> None:
    """Every listed command is a module of the cli package with ``main(argv)``; the
    listing itself imports none of them."""
    done = subprocess.run([sys.executable, "-c",
                           "import sys; from pytest_tooleval.cli import main; main(['--help']); "
                           "print(sorted(m for m in sys.modules if m.startswith("
                           "'pytest_tooleval.cli.')))"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
    for name, (module, _summary) in CLI_COMMANDS.items():
        command = importlib.import_module(f"pytest_tooleval.cli.{module}")
        assert callable(command.main), name
    assert not (ROOT / "pytest_tooleval" / "check" / "cli.py").exists()
    assert not (ROOT / "pytest_tooleval" / "report" / "html_cli.py").exists()


# The listing flushes before it returns, so a closed pipe gives 141 buffered or not; a
# command's own --help is argparse's (pytest's for run), which ends 0 however its output
# went. Neither may leave a traceback or an "Exception ignored" at the interpreter's exit.
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(("argv", "code"),
                         [(["--help"], 141), *(([name, "--help"], 0) for name in COMMANDS)],
                         ids=lambda value: " ".join(value) if isinstance(value, list) else None)
def test_help_into_a_closed_pipe_is_quiet(argv: list[str], code: int, buffered: bool) -> None:
    """`tooleval … --help | head -3`: the reader leaves before the text ends."""
    script = (
        "import os, sys\n"
        "read, write = os.pipe(); os.close(read); os.dup2(write, 1)\n"
        "from pytest_tooleval.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    done = subprocess.run([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True,
                          timeout=120, env=env)
    for trace in ("Traceback", "BrokenPipeError", "Exception ignored"):
        assert trace not in done.stderr, done.stderr
    assert done.returncode == code


def test_a_closed_pipe_is_not_a_traceback(tmp_path: Path) -> None:
    """`tooleval gap … | head`: the reader has gone before the first write (unbuffered, so
    the first write fails; in its own folder, for the gap report it writes)."""
    reports = Path(__file__).parent.parent / "docs" / "results" / "gap-sample4"
    script = (
        "import os, sys\n"
        "read, write = os.pipe(); os.close(read); os.dup2(write, 1)\n"
        "from pytest_tooleval.cli import main\n"
        f"sys.exit(main(['gap', '--from-reports', {str(reports / 'on' / 'report.json')!r}, "
        f"{str(reports / 'off' / 'report.json')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True,
                          timeout=120, cwd=tmp_path, env={**os.environ, "PYTHONUNBUFFERED": "1",
                                                          "PYTHONPATH": str(ROOT)})
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 141  # the command never finished its output: not a success


# ---------------------------------------------------------------- run: the plugin's options


def test_run_takes_every_plugin_option_with_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    """`tooleval run`'s parser is built from config.OPTIONS: each flag, help text and
    choice list is the plugin's, and a given value goes to pytest under the plugin's flag."""
    parser = run_parser("tooleval run", "")
    text = " ".join(parser.format_help().split())
    for option in OPTIONS:
        assert option.flag in text, option.flag
        assert " ".join(option.help.split()) in text, option.flag
    options = parser.parse_args(["--tooleval-k", "5", "--grammar", "off", "--report", "out",
                                 "--tooleval-skip-missing", "--tooleval-router", "oracle"])
    args = pytest_args_for_run(options, [])
    for word in ("--tooleval-k=5", "--grammar=off", "--tooleval-report=out",
                 "--tooleval-router=oracle"):
        assert word in args
    assert "--tooleval-skip-missing" in args
    assert "--tooleval-sample" not in args  # not given: the configuration decides
    with pytest.raises(SystemExit):
        parser.parse_args(["--tooleval-router", "nosuch"])  # the plugin's choices
    assert "triggers" in capsys.readouterr().err


def test_run_takes_the_plugins_other_tooleval_options() -> None:
    """usage.md: `tooleval run` takes every --tooleval-* option; --tooleval-html off was
    refused with "did you mean '--tooleval-k'?", as were -order, -progress, -metrics."""
    from _pytest.config.argparsing import Parser

    from pytest_tooleval import plugin

    plugin_parser = Parser(_ispytest=True)
    plugin.pytest_addoption(plugin_parser)
    flags = {name for group in plugin_parser._groups for option in group.options
             for name in option.names() if name.startswith("--tooleval-")}
    parser = run_parser("tooleval run", "")
    taken = {flag for action in parser._actions for flag in action.option_strings}
    assert len(flags) > len(OPTIONS) and flags <= taken
    args = pytest_args_for_run(parser.parse_args(["--tooleval-html", "off", "benchmarks"]), [])
    assert "--tooleval-html=off" in args and "benchmarks" in args
    assert not any(word.startswith("--tooleval-order") for word in args)  # not given


def test_run_suggests_the_nearest_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--modle", "X"]) == 2
    err = capsys.readouterr().err
    assert "did you mean '--model'?" in err
    assert "go after --" not in err  # a typo, not a pytest option
    assert main(["run", "--tooleval-sampel", "4"]) == 2
    assert "did you mean '--tooleval-sample'?" in capsys.readouterr().err
    # never pytest's -k for --k: following the hint would filter the cases instead
    assert main(["run", "--k", "3"]) == 2
    assert "did you mean '-k'" not in capsys.readouterr().err


# ---------------------------------------------------------------- check: the table and requires

FIX = "fix: give the step an 'args' table naming the values the call must carry, or a state check"
LONG = ("the step expects write_file but its gold path writes nothing the checks can see, so "
        "a model that skips the write would pass as well; " + FIX)


def _report() -> CheckReport:
    return CheckReport(k=9, failures=[Failure("guard", "benchmarks/some/deep/folder/file.json",
                                              "a-case-with-a-long-name", 2, LONG)])


def test_check_table_wraps_to_the_width_and_never_cuts() -> None:
    wrapped = _report().render_table(80).split("\n\n")[0].splitlines()
    assert all(len(line) <= 80 for line in wrapped), wrapped
    assert len(wrapped) > 3  # the detail continues on the lines below
    assert " ".join(" ".join(wrapped[2:]).split()).endswith(FIX)
    unwrapped = _report().render_table(None).splitlines()
    assert unwrapped[2].endswith(LONG)  # one line per failure, whole


def test_check_piped_prints_every_detail_whole(tmp_path: Path) -> None:
    """Not a terminal (a pipe, a file): the full text, however long."""
    detail = "x" * 150
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "b", "requires": ["no_such_tool_" + detail],
                               "cases": [{"name": "x", "category": "irrelevance",
                                          "steps": [{"message": "hello there"}]}]}))
    done = subprocess.run([sys.executable, "-m", "pytest_tooleval.cli", "check", str(bad),
                           "--no-cache", "--mcp", "off"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 1, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("requires"))
    assert f"'no_such_tool_{detail}'" in line and line.endswith("not started)")
    assert "…" not in done.stdout


def test_check_names_the_tool_a_misspelt_requires_entry_is_close_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo.json"
    path.write_text(json.dumps({"name": "t", "requires": ["calculater"], "cases": [
        {"name": "x", "category": "irrelevance", "steps": [{"message": "hello there"}]}]}))
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(path), "--no-cache", "--mcp", "off"]) == 1
    assert "requires 'calculater' (did you mean 'calculator'?)" in capsys.readouterr().out


def test_check_names_the_case_files_a_run_would_not_collect(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`tooleval check scenarios` checked a JSON benchmark there and `tooleval check cases`
    was green, while a run collected neither, without a word (a user's first hour)."""
    def case_file(relative: str, message: str) -> None:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(json.dumps({"name": Path(relative).stem, "cases": [
            {"name": "x", "category": "irrelevance", "steps": [{"message": message}]}]}))

    (tmp_path / "pyproject.toml").write_text("")
    case_file("benchmarks/a.json", "hello there")
    case_file("scenarios/b.json", "good morning to you")
    case_file("cases/c.json", "see you tomorrow then")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "benchmarks", "scenarios", "cases", "--no-cache", "--mcp", "off"]) == 0
    output = capsys.readouterr()
    assert "3 file(s), 3 case(s)" in output.out  # every case file given is checked
    assert output.err.count("tooleval check: note:") == 1, output.err
    assert ("tooleval check: note: 2 file(s) checked here are not collected by a run, which "
            "takes from folders only benchmarks/**/*.json, scenarios/**/*.yaml, "
            "scenarios/**/*.yml: scenarios/b.json, cases/c.json; fix: move or rename to match "
            "(JSON is YAML: a .json may become .yaml), add the folder to ini tooleval_paths, "
            "or name the file on the command line") in output.err
    # a file named is collected by a run as well; an ini naming the case paths: no guess
    assert main(["check", "benchmarks", "scenarios/b.json", "--no-cache", "--mcp", "off"]) == 0
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\n'
                                             'tooleval_paths = ["cases"]\n')
    assert main(["check", "cases", "--no-cache", "--mcp", "off"]) == 0
    assert "note" not in capsys.readouterr().err


def test_no_close_name_is_offered_where_a_conftest_cannot_be_imported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """order_status is missing because conftest.py failed: 'did you mean git_status?' misled."""
    (tmp_path / "conftest.py").write_text("raise ImportError('no module named shopdb')\n")
    path = tmp_path / "shop.json"
    path.write_text(json.dumps({"name": "s", "requires": ["order_status"], "cases": [
        {"name": "x", "category": "irrelevance", "steps": [{"message": "hello there"}]}]}))
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(path), "--no-cache", "--mcp", "off"]) == 1
    assert main(["call", "order_status", "{}"]) == 2
    output = capsys.readouterr()
    assert output.out.count("shopdb") == 2 and "shopdb" in output.err  # requires, catalogue
    assert "did you mean" not in output.out + output.err


def test_check_names_bubblewrap_when_the_jail_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jail, "probe", lambda: jail.Probe(False, "bubblewrap (bwrap) is not "
                                                                 "installed"))
    path = tmp_path / "py.json"
    path.write_text(json.dumps({"name": "py", "requires": ["run_python"], "cases": [
        {"name": "x", "category": "irrelevance", "steps": [{"message": "hello there"}]}]}))
    out = tmp_path / "check.json"
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(path), "--no-cache", "--mcp", "off", "--json", str(out)]) == 1
    [failure] = [f for f in json.loads(out.read_text())["failures"] if f["kind"] == REQUIRES]
    assert "requires 'run_python', a built-in this machine cannot offer" in failure["detail"]
    assert "bubblewrap (bwrap) is not installed" in failure["detail"]
    assert "apt-get install bubblewrap" in failure["detail"]  # the fix
    assert "a missing binary, an MCP server" not in failure["detail"]


# ---------------------------------------------------------------- call: the configured tools

CONFTEST = """
from pytest_tooleval import tool


@tool
def double(n: int) -> int:
    \"\"\"Twice a number.\"\"\"
    return 2 * n
"""


def test_call_runs_a_conftest_tool_and_an_mcp_tool(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tooleval.toml").write_text(
        f"[mcp.toy]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(TOY))}]\n"
        'prefix = "toy_"\n')
    (tmp_path / "conftest.py").write_text(CONFTEST)
    monkeypatch.chdir(tmp_path)
    assert main(["call", "double", '{"n": 21}']) == 0
    assert capsys.readouterr().out.strip() == "42"
    assert main(["call", "toy_echo", '{"text": "hi there"}']) == 0
    assert "hi there" in capsys.readouterr().out
    assert main(["call", "calculator", '{"expression": "6*7"}']) == 0  # built-ins still
    assert "42" in capsys.readouterr().out
    assert main(["call", "tripple", "{}"]) == 2
    err = capsys.readouterr().err
    assert "no configured tool is named 'tripple'" in err and "double" in err
    assert main(["call", "doubel", "{}"]) == 2  # a typo: the close name, not all 37
    err = capsys.readouterr().err
    assert "no configured tool is named 'doubel' (did you mean 'double'?)" in err
    assert "calculator" not in err


# ---------------------------------------------------------------- power: compare's alpha


def test_power_plans_at_the_alpha_compare_decides_at(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"name": "p", "cases": [
        {"name": f"c{i}", "category": "irrelevance", "steps": [{"message": f"hello {i}"}]}
        for i in range(40)]}))
    assert main(["power", str(path), "--detect", "5", "--discordance", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "α = 0.0083, the level compare decides at: 0.05 over its 6 deciding figures" in out
    needed = cases_needed(0.05, 0.10, alpha=0.05 / 6)
    assert needed == 492
    assert f"{'pass rate':<12} {40:>6} {needed:>7}" in out
    usage = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    assert "5 points is ~490 cases" in usage  # the docs' figure is this one


@pytest.mark.parametrize("command", [
    ["html", "{bad}"], ["compare", "{bad}", "{bad}"], ["board", "{bad}", "{bad}"],
    ["power", "--detect", "5", "--from-report", "{bad}"], ["rescore", "{bad}"],
    ["merge", "{bad}"], ["gap", "--from-reports", "{bad}", "{bad}"]],
    ids=lambda command: command[0])
def test_a_report_json_not_in_utf8_is_named_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    bad = tmp_path / "report.json"
    bad.write_bytes(b"\xff\xfe{}")
    assert main([word.replace("{bad}", str(bad)) for word in command]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: cannot read a report" in err and "utf-8" in err


READERS = [["html", "{bad}"], ["compare", "{bad}", "{bad}"], ["board", "{bad}", "{bad}"],
           ["power", "--detect", "5", "--from-report", "{bad}"], ["rescore", "{bad}"],
           ["merge", "{bad}"], ["gap", "--from-reports", "{bad}", "{bad}"]]


@pytest.mark.parametrize("command", READERS, ids=lambda command: command[0])
@pytest.mark.parametrize(("content", "said"), [
    (lambda text: text[:3000], "a report.json cut short (Invalid JSON: EOF while parsing"),
    (lambda text: "", "a report.json cut short (Invalid JSON: EOF while parsing"),
    (lambda text: '{"created": 1.5, "exitcode": 0, "tests": []}',  # pytest-json-report's
     'not a pytest-tooleval report (no "schema": "pytest-tooleval/report"); give the '
     "report.json a run wrote"),
    (lambda text: '<?xml version="1.0"?><testsuites/>', 'not a pytest-tooleval report'),
    (lambda text: "[]", "not a pytest-tooleval report")],
    ids=["truncated", "empty", "json-report", "junit", "array"])
def test_a_file_that_is_not_a_report_gets_the_fix_that_applies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str],
        content: Any, said: str) -> None:
    """Every command that reads report.json: a cut-short file is rebuilt from the journal
    beside it; another tool's file is named as such. Both were once told to write the
    report "again with this version", which neither needs."""
    bad = tmp_path / "ğüşİ dir" / "report.json"
    bad.parent.mkdir()
    text = (ROOT / "docs" / "results" / "register" / "report.json").read_text("utf-8")
    bad.write_text(content(text), encoding="utf-8")
    assert main([word.replace("{bad}", str(bad)) for word in command]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tooleval {command[0]}: {bad}: {said}"), err
    assert "again with this version" not in err
    if "cut short" in said:
        assert f"tooleval rescore {bad.parent / 'journal.jsonl'} --report DIR" in err


@pytest.mark.parametrize("command", READERS[:4] + READERS[6:], ids=lambda command: command[0])
def test_a_folder_given_for_a_report_is_its_report_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    """compare, board, html refused a run's report folder (rescore and merge take one)."""
    assert main([word.replace("{bad}", str(tmp_path)) for word in command]) == 2
    assert capsys.readouterr().err == (f"tooleval {command[0]}: {tmp_path}: a folder without "
                                       "a report.json; give a run's report folder or its "
                                       "report.json\n")
    (tmp_path / "report.json").write_text("{}", encoding="utf-8")
    assert main([word.replace("{bad}", str(tmp_path)) for word in command]) == 2
    assert capsys.readouterr().err.startswith(  # the report in it is read
        f"tooleval {command[0]}: {tmp_path / 'report.json'}: not a pytest-tooleval report")


@pytest.mark.parametrize("command", [
    ["html", "{report}", "--out", "{dir}"],
    ["compare", "{report}", "{report}", "--json", "{dir}"],
    ["board", "{report}", "{other}", "--out", "{file}"],
    ["rescore", "{report}", "--json", "{dir}"],
    ["check", "{cases}", "--no-cache", "--mcp", "off", "--json", "{dir}"],
    ["check", "{cases}", "--no-cache", "--mcp", "off", "--write-router-doc", "{dir}"]],
    ids=lambda command: "-".join(command[:1] + command[-2:-1]))
def test_an_output_that_cannot_be_written_is_named_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    report = ROOT / "docs" / "results" / "register" / "report.json"
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"name": "p", "cases": [
        {"name": "c", "category": "irrelevance", "steps": [{"message": "hello"}]}]}))
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("in the way")
    other = json.loads(report.read_text("utf-8"))  # another model's run of the same cases
    other["run"]["model"]["name"] = "other"
    (tmp_path / "other.json").write_text(json.dumps(other))
    argv = [word.format(report=report, other=tmp_path / "other.json",
                        dir=tmp_path / "a-folder", file=tmp_path / "a-file", cases=cases)
            for word in command]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"tooleval {command[0]}: ") and "a-f" in err, err


def test_export_of_a_missing_path_is_named_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("datasets")
    assert main(["export", str(tmp_path / "nosuch"), "--out", str(tmp_path / "out")]) == 2
    assert "tooleval export: no such file or directory:" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["merge", "{report}", "--report", "{file}"],
                                     ["rescore", "{report}", "--report", "{file}"]],
                         ids=lambda command: command[0])
def test_a_report_folder_not_written_names_the_commands_own_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    report = ROOT / "docs" / "results" / "register" / "report.json"
    (tmp_path / "a-file").write_text("in the way")
    assert main([word.format(report=report, file=tmp_path / "a-file")
                 for word in command]) == 2
    err = capsys.readouterr().err
    assert "could not write the report to" in err
    assert "Pass --report DIR" in err and "--tooleval-report" not in err, err


def test_rescore_names_an_unreadable_stored_run_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "report.json"
    bad.write_text("[]")
    assert main(["rescore", str(bad)]) == 2
    assert capsys.readouterr().err.count(str(bad)) == 1


def test_rescore_refuses_a_path_that_does_not_exist(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """It said "0 changed" and exited 0: nothing was under the path, so nothing changed."""
    monkeypatch.chdir(tmp_path)
    report = ROOT / "docs" / "results" / "register" / "report.json"
    assert main(["rescore", str(report), "nosuchpath"]) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1, err
    assert err.startswith("tooleval rescore: ") and "nosuchpath" in err and "fix" in err, err


@pytest.mark.parametrize(("command", "needed", "internal"), [
    (["merge"], "required: SHARD\n", "parts"),
    (["import"], "required: bfcl, FILE\n", "source"),
])
def test_commands_without_arguments_name_what_they_need(
        command: list[str], needed: str, internal: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """argparse named the internal 'parts' and 'source, paths'."""
    assert main(command) == 2
    err = capsys.readouterr().err
    assert needed in err and internal not in err, err


def test_rescore_without_arguments_names_what_it_needs(
        capsys: pytest.CaptureFixture[str]) -> None:
    """argparse named the internal 'stored, paths' (and a list that may be empty as
    required)."""
    assert main(["rescore"]) == 2
    err = capsys.readouterr().err
    assert "required: REPORT_OR_JOURNAL\n" in err, err
    assert "stored" not in err and "paths" not in err, err


def test_call_refuses_arguments_that_are_not_an_object(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSON list or number was called with no arguments at all, so the tool's own error
    ('missing required argument') hid what was wrong."""
    monkeypatch.chdir(tmp_path)
    assert main(["call", "calculator", '["1+1"]']) == 2
    assert "tooleval call: the arguments must be a JSON object" in capsys.readouterr().err


def test_call_validates_the_arguments_as_a_run_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A string for an integer ran (coerced) here while a run refused the same call as the
    model's schema violation: the command meant to show what the model sees did not."""
    monkeypatch.chdir(tmp_path)
    assert main(["call", "convert_units", '{"value": "2", "from_unit": "km", '
                 '"to_unit": "mi"}']) == 1
    out = capsys.readouterr().out
    assert out.startswith("error: the call was not run (schema_violation: value: ") and \
        "is not of type 'number'" in out, out
    assert main(["call", "convert_units", '{"value": 2, "from_unit": "km", '
                 '"to_unit": "mi"}']) == 0
    assert "1.24" in capsys.readouterr().out
