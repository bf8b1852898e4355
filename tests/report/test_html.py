"""report.html: written beside report.json, self-contained, and working in a real browser."""

from __future__ import annotations

import json
import os
import re
from html import escape, unescape
from pathlib import Path

import pytest

from pytest_tooleval.engine.transcript import ModelCall, StepTranscript
from pytest_tooleval.report.board import board
from pytest_tooleval.report.board import render_html as render_board
from pytest_tooleval.report.gap import gap_of
from pytest_tooleval.report.html import render_html, write_gap_html
from pytest_tooleval.report.model import Interval, Report, load_report
from pytest_tooleval.result import CaseResult, StepResult
from pytest_tooleval.scoring.failure_modes import case_modes
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
    report = Report.model_validate({k: v for k, v in run_report.items() if k != "_html"})
    assert report.summary.score_interval is None  # four cases: too few for an interval
    interval = Interval(low=41.25, high=88.5, method="bootstrap")
    report = report.model_copy(update={"summary": report.summary.model_copy(
        update={"score_interval": interval})})
    real = render_html(report)
    assert 'id="baselines"' in real and "never-call" in real  # the scripted baselines
    # with report.md's columns: cases and what the policy does
    assert re.search(r"<td>never-call</td><td>[\d.]+</td><td>4</td>"
                     r"<td>never calls a tool; answers with nothing</td>", real)
    assert "[41.2–88.5]" in real and "[41.2, 88.5]" not in real  # as report.md prints it
    summary = report.summary.model_copy(update={"baselines": {}, "score_interval": None})
    plain = render_html(report.model_copy(update={"summary": summary}))
    assert 'id="baselines"' not in plain
    assert "/ 100</div>" in plain and "/ 100</div>" not in real  # the score card's interval


def test_a_figure_under_the_minimum_says_too_few_cases_as_report_md_does() -> None:
    """A 4-case register row, a 3-case axis and a 3-case run's score had no interval in
    report.html and said nothing ("formal: 50.0 · n=4"), where report.md says "too few
    cases"."""
    from pytest_tooleval.report.markdown import render_markdown

    def case(i: int, category: str, register: str, passed: bool) -> CaseResult:
        axis = "irrelevance" if category == "irrelevance" else "tool"
        return CaseResult(nodeid=f"a.json::c{i}", file="a.json", case=f"c{i}",
                          category=category, register=register, case_hash=f"h{i}",
                          outcome="PASS" if passed else "FAIL", axes={axis: float(passed)})

    cases = [case(i, "tool", "formal", i % 2 == 0) for i in range(4)]
    cases += [case(4 + i, "irrelevance", "casual", True) for i in range(3)]
    cases += [case(7 + i, "tool", "casual", i != 0) for i in range(6)]
    report = make_report(cases)
    assert report.summary.registers["formal"].interval is None
    assert "| formal | 50.0 | too few cases | 4 |" in render_markdown(report)
    text = unescape(re.sub(r"<[^>]+>", "\n", render_html(report)))
    assert "50.0 · too few cases · n=4 · pass 2, fail 2" in text  # the register row
    assert "100.0 · too few cases · 3 cases" in text  # the irrelevance axis
    assert "casual" in text and "n=9 · pass 8, fail 1" in text
    assert "too few cases · n=9" not in text  # 9 cases have their interval
    small = unescape(render_html(make_report(cases[4:7])))
    assert "too few cases / 100</div>" in small  # the score card of a 3-case run


def test_report_html_says_what_report_md_says_per_row_and_on_the_run() -> None:
    """report.html lacked report.md's router recall per breakdown row, the language gap line,
    the Selection line and the line of tool calls and latency; under repeats its rows read
    "n=6 (pass 18)" where report.md says "6 (18 tries) | pass 18"."""
    from pytest_tooleval.report.markdown import render_markdown
    from pytest_tooleval.result import StepChecks

    def tried(language: str, job: int, r: int) -> CaseResult:
        shown = ["a" if job else "b"]  # job 0's step was not routed
        return CaseResult(
            nodeid=f"f.json::{language}{job}[r{r}]", file="f.json", case=f"{language}{job}",
            category="tool", language=language, job=f"j{job}", repeat=r, outcome="PASS",
            axes={"tool": 1.0}, steps=[StepResult(transcript=StepTranscript(
                message="m", shown=shown), checks=StepChecks(expect=["a"]))])

    cases = [tried(language, job, r) for language in ("en", "tr") for job in range(6)
             for r in (1, 2, 3)]
    selection = {"paths": ["f.json"], "keyword": "j", "markers": None, "sample_every": 1,
                 "cases": 36, "case_set_hash": "abcd", "command_line": []}
    report = make_report(cases, selection=selection)
    markdown = render_markdown(report)
    text = unescape(re.sub(r"<[^>]+>", "", render_html(report)))
    assert ("| en | 100.0 | [61.0–100.0] | 6 (18 tries) | pass 18 | 83.3% [60.8–94.2] (15/18) |"
            in markdown)
    assert "n=6 (18 tries) · pass 18 · routed 83.3% [60.8–94.2] (15/18)" in text
    for line in ("Selection: 12 case(s) × 3 tries from 1 file(s), case-set hash `abcd`; "
                 "paths f.json; -k `j`", "Language gap on 6 twin job(s)",
                 "Tries: 36 pass, 0 partial, 0 fail, 0 error. Tool calls attempted: 0, "
                 "malformed: 0, parser leaks: 0. Step latency p50"):
        assert line in markdown and line.replace("`", "") in text


def test_the_header_names_the_tools_shown_apart_from_the_repeats() -> None:
    """The header's "k 9" (run.k: tools the router shows) sat beside "Repeats (k = 3)"
    (tries): two k on one page."""
    text = unescape(re.sub(r"<[^>]+>", "", render_html(make_report([]))))
    assert "· tools shown 9 ·" in text and "· k 9" not in text


def test_gap_report_has_the_flip_matrix() -> None:
    from pytest_tooleval.report.html import flip_matrix

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


ROOT = Path(__file__).resolve().parents[2]


def _case(name: str, outcome: str, reasons: list[str], category: str = "tool",
          **fields: object) -> CaseResult:
    step = StepTranscript(message=f"ask {name}", model_calls=[
        ModelCall(latency_s=1.25, prompt_tokens=1534, completion_tokens=192,
                  finish_reason="stop"),
        ModelCall(latency_s=0.5, prompt_tokens=1600, completion_tokens=8,
                  finish_reason="stop")])
    return CaseResult(nodeid=f"a.json::{name}", file="a.json", case=name, outcome=outcome,
                      category=category, reasons=reasons, steps=[StepResult(transcript=step)],
                      **fields)


def test_cards_rows_and_steps_say_why_and_what_it_cost() -> None:
    report = make_report([
        _case("weather", "FAIL", ["expected get_weather to run; ran: nothing",
                                  "evidence missing from the answer: 17.4"],
              axes={"tool": 0.0, "answer": 0.0}),
        _case("sum", "PASS", [], axes={"tool": 1.0, "answer": 1.0}),
        _case("down", "ERROR", ["server unreachable"],
              error={"kind": "backend", "message": "server unreachable\nat port 9"})])
    html = render_html(report)
    # NOT VALID (an ERROR) with its reason on the card, and the coverage criterion listed
    assert report.summary.deployability.verdict == "NOT VALID"
    assert re.search(r'id="verdict-reason">1 case\(s\) ended in ERROR', html)
    assert re.search(r'id="coverage"><td>coverage.*irrelevance 0.*<td class="bad">no', html)
    valid = make_report(report.cases[:2])
    assert valid.summary.deployability.verdict == "NOT MEASURED"
    reason = valid.summary.coverage.detail
    assert reason.startswith("too few cases on irrelevance")
    assert f'id="verdict-reason">{escape(reason)}; a verdict needs 10' in render_html(valid)
    # every collapsed row has its one-line reason
    whys = re.findall(r'<span class="why" title="[^"]*">([^<]*)</span>', html)
    assert whys == ["expected get_weather to run; ran: nothing (+1 more)", "every check held",
                    "backend error: server unreachable"]
    # per step: model calls, latency, tokens; per case: the totals the sort reads
    assert html.count("2 model call(s) · 1.75 s · 3134 prompt + 200 completion tokens") == 3
    assert 'data-latency="1.75" data-tokens="3334"' in html
    assert 'data-rank="2"' in html and 'data-rank="3"' in html


def test_the_gate_line_sits_on_the_irrelevance_row_only() -> None:
    report = make_report([_case("t", "PASS", [], axes={"tool": 1.0}),
                          _case("i", "PASS", [], category="irrelevance",
                                axes={"irrelevance": 1.0})])
    html = render_html(report)
    chart = html[html.index('aria-label="Score and axes"'):]
    chart = chart[:chart.index("</svg>")]
    assert chart.count('class="marker"') == 1
    rows = re.findall(r'<text class="label"[^>]*y="(\d+)"[^>]*>([^<]*)</text>', chart)
    row_y = {label: int(y) for y, label in rows}
    marker = re.search(r'<line class="marker" x1="[\d.]+" y1="(-?\d+)" x2="[\d.]+" '
                       r'y2="(\d+)"><title>gate ≥ 90</title>', chart)
    assert marker is not None
    top, bottom = int(marker.group(1)), int(marker.group(2))
    irrelevance = row_y["irrelevance (×0.40)"]
    assert top < irrelevance < bottom  # across that row …
    assert all(not top < y < bottom for label, y in row_y.items()
               if label != "irrelevance (×0.40)")
    assert re.search(r'<text class="note"[^>]*>100\.0[^<]*· gate ≥ 90</text>', chart)


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
        # sorted: by name, worst outcome first; kept in the address
        _choose(browser, "sort", "name")
        assert browser.evaluate(VISIBLE) == sorted(c["nodeid"] for c in run_report["cases"])
        assert browser.evaluate("location.hash") == "#sort=name"
        _choose(browser, "sort", "rank")
        rank = {"ERROR": 3, "FAIL": 2, "PARTIAL": 1, "PASS": 0}
        shown = [rank[o] for o in browser.evaluate(
            "Array.from(document.querySelectorAll('#cases details.case'))"
            ".map(e => e.dataset.outcome)")]
        assert shown == sorted(shown, reverse=True)
        _choose(browser, "sort", "")
        assert browser.evaluate(VISIBLE) == [c["nodeid"] for c in run_report["cases"]]
        # each failure-mode count links to its cases
        report = Report.model_validate({k: v for k, v in run_report.items() if k != "_html"})
        modes = {c.nodeid: case_modes(c) for c in report.cases}
        for mode, count in report.summary.failure_modes.run.items():
            link = f"document.querySelector('#failure-modes + p + ul a[href=\"#mode={mode}\"]')"
            browser.evaluate("new Promise(done => { window.addEventListener('hashchange', done, "
                             f"{{once: true}}); {link}.click(); }}).then(() => true)")
            assert browser.evaluate("location.hash") == f"#mode={mode}"
            shown = browser.evaluate(VISIBLE)
            assert shown == [n for n, found in modes.items() if mode in found]
            assert count >= len(shown) > 0
        assert report.summary.failure_modes.run  # the run above has some
        browser.evaluate("location.hash = ''")
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


#: Every text of every chart whose box leaves its SVG: the drawn area (getBBox against
#: the viewBox) or the page (getBoundingClientRect against the SVG's own).
CLIPPED = """Array.from(document.querySelectorAll('svg.chart')).flatMap(svg => {
  const view = svg.viewBox.baseVal, outer = svg.getBoundingClientRect();
  return Array.from(svg.querySelectorAll('text')).filter(t => {
    const b = t.getBBox(), r = t.getBoundingClientRect();
    return b.x < view.x || b.y < view.y || b.x + b.width > view.x + view.width
      || b.y + b.height > view.y + view.height || r.left < outer.left - 0.5
      || r.right > outer.right + 0.5 || r.top < outer.top - 0.5
      || r.bottom > outer.bottom + 0.5;
  }).map(t => svg.getAttribute('aria-label') + ': ' + t.textContent);
})"""


#: Every element whose right edge lies past the window's (the page scrolls sideways).
WIDER_THAN_THE_WINDOW = """Array.from(document.querySelectorAll('body *')).filter(e =>
  e.getBoundingClientRect().right > innerWidth + 0.5
  && !e.parentElement.closest('table, svg, .plot'))
  .map(e => e.tagName + ': ' + e.textContent.slice(0, 60))"""

#: Each word (between spaces and hyphens) of a table's <code> that is broken across lines.
BROKEN_WORDS = r"""Array.from(document.querySelectorAll('td code')).flatMap(code => {
  const text = code.firstChild, found = [], word = /[^\s-]+/g; let m;
  while ((m = word.exec(text.data))) {
    const range = document.createRange();
    range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
    if (new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size > 1)
      found.push(m[0]);
  }
  return found; })"""

#: Each chart's text size as drawn, in px: its 12 px font times the SVG's scale.
CHART_TEXT = """Array.from(document.querySelectorAll('svg.chart')).map(svg =>
  12 * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width)"""


def test_no_chart_label_is_clipped_at_any_width(run_report, tmp_path: Path) -> None:
    """The run's report, a real one with long notes, gap.html and a board, in a wide and
    a phone-sized window: every label and note lies inside its chart, no chart's text is
    drawn under 10 px (it was 4 px at 360 px: a chart scrolls sideways instead), and no table
    or long case name runs off the page (a 360-px window scrolled sideways to 843 px), and
    no word in a table's code is broken across lines (the board's model names were)."""
    results = ROOT / "docs" / "results"
    on, off = (load_report(results / "gap-sample4" / arm / "report.json")
               for arm in ("on", "off"))
    write_gap_html(tmp_path / "gap.html", gap_of(on, off), on, off)
    register = load_report(results / "register" / "report.json")
    (tmp_path / "register.html").write_text(render_html(register), "utf-8")
    (tmp_path / "board.html").write_text(render_board(board([on, register], force=True)),
                                         "utf-8")
    pages = [run_report["_html"], *(tmp_path / f"{name}.html"
                                    for name in ("gap", "register", "board"))]
    browser = Browser(_chromium())
    try:
        for width in (1200, 360):
            browser.call("Emulation.setDeviceMetricsOverride", session=browser.session,
                         width=width, height=800, deviceScaleFactor=1, mobile=False)
            for page in pages:
                browser.open(page.resolve().as_uri())
                assert browser.evaluate("document.querySelectorAll('svg.chart text').length")
                assert browser.evaluate(CLIPPED) == [], f"{page.name} at {width} px"
                assert min(browser.evaluate(CHART_TEXT)) > 9.9, f"{page.name} at {width} px"
                browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                wide = browser.evaluate(WIDER_THAN_THE_WINDOW)  # nothing runs off the page
                assert wide == [], f"{page.name} at {width} px"
                # a table scrolls rather than break a word: "smoll|m2-135m (gram|mar off)"
                assert browser.evaluate(BROKEN_WORDS) == [], f"{page.name} at {width} px"
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
    # every figure and group with its gap, interval and p, as gap.md has them
    table = html[html.index('id="figure-flips"'):]
    shown = [[unescape(cell) for cell in re.findall(r"<td>([^<]*)</td>", row)]
             for row in re.findall(r"<tr>(.*?)</tr>", table[:table.index("</table>")])]
    md = (out / "gap.md").read_text("utf-8")
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in md[md.index("| figure |"):].split("\n\n")[0].splitlines()[2:]]
    assert [row[:7] + row[8:9] for row in rows] == [row[:8] for row in shown[1:]]
    assert any("to" in row[6] for row in rows)  # the intervals are there


def test_an_error_with_an_empty_message_renders() -> None:
    """A report.json is any valid report (``tooleval html`` renders a stored one): an ERROR
    whose message is empty raised IndexError in the collapsed row's reason."""
    from pytest_tooleval.result import ErrorInfo

    case = CaseResult.infrastructure_error("a.yaml::x", ErrorInfo(kind="backend", message=""))
    html = render_html(make_report([case]))
    assert "backend error: " in html


def test_a_figure_not_measured_is_n_a_not_a_python_none() -> None:
    """Nothing scored (every case an ERROR, or none run): the criteria table printed the
    score and the baseline criterion as 'None' in report.md and report.html, and so did the
    verdict's reason."""
    from pytest_tooleval.report.markdown import render_markdown
    from pytest_tooleval.report.terminal import verdict_reason
    from pytest_tooleval.result import ErrorInfo
    from pytest_tooleval.scoring.aggregate import Thresholds, summarize

    case = CaseResult.infrastructure_error("a.yaml::x", ErrorInfo(kind="backend", message="down"))
    report = make_report([case])
    markdown = render_markdown(report)
    assert "| score | n/a | >= 70 | **no** |" in markdown
    assert "| beats the best baseline | n/a |" in markdown
    html = unescape(render_html(report))
    assert "<tr><td>score</td><td>n/a</td>" in html
    assert "None" not in markdown and ">None<" not in html
    assert "Step latency n/a (no step answered)." in markdown  # not "p50 n/a s"
    empty = summarize([], Thresholds(min_cases=0))  # no case ran; coverage not required
    assert "score n/a (needs >= 70)" in verdict_reason(empty, None)


def test_call_arguments_read_as_the_model_wrote_them() -> None:
    """A call's arguments were shown as a script's JSON: {"city": "\\u0130zmir"},
    "don\\u0027t", and an unparseable call's raw text as one quoted, escaped string."""
    from pytest_tooleval.engine.transcript import Attempt

    step = StepTranscript(message="İzmir'de hava", attempts=[
        Attempt(name="get_weather", arguments={"city": "İzmir", "note": "don't <blink>"},
                valid=True, result="17 °C"),
        Attempt(name=None, arguments='{"answer": "Sıcak\n', valid=False,
                malformed="unparseable", reason="truncated")])
    case = CaseResult(nodeid="a.json::x", file="a.json", case="x", outcome="FAIL",
                      category="tool", steps=[StepResult(transcript=step)])
    html = render_html(make_report([case]))
    shown = [unescape(pre) for pre in re.findall(r"<pre>([^<]*)</pre>", html)]
    assert shown == ['{"city": "İzmir", "note": "don\'t <blink>"}', '{"answer": "Sıcak\n']
    assert "<blink>" not in html  # still escaped as HTML


def test_a_call_with_no_tool_name_is_a_question_mark_as_in_report_md() -> None:
    """An unparseable call has no name: its row read "call None" (274 times in the
    embedded model's report); report.md writes "?"."""
    from pytest_tooleval.engine.transcript import Attempt

    step = StepTranscript(message="hi", attempts=[
        Attempt(name=None, arguments=None, valid=False, malformed="unparseable")])
    case = CaseResult(nodeid="a.json::x", file="a.json", case="x", outcome="FAIL",
                      category="tool", steps=[StepResult(transcript=step)])
    assert "call <code>?</code> <span" in render_html(make_report([case]))


def test_a_tools_error_is_not_shown_as_a_green_ran() -> None:
    """A valid call whose tool answered with an error read "ran" in green, its error in grey
    below; report.md and the terminal write "ran → error"."""
    from pytest_tooleval.engine.transcript import Attempt

    step = StepTranscript(message="hi", attempts=[
        Attempt(name="calendar_list", arguments={}, valid=True, result_is_error=True,
                result="error: end must be after start"),
        Attempt(name="calendar_list", arguments={}, valid=True, result="[]")])
    case = CaseResult(nodeid="a.json::x", file="a.json", case="x", outcome="FAIL",
                      category="tool", steps=[StepResult(transcript=step)])
    html = render_html(make_report([case]))
    assert '<span class="bad">ran → error</span>' in html
    assert '<span class="ok">ran</span>' in html


def test_a_link_to_a_section_keeps_its_place(tmp_path: Path) -> None:
    """report.html#transcripts opened at the top of the page: the filters' script took any
    address fragment for an empty filter state and wiped it before the browser scrolled."""
    path = tmp_path / "report.html"
    path.write_text(render_html(make_report([_case(f"c{i}", "FAIL", ["no"]) for i in range(8)])),
                    "utf-8")
    browser = Browser(_chromium())
    try:
        browser.call("Emulation.setDeviceMetricsOverride", session=browser.session,
                     width=800, height=400, deviceScaleFactor=1, mobile=False)
        browser.open(path.resolve().as_uri() + "#transcripts")
        assert browser.evaluate("location.hash") == "#transcripts"
        assert browser.evaluate("scrollY") > 0
        _choose(browser, "outcome", "FAIL")  # a filter is state in the address …
        assert browser.evaluate("location.hash") == "#outcome=FAIL"
        _choose(browser, "outcome", "")  # … and leaves it when cleared
        assert browser.evaluate("location.hash") == ""
    finally:
        browser.close()


def test_search_finds_istanbul_however_its_i_is_written(tmp_path: Path) -> None:
    """"İ".lower() is "i" and a combining dot in Python and in the browser alike: the
    search for "istanbul" missed a case that says only "İstanbul", and "İstanbul" found
    only the cases spelt with "İ" (2 of the embedded model's 27)."""
    dotted, plain = _case("a", "FAIL", ["no"]), _case("b", "FAIL", ["no"])
    dotted.transcripts[0].message, plain.transcripts[0].message = "İSTANBUL'da hava", "istanbul"
    path = tmp_path / "report.html"
    path.write_text(render_html(make_report([dotted, plain])), "utf-8")
    browser = Browser(_chromium())
    try:
        browser.open(path.resolve().as_uri())
        for query in ("istanbul", "İstanbul", "ISTANBUL"):
            _choose(browser, "search", query)
            assert browser.evaluate(VISIBLE) == ["a.json::a", "a.json::b"], query
    finally:
        browser.close()
