"""`tooleval compare` and `tooleval gap` on recorded reports: arithmetic and refusals."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cli import main
from pytest_tooleval.engine.transcript import Attempt, ModelCall, StepTranscript
from pytest_tooleval.report.compare import compare, render_comparison
from pytest_tooleval.report.gap import gap_of, render_gap, validity
from pytest_tooleval.report.model import Report
from pytest_tooleval.result import CaseResult, Outcome, StepChecks, StepResult
from tests.conftest import THANKS_CASE, WEATHER_CASE, make_report, scenario
from tests.support.fake_openai import Rule, answer, call

RUN = {
    "tools_offered": ["calculator", "git_log", "web_search"],
    "backend": {"backend": "fake", "grammar": "on", "constraint": "json-envelope"},
    "model": {"name": "m"},
}


def case(nodeid: str, outcome: str, axes: dict[str, float], group: str = "g",
         attempts: list[Attempt] = (), checks: StepChecks | None = None) -> CaseResult:
    transcript = StepTranscript(message="m", attempts=list(attempts),
                                model_calls=[ModelCall(1.0, None, None, None)])
    scored = None if outcome == "ERROR" else (checks or StepChecks())
    return CaseResult(nodeid=nodeid, file=nodeid.partition("::")[0],
                      case=nodeid.partition("::")[2], outcome=outcome, axes=axes, group=group,
                      steps=[StepResult(transcript=transcript, checks=scored)])


def report(cases: list[CaseResult], **run: Any) -> Report:
    return make_report(cases, **{**copy.deepcopy(RUN), **run})


BASE = [
    case("a.json::irr", "PASS", {"irrelevance": 1.0}, "irrelevance"),
    case("a.json::t1", "PASS", {"tool": 1.0, "answer": 1.0}, "web"),
    case("a.json::t2", "FAIL", {"tool": 0.0, "answer": 0.0}, "web"),
]


def test_deltas_and_regressions_first() -> None:
    new_cases = copy.deepcopy(BASE)
    new_cases[1] = new_cases[1].model_copy(
        update={"outcome": Outcome.PARTIAL, "axes": {"tool": 1.0, "answer": 0.0}})  # regression
    new_cases[2] = new_cases[2].model_copy(
        update={"outcome": Outcome.PASS, "axes": {"tool": 1.0, "answer": 1.0}})     # improvement
    result = compare(report(new_cases), report(BASE))
    assert result.refused == []
    # baseline: irr 1, tool 0.5, answer 0.5 → 100·(0.4 + 0.15 + 0.05)/0.8 = 75
    # new:      irr 1, tool 1.0, answer 0.5 → 100·(0.4 + 0.30 + 0.05)/0.8 = 93.75
    assert result.score == (pytest.approx(93.75), pytest.approx(75.0))
    assert result.axes["tool"] == (pytest.approx(100.0), pytest.approx(50.0))
    assert [c["nodeid"] for c in result.regressions] == ["a.json::t1"]
    assert [c["nodeid"] for c in result.improvements] == ["a.json::t2"]
    assert result.regressed() == []  # nothing dropped beyond 1 point in aggregate


def test_a_large_drop_on_three_cases_is_not_called_a_regression() -> None:
    """One case of three flipping moves the score 50 points, yet is within the noise."""
    new_cases = copy.deepcopy(BASE)
    new_cases[0] = new_cases[0].model_copy(
        update={"outcome": Outcome.FAIL, "axes": {"irrelevance": 0.0}})
    result = compare(report(new_cases), report(BASE), tolerance=5)
    assert result.score == (pytest.approx(25.0), pytest.approx(75.0))
    assert result.regressed() == []
    assert result.verdict is not None and result.verdict.status == "no detectable change"
    irrelevance = next(r for r in result.rows if r.name == "axis irrelevance")
    assert (irrelevance.test, irrelevance.p_value) == ("mcnemar", 1.0)
    assert "Verdict: no detectable change" in render_comparison(result)


def test_the_changed_cases_heading_does_not_contradict_the_verdict() -> None:
    """It printed 'Improvements (2):' above 'Verdict: no detectable change' (a user's first
    hour): a case that changed is not an improvement of the run."""
    new_cases = copy.deepcopy(BASE)
    new_cases[1] = new_cases[1].model_copy(
        update={"outcome": Outcome.PARTIAL, "axes": {"tool": 1.0, "answer": 0.0}})
    new_cases[2] = new_cases[2].model_copy(
        update={"outcome": Outcome.PASS, "axes": {"tool": 1.0, "answer": 1.0}})
    text = render_comparison(compare(report(new_cases), report(BASE)))
    assert "Verdict: no detectable change" in text
    assert "Regressions" not in text and "Improvements" not in text
    assert ("Cases that changed: 1 worse, 1 better (within the noise: see the verdict)\n"
            "  worse   PASS → PARTIAL  a.json::t1\n"
            "  better  FAIL → PASS  a.json::t2\n") in text
    same = render_comparison(compare(report(copy.deepcopy(BASE)), report(BASE)))
    assert "Cases that changed: 0 worse, 0 better\n" in same


@pytest.mark.parametrize(("change", "reason"), [
    ({"platform": {"system": "Darwin", "machine": "arm64", "python": "3.11.7",
                   "implementation": "cpython"}}, "platform differs"),
    ({"tools_offered": ["calculator"]}, "2 tool(s) only in the baseline: git_log, web_search"),
    ({"backend": {"grammar": "off", "constraint": None}},
     "grammar mechanism differs: grammar off, constraint not recorded here, grammar on, "
     "constraint"),
    ({"backend": {"grammar": "on", "constraint": "none"}}, "grammar mechanism differs"),
    ({"backend": {**RUN["backend"], "model_path": "/m/other.gguf"}}, "model differs"),
    ({"backend": {**RUN["backend"], "backend": "openai-compatible"}}, "backend differs"),
    ({"backend": {**RUN["backend"], "sampling": {"repeat_penalty": 1.1}}},
     "sampling differs: repeat_penalty 1.1 here, 1.0 in the baseline"),
    # the profile's record, for a backend that keeps no sampling of its own
    ({"model": {"name": "m", "temperature": 0.7}}, "sampling differs: temperature 0.7"),
])
def test_refusals(change: dict[str, Any], reason: str) -> None:
    baseline = report(BASE)
    if "repeat_penalty" in reason:
        baseline = report(BASE, backend={**RUN["backend"], "sampling": {"repeat_penalty": 1.0}})
    elif "temperature" in reason:
        baseline = report(BASE, model={"name": "m", "temperature": 0.0})
    result = compare(report(BASE, **change), baseline)
    assert not result.compared
    assert any(reason in r for r in result.refused)
    assert result.regressed() == []  # a refused comparison reports no regressions


def test_case_set_difference_is_refused_and_force_compares_the_shared_cases() -> None:
    result = compare(report(BASE[:2]), report(BASE))
    assert result.refused == ["case set differs: 0 case(s) only here, 1 only in the baseline"]
    forced = compare(report(BASE[:2]), report(BASE), force=True)
    assert forced.compared and forced.score[0] == forced.score[1] == pytest.approx(100.0)


def test_an_interrupted_run_is_refused_as_interrupted() -> None:
    """A run that could not start (its server down) or was stopped with Ctrl-C was refused
    only as 'case set differs: 0 case(s) only here, 2 only in the baseline'."""
    stopped = report(BASE[:1], interrupted="Ctrl-C: 1 of 3 cases ran")
    result = compare(stopped, report(BASE))
    assert result.refused[0] == ("the run here was interrupted (Ctrl-C: 1 of 3 cases ran); "
                                 "resume it first (--tooleval-resume)")
    assert compare(report(BASE), stopped).refused[0].startswith(
        "the run in the baseline was interrupted (Ctrl-C")


def test_compare_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, same, mac = tmp_path / "b.json", tmp_path / "n.json", tmp_path / "mac.json"
    base.write_text(json.dumps(report(BASE).to_json()))
    same.write_text(json.dumps(report(BASE).to_json()))
    mac.write_text(json.dumps(report(BASE, platform={"system": "Darwin", "machine": "arm64",
                                                     "python": "3.11.7",
                                                     "implementation": "cpython"},
                                     tools_offered=["calculator"]).to_json()))
    assert main(["compare", str(same), str(base)]) == 0
    assert main(["compare", str(mac), str(base)]) == 1
    out = capsys.readouterr().out
    assert "Comparison refused" in out and "--force" in out
    assert main(["compare", str(mac), str(base), "--force", "--json",
                 str(tmp_path / "c.json")]) == 0
    assert "Compared anyway (--force)" in capsys.readouterr().out
    assert json.loads((tmp_path / "c.json").read_text())["forced"] is True
    (tmp_path / "junk.json").write_text("{}")
    assert main(["compare", str(tmp_path / "junk.json"), str(base)]) == 2
    # a tolerance no drop can exceed would make compare a check that cannot fail
    for tolerance in ("nan", "inf", "-1"):
        assert main(["compare", str(same), str(base), "--tolerance", tolerance]) == 2
        assert "--tolerance must be a number of points in [0, 100]" in capsys.readouterr().err


def test_gap_arithmetic_and_validity() -> None:
    good = Attempt("x", {}, valid=True)
    unparseable = Attempt(None, "{", valid=False, malformed="unparseable")
    schema = Attempt("x", {}, valid=False, malformed="schema_violation")
    on = report([
        case("a::1", "PASS", {"tool": 1.0}, attempts=[good],
             checks=StepChecks(tool=True, args=True)),
        case("a::2", "PASS", {"tool": 1.0}, attempts=[good], checks=StepChecks(tool=True)),
    ])
    off = report([
        case("a::1", "FAIL", {"tool": 0.0}, attempts=[unparseable, schema],
             checks=StepChecks(tool=False, args=False)),
        case("a::2", "PASS", {"tool": 1.0}, attempts=[good], checks=StepChecks(tool=True)),
    ], backend={"grammar": "off", "constraint": None})
    gap = gap_of(on, off)
    assert gap["score"] == {"on": 100.0, "off": 50.0, "gap": 50.0}
    assert gap["axes"]["tool"]["gap"] == pytest.approx(50.0)
    v_off = validity(off.cases)
    assert v_off["parse_rate"] == pytest.approx(2 / 3)  # 3 attempts, 1 unparseable
    assert v_off["schema_valid_rate"] == pytest.approx(1 / 2)
    assert v_off["right_tool_rate"] == pytest.approx(1 / 2)
    assert v_off["right_arguments_rate"] == 0.0
    assert validity(on.cases)["right_arguments_rate"] == 1.0


def test_gap_validity_rates_carry_their_intervals() -> None:
    """gap.md printed '| parse rate (%) |   81.3 |   61.0 |' with no uncertainty: each rate
    has Wilson's over its own attempts or steps, none under 5 (the 3 attempts above)."""
    good = Attempt("x", {}, valid=True)
    unparseable = Attempt(None, "{", valid=False, malformed="unparseable")
    cases = [case(f"a::{i}", "PASS", {"tool": 1.0}, attempts=[good if i < 8 else unparseable],
                  checks=StepChecks(tool=i < 9)) for i in range(10)]
    v = validity(cases)
    assert v["parse_rate"] == 0.8 and v["right_tool_rate"] == 0.9
    assert v["intervals"] == {  # none for the arguments: no step had constraints
        "parse_rate": {"low": 0.4902, "high": 0.9433, "method": "wilson"},
        "schema_valid_rate": {"low": 0.6756, "high": 1.0, "method": "wilson"},
        "right_tool_rate": {"low": 0.5958, "high": 0.9821, "method": "wilson"}}
    text = render_gap(gap_of(report(cases), report(cases, backend={"grammar": "off"})))
    assert "| parse rate (%) |   80.0 [49.0–94.3] |   80.0 [49.0–94.3] |" in text
    assert "| right arguments rate (%) |    n/a |    n/a |" in text
    assert validity(cases[:3])["intervals"] == {}


def test_gap_validity_is_over_the_cases_both_arms_scored() -> None:
    good = Attempt("x", {}, valid=True)
    bad = Attempt("x", {}, valid=False, malformed="schema_violation")
    on = report([case("a::1", "PASS", {"tool": 1.0}, attempts=[good],
                      checks=StepChecks(tool=True)),
                 case("a::2", "ERROR", {})])  # e.g. no grammar for its tool: the machine's
    off = report([case("a::1", "PASS", {"tool": 1.0}, attempts=[good],
                       checks=StepChecks(tool=True)),
                  case("a::2", "FAIL", {"tool": 0.0}, attempts=[bad],
                       checks=StepChecks(tool=False))],
                 backend={"grammar": "off", "constraint": None})
    gap = gap_of(on, off)
    assert gap["cases"] == 1 and gap["score"]["gap"] == 0.0
    assert gap["validity"]["on"] == gap["validity"]["off"]  # not 100 % against 50 %


def test_baseline_option_in_pytest(project, fake_model) -> None:
    good = fake_model([Rule("weather", [call("get_weather", {"city": "Izmir"}),
                                        answer("17.4 degrees")]),
                       Rule("thanks", [answer("bye")])])
    project.profile(good)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    assert project.run().ret == 0
    baseline = project.path / "baseline.json"
    baseline.write_text((project.path / "tooleval-report" / "report.json").read_text())
    good.set_rules([Rule("weather", [answer("no idea")]), Rule("thanks", [answer("bye")])])
    result = project.run("--tooleval-baseline", str(baseline), "--tooleval-partial", "pass")
    result.stdout.fnmatch_lines(["*against the baseline*", "*PASS → FAIL*weather*",
                                 "*Verdict: no detectable change*"])
    assert result.ret == 1  # the failing case fails its item; the comparison does not
    assert (project.path / "tooleval-report" / "comparison.json").is_file()


def test_a_run_whose_every_case_ended_in_error_is_not_passed_as_no_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The server died after the preflight: every case an ERROR, none scored. compare once
    printed "Verdict: no detectable change" and exited 0, a CI gate that passed having
    compared nothing; --force cannot make nothing a comparison either."""
    down = [case(c.nodeid, "ERROR", {}, c.group or "g") for c in BASE]
    new, base = tmp_path / "new.json", tmp_path / "base.json"
    new.write_text(json.dumps(report(down).to_json()))
    base.write_text(json.dumps(report(BASE).to_json()))
    for force in ([], ["--force"]):
        assert main(["compare", str(new), str(base), *force]) == 1
        out = capsys.readouterr().out
        assert "Verdict: nothing compared: no case was scored in both runs" in out
        assert "no detectable change" not in out
    result = compare(report(down), report(BASE))
    assert not result.compared and result.to_dict()["paired"]["verdict"]["status"] == \
        "nothing compared"


def test_gap_from_two_reports_run_separately(tmp_path: Path, capsys) -> None:
    """The committed reference reports rebuild the committed gap exactly."""
    root = Path(__file__).resolve().parent.parent / "docs" / "results" / "gap-sample4"
    out = tmp_path / "gap"
    assert main(["gap", "--from-reports", str(root / "on" / "report.json"),
                 str(root / "off" / "report.json"), "--report", str(out)]) == 0
    assert json.loads((out / "gap.json").read_text()) == json.loads(
        (root / "gap.json").read_text())
    # the wrong order is refused, with the reason
    assert main(["gap", "--from-reports", str(root / "off" / "report.json"),
                 str(root / "on" / "report.json"), "--report", str(out)]) == 2
    assert "grammar-on report first" in capsys.readouterr().err


def test_gap_from_reports_refuses_runs_that_differ_beyond_the_grammar(tmp_path: Path,
                                                                      capsys) -> None:
    on = report(BASE)
    off = report(BASE, backend={"grammar": "off", "constraint": None},
                 tools_offered=["calculator"])
    paths = []
    for name, data in (("on", on), ("off", off)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data.to_json()))
        paths.append(str(path))
    assert main(["gap", "--from-reports", *paths, "--report", str(tmp_path / "g")]) == 2
    assert "tool availability differs" in capsys.readouterr().err
    assert main(["gap", "--from-reports", *paths, "--report", str(tmp_path / "g"),
                 "--force"]) == 0


def test_gap_from_reports_refuses_an_embedded_arm_joined_with_a_server_arm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedded = {"grammar": "on", "constraint": "json-envelope (llama.cpp GBNF)",
                "backend": "llama.cpp (embedded)", "model_path": "/x/SmolLM2.gguf",
                "sampling": {"repeat_penalty": 1.0}}
    server = {"grammar": "off", "constraint": "none", "model": "smollm2",
              "backend": "openai-compatible (raw completions)",
              "preflight": {"models": ["qwen3-4b"]}, "sampling": {"repeat_penalty": 1.1}}
    paths = []
    for name, backend in (("on", embedded), ("off", server)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(report(BASE, backend=backend).to_json()))
        paths.append(str(path))
    assert main(["gap", "--from-reports", *paths, "--report", str(tmp_path / "g")]) == 2
    err = capsys.readouterr().err
    assert "model differs: SmolLM2.gguf here, qwen3-4b in the baseline" in err
    assert "backend differs" in err and "repeat_penalty 1.0 here, 1.1" in err
    assert main(["gap", "--from-reports", *paths, "--report", str(tmp_path / "g"),
                 "--force"]) == 0
    assert "--force: building the gap although the runs differ" in capsys.readouterr().err


def test_cases_whose_contents_swapped_names_are_neither_regressions_nor_edited() -> None:
    """Case a's content moved to b and b's to a: paired by content, nothing changed (the
    figures say +0.0), so the lists must not call a a regression, b an improvement, nor
    both "edited, not compared" when they were compared."""
    def tried(name: str, content: str, passed: bool) -> CaseResult:
        return CaseResult(nodeid=f"f.json::{name}", file="f.json", case=name,
                          case_hash=content, category="tool", axes={"tool": float(passed)},
                          outcome=Outcome.PASS if passed else Outcome.FAIL)

    same = [tried(f"c{i}", f"h{i}", True) for i in range(8)]
    base = [tried("a", "X", True), tried("b", "Y", False), *same]
    new = [tried("a", "Y", False), tried("b", "X", True), *same]
    result = compare(make_report(new), make_report(base))
    assert result.score == (90.0, 90.0)
    assert result.regressions == [] and result.improvements == []
    assert result.edited == []


def test_a_baseline_scored_by_another_version_is_refused_not_read_as_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same transcripts scored before and after 0135a47 (a chain's closing "thanks" on
    the irrelevance axis): compare showed irrelevance 50.0 → 66.7 and a paired "baseline"
    of 33.3 on identical behaviour; the runs differ in scoring, so it is refused."""
    def chain(name: str, axes: dict[str, float]) -> CaseResult:
        return CaseResult(nodeid=f"f.json::{name}", file="f.json", case=name, case_hash=name,
                          category="chain", axes=axes, outcome=Outcome.PARTIAL)

    irrelevance = [CaseResult(nodeid=f"f.json::i{i}", file="f.json", case=f"i{i}",
                              case_hash=f"i{i}", category="irrelevance",
                              axes={"irrelevance": float(i % 2)},
                              outcome=Outcome.PASS if i % 2 else Outcome.FAIL)
                   for i in range(2)]
    old = [*irrelevance, chain("c", {"step": 0.5})]
    new = [*irrelevance, chain("c", {"step": 0.5, "irrelevance": 1.0})]
    result = compare(make_report(new), make_report(old))
    assert not result.compared
    assert result.refused == [
        "scoring differs: 1 case(s) count on other axes here than in the baseline (e.g. "
        "f.json::c: irrelevance, step here, step in the baseline): the runs were scored by "
        "different versions; re-score the older report with `tooleval rescore REPORT "
        "--report DIR` and compare with DIR/report.json"]
    assert compare(make_report(new), make_report(new)).refused == []
    paths = []
    for name, data in (("on", make_report(new)), ("off", make_report(
            old, backend={"grammar": "off", "constraint": None}))):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data.to_json()))
        paths.append(str(path))
    assert main(["gap", "--from-reports", *paths, "--report", str(tmp_path / "g")]) == 2
    assert "scoring differs: 1 case(s)" in capsys.readouterr().err


def test_compare_prints_the_paired_interval_as_the_job_summary_does() -> None:
    """compare's terminal printed the score's paired interval '[-12.9, +12.9]' where the
    job summary (and report.md's language gap, gap.md, board) print '-12.9 to +12.9'."""
    from pytest_tooleval.report.github import render_step_summary

    cases = [case(f"a.json::c{i}", "PASS" if i % 3 else "FAIL",
                  {"tool": float(bool(i % 3))}, "web") for i in range(24)]
    new = [c.model_copy(update={"outcome": Outcome.PASS, "axes": {"tool": 1.0}}) if i == 0
           else c for i, c in enumerate(cases)]
    result = compare(report(new), report(cases))
    interval = result.to_dict()["paired"]["figures"]["score"]["interval"]
    shown = f"{interval['low']:+.1f} to {interval['high']:+.1f}"
    assert f"paired interval {shown})" in render_step_summary(report(new), result.to_dict())
    score = next(line for line in render_comparison(result).splitlines()
                 if line.startswith("  score ") and "sign-flip" in line)
    assert f"[{shown}]" in score, score
    assert "and larger than 1 point." in render_comparison(result)  # not "1 points"
