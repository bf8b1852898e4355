"""--tooleval-repeat as users run it: one item per try, seeds per try, pass^k, flaky cases,
and the same report serially and under xdist."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.conftest import THANKS_CASE, WEATHER_CASE, scenario
from tests.support.fake_openai import Rule, answer, call

GOOD = [call("get_weather", {"city": "Izmir"}), answer("17.4 degrees")]


def flaky_model(fake_model: Any) -> Any:
    """The weather case passes with seeds 1234 and 1236 and fails with 1235."""
    return fake_model([Rule("weather", GOOD, seeds=(1234, 1236)),
                       Rule("weather", [answer("no idea")]),
                       Rule("thanks", [answer("bye")])])


def test_repeats_run_each_case_k_times_with_a_seed_per_try(project, fake_model) -> None:
    server = flaky_model(fake_model)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    result = project.run("--tooleval-repeat", "3", "--tooleval-partial", "pass")
    assert result.ret == 1  # the failing try fails its item
    report = project.report()
    by_id = {c["nodeid"]: c for c in report["cases"]}
    assert sorted(by_id) == sorted(f"scenarios/demo.yaml::{name}[r{r}]"
                                   for name in ("weather", "thanks") for r in (1, 2, 3))
    assert [by_id[f"scenarios/demo.yaml::weather[r{r}]"]["seed"] for r in (1, 2, 3)] == \
        [1234, 1235, 1236]
    assert [by_id[f"scenarios/demo.yaml::weather[r{r}]"]["outcome"] for r in (1, 2, 3)] == \
        ["PASS", "FAIL", "PASS"]
    sent = {body.get("seed") for path, body in server.requests if isinstance(body, dict)}
    assert sent == {1234, 1235, 1236}
    assert report["run"]["repeat"] == {"k": 3, "seed_policy": "varied",
                                       "seeds": [1234, 1235, 1236]}
    summary = report["summary"]
    # score and axes: the mean over a case's tries; a case counts once
    assert summary["axes"]["tool"]["value"] == pytest.approx(2 / 3)
    assert summary["axes"]["tool"]["cases"] == 1
    repeats = summary["repeats"]
    assert repeats["k"] == 3
    assert "bootstrap" in summary["statistics"]["methods"]["pass_k"]
    # weather: 2 of 3 pass → pass^3 = C(2,3)/C(3,3) = 0, pass@3 = 1; thanks: 3 of 3 → 1, 1
    assert repeats["overall"]["pass_hat_k"] == pytest.approx(0.5)
    assert repeats["overall"]["pass_at_k"] == pytest.approx(1.0)
    assert repeats["curve"][0]["pass_hat_k"] == pytest.approx((2 / 3 + 1) / 2)  # k = 1
    assert repeats["curve"][1]["pass_hat_k"] == pytest.approx((1 / 3 + 1) / 2)  # C(2,2)/C(3,2)
    assert repeats["axes"]["tool"]["pass_hat_k"] == 0.0
    assert repeats["axes"]["irrelevance"]["pass_hat_k"] == 1.0
    assert [row["case"] for row in repeats["flaky"]] == ["scenarios/demo.yaml::weather"]
    assert repeats["flaky"][0]["outcomes"] == ["PASS", "FAIL", "PASS"]
    assert "scenarios/demo.yaml::weather" in project.markdown().split("## Flaky")[1]
    result.stdout.fnmatch_lines(["*pass^3*", "*flaky: 1 case*weather*"])
    # the header counts cases, not tries (it said "6 case(s)" for 2 × 3)
    assert "tooleval: 2 case(s) × 3 tries from 1 file(s)" in result.stdout.str()
    # and so do report.md and report.html (they said "Selection: 6 case(s)", "Cases: 5 pass,
    # 0 partial, 1 fail" and "Cases 6" for the tries)
    assert "Selection: 2 case(s) × 3 tries from 1 file(s)," in project.markdown()
    assert "Tries: 5 pass, 0 partial, 1 fail, 0 error." in project.markdown()
    # report.html shows them too, as report.md does (it had no word of repeats)
    html = (project.path / "tooleval-report" / "report.html").read_text("utf-8")
    table = html.split('<h2 id="repeats">Repeats (k = 3)</h2>')[1].split("</table>")[0]
    assert "<td>overall, k = 3</td><td>0.500 too few cases</td>" in table
    assert "<td>axis tool</td>" in table
    assert '<div class="card">Tries<b>6</b>' in html


def test_pinned_seed_and_k_selection(project, fake_model) -> None:
    server = flaky_model(fake_model)
    project.profile(server, pin_seed=True)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    result = project.run("--tooleval-repeat", "2", "-k", "weather")
    result.assert_outcomes(passed=2, deselected=2)
    report = project.report()
    assert {c["seed"] for c in report["cases"]} == {1234}
    assert report["run"]["repeat"]["seed_policy"] == "pinned"
    assert report["summary"]["repeats"]["flaky"] == []


TIMING_KEYS = {"duration_s", "latency_s", "latency_p50_s", "latency_p95_s", "started",
               "finished"}


def _without_timings(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _without_timings(v) for k, v in data.items() if k not in TIMING_KEYS}
    if isinstance(data, list):
        return [_without_timings(v) for v in data]
    return data


def test_repeats_under_xdist_give_the_serial_report(project, fake_model) -> None:
    pytest.importorskip("xdist")
    server = flaky_model(fake_model)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    project.run("--tooleval-repeat", "3")
    serial = copy.deepcopy(project.report())
    project.run("--tooleval-repeat", "3", workers=2)
    parallel = project.report()
    serial, parallel = _without_timings(serial), _without_timings(parallel)
    # the command lines differ by "-n 2"; everything else is the same
    assert serial["run"]["selection"].pop("command_line") != \
        parallel["run"]["selection"].pop("command_line")
    assert parallel == serial
    assert parallel["summary"]["repeats"]["flaky_count"] == 1


def test_tooleval_run_and_gap_pass_repeat_to_pytest() -> None:
    from pytest_tooleval.cli.run import pytest_args_for_run, run_parser

    options = run_parser("tooleval run", "").parse_args(["x.json", "--repeat", "3"])
    args = pytest_args_for_run(options, [])
    assert "--tooleval-repeat=3" in args


def test_out_of_range_statistics_options_are_one_usage_error(project, fake_model) -> None:
    project.profile(fake_model([]))
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    for option, value in (("--tooleval-level", "1.5"), ("--tooleval-repeat", "0"),
                          ("--tooleval-max-width", "-1")):
        result = project.run(option, value)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert f"{option} {value}:" in result.stderr.str()
