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


# argparse's own help swallows the write error (its _print_message) and exits 0.
@pytest.mark.parametrize(("argv", "code"), [(["--help"], 141), (["check", "--help"], 0)])
def test_help_into_a_closed_pipe_is_not_a_traceback(argv: list[str], code: int) -> None:
    """`tooleval --help | head -3`: the reader leaves before the listing ends."""
    script = (
        "import os, sys\n"
        "read, write = os.pipe(); os.close(read); os.dup2(write, 1)\n"
        "from pytest_tooleval.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True,
                          timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == code


def test_a_closed_pipe_is_not_a_traceback() -> None:
    """`tooleval gap … | head`: the reader has gone before the first write."""
    reports = Path(__file__).parent.parent / "docs" / "results" / "gap-sample4"
    script = (
        "import os, sys\n"
        "read, write = os.pipe(); os.close(read); os.dup2(write, 1)\n"
        "from pytest_tooleval.cli import main\n"
        f"sys.exit(main(['gap', '--from-reports', {str(reports / 'on' / 'report.json')!r}, "
        f"{str(reports / 'off' / 'report.json')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.returncode == 141  # the command never finished its output: not a success
