"""``tooleval board``: several runs of the same cases ranked, paired tests Holm-corrected,
groups that cannot be told apart, refusals like compare's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_tooleval.cli.board import main as board_main
from pytest_tooleval.report.board import board, holm, render_markdown
from pytest_tooleval.report.model import Report
from pytest_tooleval.result import CaseResult, ErrorInfo
from tests.conftest import RUN_INFO, THANKS_CASE, WEATHER_CASE, make_report, scenario
from tests.support.fake_openai import Rule, answer, call


def run_of(name: str, passes: int, cases: int = 40, **run: object) -> Report:
    """A run of ``cases`` tool cases of which the first ``passes`` pass."""
    results = [CaseResult(nodeid=f"a.json::c{i}", file="a.json", case=f"c{i}",
                          category="tool", group="g", case_hash=f"h{i}",
                          outcome="PASS" if i < passes else "FAIL",
                          axes={"tool": float(i < passes), "answer": float(i < passes)})
               for i in range(cases)]
    return make_report(results, model={"name": name}, **run)


def test_holm_steps_down() -> None:
    # Bonferroni would give 0.12 to the largest; Holm multiplies by 3, 2, 1 and keeps order
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]


def test_board_ranks_tests_pairs_and_groups_the_indistinguishable() -> None:
    result = board([run_of("weak", 10), run_of("strong", 40), run_of("close", 38)])
    assert [e.label for e in result.entries] == ["strong", "close", "weak"]
    duels = {(d.better, d.worse): d for d in result.duels}
    assert set(duels) == {("strong", "close"), ("strong", "weak"), ("close", "weak")}
    assert not duels["strong", "close"].differs  # two flips: noise
    assert duels["strong", "weak"].differs and duels["close", "weak"].differs
    for duel in result.duels:
        assert duel.cases == 40 and duel.row is not None and duel.row.delta >= 0
        assert duel.p_holm >= duel.row.p_value
    assert result.groups == [["strong", "close"], ["weak"]]
    assert [e.groups for e in result.entries] == ["A", "A", "B"]
    text = render_markdown(result)
    assert re.search(r"\| 1 \| strong \| A \| 100\.0", text)
    assert "| 3 | weak | B |" in text and "Holm" in text
    assert "| strong − close | 40 |" in text


def test_board_refuses_other_case_sets_and_settings_unless_forced(tmp_path: Path,
                                                                  capsys) -> None:
    cold = {**RUN_INFO["backend"], "sampling": {"temperature": 0.0}}
    base = run_of("a", 30, backend=cold)
    other_cases = run_of("b", 30, cases=41, backend=cold)
    hotter = run_of("c", 30, backend={**cold, "sampling": {"temperature": 0.7}})
    result = board([base, other_cases, hotter])
    assert not result.ranked and result.duels == []
    assert any(line.startswith("b against a: case set differs") for line in result.refused)
    assert any(line.startswith("c against a: sampling differs") for line in result.refused)
    assert not any("model differs" in line for line in result.refused)  # the point of it
    paths = []
    for report in (base, other_cases, hotter):
        paths.append(tmp_path / f"{report.run.model_name}.json")
        paths[-1].write_text(json.dumps(report.to_json()), "utf-8")
    out = tmp_path / "board"
    assert board_main([*map(str, paths), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Board refused" in err and "--force" in err and "case set differs" in err
    assert not out.exists()
    assert board_main([*map(str, paths), "--out", str(out), "--force"]) == 0
    text = (out / "board.md").read_text("utf-8")
    assert "Ranked anyway (--force)" in text and "sampling differs" in text
    html = (out / "board.html").read_text("utf-8")
    assert 'id="differences"' in html and "case set differs" in html


def test_a_run_with_no_case_scored_is_refused_not_ranked_beside_real_ones() -> None:
    """An all-ERROR run was ranked in group A with a real one: "cannot be told apart"."""
    errors = [CaseResult(nodeid=case.nodeid, file=case.file, case=case.case, category="tool",
                         group="g", case_hash=case.case_hash, outcome="ERROR",
                         error=ErrorInfo(kind="backend", message="server gone"))
              for case in run_of("dead", 0).cases]
    result = board([run_of("good", 30), make_report(errors, model={"name": "dead"})])
    assert not result.ranked and result.duels == []
    assert result.refused == ["dead: no case scored (each ended in ERROR or was skipped); "
                              "run it again"]


def test_the_same_run_given_twice_is_refused_not_ranked_twice() -> None:
    """It was ranked as two runs, "good (1)" and "good (2)", that cannot be told apart."""
    good = run_of("good", 30)
    result = board([good, run_of("other", 20), good.model_copy(deep=True)])
    assert not result.ranked and result.duels == []
    assert result.refused == [f"good (3) is the same run as good (1) (started "
                              f"{good.run.started}); give each run once"]
    # two runs in the same second are two runs
    again = good.model_copy(update={"cases": [good.cases[0].model_copy(
        update={"duration_s": 9.5}), *good.cases[1:]]})
    assert board([good, again]).ranked


def test_board_of_one_report_or_a_missing_one_is_refused(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        board_main([str(tmp_path / "x.json")])
    assert board_main([str(tmp_path / "x.json"), str(tmp_path / "y.json")]) == 2
    assert "x.json" in capsys.readouterr().err


SCRIPTS = {
    "good": [Rule("weather in izmir", [call("get_weather", {"city": "Izmir"}),
                                       answer("17.4 C, rainy")]),
             Rule("thanks", [answer("you're welcome")])],
    "chatty": [Rule("weather in izmir", [answer("no idea")]),
               Rule("thanks", [answer("you're welcome")])],
    "eager": [Rule("weather in izmir", [answer("no idea")]),
              Rule("thanks", [call("save_note", {"text": "x"}), answer("saved")])],
}


def test_tooleval_board_on_three_runs_writes_the_ranking(project, fake_model) -> None:
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    paths = []
    for name, rules in SCRIPTS.items():
        project.profile(fake_model(rules), name=name)
        project.run("--model", name, "--tooleval-report", name)
        paths.append(str(project.path / name / "report.json"))
    out = project.path / "board"
    assert board_main([*paths, "--out", str(out)]) == 0
    text = (out / "board.md").read_text("utf-8")
    ranks = re.findall(r"^\| (\d) \| (\w+) \|", text, re.M)
    assert ranks == [("1", "good"), ("2", "chatty"), ("3", "eager")]
    assert text.count("| good − chatty | 2 |") == 1
    html = (out / "board.html").read_text("utf-8")
    assert "default-src 'none'" in html and "<svg" in html
    assert re.findall(r"<td><code>(\w+)</code>", html) == ["good", "chatty", "eager"]


def test_a_figure_under_the_minimum_says_too_few_cases() -> None:
    """The step axis of 3 chains had no interval and no word on the board ("| 50.0 |"),
    where report.md and the terminal say "too few cases"."""
    from pytest_tooleval.report.board import render_html as render_board_html

    def with_chains(name: str, passes: int) -> Report:
        chains = [CaseResult(nodeid=f"a.json::k{i}", file="a.json", case=f"k{i}",
                             category="chain", case_hash=f"k{i}", outcome="PARTIAL",
                             axes={"step": 0.5}) for i in range(3)]
        base = run_of(name, passes)
        return make_report([*base.cases, *chains], model={"name": name})

    result = board([with_chains("x", 38), with_chains("y", 34)])
    text = render_markdown(result)
    row = next(line for line in text.splitlines() if line.startswith("| 1 | x |"))
    cells = [cell.strip() for cell in row.split("|")]
    assert cells[7] == "50.0 [too few cases]"  # step: 3 cases
    assert re.fullmatch(r"95\.0 \[\d+\.\d–\d+\.\d\]", cells[6])  # tool: 40 cases
    assert "50.0 [too few cases]" in render_board_html(result)
    assert "corrected for 1 comparison (Holm)" in text  # was "1 comparisons"


def test_runs_of_one_model_are_named_by_what_differs() -> None:
    """Two runs of one model read "m (1)" and "m (2)": which was grammar off, which the
    other GGUF file, the board did not say."""
    on = run_of("m", 30)
    off = run_of("m", 36, grammar_requested="off",
                 backend={**RUN_INFO["backend"], "grammar": "off", "constraint": None})
    result = board([on, off], force=True)
    assert [e.label for e in result.entries] == ["m (grammar off)", "m (grammar on)"]
    assert "| m (grammar off) − m (grammar on) | 40 |" in render_markdown(result)
    q4, q8 = (run_of("m", 30 + i, backend={**RUN_INFO["backend"],
                                            "model_path": f"/models/m-{q}.gguf"})
              for i, q in enumerate(("q4", "q8")))
    result = board([q4, q8, run_of("other", 20)])  # not refused: only the model differs
    assert [e.label for e in result.entries] == ["m (model m-q8.gguf)", "m (model m-q4.gguf)",
                                                 "other"]
    sampled = board([run_of("m", 30, sample_every=4), run_of("m", 20)])
    assert [e.label for e in sampled.entries] == ["m (1 case in 4)", "m (1 case in 1)"]
    prompted = run_of("m", 30)
    prompted.run.model["system_prompt"] = "Be brief. " * 20  # a long value, shortened
    assert board([prompted, run_of("m", 20)]).entries[0].label == \
        "m (system_prompt Be brief. Be brief. Be brief. Be brief.…)"
