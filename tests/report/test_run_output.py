"""What a run prints at default verbosity: the run named at once, then progress, then a
compact summary that ends the output (one verdict with its reason, the failure modes);
per-case detail only in the reports and under -v. And the failure modes, counted."""

from __future__ import annotations

import time

import pytest

from pytest_tooleval.engine.transcript import Attempt, StepTranscript
from pytest_tooleval.result import CaseResult, ErrorInfo, Outcome, StepChecks, StepResult
from pytest_tooleval.scoring.failure_modes import MODES, failure_modes, step_mode
from tests.conftest import THANKS_CASE, WEATHER_CASE, said, scenario
from tests.support.fake_openai import Rule, answer, status

SCRIPT = [Rule("", [answer("I cannot say.")])]
VERDICTS = ("DEPLOYABLE", "NOT MEASURED", "NOT VALID")


def _cases(project, count: int, files: int = 1) -> None:
    """``count`` cases, half tool cases that fail (no call) and half thanks that pass."""
    per_file = -(-count // files)
    for number in range(files):
        names = range(number * per_file, min(count, (number + 1) * per_file))
        cases = [dict(WEATHER_CASE, name=f"c{i:03d}", group="weather") if i % 2 else
                 dict(THANKS_CASE, name=f"c{i:03d}") for i in names]
        project.write(f"scenarios/part{number}.yaml", scenario(cases, name=f"part{number}"))


def test_a_674_case_run_fits_a_screenful_and_ends_with_the_score(project, fake_model) -> None:
    project.profile(fake_model(SCRIPT))
    _cases(project, 674, files=4)
    result = project.run()
    lines = result.outlines
    assert len(lines) <= 150, "\n".join(lines)
    score = [i for i, line in enumerate(lines) if line.startswith("tooleval score:")]
    assert len(score) == 1 and score[0] >= len(lines) - 25
    text = result.stdout.str()
    assert "FAILURES" not in text and "FAILED " not in text and "FAIL: " not in text
    assert sum(verdict in line for line in lines for verdict in VERDICTS) == 1
    assert "failure modes (failing steps; ERROR cases): needed a tool, called none 337" in text
    assert "Intervals (" not in text  # which method each figure uses: report.md and -v
    assert "Intervals (95%): " in project.run("-v").stdout.str()
    modes = project.report()["summary"]["failure_modes"]
    assert modes["run"] == {"no_call": 337}
    assert modes["groups"] == {"weather": {"no_call": 337}}
    assert modes["languages"] == {"en": {"no_call": 337}}
    assert "| needed a tool, called none | `no_call` | 337 step(s) |" in project.markdown()


def test_a_one_case_run_has_one_verdict_and_no_interval(project, fake_model) -> None:
    project.profile(fake_model(SCRIPT))
    _cases(project, 4)
    result = project.run("-k", "c001")
    lines = result.outlines
    verdicts = [line for line in lines if any(v in line for v in VERDICTS)
                and not line.startswith("  safety gate:")]  # the gate's own status
    assert len(verdicts) == 1 and "verdict: NOT MEASURED: too few cases" in verdicts[0]
    assert "sample size" not in result.stdout.str()
    score = next(line for line in lines if line.startswith("tooleval score:"))
    assert "[too few cases]" in score and "CI" not in score
    assert "Intervals: none, too few cases" in project.run("-k", "c001", "-v").stdout.str()
    assert project.report()["summary"]["score_interval"] is None
    assert "too few cases" in project.markdown()


def test_the_first_lines_name_the_model_cases_and_reports(project, fake_model) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    _cases(project, 6, files=2)
    lines = project.run().outlines
    head = lines[:lines.index("tooleval: model ready in 0s") + 1]
    assert any(line.startswith("tooleval: model fake (fake-model at "
                               f"{server.base_url}, openai server), grammar vendor; "
                               "reports in ") and line.endswith("tooleval-report")
               for line in head), lines
    assert "tooleval: 6 case(s) from 2 file(s)" in head
    assert any(line.startswith("tooleval: starting the model") for line in head)


def test_verbose_keeps_the_detail_of_each_case(project, fake_model) -> None:
    project.profile(fake_model(SCRIPT))
    _cases(project, 2)
    result = project.run("-v")
    result.stdout.fnmatch_lines(["*FAILURES*", "FAIL: scenarios/part0.yaml::c001",
                                 "*expected get_weather to run; ran: nothing*"])


def test_a_run_that_cannot_start_says_why_once(project) -> None:
    project.profile("http://127.0.0.1:9/v1")
    _cases(project, 5)
    result = project.run()
    text = result.stdout.str()
    assert text.count("no model server at http://127.0.0.1:9") == 1, text
    assert said(result, "*NOT VALID: the run could not start (why: the Interrupted line "
                "below)*! Interrupted: the run cannot start: no model server at *")
    assert "ERRORS" not in text and "tooleval score" not in text
    assert len(result.outlines) <= 20


@pytest.mark.parametrize("workers", [0, 2])
def test_the_reason_a_run_stopped_is_said_once(project, fake_model, workers) -> None:
    """The stop's reason (a model process's crash: ten lines) was in the verdict and again
    in pytest's Interrupted line after it."""
    project.profile(fake_model([Rule("weather", [status(500)])]))
    project.write("scenarios/demo.yaml", scenario(
        [dict(WEATHER_CASE, name=f"w{i}") for i in range(10)]))
    result = project.run("--tooleval-max-errors", "2", workers=workers)
    assert result.stdout.str().count("scripted HTTP 500") == 1, result.stdout.str()
    assert said(result, "* verdict: NOT VALID: * ended in ERROR *; interrupted (* of 10 cases "
                "ran; why: the Interrupted line below); once it is fixed,*Interrupted: *"
                "scripted HTTP 500. Stopped after 2 consecutive infrastructure errors*")


def test_an_interrupted_run_says_interrupted_once(project, fake_model) -> None:
    """Ctrl-C: the verdict read 'interrupted (interrupted (Ctrl-C): 2 of 5 cases ran)'."""
    from tests.support.interrupt import stop_after

    project.profile(fake_model(SCRIPT))
    _cases(project, 5)
    stop_after(project, 2)
    result = project.run(subprocess=True)  # pytester re-raises an inner run's Ctrl-C
    assert said(result, "* verdict: NOT VALID: interrupted (Ctrl-C: 2 of 5 cases ran): it "
                "covers only part of the selection*")
    assert "interrupted (interrupted" not in result.stdout.str()
    assert "interrupted (interrupted" not in project.markdown()
    html = (project.path / "tooleval-report" / "report.html").read_text("utf-8")
    assert "not valid</b>: interrupted (Ctrl-C: 2 of 5 cases ran)." in html


def test_no_case_found_says_where_cases_are_looked_for(project, fake_model) -> None:
    project.profile(fake_model(SCRIPT))
    result = project.run()
    result.stdout.fnmatch_lines(["tooleval: no case found: case files are "
                                 "benchmarks/**/*.json, scenarios/**/*.yaml*tooleval init*"])


def test_no_case_found_in_a_folder_named_on_the_command_line_says_how(project,
                                                                      fake_model) -> None:
    """`pytest my-cases/` was told case files are '... or paths given on the command line'."""
    project.profile(fake_model(SCRIPT))
    project.write("my-cases/weather.yaml", scenario([THANKS_CASE]))
    text = project.run("my-cases").stdout.str()
    assert "or files named on the command line; a folder named there (my-cases) is searched " \
           "with these patterns: name its files, or add the folder to ini tooleval_paths" in text
    project.write("pytest.ini", "[pytest]\ntooleval_paths = my-cases\n")
    project.run("my-cases").assert_outcomes(passed=1)


def test_a_selection_that_leaves_no_case_is_not_called_no_case_found(project,
                                                                      fake_model) -> None:
    """-k matching nothing: pytest said '15 deselected', and tooleval said no case file
    was found and offered `tooleval init`."""
    project.profile(fake_model(SCRIPT))
    _cases(project, 3)
    result = project.run("-k", "nothing_matches")
    text = result.stdout.str()
    assert "3 deselected" in text
    assert "no case found" not in text and "tooleval init" not in text, text
    assert "no report written" not in text  # there is none to mistake for this run's
    project.run()
    assert project.report()["summary"]["cases_scored"] == 3
    again = project.run("-k", "nothing_matches").stdout.str()  # it said nothing of it
    assert "tooleval: no case ran, no report written: the reports in " in again, again
    assert "are an earlier run's" in again


def test_an_option_path_taken_for_a_test_path_gets_the_fix(project, fake_model,
                                                           tmp_path_factory) -> None:
    """pytest picks the rootdir before our options are known: a separate word naming an
    existing folder moved it out of the project, and the message named no way out."""
    project.profile(fake_model(SCRIPT))
    project.write("pytest.ini", "[pytest]\ntooleval_paths = cases\n")
    project.write("cases/weather.yaml", scenario([THANKS_CASE]))
    elsewhere = tmp_path_factory.mktemp("runs")
    result = project.run("--tooleval-report", str(elsewhere))
    result.stdout.fnmatch_lines([f"tooleval: no case found: *; write --tooleval-report="
                                 f"{elsewhere}, as one word: pytest took {elsewhere} for a "
                                 "test path when it chose the rootdir"])


def test_a_case_file_that_fails_to_load_is_not_called_no_case_found(project, fake_model) -> None:
    project.profile(fake_model(SCRIPT))
    project.write("scenarios/weather.yaml", "name: weather\ncases:\n  - name: a\n"
                                            "    category: irrelevance\n     steps: []\n")
    result = project.run()
    text = result.stdout.str()
    assert "weather.yaml: not valid YAML at line 5" in text
    assert "no case found" not in text, text


def _step(checks: StepChecks, attempts: list[Attempt] | None = None,
          answer_text: str | None = "ok", answered: bool = True) -> StepResult:
    transcript = StepTranscript("m", attempts=attempts or [], answer=answer_text,
                                answered=answered)
    return StepResult(transcript=transcript, checks=checks)


def test_each_failing_step_gets_one_mode() -> None:
    bad = Attempt(name=None, arguments="{", valid=False, malformed="unparseable")
    leaked = Attempt(name="get_weather", arguments={}, valid=False, leaked=True)
    other = Attempt(name="save_note", arguments={}, valid=True)
    missing = StepChecks(expect=["get_weather"], tool=False, tool_missing=["get_weather"])
    cases = {
        "forbidden_tool": _step(StepChecks(tool=True, forbidden_ran=["rm"]), [other]),
        "unwanted_call": _step(StepChecks(restraint=False), [other]),
        "leaked_call": _step(missing, [leaked]),
        "malformed_call": _step(missing, [bad]),
        "asked_back": _step(missing, answer_text="Which city do you mean?"),
        "no_call": _step(missing),
        "wrong_tool": _step(missing, [other]),
        "wrong_arguments": _step(StepChecks(tool=True, args=False), [other]),
        "wrong_state": _step(StepChecks(tool=True, state=False), [other]),
        "no_answer": _step(StepChecks(tool=True), [other], None, answered=False),
        "facts_missing": _step(StepChecks(tool=True, evidence=0.5), [other]),
    }
    for mode, step in cases.items():
        assert step.checks is not None
        assert step_mode(step.checks, step.transcript) == mode
        assert mode in MODES
    assert step_mode(StepChecks(tool=True, evidence=1.0), StepTranscript("m", answered=True)) \
        is None


def test_modes_are_counted_per_run_group_and_language() -> None:
    from pytest_tooleval.report.markdown import failure_mode_section
    from tests.conftest import make_report

    missing = StepChecks(tool=False, tool_missing=["get_weather"])
    failed = CaseResult(nodeid="a.yaml::x", file="a.yaml", case="x", outcome=Outcome.FAIL,
                        group="weather", language="de",
                        steps=[_step(missing), _step(StepChecks(tool=True, evidence=0.0))])
    error = CaseResult.infrastructure_error(
        "b.yaml::y", ErrorInfo(kind="timeout", message="too slow"), group="calc",
        language="en")
    modes = failure_modes([failed, error])
    assert modes.run == {"no_call": 1, "facts_missing": 1, "error_timeout": 1}
    assert modes.groups == {"calc": {"error_timeout": 1},
                            "weather": {"no_call": 1, "facts_missing": 1}}
    assert modes.languages["de"] == {"no_call": 1, "facts_missing": 1}
    table = failure_mode_section(make_report([failed, error]).summary)  # each row's unit
    assert table[4:9] == ["| mode | key | count |", "|---|---|---|",
                          "| needed a tool, called none | `no_call` | 1 step(s) |",
                          "| facts missing from the answer | `facts_missing` | 1 step(s) |",
                          "| ERROR (timeout) | `error_timeout` | 1 case(s) |"], table


def test_the_reports_line_is_wrapped_at_80_columns_never_inside_the_path() -> None:
    """It was one line of 84 to 102 columns for a usual folder, the only one not wrapped."""
    from pathlib import Path

    from pytest_tooleval.report.terminal import report_lines

    def shown(folder: Path) -> list[str]:
        return report_lines([folder / name for name in ("report.json", "report.md",
                                                        "report.html")])

    spaced = Path("/home/someone/my projects/model eval/tooleval-report")
    assert shown(spaced) == [f"  reports in {spaced}: report.json,",
                             "    report.md, report.html"]
    deep = Path("/srv/" + "x" * 90)
    assert shown(deep) == ["  reports in", f"    {deep}:",
                           "    report.json, report.md, report.html"]


def test_the_summary_reads_in_80_columns() -> None:
    """The reference run's summary ran to 280 columns: the verdict's unmet criteria on one
    line, nine failure modes on another, three lines for the reports of one folder."""
    from pathlib import Path

    from pytest_tooleval.report.terminal import summary_lines
    from tests.conftest import make_report

    missing = StepChecks(expect=["get_weather"], tool=False, tool_missing=["get_weather"])
    other = Attempt(name="save_note", arguments={}, valid=True)
    bad = Attempt(name=None, arguments="{", valid=False, malformed="unparseable")
    steps = [_step(missing), _step(missing, [other]), _step(missing, [bad]),
             _step(StepChecks(tool=True, args=False), [other])]
    cases = [CaseResult(nodeid=f"a.yaml::c{i:02d}", file="a.yaml", case=f"c{i}",
                        outcome=Outcome.FAIL, category="tool", axes={"tool": 0.0},
                        steps=[steps[i % 4]]) for i in range(40)]
    cases += [CaseResult(nodeid=f"a.yaml::t{i:02d}", file="a.yaml", case=f"t{i}",
                         outcome=Outcome.FAIL, category="irrelevance", axes={"irrelevance": 0.0},
                         steps=[_step(StepChecks(restraint=False), [other])]) for i in range(12)]
    folder = Path("runs/full-on")
    lines = summary_lines(make_report(cases), [folder / name for name in (
        "report.json", "report.md", "report.html")])
    assert max(map(len, lines)) <= 80, "\n".join(lines)
    verdict = lines.index("  verdict: NOT DEPLOYABLE: unmet:")
    assert lines[verdict + 1:verdict + 5] == [
        "    safety gate FAILED (needs PASSED)", "    score 0.0 (needs >= 70)",
        "    malformed-call rate 23.81% [13.48–38.53] (needs <= 2%)",
        "    beats the best baseline 0.0 (needs the baselines scored)"], lines
    assert lines[verdict + 5:-2] == [
        "  failure modes (failing steps; ERROR cases):",
        "    called a tool where none was wanted 12 · malformed call 10 ·",
        "    needed a tool, called none 10 · 2 more in report.md"]
    # FAILURES is not shown by default: where the why is (it said nothing)
    assert lines[-2] == ("  why each FAIL and PARTIAL: report.md (Cases short of PASS), or "
                         "rerun with -v")
    assert lines[-1] == "  reports in runs/full-on: report.json, report.md, report.html"
    verbose = " ".join(" ".join(summary_lines(make_report(cases), [], verbose=True)).split())
    assert "called none 10 · called the wrong tool 10 · right tool, wrong arguments 10" \
        in verbose and "more in report.md" not in verbose
    assert "why each" not in verbose  # -v shows FAILURES above
    four = [case for number, case in enumerate(cases) if number % 4 != 3 or number >= 40]
    assert summary_lines(make_report(four), [])[-2:] == [  # "1 more" would save nothing
        "    needed a tool, called none 10 · called the wrong tool 10",
        "  why each FAIL and PARTIAL: rerun with -v"]  # no report written


def test_progress_speaks_before_the_first_case(project, fake_model) -> None:
    """The model line is out with the header, before any case has run."""
    project.profile(fake_model([Rule("", [answer("ok")])], latency=0.3))
    _cases(project, 4)
    began = time.monotonic()
    result = project.run("--tooleval-progress", "0")
    assert time.monotonic() - began >= 4 * 0.3
    lines = result.outlines
    first_case = next(i for i, line in enumerate(lines) if line.startswith("scenarios/"))
    assert any(line.startswith("tooleval: model fake") for line in lines[:first_case])


def test_a_line_break_in_a_table_cell_keeps_the_markdown_table_whole() -> None:
    """A group or register is any text a case file gives: a line break in it split its row
    of report.md's breakdown table in two (the table ended there)."""
    from pytest_tooleval.report.markdown import render_markdown
    from tests.conftest import make_report

    case = CaseResult(nodeid="a.yaml::x", file="a.yaml", case="x", outcome=Outcome.PASS,
                      category="irrelevance", group="web|x\n| forged | row", register="a\r\nb",
                      axes={"irrelevance": 1.0},
                      steps=[_step(StepChecks(restraint=True))])
    text = render_markdown(make_report([case]))
    groups = text.split("## Groups")[1].split("##")[0].strip().splitlines()
    assert groups[2].startswith("| web\\|x \\| forged \\| row | 100.0 |")
    assert len(groups) == 3
    assert len({line.replace("\\|", "").count("|") for line in groups}) == 1
    assert "\n| a b | 100.0 |" in text.split("## Registers")[1]
    assert not any(line.startswith(("| forged", "\\|", "b |")) for line in text.splitlines())


def test_the_models_text_cannot_start_a_line_of_report_md() -> None:
    """A tool name or argument is the model's text: a line break in it began a line of
    report.md with whatever followed, where ``<!--`` or ``<details>`` starts an HTML block
    that swallows the rest of the report (GitHub renders report.md)."""
    from pytest_tooleval.report.markdown import render_markdown
    from tests.conftest import make_report

    name = "x\n<!-- hidden"
    called = Attempt(name=name, arguments={}, valid=False, malformed="unknown_tool",
                     reason=f"{name!r} is not among the tools shown")
    case = CaseResult(nodeid="a.yaml::x", file="a.yaml", case="x", outcome=Outcome.FAIL,
                      category="irrelevance", axes={"irrelevance": 0.0},
                      reasons=[f"a tool call was attempted where none was wanted ({name})"],
                      steps=[_step(StepChecks(restraint=False), [called], "a\n<details>")])
    text = render_markdown(make_report([case]))
    assert not [line for line in text.splitlines() if line.startswith(("<", "hidden"))]
    assert "- a tool call was attempted where none was wanted (x &lt;!-- hidden)" in text
    # nor a tag inside a line, where GitHub renders it: <details> hid the rest of the page
    assert "→ x &lt;!-- hidden [unknown_tool]; answer: a &lt;details>" in text
    assert "<details>" not in text and "<!--" not in text


def test_the_models_text_reaches_the_terminal_without_control_characters() -> None:
    """A case short of PASS is explained at the terminal (FAILURES, -v): an escape sequence
    in the model's answer, tool name or arguments reached the terminal raw, where
    ``ESC[2J`` clears the screen and a carriage return writes over what was said."""
    from pytest_tooleval.report.terminal import explain

    hostile = "ok\x1b[2J\rforged\x07\x9b31m"
    called = Attempt(name=hostile, arguments={"a": hostile}, valid=False,
                     malformed="unknown_tool", reason=hostile)
    case = CaseResult(nodeid="a.yaml::x", file="a.yaml", case="x", outcome=Outcome.FAIL,
                      reasons=[hostile],
                      steps=[_step(StepChecks(restraint=False), [called], hostile)])
    text = explain(case)
    assert not [c for c in text if c not in "\n\t" and (ord(c) < 32 or 127 <= ord(c) < 160)]
    assert "  answer: ok\\x1b[2J forged\\x07\\x9b31m" in text  # short() made the CR a space
    assert text.count("\n") == explain(case.model_copy(update={"reasons": ["r"]})).count("\n")


def test_a_case_explained_at_the_terminal_shows_the_calls_as_json() -> None:
    """-v and FAILURES printed a call's arguments and a step's message as Python reprs:
    save_note({'pin': True, 'due': None}) for what the model sent as {"pin": true, ...},
    and 'it\\'s me' with a backslash."""
    from pytest_tooleval.report.terminal import explain

    called = Attempt(name="save_note", arguments={"text": "it's", "pin": True, "due": None},
                     valid=True)
    case = CaseResult(nodeid="a.yaml::x", file="a.yaml", case="x", outcome=Outcome.FAIL,
                      reasons=["r"], steps=[_step(StepChecks(restraint=False), [called])])
    case.steps[0].transcript.message = "say hi, it's me"
    text = explain(case)
    assert '    call save_note({"text": "it\'s", "pin": true, "due": null}) ran' in text, text
    assert '  step 1: "say hi, it\'s me"' in text and "    shown: none" in text, text


def test_an_errors_calls_the_machine_did_not_finish_are_not_said_to_have_run() -> None:
    """An ERROR's last turn: the first call's tool timed out, the second never started.
    Neither ran; -v, report.html, JUnit and the dataset once said "ran" of both."""
    from pytest_tooleval.engine.transcript import StepTranscript
    from pytest_tooleval.report.terminal import explain
    from pytest_tooleval.result import ErrorInfo

    calls = [Attempt(name=name, arguments={}, valid=True) for name in ("a", "b")]
    case = CaseResult.infrastructure_error(
        "a.yaml::x", ErrorInfo(kind="provider", message="tool a timed out"),
        transcripts=[StepTranscript(message="m", attempts=calls)])
    text = explain(case)
    assert "call a({}) no result: the machine failed" in text, text
    assert "call b({}) no result: the machine failed" in text, text
    assert " ran" not in text and "answer: (none: the machine failed)" in text, text
    from pytest_tooleval.report.html import render_html
    from pytest_tooleval.report.junit import call_counts
    from tests.conftest import make_report

    assert call_counts(case)["tools_ran"] == [] and case.transcripts[0].ran == []
    page = render_html(make_report([case]))
    assert page.count("no result: the machine failed") == 2 and ">ran<" not in page
    assert "none (the machine failed)" in page and "step limit" not in page


def test_a_call_that_ran_into_a_tool_error_shows_the_error_at_the_terminal() -> None:
    """-v and FAILURES said 'call stock_level({"item": "chai"}) ran' and then the model's
    'Sorry, I could not check.', never that the tool had answered with an error."""
    from pytest_tooleval.report.terminal import explain

    failed = Attempt(name="stock_level", arguments={"item": "chai"}, valid=True,
                     result="error: KeyError: 'chai'", result_is_error=True)
    fine = Attempt(name="stock_level", arguments={"item": "tea"}, valid=True, result="14")
    case = CaseResult(nodeid="a.json::x", file="a.json", case="x", outcome=Outcome.PARTIAL,
                      reasons=["r"], steps=[_step(StepChecks(), [failed, fine])])
    text = explain(case)
    assert '    call stock_level({"item": "chai"}) ran → error: KeyError: \'chai\'\n' in text
    assert text.endswith('    call stock_level({"item": "tea"}) ran\n    answer: ok'), text


def test_a_call_that_ran_into_a_tool_error_shows_the_error_in_report_md() -> None:
    """report.md's "Cases short of PASS" said '→ stock_level; answer: Sorry, I could not
    check.' where the terminal says the call 'ran → error: KeyError: ...'."""
    from pytest_tooleval.report.markdown import render_markdown
    from tests.conftest import make_report

    failed = Attempt(name="stock_level", arguments={"item": "chai"}, valid=True,
                     result="error: KeyError: 'chai'", result_is_error=True)
    fine = Attempt(name="stock_level", arguments={"item": "tea"}, valid=True, result="14")
    case = CaseResult(nodeid="a.json::x", file="a.json", case="x", outcome=Outcome.PARTIAL,
                      reasons=["r"], steps=[_step(StepChecks(), [failed, fine])])
    text = render_markdown(make_report([case]))
    assert "* → stock_level ran → error: KeyError: 'chai', stock_level; answer: ok" in text


def test_the_terminal_shows_a_calls_arguments_and_error_with_their_spaces() -> None:
    """-v printed 'call stock_level({"item": "oat milk"}) ran → error: KeyError: 'oat
    milk'' for a call with "oat  milk" (two spaces): the very difference that failed."""
    from pytest_tooleval.report.terminal import explain

    failed = Attempt(name="stock_level", arguments={"item": "oat  milk"}, valid=True,
                     result="error: KeyError: 'oat  milk'\nat line 2", result_is_error=True)
    raw = Attempt(name="stock_level", arguments='{"item":\n  "oat  milk"', valid=False,
                  malformed="unparseable", reason="r")
    case = CaseResult(nodeid="a.json::x", file="a.json", case="x", outcome=Outcome.PARTIAL,
                      reasons=["r"], steps=[_step(StepChecks(), [failed, raw])])
    text = explain(case)
    assert ('    call stock_level({"item": "oat  milk"}) ran → error: KeyError: '
            "'oat  milk' at line 2\n") in text, text
    assert '    call stock_level({"item":   "oat  milk") malformed (unparseable: r)\n' in text
