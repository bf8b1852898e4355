"""`tooleval init`: a starting project that the oracle proves, and never an overwrite."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from pytest_tooleval.cli import main
from pytest_tooleval.cli.common import DEFAULT_PATHS
from pytest_tooleval.scaffold import FILES


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_init_creates_a_project_the_oracle_proves(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    for name in FILES:
        assert (tmp_path / name).is_file()
        assert name in out
    assert "tooleval check --oracle benchmarks" in out
    assert "tooleval run" in out
    # what `tooleval run` runs: it said "(the same as: pytest benchmarks)"
    assert all(f"{folder}/" in out for folder in DEFAULT_PATHS) and "same as" not in out
    config = (tmp_path / "tooleval.toml").read_text()
    assert 'model = "smollm2-135m"' in config and "# [models.my-server]" in config
    cases = json.loads((tmp_path / "benchmarks/my-first.json").read_text())["cases"]
    assert [c["category"] for c in cases] == ["tool", "irrelevance", "chain"]

    assert main(["check", "--oracle", "benchmarks"]) == 0
    out = capsys.readouterr().out
    assert "python:conftest.py: 1 tools" in out  # the example tool, imported from conftest.py
    assert "oracle: 3/3 cases proven by their gold path" in out

    # conftest.py's docstring names the command that shows what the tool returns
    preview = re.search(r"`tooleval (call [^`]+)`", (tmp_path / "conftest.py").read_text())
    assert preview is not None
    assert main(shlex.split(preview.group(1))) == 0
    assert '"carrier": "DHL"' in capsys.readouterr().out


def test_init_into_a_named_folder(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "new/project"]) == 0
    assert "cd new/project" in capsys.readouterr().out
    assert sorted(_snapshot(tmp_path / "new/project")) == sorted(FILES)


def test_the_cd_line_pastes_into_a_shell_for_a_folder_with_spaces(
        tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "my evals ğüşİ"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cd "))
    assert shlex.split(line) == ["cd", "my evals ğüşİ"]  # was: cd my evals ğüşİ


def test_a_second_init_refuses_and_changes_nothing(tmp_path: Path, capsys) -> None:
    assert main(["init", str(tmp_path)]) == 0
    (tmp_path / "conftest.py").write_text("# mine\n")
    before = _snapshot(tmp_path)
    capsys.readouterr()
    assert main(["init", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'tooleval.toml'} already exists; nothing was written" in err
    assert "tooleval init NEW-FOLDER" in err
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("name", sorted(FILES))
def test_one_file_in_the_way_refuses(tmp_path: Path, capsys, name: str) -> None:
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("keep me\n")
    assert main(["init", str(tmp_path)]) == 2
    assert f"{tmp_path / name} already exists" in capsys.readouterr().err
    assert _snapshot(tmp_path) == {name: b"keep me\n"}
