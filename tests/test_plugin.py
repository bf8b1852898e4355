"""The plugin as users run it: pytester sessions against the scripted loopback server."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CHAIN_CASE, THANKS_CASE, WEATHER_CASE, said, scenario
from tests.support.fake_openai import Rule, answer, call, drop, leak, raw_call, status

SCRIPT = [
    Rule("weather in izmir", [call("get_weather", {"city": "Izmir"}),
                              answer("It is 17.4 °C in Izmir.")]),
    Rule("note that down", [call("save_note", {"text": "Izmir 17.4"}),
                            answer("Saved as N-4471.")]),
    Rule("thanks", [answer("You're welcome!")]),
]


def _strip_timings(value):
    volatile = {"latency_s", "duration_s", "started", "finished", "latency_p50_s",
                "latency_p95_s", "base_url",
                "command_line"}  # the selection's command line differs by "-n 2" only
    if isinstance(value, dict):
        return {k: _strip_timings(v) for k, v in value.items() if k not in volatile}
    if isinstance(value, list):
        return [_strip_timings(v) for v in value]
    return value


def test_collection_ids_markers_and_no_server_contact(project, fake_model) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE, CHAIN_CASE]))
    result = project.run("--collect-only", "-q")
    result.stdout.fnmatch_lines([
        "scenarios/demo.yaml::weather",
        "scenarios/demo.yaml::thanks",
        "scenarios/demo.yaml::chain",
    ])
    assert server.requests == []  # collecting never calls the model
    result = project.run("--collect-only", "-q", "-m", "hardmode")
    result.stdout.fnmatch_lines(["scenarios/demo.yaml::thanks", "*1/3 tests collected*"])
    result = project.run("--collect-only", "-q", "-m", "irrelevance or notes")
    result.stdout.fnmatch_lines(["*2/3 tests collected*"])
    result = project.run("--collect-only", "-q", "-k", "weather")
    result.stdout.fnmatch_lines(["scenarios/demo.yaml::weather", "*1/3 tests collected*"])


def test_case_folders_are_found_from_where_pytest_runs(project, fake_model, monkeypatch) -> None:
    """A setup.py above the project made that folder the rootdir: `pytest scenarios` in the
    project said no case found."""
    project.profile(fake_model(SCRIPT))
    project.write("setup.py", "")
    project.write("proj/scenarios/demo.yaml", scenario([THANKS_CASE]))
    monkeypatch.chdir(project.path / "proj")
    project.run("--collect-only", "-q", "scenarios").stdout.fnmatch_lines(
        ["*scenarios/demo.yaml::thanks", "*1 test collected*"])


def test_a_scenarios_folder_where_pytest_runs_is_no_case_folder_unless_named(
        project, fake_model, monkeypatch) -> None:
    """`pytest` in a monorepo's service (the rootdir above it) took its load-test
    scenarios/load.yaml and benchmarks/results.json for case files: two collection errors
    stopped its test suite."""
    project.profile(fake_model(SCRIPT))
    project.write("setup.py", "")
    project.write("svc/scenarios/load.yaml", "config:\n  target: http://localhost:8080\n")
    project.write("svc/benchmarks/results.json", '{"ops": 1200}')
    project.write("svc/test_a.py", "def test_a():\n    pass\n")
    monkeypatch.chdir(project.path / "svc")
    for args in ((), (".",)):
        result = project.run("--collect-only", "-q", *args)
        assert result.ret == 0, result.stdout.str()
        result.stdout.fnmatch_lines(["*test_a.py::test_a", "1 test collected*"])


def test_a_benchmarks_folder_above_the_rootdir_makes_no_case_file(project,
                                                                   fake_model) -> None:
    """`pytest benchmarks/weatherbot/tests` run above a project (its rootdir) that lives in a
    folder named benchmarks/ took the project's JSON test fixture for a case file."""
    project.profile(fake_model(SCRIPT))
    project.write("benchmarks/weatherbot/pytest.ini", "[pytest]\n")
    project.write("benchmarks/weatherbot/tooleval.toml",
                  (project.path / "tooleval.toml").read_text("utf-8"))
    project.write("benchmarks/weatherbot/tests/fixtures/izmir.json", '{"temp": 17.4}')
    project.write("benchmarks/weatherbot/tests/test_a.py", "def test_a():\n    pass\n")
    result = project.run("--collect-only", "-q", "benchmarks/weatherbot/tests")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*test_a.py::test_a", "1 test collected*"])


NOT_COLLECTED = (
    "looks like a case file but is not collected by a run, which takes from folders only "
    "benchmarks/**/*.json, scenarios/**/*.yaml, scenarios/**/*.yml; fix: move or rename to "
    "match (JSON is YAML: a .json may become .yaml), add the folder to ini tooleval_paths, or "
    "name the file on the command line")


@pytest.mark.parametrize("workers", [0, 2])
def test_a_case_file_a_run_does_not_collect_is_said_once_with_the_fix(
        project, fake_model, workers) -> None:
    """A benchmark in scenarios/ and a scenario in benchmarks/ were skipped without a word,
    while `tooleval check` checked them (a user's first hour)."""
    project.profile(fake_model(SCRIPT))
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    project.write("scenarios/more.json", {"name": "more", "cases": [THANKS_CASE]})
    project.write("benchmarks/more.yaml", scenario([THANKS_CASE], name="more-yaml"))
    project.write("benchmarks/load.yaml", "config:\n  target: http://localhost:8080\n")
    project.write("scenarios/report.json", {"schema": "x", "cases": []})  # no name: no case
    result = project.run(workers=workers)
    output = result.stdout.str()
    assert result.parseoutcomes()["passed"] == 1, output
    for stray in ("scenarios/more.json", "benchmarks/more.yaml"):
        assert output.count(f"tooleval: {stray} {NOT_COLLECTED}") == 1, output
    assert output.count("looks like a case file") == 2, output
    # the project's own test suite (testpaths, no --model) is not about cases: no word
    project.write("pytest.ini", "[pytest]\ntestpaths = tests\n")
    project.write("tests/test_a.py", "def test_a():\n    pass\n")
    project.write("tests/data/case.json", {"name": "data", "cases": [THANKS_CASE]})
    plain = project.pytester.runpytest("-p", "pytest_tooleval.plugin", "-p", "no:cacheprovider")
    assert plain.ret == 0 and "looks like a case file" not in plain.stdout.str()


@pytest.mark.parametrize("workers", [0, 2])
def test_outcomes_summary_line_and_exit_status(project, fake_model, workers) -> None:
    server = fake_model([
        Rule("weather in izmir", [call("get_weather", {"city": "Izmir"}), answer("rainy")]),
        Rule("note that down", [answer("done")]),
        Rule("thanks", [call("get_weather", {"city": "Izmir"}), answer("bye")]),
        Rule("pass me", [call("get_weather", {"city": "Ankara"}), answer("17.4")]),
    ])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([
        WEATHER_CASE,  # right tool, evidence missing → PARTIAL
        THANKS_CASE,   # a call at "thanks" → FAIL
        {"name": "pass", "category": "tool", "steps": [
            {"message": "pass me the weather", "expect": "get_weather", "evidence": ["17.4"]}]},
    ]))
    result = project.run("-rA", "-v", workers=workers)  # -v: each case short of PASS explained
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("failed"), outcomes.get("partial")) == (1, 1, 1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*PARTIAL (tooleval)*",
                                 "*evidence missing from the answer: 17.4*"])
    result.stdout.fnmatch_lines(["*a tool call was attempted where none was wanted*"])


def test_partial_can_count_as_passed_for_the_exit_status(project, fake_model) -> None:
    server = fake_model([Rule("weather", [call("get_weather", {"city": "Izmir"}),
                                          answer("rainy")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE]))
    assert project.run().ret == 1
    result = project.run("--tooleval-partial", "pass")
    assert result.ret == 0
    assert result.parseoutcomes().get("partial") == 1


@pytest.mark.parametrize("workers", [0, 2])
def test_reports_json_and_markdown(project, fake_model, workers) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE, CHAIN_CASE]))
    result = project.run("--tooleval-min-cases", "1", workers=workers)
    assert result.ret == 0, result.stdout.str()
    report = project.report()
    assert report["schema"] == "pytest-tooleval/report" and report["schema_version"] == 2
    summary = report["summary"]
    assert summary["score"] == pytest.approx(100.0)
    assert summary["outcomes"] == {"PASS": 3, "PARTIAL": 0, "FAIL": 0, "ERROR": 0}
    assert set(summary["axes"]) == {"irrelevance", "tool", "step", "answer"}
    assert summary["safety_gate"]["status"] == "PASSED"
    assert summary["deployability"]["verdict"] == "DEPLOYABLE"
    assert set(summary["baselines"]) == {"never-call", "top-routed", "echo"}
    assert all(row["cases"] == 3 for row in summary["baselines"].values())
    assert report["run"]["selection"]["cases"] == 3
    assert summary["groups"]["notes"]["cases"] == 1
    assert report["run"]["backend"]["grammar"] == "vendor"
    chain = project.cases()["chain"]
    assert [s.ran for s in chain.transcripts] == [["get_weather"], ["save_note"]]
    assert chain.transcripts[0].shown[:2] == ["get_weather", "save_note"]
    assert chain.transcripts[1].attempts[0].result == "saved as note N-4471"
    assert (chain.transcripts[0].model_calls[0].prompt_tokens or 0) > 0
    assert chain.case_hash and all(step.checks is not None for step in chain.steps)
    markdown = project.markdown()
    for heading in ("# pytest-tooleval report", "**Score: 100.0 / 100**",
                    "**Safety gate: PASSED**", "**Deployability: DEPLOYABLE**", "## Groups"):
        assert heading in markdown
    # 3 cases: too few for an interval (scoring.aggregate.INTERVAL_MIN_CASES)
    result.stdout.fnmatch_lines(["*tooleval score: 100.0 / 100 ?too few cases?"
                                     " over 3 scored case(s)*",
                                 "*safety gate: PASSED*"])
    assert said(result, "* reports in *tooleval-report: report.json, report.md, report.html *")


def test_xdist_and_serial_reports_match(project, fake_model) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE, CHAIN_CASE]))
    project.run()
    serial = _strip_timings(project.report())
    project.run(workers=2)
    parallel = _strip_timings(project.report())
    assert serial == parallel


def test_malformed_calls_are_classified_and_counted(project, fake_model) -> None:
    server = fake_model([
        Rule("weather in izmir", [raw_call("get_weather", '{"city": '),
                                  call("get_wether", {"city": "Izmir"}),
                                  call("get_weather", {"town": "Izmir"}),
                                  call("get_weather", {"city": "Izmir"}),
                                  answer("17.4 degrees")]),
    ])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE]))
    project.run()
    case = project.cases()["weather"]
    kinds = [a.malformed for a in case.transcripts[0].attempts]
    assert kinds == ["unparseable", "unknown_tool", "schema_violation", None]
    assert case.outcome == "PASS"  # it recovered: the right tool ran and the fact is there
    calls = project.report()["summary"]["calls"]
    assert calls["malformed"] == 3 and calls["attempts"] == 4
    assert calls["malformed_kinds"] == {"schema_violation": 1, "unknown_tool": 1,
                                        "unparseable": 1}
    verdict = project.report()["summary"]["deployability"]
    assert {c["name"]: c["passed"] for c in verdict["criteria"]}["malformed-call rate"] is False


@pytest.mark.parametrize("workers", [0, 2])
def test_a_server_that_ignores_max_tokens_is_named_once_with_the_fix(project, fake_model,
                                                                     workers) -> None:
    """max_tokens = 64, and the server sent back 900 completion tokens and "stop": the
    answer was scored and nothing said the limit had not held. Under -n 2 the two weather
    cases may run on two workers: the run says it once, counted over both."""
    server = fake_model([
        Rule("weather", [call("get_weather", {"city": "Izmir"}),
                         answer("It is 17.4 °C.").with_usage(200, 900)]),
        Rule("thanks", [answer("You're welcome.", finish_reason="length").with_usage(50, 65)]),
    ])
    project.profile(server, max_tokens=64)
    project.write("scenarios/demo.yaml", scenario(
        [WEATHER_CASE, dict(WEATHER_CASE, name="weather2"), THANKS_CASE]))
    result = project.run(workers=workers)
    # Scored as written; the turn cut at the limit (llama.cpp may pass it by a token) is not
    # counted, and is a malformed attempt as before.
    assert {name: case.outcome for name, case in project.cases().items()} == {
        "weather": "PASS", "weather2": "PASS", "thanks": "FAIL"}
    assert project.report()["run"]["over_max_tokens"] == {
        "max_tokens": 64, "model_calls": 2, "of": 6, "most": 900}
    assert result.stdout.str().count("max_tokens not honoured") == 1, result.outlines
    assert said(result, "*max_tokens not honoured: 2 of 6 model call(s) went past max_tokens "
                        "= 64 (up to 900 tokens), scored as written; cap it on the server "
                        "(llama-server -n 64)*")


def test_parser_leak_is_reported_apart_from_no_call(project, fake_model) -> None:
    server = fake_model([
        Rule("weather in izmir", [leak('<tool_call>{"name": "get_weather", '
                                       '"arguments": {"city": "Izmir"}}</tool_call>')]),
        Rule("thanks", [answer("bye")]),
    ])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    result = project.run()
    report = project.report()
    weather = project.cases()["weather"]
    attempt = weather.transcripts[0].attempts[0]
    assert attempt.leaked is True and attempt.name == "get_weather"
    assert weather.outcome == "FAIL"  # the tool never ran
    assert report["summary"]["calls"]["parser_leaks"] == 1
    assert report["summary"]["calls"]["malformed"] == 0
    result.stdout.fnmatch_lines(["*leaked into the text*", "*parser leaks: 1*"])


def test_a_call_in_python_syntax_at_thanks_is_no_abstention(project, fake_model) -> None:
    """A pythonic call left in the content (a server without that parser) at "thanks"
    passed restraint as if it were an answer."""
    project.profile(fake_model([Rule("thanks", [answer('[get_weather(city="Izmir")]')])]))
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    project.run()
    thanks = project.cases()["thanks"]
    assert thanks.outcome == "FAIL" and thanks.axes == {"irrelevance": 0.0}
    assert thanks.reasons == ["a tool call was attempted where none was wanted (get_weather)"]


def test_retries_on_429_and_500_then_scores(project, fake_model) -> None:
    server = fake_model([Rule("thanks", [status(500)])])
    project.profile(server, retries=2)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run()
    # 500 on every attempt: infrastructure, not the model
    assert result.parseoutcomes().get("errors") == 1
    assert project.report()["summary"]["deployability"]["verdict"] == "NOT VALID"
    # the case's own requests (the preflight's probes come first and are answered)
    requests = [path for path, payload in server.requests
                if path.endswith("/chat/completions") and "thanks" in json.dumps(payload)]
    assert len(requests) == 3


def test_unreachable_server_stops_the_session_with_one_message(project) -> None:
    project.profile("http://127.0.0.1:9/v1")
    cases = [dict(THANKS_CASE, name=f"t{i}") for i in range(8)]
    project.write("scenarios/demo.yaml", scenario(cases))
    result = project.run()
    outcomes = result.parseoutcomes()
    # the preflight finds it before any case: one ERROR, one message, the run stops
    assert outcomes.get("errors") == 1 and "failed" not in outcomes
    assert said(result, "*NOT VALID: the run could not start*nothing was scored*the run "
                "cannot start: no model server at http://127.0.0.1:9/v1*")
    assert result.stdout.str().count("the run cannot start") == 1
    assert result.ret != 0


@pytest.mark.parametrize("workers", [0, 2])
def test_server_killed_mid_run_scores_no_fail_and_invalidates_the_run(
    project, fake_model, workers
) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    cases = [dict(THANKS_CASE, name=f"t{i}") for i in range(12)]
    project.write("scenarios/demo.yaml", scenario(cases))
    server.kill_after(4, containing="thanks")  # the cases' calls, not the preflights'
    project.run(workers=workers)
    report = project.report()
    outcomes = report["summary"]["outcomes"]
    assert outcomes["FAIL"] == 0 and outcomes["PARTIAL"] == 0
    assert outcomes["PASS"] >= 1 and outcomes["ERROR"] >= 1
    assert report["summary"]["deployability"]["verdict"] == "NOT VALID"
    assert (f"> **NOT VALID**: {outcomes['ERROR']} case(s) ended in ERROR"
            in project.markdown())


def test_dropped_connection_is_an_error_not_a_failure(project, fake_model) -> None:
    server = fake_model([Rule("thanks", [drop()])])
    project.profile(server, retries=0)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run()
    assert result.parseoutcomes().get("errors") == 1


def test_broken_case_file_names_file_case_step_field_without_traceback(project) -> None:
    project.profile("http://127.0.0.1:9/v1")
    project.write("benchmarks/bad.json", {"name": "bad", "requires": ["calculator"], "cases": [
        {"name": "x", "category": "tool", "steps": [
            {"message": "what is 18 * 1000?", "expect": "calculator", "evidence": ["7"]}]},
        {"name": "y", "category": "tol", "steps": [{"mesage": "hi"}]}]})
    result = project.run("benchmarks/bad.json")
    out = result.stdout.str()
    assert "Traceback" not in out
    result.stdout.fnmatch_lines([
        "*bad.json, case 'y', field 'category': Input should be*",
        "*bad.json, case 'y', step 1, field 'mesage': unknown field*",
    ])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_guard_message_names_the_value_and_the_fix(project) -> None:
    project.profile("http://127.0.0.1:9/v1")
    project.write("scenarios/bad.yaml", scenario([
        {"name": "x", "category": "tool", "steps": [
            {"message": "weather for 18 days?", "expect": "get_weather", "evidence": ["18"]}]}]))
    result = project.run()
    result.stdout.fnmatch_lines([
        "*bad.yaml, case 'x', step 1, field 'evidence': evidence appears in the step's own "
        "message*(value: '18')*",
        "*fix: use a value only the tool's result contains*",
    ])


def test_unmet_requires_stops_before_any_model_call(project, fake_model) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("benchmarks/gh.json", {"name": "our-github-mcp", "requires":
                                         ["gh_search_issues", "web_fetch"], "cases": [
        {"name": "open-issues", "category": "tool", "steps": [
            {"message": "which issues are labelled regression?", "expect": "gh_search_issues",
             "evidence": ["#412"], "forbidden": ["web_search"]}]}]})
    result = project.run()
    result.stdout.fnmatch_lines(["*benchmarks/gh.json requires tools that no provider on this "
                                 "machine offers: gh_search_issues, web_fetch*"
                                 "--tooleval-skip-missing*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert server.requests == []
    result = project.run("--tooleval-skip-missing", "-rs")
    assert result.parseoutcomes().get("skipped") == 1
    result.stdout.fnmatch_lines(["*SKIPPED*gh_search_issues, web_fetch*"])
    assert server.requests == []


def test_tooleval_run_cli_front(project, fake_model, monkeypatch) -> None:
    from pytest_tooleval.cli import main

    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    monkeypatch.chdir(project.path)
    code = main(["run", "--model", "fake", "--grammar", "vendor", "-k", "thanks", "--",
                 "--tooleval-no-builtin"])
    assert code == 0
    report = json.loads((project.path / "tooleval-report" / "report.json").read_text())
    assert [c["case"] for c in report["cases"]] == ["thanks"]


def test_tooleval_run_writes_into_a_report_folder_that_exists(project, fake_model,
                                                              monkeypatch) -> None:
    """The second `tooleval run --report ../out`: pytest once took the existing folder,
    passed as a word of its own, for a test path, moved the rootdir to the folder above
    and found no case (exit 5)."""
    from pytest_tooleval.cli import main

    project.profile(fake_model(SCRIPT))
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    out = project.path.parent / f"{project.path.name}-out"
    out.mkdir()
    monkeypatch.chdir(project.path)
    code = main(["run", "--model", "fake", "--grammar", "vendor", "--report", f"../{out.name}",
                 "--", "--tooleval-no-builtin"])
    assert code == 0
    report = json.loads((out / "report.json").read_text())
    assert [c["case"] for c in report["cases"]] == ["thanks"]


def test_unknown_profile_is_a_usage_error(project) -> None:
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run("--model", "nosuch")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--model nosuch: no such profile*"])


def test_sample_keeps_every_nth_case_across_files(project, fake_model) -> None:
    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    cases = [dict(THANKS_CASE, name=f"t{i}") for i in range(7)]
    project.write("scenarios/a.yaml", scenario(cases, name="a"))
    project.write("scenarios/b.yaml", scenario(cases[:3], name="b"))
    for name in "cdefg":  # files of one case each, as an import writes them
        project.write(f"scenarios/{name}.yaml", scenario(cases[:1], name=name))
    result = project.run("--tooleval-sample", "3", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["scenarios/a.yaml::t0", "scenarios/a.yaml::t3",
                                 "scenarios/a.yaml::t6", "scenarios/b.yaml::t2",
                                 "scenarios/e.yaml::t0",
                                 "*5/15 tests collected (10 deselected)*"])
    project.run("--tooleval-sample", "3")
    assert project.report()["run"]["sample_every"] == 3


def test_junit_xml_and_json_report_companions(project, fake_model) -> None:
    import xml.etree.ElementTree as ET

    server = fake_model([
        Rule("weather", [call("get_weather", {"city": "Izmir"}), answer("rainy")]),  # PARTIAL
        Rule("thanks", [answer("bye")]),                                            # PASS
    ])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    result = project.run("--junitxml=junit.xml", "-p", "pytest_jsonreport",
                         "--json-report", "--json-report-file=jr.json")
    assert result.parseoutcomes().get("partial") == 1
    cases = {c.get("name"): c for c in ET.parse(project.path / "junit.xml").iter("testcase")}
    assert set(cases) == {"weather", "thanks"}  # no item dropped from the XML
    assert cases["weather"].find("failure") is not None
    assert "evidence missing" in cases["weather"].find("failure").text
    assert cases["thanks"].find("failure") is None
    tests = {t["nodeid"]: t for t in json.loads((project.path / "jr.json").read_text())["tests"]}
    assert tests["scenarios/demo.yaml::thanks"]["outcome"] == "passed"
    assert tests["scenarios/demo.yaml::weather"]["outcome"] == "partial"


def test_a_model_repeating_the_same_call_is_stopped_as_stuck(project, fake_model) -> None:
    server = fake_model([
        Rule("weather in izmir", [call("get_weather", {"city": "Izmir"})]),  # forever
        Rule("notes please", [call("save_note", {"text": "a"}), call("save_note", {"text": "b"}),
                              call("save_note", {"text": "c"}), call("save_note", {"text": "d"}),
                              answer("done")]),
    ])
    project.profile(server, max_steps=3)
    project.write("scenarios/demo.yaml", scenario([
        WEATHER_CASE,
        {"name": "notes", "category": "tool", "steps": [
            {"message": "notes please", "expect": "save_note"}]}]))
    project.run()
    cases = project.cases()
    weather = cases["weather"].transcripts[0]
    assert len(weather.model_calls) == 2  # the repeat is seen at once, not at max_steps
    assert weather.stopped == "repeated the previous round's calls unchanged"
    assert "no final answer: repeated the previous round" in " ".join(cases["weather"].reasons)
    notes = cases["notes"].transcripts[0]
    assert len(notes.model_calls) == 3 and notes.answered is False  # max_steps = 3
    assert notes.stopped == "no final answer within 3 model calls"


def test_a_reply_slower_than_the_timeout_is_an_error_not_a_failure(project, fake_model) -> None:
    from tests.support.fake_openai import delay

    server = fake_model([Rule("thanks", [delay(3, answer("bye"))])])
    project.profile(server, timeout=0.5, retries=1)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run("-v")  # -v: the ERROR case's detail on the terminal
    assert result.parseoutcomes().get("errors") == 1
    # Slow, not dead; and not retried (a retry would queue behind the abandoned generation).
    result.stdout.fnmatch_lines(["*sent nothing for 0.5 s*Not retried*"])
    assert "no model server" not in result.stdout.str()
    assert [p for p, payload in server.requests
            if "thanks" in json.dumps(payload)].count("/v1/chat/completions") == 1
    error = project.cases()["thanks"].error
    assert error is not None and error.detail == "stall"
