"""The oracle: evidence belongs to its step. An item already in the conversation before
the step ran (an earlier message, tool result or answer) checks nothing there, unless the
step marks it as a deliberate recall (``recall: true``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.check.oracle import ORACLE, run_oracle

VAT = {"message": "How much is 18% VAT on 4,286.40?", "expect": "calculator",
       "evidence": ["771.552"],
       "gold": [{"tool": "calculator", "args": {"expression": "4286.40 * 0.18"}}]}


def chain(tmp_path: Path, second: dict[str, Any]) -> Path:
    path = tmp_path / "t.json"
    case = {"name": "vat-then-double", "category": "chain", "steps": [
        VAT,
        {"message": "And twice that?", "expect": "calculator",
         "gold": [{"tool": "calculator", "args": {"expression": "771.552 * 2"}}], **second},
    ]}
    path.write_text(json.dumps({"name": "t", "language": "en", "requires": ["calculator"],
                                "cases": [case]}), encoding="utf-8")
    return path


def test_evidence_shown_by_an_earlier_step_is_refused(tmp_path: Path, world_base: Path) -> None:
    path = chain(tmp_path, {"evidence": ["1543.104", "771.552"]})
    report = run_oracle([path], world_base=world_base)
    assert not report.ok
    [failure] = report.failures
    assert (failure.kind, failure.file, failure.case, failure.step) == \
        (ORACLE, str(path), "vat-then-double", 2)
    assert "evidence[1] '771.552'" in failure.reason
    assert "already in the conversation before this step" in failure.reason
    assert "pick a fact this step's own tool output brings" in failure.reason
    assert '"recall": true' in failure.reason
    assert report.proven == 0
    rendered = report.render()
    assert f"{path}::vat-then-double step 2" in rendered


def test_evidence_from_an_earlier_user_message_is_refused(tmp_path: Path,
                                                         world_base: Path) -> None:
    # Step 2's fact comes from its own tool, but the user already said it in step 1.
    path = tmp_path / "t.json"
    case = {"name": "told", "category": "chain", "steps": [
        {"message": "Remember: the answer I expect later is 1543.104. Now, 18% VAT on "
                    "4,286.40?", "expect": "calculator", "evidence": ["771.552"],
         "gold": [{"tool": "calculator", "args": {"expression": "4286.40 * 0.18"}}]},
        {"message": "And twice that?", "expect": "calculator", "evidence": ["1543.104"],
         "gold": [{"tool": "calculator", "args": {"expression": "771.552 * 2"}}]},
    ]}
    path.write_text(json.dumps({"name": "t", "language": "en", "requires": ["calculator"],
                                "cases": [case]}), encoding="utf-8")
    [failure] = run_oracle([path], world_base=world_base).failures
    assert failure.step == 2 and "evidence[0] '1543.104'" in failure.reason


def test_a_deliberate_recall_may_repeat_an_earlier_fact(tmp_path: Path,
                                                       world_base: Path) -> None:
    path = chain(tmp_path, {"evidence": ["1543.104", "771.552"], "recall": True})
    assert load_case_file(path).cases[0].steps[1].recall is True
    report = run_oracle([path], world_base=world_base)
    assert report.ok, report.render()
    assert report.proven == 1


def test_evidence_of_the_steps_own_output_is_proven(tmp_path: Path, world_base: Path) -> None:
    report = run_oracle([chain(tmp_path, {"evidence": ["1543.104"]})], world_base=world_base)
    assert report.ok, report.render()
    assert load_case_file(tmp_path / "t.json").cases[0].steps[1].recall is False


def test_the_four_chains_are_proven(world_base: Path) -> None:
    # The four chains of issue 30 whose evidence an earlier step had already shown.
    source = Path(__file__).resolve().parents[2] / "benchmarks" / "en" / "chains.json"
    named = {"chain-branches-log-show", "chain-show-helptr-then-grep",
             "chain-notary-letter-calendar-reminder", "chain-list-travel-then-zip"}
    data = json.loads(source.read_text(encoding="utf-8"))
    data["cases"] = [case for case in data["cases"] if case["name"] in named]
    assert len(data["cases"]) == 4
    copy = Path(str(world_base) + "-chains.json")
    copy.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    report = run_oracle([copy], world_base=world_base)
    assert report.ok, report.render()
    assert report.proven == 4
