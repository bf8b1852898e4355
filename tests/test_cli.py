"""The `tooleval` command: dispatch, help, and the no-model commands end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_tooleval.cli import main

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


COMMANDS = ["init", "run", "check", "split", "route", "call", "gap", "compare", "rescore", "merge",
            "doctor", "power", "html", "export", "import"]


def test_every_command_is_in_the_help_pipe_test() -> None:
    from pytest_tooleval.cli import _commands

    assert sorted(_commands()) == sorted(COMMANDS)


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
