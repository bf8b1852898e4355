"""report.html: written beside report.json, self-contained, and working in a real browser."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from pytest_tooleval.report.model import Report
from pytest_tooleval.result import CaseResult
from tests.conftest import CHAIN_CASE, THANKS_CASE, WEATHER_CASE, make_report, scenario
from tests.report.browser import Browser, find_chromium
from tests.support.fake_openai import Rule, answer, call

SCRIPT = [
    Rule("weather in izmir", [call("get_weather", {"city": "Izmir"}), answer("rainy")]),
    Rule("note that down", [call("save_note", {"text": "Izmir 17.4"}),
                            answer("Saved as N-4471.")]),
    Rule("thanks", [call("save_note", {"text": "x"}), answer("bye")]),
    Rule("<b>", [answer("<script>alert(1)</script> no")]),
]
CASUAL = {"name": "casual", "category": "irrelevance", "register": "whatsapp",
          "steps": [{"message": "<b>ok</b> cool thx"}]}


@pytest.fixture
def run_report(project, fake_model) -> dict:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml",
                  scenario([WEATHER_CASE, THANKS_CASE, CHAIN_CASE, CASUAL]))
    project.run()
    report = project.report()
    report["_html"] = project.path / "tooleval-report" / "report.html"
    return report


def test_html_is_written_beside_report_json_and_self_contained(run_report) -> None:
    html = run_report["_html"].read_text("utf-8")
    for case in run_report["cases"]:
        assert case["nodeid"] in html
    # nothing to fetch: no external URL in a src or href, no stylesheet or script link
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "<link" not in html and "<script src" not in html
    assert "default-src 'none'" in html
    # the model's text is escaped, never run
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<svg" in html and "Groups" in html and "Registers" in html


def test_html_can_be_switched_off(project, fake_model) -> None:
    server = fake_model(SCRIPT)
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    project.run("--tooleval-html", "off")
    assert (project.path / "tooleval-report" / "report.json").is_file()
    assert not (project.path / "tooleval-report" / "report.html").exists()


def test_intervals_and_baselines_are_shown(run_report) -> None:
    from pytest_tooleval.report.html import render_html

    report = Report.model_validate({k: v for k, v in run_report.items() if k != "_html"})
    real = render_html(report)
    assert 'id="baselines"' in real and "never-call" in real  # the scripted baselines
    interval = report.summary.score_interval
    assert interval is not None and f"[{interval.low:.1f}, {interval.high:.1f}]" in real
    summary = report.summary.model_copy(update={"baselines": {}, "score_interval": None})
    plain = render_html(report.model_copy(update={"summary": summary}))
    assert 'id="baselines"' not in plain
    assert "/ 100</div>" in plain and "/ 100</div>" not in real  # the score card's interval


def test_gap_report_has_the_flip_matrix() -> None:
    from pytest_tooleval.report.html import flip_matrix, render_html

    def report(outcomes: dict[str, str]) -> Report:
        return make_report([CaseResult(nodeid=f"a.json::{name}", file="a.json", case=name,
                                       outcome=outcome, category="tool")
                            for name, outcome in outcomes.items()])

    on = report({"a": "PASS", "b": "PASS", "c": "FAIL", "d": "FAIL", "e": "ERROR"})
    off = report({"a": "PASS", "b": "FAIL", "c": "PASS", "d": "PARTIAL", "e": "PASS"})
    flips = flip_matrix(on, off)
    assert flips == {"helped": ["a.json::b"], "hurt": ["a.json::c"],
                     "both_pass": ["a.json::a"], "both_fail": ["a.json::d"]}
    gap = {"cases": 4, "model": "m", "mechanism": {"on": "gbnf", "off": None},
           "score": {"on": 50.0, "off": 40.0, "gap": 10.0}, "axes": {}, "groups": {},
           "flips": flips}
    html = render_html(on, gap=gap)
    assert 'id="flips"' in html and "helped: 1" in html and "hurt: 1" in html
    assert "+10.0" in html


def _chromium() -> str:
    found = find_chromium()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install -y "
                        "chromium)")
        pytest.skip("chromium is not installed here (apt-get install -y chromium); CI fails "
                    "this test instead of skipping it")
    return found


SHOWN = "document.body.dataset.shown + '|' + document.getElementById('shown').textContent"
VISIBLE = ("Array.from(document.querySelectorAll('#cases details.case'))"
           ".filter(e => !e.hidden).map(e => e.querySelector('code').textContent)")


def _choose(browser: Browser, field: str, value: str) -> None:
    event = json.dumps("input" if field == "search" else "change")
    browser.evaluate(f"(() => {{ const el = document.getElementById('f-{field}');"
                     f" el.value = {json.dumps(value)}; el.dispatchEvent(new Event({event}));"
                     " })()")


def test_html_in_headless_chromium_renders_filters_and_fetches_nothing(run_report) -> None:
    path: Path = run_report["_html"]
    url = path.resolve().as_uri()
    browser = Browser(_chromium())
    try:
        browser.open(url)
        total = len(run_report["cases"])
        assert browser.evaluate(SHOWN) == f"{total}|{total} of {total} cases"
        assert browser.evaluate("document.querySelectorAll('svg.chart').length") >= 3
        assert browser.evaluate("document.getElementById('score').textContent").startswith(
            "Score")
        by_outcome = {}
        for case in run_report["cases"]:
            by_outcome.setdefault(case["outcome"], []).append(case["nodeid"])
        for outcome, nodeids in by_outcome.items():
            _choose(browser, "outcome", outcome)
            assert sorted(browser.evaluate(VISIBLE)) == sorted(nodeids)
        _choose(browser, "outcome", "")
        _choose(browser, "group", "notes")
        assert browser.evaluate(VISIBLE) == ["scenarios/demo.yaml::chain"]
        _choose(browser, "group", "")
        _choose(browser, "register", "whatsapp")
        assert browser.evaluate(VISIBLE) == ["scenarios/demo.yaml::casual"]
        _choose(browser, "register", "")
        _choose(browser, "search", "N-4471")  # in an answer, not in a name
        assert browser.evaluate(VISIBLE) == ["scenarios/demo.yaml::chain"]
        assert browser.evaluate("location.hash") == "#q=n-4471"
        _choose(browser, "search", "")
        assert browser.evaluate(SHOWN).startswith(f"{total}|")
        # a filtered link opens filtered
        browser.open(url + "#outcome=FAIL")
        assert sorted(browser.evaluate(VISIBLE)) == sorted(by_outcome["FAIL"])
        # the model's markup was not run
        assert browser.evaluate("typeof window.alert") == "function"
        assert browser.evaluate("document.querySelectorAll('#cases b, #cases script').length"
                                ) == sum(len(c["steps"]) for c in run_report["cases"])
        fetched = [u for u in browser.requested_urls() if not u.startswith(url.split("#")[0])]
        assert fetched == []
        # The watch itself works: the same page with a remote image and no policy fetches it.
        control = path.with_name("control.html")
        control.write_text(path.read_text("utf-8").replace("default-src 'none'", "").replace(
            "<body>", '<body><img src="http://127.0.0.1:9/probe.png">'), "utf-8")
        browser.open(control.resolve().as_uri())
        assert "http://127.0.0.1:9/probe.png" in browser.requested_urls()
    finally:
        browser.close()


def test_tooleval_gap_writes_gap_html_with_flips(tmp_path: Path) -> None:
    from pytest_tooleval.cli import main

    root = Path(__file__).resolve().parents[2] / "docs" / "results" / "gap-sample4"
    out = tmp_path / "gap"
    assert main(["gap", "--from-reports", str(root / "on" / "report.json"),
                 str(root / "off" / "report.json"), "--report", str(out)]) == 0
    gap = json.loads((out / "gap.json").read_text())
    html = (out / "gap.html").read_text("utf-8")
    counts = [int(n) for n in re.findall(r"(?:both pass|helped|hurt|both fail): (\d+)", html)]
    assert len(counts) == 4 and sum(counts) == gap["cases"]
    # the matrix is the statistics' pass-rate pairing, and every figure's flips are listed
    engine = gap["paired"]["figures"]["pass rate"]["flips"]["counts"]
    assert counts == [engine["both_pass"], engine["helped"], engine["hurt"], engine["both_fail"]]
    assert 'id="figure-flips"' in html and "axis tool" in html
