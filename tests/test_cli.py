"""The `tooleval` command: dispatch, help, and the no-model commands end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
