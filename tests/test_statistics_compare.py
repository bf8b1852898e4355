"""Paired comparison and the gap on scripted runs of 300 cases: one flipped case is noise,
40 are a regression; edited cases are listed apart; the flip matrix lists its cases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_tooleval.cli import main
from pytest_tooleval.report.compare import compare
from pytest_tooleval.report.gap import gap_of, render_gap
from pytest_tooleval.report.model import Report, load_report
from tests.conftest import scenario
from tests.support.fake_openai import Rule, answer, call

TOOL_CASES, IRRELEVANCE_CASES = 250, 50


def corpus() -> str:
    cases = [{"name": f"w{i:03d}", "category": "tool", "group": f"g{i % 2}", "steps": [
        {"message": f"weather question {i:03d}: how is Izmir?", "expect": "get_weather",
         "evidence": ["light rain"]}]} for i in range(TOOL_CASES)]
    cases += [{"name": f"t{i:03d}", "category": "irrelevance", "steps": [
        {"message": f"thanks number {i:03d}, that's all"}]} for i in range(IRRELEVANCE_CASES)]
    return scenario(cases)


def rules(flipped: int) -> list[Rule]:
    broken = [Rule(f"question {i:03d}:", [answer("no idea")]) for i in range(flipped)]
    return [*broken, Rule("weather question", [call("get_weather", {"city": "Izmir"}),
                                                answer("light rain today")]),
            Rule("thanks", [answer("bye")])]


@pytest.fixture
def runs(project, fake_model) -> dict[str, Path]:
    """Reports of the same 300 cases: all passing, 1 flipped, 40 flipped."""
    server = fake_model(rules(0))
    project.profile(server)
    project.write("scenarios/big.yaml", corpus())
    found = {}
    for name, flipped in (("base", 0), ("one", 1), ("forty", 40)):
        server.set_rules(rules(flipped))
        project.run("--tooleval-partial", "pass")
        found[name] = project.path / f"{name}.json"
        shutil.copy(project.path / "tooleval-report" / "report.json", found[name])
    return found


def test_one_flip_in_300_is_no_detectable_change_and_40_is_a_regression(
        runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(runs["one"]), str(runs["base"])]) == 0
    out = capsys.readouterr().out
    assert "Verdict: no detectable change. With 300 paired case(s)" in out
    assert "at least 8 cases must flip one way" in out  # 6 at α = .05; 8 at .05 / 5

    assert main(["compare", str(runs["forty"]), str(runs["base"]),
                 "--json", str(runs["base"].parent / "c.json")]) == 1
    out = capsys.readouterr().out
    assert "Verdict: regression in" in out
    paired = json.loads((runs["base"].parent / "c.json").read_text())["paired"]
    tool = paired["figures"]["axis tool"]
    assert tool["status"] == "regression" and tool["test"] == "mcnemar"
    assert tool["flips"]["counts"] == {"helped": 0, "hurt": 40, "both_pass": 210,
                                       "both_fail": 0}
    assert tool["p_value"] == pytest.approx(2 * 0.5**40, rel=1e-3)
    assert tool["delta"] == pytest.approx(-16.0)  # 40 of 250
    assert tool["interval"]["high"] < 0 < 100  # the paired interval excludes no change
    assert sorted(tool["flips"]["hurt"])[:2] == ["scenarios/big.yaml::w000",
                                                 "scenarios/big.yaml::w001"]
    assert paired["figures"]["axis irrelevance"]["status"] == "no detectable change"
    assert paired["verdict"]["status"] == "regression"
    # a stricter level still calls 40 flips a regression; the groups are shown, not deciding
    assert main(["compare", str(runs["forty"]), str(runs["base"]), "--level", "0.999"]) == 1
    assert paired["groups"]["group g0"]["decides"] is False


def test_an_edited_case_is_listed_apart(runs: dict[str, Path]) -> None:
    base, new = load_report(runs["base"]), load_report(runs["forty"])
    for case in new.cases[:3]:
        case.case_hash = "edited-content"
    result = compare(new, base)
    assert result.pairing is not None
    assert result.pairing.edited == [c.nodeid for c in new.cases[:3]]
    assert len(result.pairing.pairs) == 297


def arm(path: Path, grammar: str) -> Report:
    report = load_report(path)
    report.run.backend["grammar"] = grammar
    return report


def test_gap_flip_matrix_interval_and_validity(runs: dict[str, Path]) -> None:
    gap = gap_of(arm(runs["base"], "on"), arm(runs["forty"], "off"))
    paired = gap["paired"]
    tool = paired["figures"]["axis tool"]
    assert tool["flips"]["counts"]["helped"] == 40 and tool["flips"]["counts"]["hurt"] == 0
    assert tool["status"] == "improvement"  # on − off: the grammar helped
    assert tool["interval"]["low"] > 0
    assert paired["groups"]["group g0"]["flips"]["counts"]["helped"] == 20
    text = render_gap(gap)
    assert "| axis tool | 40 | 0 | 210 | 0 |" in text
    assert "parse rate" in text and "right tool rate" in text
    assert "significant" in text


def partial_rules(flipped: int) -> list[Rule]:
    """The first ``flipped`` tool cases call the tool but miss the fact: PARTIAL."""
    weak = [Rule(f"question {i:03d}:", [call("get_weather", {"city": "Izmir"}),
                                        answer("no idea")]) for i in range(flipped)]
    return [*weak, *rules(0)]


def test_baseline_option_exit_status_follows_the_verdict(project, fake_model) -> None:
    server = fake_model(rules(0))
    project.profile(server)
    project.write("scenarios/big.yaml", corpus())
    project.run("--tooleval-partial", "pass")
    baseline = project.path / "baseline.json"
    shutil.copy(project.path / "tooleval-report" / "report.json", baseline)
    # PARTIAL counts as passed for pytest here, so the exit status is the comparison's
    server.set_rules(partial_rules(1))
    result = project.run("--tooleval-baseline", str(baseline), "--tooleval-partial", "pass")
    result.stdout.fnmatch_lines(["*Verdict: no detectable change. With 300 paired case(s)*"])
    assert result.ret == 0
    server.set_rules(partial_rules(40))
    result = project.run("--tooleval-baseline", str(baseline), "--tooleval-partial", "pass")
    result.stdout.fnmatch_lines(["*Verdict: regression in*pass rate*axis answer*"])
    assert result.ret == 1
    comparison = json.loads((project.path / "tooleval-report" / "comparison.json").read_text())
    assert comparison["paired"]["verdict"]["status"] == "regression"
    assert comparison["paired"]["figures"]["axis tool"]["status"] == "no detectable change"


@pytest.mark.parametrize(("new", "base"), [
    ([True, False, True], [True, True, False]),
    ([True] * 6, [False] * 5 + [True]),
    ([True, False, True] * 4, [True, True, False] * 4),
], ids=["3-cases", "6-cases-5-flips", "12-cases"])
def test_a_few_paired_cases_never_promise_a_difference_past_100_points(
        new: list[bool], base: list[bool]) -> None:
    """Three paired cases once read "the smallest difference detectable is score 147.8
    points": a score moves 100 at most, and 3 cases cannot make the 7 flips any difference
    needs; six with five flips said "none could show" while the JSON said 50.4 points.
    Twelve cases still size what they can detect, under 100."""
    from pytest_tooleval.report.compare import render_comparison
    from pytest_tooleval.result import CaseResult, Outcome
    from tests.conftest import make_report

    def cases(oks: list[bool]) -> list[CaseResult]:
        return [CaseResult(nodeid=f"f.json::c{i}", file="f.json", case=f"c{i}", case_hash="h",
                           category="tool", outcome=Outcome.PASS if ok else Outcome.FAIL,
                           axes={"tool": float(ok)}) for i, ok in enumerate(oks)]

    result = compare(make_report(cases(new)), make_report(cases(base)))
    sizes = result.verdict.smallest_detectable
    assert all(value is None or 0 < value <= 100 for value in sizes.values()), sizes
    verdict = render_comparison(result).rstrip().splitlines()[-1]
    if len(new) < 7:  # fewer than the 7 flips any change needs
        assert set(sizes.values()) == {None}, sizes  # the JSON says what the text says
        assert verdict.startswith(f"Verdict: no detectable change, and none could show: "
                                  f"{len(new)} paired case(s), while at least 7 must flip")
    else:
        assert sizes["score"] is not None and "score 76.2 points" in verdict, verdict


def test_cases_that_changed_pair_a_repeated_run_with_a_single_one() -> None:
    """A 3-try run against a 1-try baseline said "Cases that changed: 0 worse, 0 better"
    under a table whose irrelevance row moved: the tries' node ids ([r1]…) were looked up
    in the baseline's. Cases pair by content; a case is worse or better by its mean rank."""
    from pytest_tooleval.result import CaseResult, Outcome
    from tests.conftest import make_report

    def tries(name: str, outcomes: list[str]) -> list[CaseResult]:
        repeat = len(outcomes) > 1
        return [CaseResult(nodeid=f"f.json::{name}" + (f"[r{r}]" if repeat else ""),
                           file="f.json", case=name, case_hash=name, category="irrelevance",
                           outcome=Outcome(o), axes={"irrelevance": float(o == "PASS")},
                           repeat=r if repeat else None)
                for r, o in enumerate(outcomes, start=1)]

    base = make_report([*tries("thanks", ["FAIL"]), *tries("bye", ["PASS"]),
                        *tries("ok", ["PASS"])])
    new = make_report([*tries("thanks", ["PASS", "FAIL", "PASS"]),
                       *tries("bye", ["PASS", "FAIL", "FAIL"]), *tries("ok", ["PASS"] * 3)])
    result = compare(new, base)
    assert [(c["nodeid"], c["baseline"], c["new"]) for c in result.improvements] == [
        ("f.json::thanks", "FAIL", "PASS/FAIL/PASS")]
    assert [(c["nodeid"], c["new"]) for c in result.regressions] == [
        ("f.json::bye", "PASS/FAIL/FAIL")]
