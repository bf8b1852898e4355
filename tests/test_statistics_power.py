"""`tooleval power`: cases and repeats for a change to detect, from case files or a report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_tooleval.cli import main
from pytest_tooleval.report.power import report_figures
from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.statistics import cases_needed, min_detectable
from tests.conftest import THANKS_CASE, WEATHER_CASE, make_report, scenario


def test_power_from_case_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [{**WEATHER_CASE, "name": f"w{i}"} for i in range(30)]
    cases += [{**THANKS_CASE, "name": f"t{i}"} for i in range(8)]
    # A chain's closing "thanks" counts on the irrelevance axis too: 8 + 2 = 10.
    cases += [{"name": f"c{i}", "category": "chain", "steps": [
        WEATHER_CASE["steps"][0], {"message": "thanks, that's all"}]} for i in range(2)]
    path = tmp_path / "demo.yaml"
    path.write_text(scenario(cases), encoding="utf-8")
    assert main(["power", str(path), "--detect", "10", "--discordance", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "Selection: 40 case(s); discordance 0.200 (given)." in out
    alpha = 0.05 / 6  # compare's: Bonferroni over the score, the pass rate and four axes
    needed = cases_needed(0.10, 0.20, alpha=alpha)  # 246 (168 at α = 0.05)
    detectable = min_detectable(40, 0.2, alpha=alpha)
    assert detectable is not None
    assert f"pass rate        40     {needed}        7  {100 * detectable:.1f} points" in out
    assert f"irrelevance      10     {needed}       25" in out
    assert "385 cases" in out  # a 10-point-wide interval near 50%


def test_power_reads_the_discordance_of_a_report_with_repeats(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def tries(name: str, axis: str, passes: int) -> list[CaseResult]:
        return [CaseResult(nodeid=f"a.json::{name}[r{r}]", file="a.json", case=name,
                           category=axis, repeat=r, outcome="PASS" if r <= passes else "FAIL",
                           axes={axis: 1.0 if r <= passes else 0.0}) for r in (1, 2, 3)]

    results = tries("a", "tool", 3) + tries("b", "tool", 1) + tries("c", "irrelevance", 3)
    report = make_report(results)
    counts, discordance = report_figures(report.summary)
    # 2·c(n−c)/(n(n−1)): 0, 2·1·2/6 = 2/3, 0 → mean 2/9
    assert discordance == pytest.approx(2 / 9)
    assert counts["all"] == 3 and counts["tool"] == 2
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report.to_json()))
    assert main(["power", "--from-report", str(path), "--detect", "30"]) == 0
    assert "discordance 0.222 (measured from the report's repeats)" in capsys.readouterr().out


def test_power_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["power", str(tmp_path), "--detect", "0"]) == 2
    assert "--detect must lie in (0, 100]" in capsys.readouterr().err
    assert main(["power", str(tmp_path / "missing"), "--detect", "5"]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    # Nothing to plan for: named with the fix (was "the selection holds no case").
    assert main(["power", str(tmp_path), "--detect", "5"]) == 2
    assert f"no case file under {tmp_path}; give case files or folders" in \
        capsys.readouterr().err
