"""The held-out split of a router evaluation folder: made once, enforced afterwards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.check.report import SPLIT
from pytest_tooleval.check.split import (
    FROZEN,
    TUNING,
    load_split,
    make_split,
    verify,
)
from pytest_tooleval.check.static import run_check
from pytest_tooleval.cli.check import main as check_main
from pytest_tooleval.cli.split import main as split_main

REPO = Path(__file__).resolve().parents[2]
REGISTERS = ("formal", "whatsapp", "caps", "ascii", "emoji", "elderly", "anatolian")


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def _eval_folder(root: Path) -> Path:
    jobs = [
        ("kur", "dolar kuru bugün ne kadar", "web_search"),
        ("fatura", "elektrik faturamı bul", "search_documents"),
        ("hatirlat", "yarın ilacımı hatırlat", "reminder_add"),
        ("hesap", "250 çarpı 4 kaç eder", "calculator"),
    ]
    cases = [
        {
            "name": f"{job}-{register}",
            "category": "tool",
            "group": "register",
            "job": job,
            "register": register,
            "steps": [{"message": message, "expect": tool}],
        }
        for job, message, tool in jobs
        for register in REGISTERS
    ]
    requires = sorted({tool for _, _, tool in jobs})
    _write(root / "tr" / "register.json",
           {"name": "tr-register", "language": "tr", "requires": requires, "cases": cases})
    en = [
        {"name": f"en-{i}", "category": "tool", "steps": [{"message": m, "expect": t}]}
        for i, (m, t) in enumerate(
            [
                ("what's the euro rate today", "web_search"),
                ("remind me to water the plants at 6", "reminder_add"),
                ("what is 17 times 23", "calculator"),
                ("how many days until March 3", "date_diff"),
                ("is it going to rain in Izmir tomorrow", "web_search"),
                ("find my lease in my documents", "search_documents"),
            ]
        )
    ]
    _write(root / "en" / "mixed.json",
           {"name": "en-mixed", "language": "en",
            "requires": sorted({c["steps"][0]["expect"] for c in en}), "cases": en})
    return root


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = _eval_folder(tmp_path / "router-eval")
    assert split_main([str(root)]) == 0
    return root


def _edit(path: Path, case_name: str, message: str) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    for case in data["cases"]:
        if case["name"] == case_name:
            case["steps"][0]["message"] = message
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def test_a_jobs_register_variants_stay_in_one_half(folder: Path) -> None:
    split = load_split(folder)
    assert split is not None
    by_job: dict[str, set[str]] = {}
    for key, entry in split.entries.items():
        if "register.json" in key:
            by_job.setdefault(entry.unit, set()).add(entry.half)
    assert len(by_job) == 4 and all(len(halves) == 1 for halves in by_job.values())
    # Stratified: two of the four jobs on each side, three of six English cases each.
    halves = [next(iter(h)) for h in by_job.values()]
    assert sorted(halves) == [FROZEN, FROZEN, TUNING, TUNING]
    english = [e.half for k, e in split.entries.items() if k.startswith("en/")]
    assert english.count(FROZEN) == 3


def test_the_split_is_reproducible_from_the_seed(folder: Path) -> None:
    recorded = load_split(folder)
    assert recorded is not None
    again = make_split(folder)
    assert {k: e.half for k, e in again.entries.items()} == {
        k: e.half for k, e in recorded.entries.items()
    }
    other = make_split(folder, seed="another seed")
    assert {k: e.half for k, e in other.entries.items()} != {
        k: e.half for k, e in recorded.entries.items()
    }


def test_editing_a_frozen_case_fails_until_recorded(folder: Path) -> None:
    split = load_split(folder)
    assert split is not None and verify(split) == []
    frozen = next(k for k, e in split.entries.items() if e.half == FROZEN and "en/" in k)
    tuning = next(k for k, e in split.entries.items() if e.half == TUNING and "en/" in k)
    _edit(folder / "en" / "mixed.json", tuning.split("::")[1], "a tuning case may change")
    assert verify(split) == []
    _edit(folder / "en" / "mixed.json", frozen.split("::")[1], "what is the lira rate now")
    problems = verify(split)
    assert [key for key, _ in problems] == [frozen]
    assert "frozen-half case was edited" in problems[0][1]
    report = run_check([folder])
    assert any(f.kind == SPLIT and f.case == frozen for f in report.failures)
    assert check_main([str(folder)]) == 1
    # Recording the edit, with its reason, makes the split whole again and logs it.
    assert split_main([str(folder), "--record", "typo in the frozen question"]) == 0
    recorded = load_split(folder)
    assert recorded is not None and verify(recorded) == []
    assert recorded.changes[-1]["reason"] == "typo in the frozen question"
    assert f"edited frozen {frozen}" in recorded.changes[-1]["cases"]  # type: ignore[operator]


def test_a_recorded_reason_with_any_characters_survives_the_file(folder: Path) -> None:
    """``split.toml`` is written by tomli-w: quotes, backslashes, newlines and control
    characters in a reason read back as they were."""
    _edit(folder / "en" / "mixed.json", "en-0", "what is the lira rate now")
    reason = 'a "quoted" C:\\path\nnext line \x7f\x00 ğüşİ'
    assert split_main([str(folder), "--record", reason]) == 0
    recorded = load_split(folder)
    assert recorded is not None and recorded.changes[-1]["reason"] == reason
    assert (folder / "split.toml").read_text(encoding="utf-8").startswith("# The held-out")


def test_removed_and_unassigned_cases_fail(folder: Path) -> None:
    split = load_split(folder)
    assert split is not None
    path = folder / "en" / "mixed.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    frozen = {k.split("::")[1] for k, e in split.entries.items() if e.half == FROZEN}
    kept = [c for c in data["cases"] if c["name"] not in frozen]
    kept.append({"name": "en-new", "category": "tool",
                 "steps": [{"message": "what's 9 squared", "expect": "calculator"}]})
    data["cases"] = kept
    path.write_text(json.dumps(data), encoding="utf-8")
    problems = dict(verify(split))
    assert "neither half" in problems["en/mixed.json::en-new"]
    assert sum("was removed" in p for p in problems.values()) == 3


def test_check_reports_recall_on_each_half(folder: Path) -> None:
    report = run_check([folder])
    assert set(report.halves) == {TUNING, FROZEN}
    total = sum(half.recall.total for half in report.halves.values())
    assert total == report.recall.total == 34
    data = report.to_json()
    assert data["splits"] == [str(folder / "split.toml")]
    frozen = data["halves"][FROZEN]
    assert set(frozen) == {"recall", "by_language", "by_group", "by_register", "fallback_only"}
    assert set(frozen["by_register"]) == {*REGISTERS, "unspecified"}
    table = report.render_table()
    assert "split (" in table and "tuning" in table and "frozen" in table
    assert "register anatolian" in table


def test_a_second_split_without_record_is_refused(folder: Path) -> None:
    assert split_main([str(folder)]) == 2


def test_no_split_file_means_no_halves(tmp_path: Path) -> None:
    root = _eval_folder(tmp_path / "plain")
    assert run_check([root]).halves == {}


@pytest.mark.parametrize(
    "name", sorted(p.relative_to(REPO).as_posix() for p in (REPO / "evals" / "router").iterdir()
                   if p.is_dir()))
def test_the_committed_evaluation_split_is_whole(name: str) -> None:
    """Every committed held-out folder has a split, and no frozen case changed unrecorded."""
    split = load_split(REPO / name)
    assert split is not None, f"{name}/ has no split.toml: run tooleval split {name}"
    assert len(split.entries) > 0
    assert verify(split) == []
