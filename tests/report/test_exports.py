"""CI artefacts as CI reads them: JUnit XML, pytest-json-report, the GitHub job summary and
Prometheus metrics, each parsed back; serial and xdist give the same artefacts."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_tooleval.report.model import Report
from pytest_tooleval.result import CaseResult
from tests.conftest import THANKS_CASE, WEATHER_CASE, make_report, scenario
from tests.support.fake_openai import Rule, answer, call, drop

SCRIPT = [
    Rule("broken", [drop()]),
    Rule("weather in izmir", [call("get_weather", {"city": "Izmir"}), answer("rainy")]),
    Rule("thanks", [answer("bye")]),
]
BROKEN_CASE = {"name": "broken", "category": "irrelevance",
               "steps": [{"message": "this one is broken, thanks"}]}


def _run(project, fake_model, *args: str, workers: int = 0):
    server = fake_model(SCRIPT)
    project.profile(server, retries=0)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE, BROKEN_CASE]))
    return project.run(*args, "--tooleval-max-errors", "10", workers=workers)


def _junit(path) -> tuple[ET.Element, dict[str, ET.Element]]:
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    return suite, {c.get("name"): c for c in suite.iter("testcase")}


def _props(element: ET.Element) -> dict[str, str]:
    node = element.find("properties")
    assert node is not None
    return {p.get("name"): p.get("value") for p in node.iter("property")}


@pytest.mark.parametrize("workers", [0, 2])
def test_junit_error_partial_and_properties(project, fake_model, workers) -> None:
    result = _run(project, fake_model, "--junitxml=junit.xml", workers=workers)
    outcomes = result.parseoutcomes()
    assert outcomes.get("partial") == 1 and outcomes.get("passed") == 1
    suite, cases = _junit(project.path / "junit.xml")
    broken = cases["broken"]
    assert broken.find("failure") is None
    error = broken.find("error")
    assert error is not None and error.get("message").startswith("tooleval ERROR")
    assert (suite.get("errors"), suite.get("failures"), suite.get("tests")) == ("1", "1", "3")
    weather = _props(cases["weather"])
    assert weather["tooleval.outcome"] == "PARTIAL"
    assert cases["weather"].find("failure").get("message").startswith("PARTIAL:")
    assert weather["tooleval.tool_calls"] == "1"
    assert weather["tooleval.tools_ran"] == "get_weather"
    assert weather["tooleval.axis.tool"] == "1" and weather["tooleval.axis.answer"] == "0"
    assert float(weather["tooleval.latency_s"]) >= 0
    assert _props(cases["thanks"])["tooleval.outcome"] == "PASS"
    assert _props(broken)["tooleval.outcome"] == "ERROR"
    run = _props(suite)
    assert run["tooleval.verdict"] == "NOT VALID"
    assert run["tooleval.safety_gate"] in ("PASSED", "FAILED")
    assert run["tooleval.cases.error"] == "1" and run["tooleval.cases.partial"] == "1"
    assert float(run["tooleval.score"]) == pytest.approx(project.report()["summary"]["score"],
                                                         abs=0.01)
    # 2 scored cases: too few for an interval, so no bound is written
    assert project.report()["summary"]["score_interval"] is None
    assert not {"tooleval.score.low", "tooleval.score.high"} & run.keys()
    assert "record_property is incompatible" not in result.stdout.str()


def test_partial_as_pass_stays_distinguishable(project, fake_model) -> None:
    _run(project, fake_model, "--junitxml=junit.xml", "--tooleval-partial", "pass")
    _, cases = _junit(project.path / "junit.xml")
    assert cases["weather"].find("failure") is None
    assert _props(cases["weather"])["tooleval.outcome"] == "PARTIAL"


def test_junit_properties_can_be_switched_off(project, fake_model) -> None:
    project.write("pytest.ini", "[pytest]\ntooleval_junit_properties = false\n")
    _run(project, fake_model, "--junitxml=junit.xml")
    suite, cases = _junit(project.path / "junit.xml")
    assert cases["weather"].find("properties") is None
    assert cases["broken"].find("error") is not None  # found without the properties
    assert suite.get("errors") == "1"


@pytest.mark.parametrize("workers", [0, 2])
def test_json_report_metadata_and_summary(project, fake_model, workers) -> None:
    _run(project, fake_model, "-p", "pytest_jsonreport", "--json-report",
         "--json-report-file=jr.json", workers=workers)
    data = json.loads((project.path / "jr.json").read_text())
    tests = {t["nodeid"]: t for t in data["tests"]}
    weather = tests["scenarios/demo.yaml::weather"]["metadata"]["tooleval"]
    assert weather["outcome"] == "PARTIAL"
    assert weather["axes"] == {"tool": 1.0, "answer": 0.0}
    assert weather["tools_ran"] == ["get_weather"] and weather["tool_calls"] == 1
    assert tests["scenarios/demo.yaml::broken"]["metadata"]["tooleval"]["outcome"] == "ERROR"
    run = data["tooleval"]
    assert run["outcomes"] == {"PASS": 1, "PARTIAL": 1, "FAIL": 0, "ERROR": 1}
    assert run["verdict"] == "NOT VALID"
    assert run["score"] == pytest.approx(project.report()["summary"]["score"])


def test_github_step_summary_is_appended(project, fake_model, monkeypatch) -> None:
    summary = project.path / "step-summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    _run(project, fake_model)
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    summary = project.report()["summary"]
    assert summary["score_interval"] is None  # 2 scored cases: too few for an interval
    assert f"**Score {summary['score']:.1f} [too few cases] / 100**" in text
    assert "Baselines: never-call" in text
    assert "**NOT VALID**" in text and "1 error" in text
    assert "| irrelevance | tool | step | answer |" in text


def test_step_summary_lists_regressions_and_intervals() -> None:
    from pytest_tooleval.report.github import render_step_summary

    report = _fake_report()
    comparison = {"refused": [], "forced": False, "score": {"new": 55.0, "baseline": 70.0,
                                                          "delta": -15.0},
                  "regressions": [{"nodeid": f"a.json::c{i}", "baseline": "PASS",
                                   "new": "FAIL"} for i in range(12)],
                  "regressed_beyond_tolerance": ["score: 70.0 → 55.0 (-15.0)"]}
    text = render_step_summary(report, comparison)
    assert "**Score 55.0 [40.0–70.0] / 100**" in text
    assert "70.0 [50.0–90.0]" in text
    assert "| 50.0 [too few cases] |" in text  # irrelevance: 2 cases, no interval
    assert "never call a tool 40.0" in text
    assert "Top regressions (12):" in text and "`a.json::c9`" in text
    assert "`a.json::c10`" not in text and "and 2 more" in text


def test_step_summary_gives_the_score_difference_with_its_paired_interval(
        project, fake_model, monkeypatch) -> None:
    """With --tooleval-baseline the job summary read 'Against the baseline: 88.7 → 81.5
    (-7.3)', the interval compare computed for that difference left out."""
    summary = project.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    server = fake_model([Rule("weather", [call("get_weather", {"city": "Izmir"}),
                                          answer("rainy")]), Rule("thanks", [answer("bye")])])
    project.profile(server)
    cases = [{**WEATHER_CASE, "name": f"w{i}", "steps": [
        {**WEATHER_CASE["steps"][0], "message": f"weather {i} in Izmir?"}]} for i in range(12)]
    cases += [{**THANKS_CASE, "name": f"t{i}", "steps": [{"message": f"thanks {i}"}]}
              for i in range(12)]
    project.write("scenarios/demo.yaml", scenario(cases))
    project.run()
    (project.path / "base.json").write_bytes(
        (project.path / "tooleval-report" / "report.json").read_bytes())
    server.set_rules([Rule("weather 1", [answer("no idea")]),
                      Rule("weather", [call("get_weather", {"city": "Izmir"}),
                                       answer("rainy")]), Rule("thanks", [answer("bye")])])
    summary.write_text("")
    project.run("--tooleval-baseline", "base.json")
    paired = json.loads((project.path / "tooleval-report" / "comparison.json").read_text())
    score = paired["paired"]["figures"]["score"]
    interval = score["interval"]
    assert interval is not None  # 24 pairs
    assert (f"({score['delta']:+.1f}, 95% paired interval {interval['low']:+.1f} to "
            f"{interval['high']:+.1f})") in summary.read_text()


def test_junit_suite_properties_carry_the_intervals_there_are() -> None:
    from pytest_tooleval.report.junit import suite_properties

    props = dict(suite_properties(_fake_report()))
    assert (props["tooleval.score.low"], props["tooleval.score.high"]) == ("40", "70")
    assert (props["tooleval.axis.tool.low"], props["tooleval.axis.tool.high"]) == ("0.5", "0.9")
    assert "tooleval.axis.irrelevance.low" not in props  # 2 cases: no interval


def test_json_report_summary_carries_the_score_s_interval_as_its_axes_do() -> None:
    """pytest-json-report's top-level ``tooleval`` gave the score bare (88.7) while each
    axis beside it carried its interval."""
    from pytest_tooleval.report.pytest_json_report import run_summary

    summary = run_summary(_fake_report())
    assert summary["score_interval"] == {"low": 40.0, "high": 70.0, "method": "bootstrap"}
    assert summary["axes"]["tool"]["interval"] == {"low": 0.5, "high": 0.9,
                                                   "method": "wilson"}
    assert summary["axes"]["irrelevance"]["interval"] is None  # 2 cases: no interval


def test_json_report_summary_carries_the_malformed_rate_s_interval() -> None:
    """pytest-json-report's ``tooleval.calls.malformed_rate`` came bare (0.02) where
    report.json's criterion carries its Wilson interval over the attempts."""
    from pytest_tooleval.engine.transcript import Attempt, StepTranscript
    from pytest_tooleval.report.pytest_json_report import run_summary
    from pytest_tooleval.result import StepChecks, StepResult

    steps = [StepResult(transcript=StepTranscript(message="m", attempts=[
        Attempt("a", "{", valid=False, malformed="unparseable") if i == 0 else
        Attempt("a", {}, valid=True)]), checks=StepChecks()) for i in range(50)]
    report = make_report([CaseResult(nodeid="a.json::c", file="a.json", case="c",
                                     outcome="PASS", axes={"tool": 1.0}, steps=steps)])
    calls = run_summary(report)["calls"]
    assert calls["malformed_rate"] == 0.02
    assert calls["malformed_rate_interval"] == {"low": 0.0035, "high": 0.105,
                                                "method": "wilson"}
    few = make_report([CaseResult(nodeid="a.json::c", file="a.json", case="c",
                                  outcome="PASS", axes={"tool": 1.0}, steps=steps[:4])])
    assert run_summary(few)["calls"]["malformed_rate_interval"] is None  # 4 attempts


def test_every_renderer_names_the_same_grammar_mode() -> None:
    """A run whose model never started has no backend description: report.md, the step
    summary, JUnit, the json-report metadata and the dataset card read the backend's
    grammar (and showed '?' or nothing) while report.html and the metrics read the run's
    (the mode asked for)."""
    from pytest_tooleval.report.dataset import dataset_card
    from pytest_tooleval.report.github import render_step_summary
    from pytest_tooleval.report.html import render_html
    from pytest_tooleval.report.junit import suite_properties
    from pytest_tooleval.report.markdown import render_markdown
    from pytest_tooleval.report.pytest_json_report import run_summary

    report = make_report([], backend={}, grammar_requested="off")
    assert report.run.grammar == "off"
    assert "grammar <code>off</code>" in render_html(report)
    assert "grammar `off`" in render_markdown(report)
    assert "(grammar off)" in render_step_summary(report)
    assert dict(suite_properties(report))["tooleval.grammar"] == "off"
    assert run_summary(report)["grammar"] == "off"
    assert "grammar `off`" in dataset_card([], report, "0")


def test_per_case_call_counts_agree_with_the_summary_on_parser_leaks() -> None:
    """A leaked call is counted apart from attempts and malformed calls, as report.json's
    ``summary.calls`` counts it: the per-case figures of JUnit and pytest-json-report add up
    to the summary's."""
    from pytest_tooleval.engine.transcript import Attempt, StepTranscript
    from pytest_tooleval.report.junit import case_properties
    from pytest_tooleval.report.pytest_json_report import case_metadata
    from pytest_tooleval.result import StepResult

    attempts = [Attempt(name="get_weather", arguments={}, valid=True),
                Attempt(name="get_wether", arguments={}, valid=False, malformed="unknown_tool"),
                Attempt(name="nope", arguments={}, valid=False, malformed="unknown_tool",
                        leaked=True),
                Attempt(name="get_weather", arguments={}, valid=False, leaked=True)]
    case = CaseResult(nodeid="a.json::c", file="a.json", case="c", category="tool",
                      outcome="FAIL", steps=[StepResult(transcript=StepTranscript(
                          message="m", attempts=attempts, answered=True))])
    calls = make_report([case]).summary.calls
    assert (calls.attempts, calls.malformed, calls.parser_leaks) == (2, 1, 2)
    props = dict(case_properties(case))
    assert (props["tooleval.tool_calls_attempted"], props["tooleval.malformed_calls"],
            props["tooleval.parser_leaks"], props["tooleval.tool_calls"]) == ("2", "1", "2", "1")
    metadata = case_metadata(case)
    assert (metadata["tool_calls_attempted"], metadata["malformed_calls"],
            metadata["parser_leaks"]) == (2, 1, 2)


def _fake_report() -> Report:
    """A report with figures chosen by hand (the summary's fields set, not computed)."""
    from pytest_tooleval.report.model import (
        AxisFigure,
        Baseline,
        Calls,
        Interval,
        SafetyGate,
        Verdict,
    )
    from pytest_tooleval.scoring.aggregate import Thresholds, summarize

    cases = [_case("a.json::c1", "PASS", [(0.3, 100, 7), (4.0, 50, 3)]),
             _case("a.json::c2", "ERROR", [(99.0, None, None)])]
    summary = summarize(cases, Thresholds()).model_copy(update={
        "score": 55.0,
        "score_interval": Interval(low=40.0, high=70.0, method="bootstrap"),
        "axes": {"irrelevance": AxisFigure(value=0.5, cases=2, weight=0.4),
                 "tool": AxisFigure(value=0.7, cases=3, weight=0.3,
                                    interval=Interval(low=0.5, high=0.9, method="wilson"))},
        "outcomes": {"PASS": 2, "PARTIAL": 1, "FAIL": 2, "ERROR": 0},
        "safety_gate": SafetyGate(status="FAILED", passed=False, threshold=0.9,
                                  irrelevance=0.5, forbidden_ran=[],
                                  detail="irrelevance 0.50"),
        "deployability": Verdict(verdict="NOT DEPLOYABLE", valid=True, measured=True,
                                 beats_baselines=True, score=0.0, criteria=[]),
        "calls": Calls(attempts=5, malformed=1, malformed_rate=0.2, malformed_kinds={},
                       parser_leaks=1, steps=3, latency_p50_s=None, latency_p95_s=None),
        "baselines": {"never call a tool": Baseline(policy="never calls a tool", score=40.0,
                                                    axes={}, outcomes={}, cases=5,
                                                    errors=0)},
    })
    return make_report(cases, summary)


def _case(nodeid: str, outcome: str, calls: list[tuple[float, int | None, int | None]]
          ) -> CaseResult:
    from pytest_tooleval.engine.transcript import ModelCall, StepTranscript
    from pytest_tooleval.result import ErrorInfo, StepResult

    steps = [StepResult(transcript=StepTranscript(
        message="m", model_calls=[ModelCall(latency, prompt, completion, "stop")]))
        for latency, prompt, completion in calls]
    error = ErrorInfo(kind="backend", message="down") if outcome == "ERROR" else None
    return CaseResult(nodeid=nodeid, file="a.json", case=nodeid.split("::")[1],
                      category="tool", outcome=outcome, error=error, steps=steps,
                      case_hash=nodeid)


def test_metrics_carry_each_axis_s_interval_as_the_score_s() -> None:
    """The textfile had tooleval_score_interval but each tooleval_axis_ratio bare, though
    report.json, JUnit and the job summary give the axes' intervals."""
    from prometheus_client import generate_latest

    from pytest_tooleval.report.metrics import build_registry

    families = _parse_metrics(generate_latest(build_registry(_fake_report())).decode())
    assert _sample(families, "tooleval_axis_interval", axis="tool", bound="low") == 0.5
    assert _sample(families, "tooleval_axis_interval", axis="tool", bound="high") == 0.9
    with pytest.raises(AssertionError, match="no sample"):  # 2 cases: no interval
        _sample(families, "tooleval_axis_interval", axis="irrelevance", bound="low")


def _parse_metrics(text: str) -> dict[str, object]:
    from prometheus_client.parser import text_string_to_metric_families

    return {family.name: family for family in text_string_to_metric_families(text)}


def _sample(families, name: str, **labels: str) -> float:
    for family in families.values():
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    raise AssertionError(f"no sample {name} {labels}")


def test_metrics_textfile_parses_with_prometheus_client(tmp_path) -> None:
    from pytest_tooleval.report.metrics import write_textfile

    report = _fake_report()
    path = tmp_path / "metrics" / "tooleval.prom"
    write_textfile(path, report)
    families = _parse_metrics(path.read_text())
    labels = {"model": "m", "grammar": "on"}
    assert _sample(families, "tooleval_score", **labels) == 55.0
    assert _sample(families, "tooleval_score_interval", bound="high") == 70.0
    assert _sample(families, "tooleval_axis_ratio", axis="tool") == 0.7
    assert _sample(families, "tooleval_safety_gate", state="FAILED") == 1
    assert _sample(families, "tooleval_safety_gate", state="PASSED") == 0
    assert _sample(families, "tooleval_verdict", verdict="NOT DEPLOYABLE") == 1
    assert _sample(families, "tooleval_cases", outcome="fail") == 2
    assert _sample(families, "tooleval_tool_calls", kind="parser_leak") == 1
    assert _sample(families, "tooleval_tokens", kind="prompt") == 150
    # The ERROR case's 99 s is not the model's latency: two steps observed, one over 2.5 s.
    assert _sample(families, "tooleval_step_latency_seconds_count") == 2
    assert _sample(families, "tooleval_step_latency_seconds_bucket", le="2.5") == 1
    corpus = {s.labels["corpus_hash"] for f in families.values() for s in f.samples}
    assert len(corpus) == 1 and len(corpus.pop()) == 12


def test_a_not_measured_verdict_is_a_state_of_the_metric(tmp_path) -> None:
    """Every verdict the summary can give is one of the metric's states: a NOT MEASURED
    run (too few cases on an axis) read 0 on every series."""
    from pytest_tooleval.report.metrics import write_textfile

    report = _fake_report()
    verdict = report.summary.deployability.model_copy(update={"verdict": "NOT MEASURED"})
    summary = report.summary.model_copy(update={"deployability": verdict})
    path = tmp_path / "tooleval.prom"
    write_textfile(path, report.model_copy(update={"summary": summary}))
    families = _parse_metrics(path.read_text())
    assert _sample(families, "tooleval_verdict", verdict="NOT MEASURED") == 1
    assert _sample(families, "tooleval_verdict", verdict="NOT DEPLOYABLE") == 0
    for name in families:
        assert name.startswith("tooleval_") and name == name.lower()


def test_metrics_and_pushgateway_from_a_run(project, fake_model, tmp_path) -> None:
    from tests.report.pushgateway import Pushgateway

    with Pushgateway() as gateway:
        _run(project, fake_model, "--tooleval-metrics", "out/tooleval.prom",
             "--tooleval-pushgateway", gateway.url)
    assert len(gateway.pushes) == 1
    method, path, body = gateway.pushes[0]
    assert method == "PUT"  # push_to_gateway replaces the group
    assert path == "/metrics/job/tooleval/grammar/vendor/model/fake"
    text = (project.path / "out" / "tooleval.prom").read_text()
    pushed = _parse_metrics(body)
    written = _parse_metrics(text)
    assert set(pushed) == set(written)
    assert _sample(written, "tooleval_cases", outcome="error") == 1
    assert _sample(written, "tooleval_run_valid") == 0


def test_pushgateway_down_is_reported_not_a_crash(project, fake_model) -> None:
    result = _run(project, fake_model, "--tooleval-pushgateway", "http://127.0.0.1:9")
    result.stdout.fnmatch_lines(["*metrics: could not push to http://127.0.0.1:9*"])
    assert (project.path / "tooleval-report" / "report.json").is_file()


def test_an_unwritable_metrics_file_is_a_note_and_the_rest_is_written(project,
                                                                     fake_model) -> None:
    blocker = project.write("blocked", "a file, not a folder")
    result = _run(project, fake_model, "--tooleval-metrics", f"{blocker}/m.prom",
                  "--junitxml=junit.xml")
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*metrics: could not write*"])
    assert (project.path / "tooleval-report" / "report.html").is_file()
    assert _junit(project.path / "junit.xml")[1]["broken"].find("error") is not None


def test_metrics_without_prometheus_client_is_a_usage_error(project, monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None
                        if name == "prometheus_client" else real(name, *a))
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run("--tooleval-metrics", "m.prom")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*needs prometheus-client*pytest-tooleval?metrics?*"])


VOLATILE = ("latency_s", "duration_s", "time", "timestamp", "hostname", "score.low",
            "score.high")


def _stable_junit(path) -> dict:
    suite, cases = _junit(path)
    keep = lambda props: {k: v for k, v in props.items()  # noqa: E731
                          if not k.endswith(VOLATILE)}
    return {"suite": keep(_props(suite)),
            "counts": {k: suite.get(k) for k in ("tests", "errors", "failures", "skipped")},
            "cases": {name: (keep(_props(c)), sorted(child.tag for child in c))
                      for name, c in cases.items()}}


def test_serial_and_xdist_artefacts_match(project, fake_model) -> None:
    """JUnit XML, pytest-json-report metadata and metrics: the same apart from timings."""
    artefacts = []
    server = fake_model(SCRIPT)  # one server: its address is in the ERROR's message
    project.profile(server, retries=0)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE, BROKEN_CASE]))
    for workers in (0, 2):
        project.run("--junitxml=junit.xml", "-p", "pytest_jsonreport", "--json-report",
                    "--json-report-file=jr.json", "--tooleval-metrics", "m.prom",
                    "--tooleval-max-errors", "10", workers=workers)
        tests = json.loads((project.path / "jr.json").read_text())["tests"]
        metadata = {t["nodeid"]: {k: v for k, v in t["metadata"]["tooleval"].items()
                                  if k not in VOLATILE} for t in tests}
        metrics = _parse_metrics((project.path / "m.prom").read_text())
        stable_metrics = {(s.name, tuple(sorted(s.labels.items())), s.value)
                          for f in metrics.values() for s in f.samples
                          if "latency" not in s.name and not s.name.endswith("_created")}
        artefacts.append((_stable_junit(project.path / "junit.xml"), metadata,
                          stable_metrics))
    (junit_0, meta_0, metrics_0), (junit_1, meta_1, metrics_1) = artefacts
    assert junit_0 == junit_1
    assert meta_0 == meta_1
    assert metrics_0 == metrics_1


@pytest.mark.parametrize(("error", "said"), [
    (OSError(28, "No space left on device"),
     "report.html: could not write: No space left on device"),
    (OSError(13, "Permission denied", "/r/report.html"),
     "report.html: could not write /r/report.html: Permission denied"),
])
def test_an_exporter_that_cannot_write_says_what_and_why(error: OSError, said: str) -> None:
    """A full disk raises with no file name: the note read 'could not write: No space left
    on device ()', empty brackets where the name would be."""
    from pytest_tooleval.report.exporters import _guarded

    def write() -> None:
        raise error

    notes: list[str] = []
    assert not _guarded(notes, "report.html", write)
    assert notes == [said]


def test_json_report_exit_code_is_the_run_s(project, fake_model) -> None:
    """A refused baseline comparison fails the run (exit 1) after pytest-json-report took
    pytest's status: its ``exitcode`` said 0, and a CI reading it passed the run."""
    server = fake_model([Rule("thanks", [answer("bye")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    project.run()
    (project.path / "base.json").write_bytes(
        (project.path / "tooleval-report" / "report.json").read_bytes())
    project.write("scenarios/demo.yaml", scenario(
        [THANKS_CASE, {**THANKS_CASE, "name": "thanks-2", "steps": [{"message": "thanks!"}]}]))
    result = project.run("--tooleval-baseline", "base.json", "-p", "pytest_jsonreport",
                         "--json-report", "--json-report-file=jr.json")
    assert result.ret == 1 and result.parseoutcomes() == {"passed": 2}
    assert json.loads((project.path / "jr.json").read_text())["exitcode"] == 1
