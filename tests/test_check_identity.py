"""``tooleval check`` prints the same, byte for byte, on the repository's own corpora: the
table and the JSON of ``benchmarks scenarios`` and of each ``evals/router/N`` folder (with
the Snowball stemmer and ``--strict`` where those take other paths through the router and
the guards) equal the outputs committed in ``tests/data/check_expected/``, the time taken
and the checkout's own path aside. Speed work on the check (patterns, normalisation, the
learned cue, the guards) must not change a single routed tool, reason, score or problem.

When a change of the router's data or rules changes the outputs on purpose, regenerate
them and review the diff:

    TOOLEVAL_UPDATE_EXPECTED=1 PYTHONPATH=$PWD python -m pytest tests/test_check_identity.py
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from pytest_tooleval.cli.check import main as check_main

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = ROOT / "tests" / "data" / "check_expected"
UPDATE = os.environ.get("TOOLEVAL_UPDATE_EXPECTED") == "1"
#: (name, arguments): every corpus folder of the repository, and the other code paths.
RUNS = [
    ("corpus", ["benchmarks", "scenarios"]),
    ("corpus-snowball", ["benchmarks", "scenarios", "--stemmer", "snowball"]),
    ("corpus-strict", ["benchmarks", "scenarios", "--strict"]),
    ("router-1", ["evals/router/1"]),
    ("router-2", ["evals/router/2"]),
    ("router-2-strict", ["evals/router/2", "--strict"]),
    ("router-3", ["evals/router/3"]),
    ("router-3-snowball", ["evals/router/3", "--stemmer", "snowball"]),
    ("router-3-strict", ["evals/router/3", "--strict"]),
    ("router-4", ["evals/router/4"]),
    ("router-4-strict", ["evals/router/4", "--strict"]),
    ("router-5", ["evals/router/5"]),
    ("router-6", ["evals/router/6"]),
    ("router-7", ["evals/router/7"]),
]
_TIME = re.compile(r"^(tooleval check: .*), \d+ ms$", re.MULTILINE)


def _check(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture) -> tuple[str, str]:
    """The table (the time masked) and the JSON (without ``seconds``) of one check."""
    out = tmp_path / "check.json"
    capsys.readouterr()
    code = check_main([*args, "--no-cache", "--mcp", "off", "--json", str(out)])
    table = _TIME.sub(r"\1, <time> ms", capsys.readouterr().out).replace(str(ROOT), "<root>")
    data = json.loads(out.read_text(encoding="utf-8").replace(str(ROOT), "<root>"))
    assert isinstance(data.pop("seconds"), float)
    data["exit_code"] = code
    return table, json.dumps(data, ensure_ascii=False, indent=2) + "\n"


@pytest.mark.parametrize(("name", "args"), RUNS, ids=[name for name, _ in RUNS])
def test_check_output_is_unchanged(
    name: str, args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not (ROOT / args[0]).is_dir():
        pytest.skip(f"{args[0]} is not in this checkout")
    monkeypatch.chdir(ROOT)
    table, data = _check(args, tmp_path, capsys)
    assert "<time> ms" in table
    table_file, json_file = EXPECTED / f"{name}.txt", EXPECTED / f"{name}.json"
    if UPDATE:
        EXPECTED.mkdir(parents=True, exist_ok=True)
        table_file.write_text(table, encoding="utf-8")
        json_file.write_text(data, encoding="utf-8")
    assert table == table_file.read_text(encoding="utf-8")
    assert data == json_file.read_text(encoding="utf-8")


def test_the_comparison_sees_a_changed_routing(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison is not blind: one tool fewer shown changes the table and the JSON."""
    monkeypatch.chdir(ROOT)
    table, data = _check(["evals/router/3", "--k", "8"], tmp_path, capsys)
    assert table != (EXPECTED / "router-3.txt").read_text(encoding="utf-8")
    assert data != (EXPECTED / "router-3.json").read_text(encoding="utf-8")
