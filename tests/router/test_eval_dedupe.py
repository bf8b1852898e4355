"""scripts/eval_dedupe.py, the near-copy check a writer of a blind set runs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("eval_dedupe", ROOT / "scripts" / "eval_dedupe.py")
assert _spec and _spec.loader
dedupe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dedupe)


def _write(folder: Path, cases: list[dict]) -> None:  # type: ignore[type-arg]
    (folder / "en").mkdir(parents=True)
    data = {"name": "test-set", "language": "en", "requires": ["calculator"], "cases": cases}
    (folder / "en" / "set.json").write_text(json.dumps(data), encoding="utf-8")


def _case(name: str, message: str, **extra: str) -> dict:  # type: ignore[type-arg]
    return {"name": name, "category": "tool", **extra,
            "steps": [{"message": message, "expect": ["calculator"]}]}


def test_fold_is_turkish_aware_and_drops_marks() -> None:
    assert dedupe.fold("İSTANBUL ŞİFRESİ ne?!") == dedupe.fold("istanbul sifresi ne")
    assert dedupe.fold("KIRMIZI") == "kirmizi"


def test_two_messages_with_one_key_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    _write(tmp_path / "set", [_case("a1", "what is 17% of 230?"),
                              _case("a2", "What is 17 % of 230")])
    assert dedupe.main([str(tmp_path / "set"), "--reference", "benchmarks"]) == 1
    assert "SAME KEY" in capsys.readouterr().out


def test_a_near_copy_of_an_evaluation_set_is_listed_with_its_text_withheld(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = json.loads((ROOT / "evals" / "router" / "2" / "en" / "web-current.json").read_text())
    original = source["cases"][0]["steps"][0]["message"]
    _write(tmp_path / "set", [_case("b1", original + " pls")])
    status = dedupe.main([str(tmp_path / "set"), "--reference", "evals/router/2"])
    out = capsys.readouterr().out
    assert status == 0, out
    matched = [line for line in out.splitlines() if line.strip().startswith("~")]
    assert matched and all(line.endswith("[text withheld]") for line in matched)
    assert not any(original in line for line in matched)


def test_variants_of_a_job_need_distinct_registers(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path / "set", [_case("j-casual", "sum these 3 numbers", job="j", register="casual"),
                              _case("j-casual2", "add up three numbers", job="j",
                                    register="casual")])
    assert dedupe.main([str(tmp_path / "set"), "--reference", "benchmarks"]) == 1
    assert "JOB PROBLEM j: a register twice" in capsys.readouterr().out
