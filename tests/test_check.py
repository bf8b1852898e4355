"""``tooleval check`` as a library and as a command line."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.check.report import DOC_END, DOC_START, CheckReport, Tally
from pytest_tooleval.check.static import run_check
from pytest_tooleval.cli import main

ALL_BUILTINS = None  # run_check's default: this machine's built-ins


def check_main(argv: list[str]) -> int:
    return main(["check", *argv])


def route_main(argv: list[str]) -> int:
    return main(["route", *argv])


def write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def bench(name: str, language: str, cases: list[dict[str, Any]], requires: list[str]) -> dict:
    return {"name": name, "language": language, "requires": requires, "cases": cases}


def tool_case(name: str, message: str, expect: str, **extra: Any) -> dict[str, Any]:
    step = {"message": message, "expect": expect, **extra}
    return {"name": name, "category": "tool", "steps": [step]}


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    write(
        tmp_path / "corpus" / "tr.json",
        bench(
            "tr-basics",
            "tr",
            [
                {
                    **tool_case("kur", "dolar kuru bugün ne kadar", "web_search"),
                    "register": "formal",
                },
                tool_case("fatura", "elektrik faturamı göster", "read_document"),
                {"name": "selam", "category": "irrelevance", "steps": [{"message": "merhaba"}]},
            ],
            ["web_search", "read_document"],
        ),
    )
    write(
        tmp_path / "corpus" / "en" / "en.json",
        bench(
            "en-basics",
            "en",
            [
                tool_case("rate", "what's the euro exchange rate today?", "web_search"),
                {"name": "hi", "category": "irrelevance", "steps": [{"message": "merhaba"}]},
                {
                    "name": "log-chain",
                    "category": "chain",
                    "steps": [
                        {"message": "show me the git log", "expect": "git_log"},
                        {"message": "and the one before that?", "expect": "git_log"},
                    ],
                },
            ],
            ["web_search", "git_log"],
        ),
    )
    return tmp_path / "corpus"


def test_clean_corpus_passes_and_keeps_chain_tools(clean: Path) -> None:
    offered = {"web_search", "read_document", "git_log", "calculator"}
    report = run_check([clean], offered_tools=offered)
    assert report.failures == [], report.render_table()
    assert report.files == 2 and report.cases == 6
    assert report.recall.hits == report.recall.total == 5
    assert set(report.by_language) == {"en", "tr"}
    assert report.by_register["unspecified"].total == 4
    assert report.by_register["formal"].total == 1
    # the same short greeting in two languages is not a duplicate
    assert not [f for f in report.failures if f.kind == "near-duplicate"]
    assert (
        check_main(
            [
                str(clean),
                "--offered",
                "web_search",
                "--offered",
                "read_document",
                "--offered",
                "git_log",
            ]
        )
        == 0
    )


def test_a_case_whose_tool_is_not_shown_is_a_router_miss(tmp_path: Path) -> None:
    path = write(
        tmp_path / "miss.json",
        bench(
            "miss",
            "en",
            [tool_case("greet", "hello there, lovely day", "send_message")],
            ["send_message"],
        ),
    )
    report = run_check([path])
    [failure] = report.failures
    assert failure.kind == "router-miss" and failure.case == "greet" and failure.step == 1
    assert report.misses[0].miss_class == "stem"
    assert report.by_miss_class == {"stem": 1}
    assert report.recall.recall == 0.0
    assert "send_message" in failure.detail
    assert check_main([str(path)]) == 1


def test_guard_violations_are_reported_each(tmp_path: Path) -> None:
    case = tool_case("mul", "what is 18 * 1000?", "calculator", evidence=["18", "7"])
    path = write(tmp_path / "guard.json", bench("guard", "en", [case], ["calculator"]))
    report = run_check([path])
    guards = [f for f in report.failures if f.kind == "guard"]
    assert len(guards) == 2
    assert all(f.case == "mul" and f.step == 1 for f in guards)
    assert any("single digit" in f.detail for f in guards)
    assert any("18" in f.detail for f in guards)


def test_check_refuses_what_the_run_refuses_whatever_this_machine_offers(
        tmp_path: Path) -> None:
    """A file forbidding an MCP tool it does not require: the run refused it at collection
    ("unknown tool 'inv_request_restock' … add the tool to the file's 'requires'"), while
    check, knowing the live server's tools, passed it, and --oracle said only 'not loaded'."""
    case = tool_case("stock", "how many HD-330 are left?", "inv_stock_level",
                     forbidden=["inv_request_restock"])
    path = write(tmp_path / "shop.json", bench("shop", "en", [case], ["inv_stock_level"]))
    with pytest.raises(CaseFileError) as refused:
        load_case_file(path)  # as the run collects it
    offered = {"inv_stock_level", "inv_request_restock"}
    [failure] = run_check([path], offered_tools=offered).failures
    assert failure.kind == "guard" and failure.step == 1 and "forbidden" in failure.detail
    assert "'inv_request_restock'" in failure.detail and "'requires'" in failure.detail
    assert [p.field for p in refused.value.problems] == ["forbidden"]


def test_unmet_requires(tmp_path: Path) -> None:
    case = tool_case("issues", "which issues are labelled regression?", "gh_search_issues")
    path = write(tmp_path / "gh.json", bench("gh", "en", [case], ["gh_search_issues"]))
    report = run_check([path], offered_tools={"calculator", "web_search"})
    [failure] = report.failures
    assert failure.kind == "requires" and "gh_search_issues" in failure.detail
    assert report.steps_skipped == 1 and report.recall.total == 0
    assert run_check([path], offered_tools={"gh_search_issues"}).ok


def test_near_duplicates_are_named_in_pairs(tmp_path: Path) -> None:
    first = write(
        tmp_path / "a.json",
        bench(
            "a", "tr", [tool_case("k1", "Dolar kuru bugün ne kadar?", "web_search")], ["web_search"]
        ),
    )
    write(
        tmp_path / "b.json",
        bench(
            "b",
            "tr",
            [
                tool_case("k2", "dolar kuru bugun ne kadar", "web_search"),
                tool_case("k3", "euro kuru yarın ne olur acaba", "web_search"),
            ],
            ["web_search"],
        ),
    )
    report = run_check([tmp_path])
    duplicates = [f for f in report.failures if f.kind == "near-duplicate"]
    assert len(duplicates) == 1
    assert duplicates[0].file == str(first) and duplicates[0].case == "k1"
    assert "k2" in duplicates[0].detail and "b.json" in duplicates[0].detail
    assert (
        len(
            [
                f
                for f in run_check([tmp_path], similarity=100).failures
                if f.kind == "near-duplicate"
            ]
        )
        == 1
    )  # the normalised texts are identical


def test_register_variants_of_one_job_are_not_near_duplicates(tmp_path: Path) -> None:
    """One job typed with and without Turkish letters folds to nearly the same text: two
    registers measured on purpose. The same register twice, another job, the very same text
    under two registers (a copy) and a case without a register still are duplicates, short
    texts (compared exactly) as well."""

    def case(name: str, message: str, job: str, register: str) -> dict[str, Any]:
        return {**tool_case(name, message, "web_search"), "job": job, "register": register}

    write(tmp_path / "a.json", bench("a", "tr", [
        case("j1-casual", "bugün dolar kuru ne kadar oldu acaba", "j1", "casual"),
        case("j1-ascii", "bugun dolar kuru ne kadar oldu acaba", "j1", "ascii"),
        case("j1-ascii-again", "bugun dolar kuru ne kadar oldu acaba ya", "j1", "ascii"),
        case("j2-casual", "bugün dolar kuru ne kadar oldu acaba?", "j2", "casual"),
        case("s1-casual", "kur ne", "s1", "casual"),
        case("s1-caps", "KUR NE", "s1", "caps"),
        case("s2-ascii", "kur ne?", "s2", "ascii"),
        case("c1-formal", "dolar kuru bugün kaç lira acaba", "c1", "formal"),
        case("c1-whatsapp", "dolar kuru bugün kaç lira acaba", "c1", "whatsapp"),  # a copy
        {**tool_case("n1-a", "euro kuru yarın ne olur merak ettim", "web_search"), "job": "n1"},
        case("n1-formal", "euro kuru yarın ne olur merak ettim", "n1", "formal"),
    ], ["web_search"]))
    pairs = {(f.case, f.detail.split("case ")[1].split("'")[1])
             for f in run_check([tmp_path]).failures if f.kind == "near-duplicate"}
    # Each later case once, with its first earlier duplicate: j2-casual with j1-casual,
    # not again with j1-ascii and j1-ascii-again (issue 27: n copies give n - 1 pairs).
    assert pairs == {
        ("j1-casual", "j2-casual"), ("j1-ascii", "j1-ascii-again"), ("s1-casual", "s2-ascii"),
        ("c1-formal", "c1-whatsapp"), ("n1-a", "n1-formal"),
    }


def test_check_stays_linear_when_every_question_repeats_another(tmp_path: Path) -> None:
    """Issue 27: every pair of near-duplicates was a failure, so n copies of one question
    gave n²/2 of them (2,000 generated cases took 25 s and a gigabyte, 10,000 over 300 s).
    Each later case is named once now, with the first earlier case it repeats, and the
    search for it stops there: four times the cases, about four times the time."""

    def corpus(n: int) -> Path:
        folder = tmp_path / str(n)
        for start in range(0, n, 50):
            write(folder / f"f{start:05d}.json", bench(f"f{start}", "en", [
                {"name": f"c{i}", "category": "irrelevance", "steps": [{"message": (
                    f"please compute the product of these two numbers for me: {i} and {7 * i}")
                }]} for i in range(start, min(n, start + 50))], []))
        return folder

    def timed(folder: Path) -> tuple[float, list[Any]]:
        started = time.process_time()  # this process's CPU: other load does not count
        failures = run_check([folder], offered_tools=set()).failures
        return time.process_time() - started, [f for f in failures if f.kind == "near-duplicate"]

    small, large = corpus(500), corpus(2000)
    timed(small)  # imports and caches
    small_seconds, small_duplicates = timed(small)
    large_seconds, large_duplicates = timed(large)
    assert large_seconds < 8 * small_seconds + 0.5, (small_seconds, large_seconds)
    assert 400 < len(small_duplicates) < 500 and 1900 < len(large_duplicates) < 2000


def test_inline_scenario_tools_are_routable_by_their_description(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(
        "name: weather-tool\nlanguage: tr\n"
        "tools:\n  - name: hava_durumu_getir\n    description: Bir şehrin hava durumunu getirir.\n"
        "    result: '17 derece'\n"
        "cases:\n  - name: TC-1\n    category: tool\n    steps:\n"
        "      - message: Ankara'da hava nasıl?\n        expect: hava_durumu_getir\n",
        encoding="utf-8",
    )
    report = run_check([scenario])
    assert report.ok, report.render_table()
    assert report.by_group == {"own tools": report.recall}


def test_a_case_of_a_tool_of_yours_is_in_no_group_named_inline(tmp_path: Path) -> None:
    """tooleval init's cases, whose @tool is in conftest.py, were listed as 'inline'."""
    from pytest_tooleval.router.catalogue import builtin_specs
    from pytest_tooleval.tools.base import ToolSpec

    path = tmp_path / "shop.json"
    path.write_text(json.dumps({"name": "shop", "requires": ["order_status"], "cases": [
        {"name": "c", "category": "tool", "steps": [
            {"message": "Which carrier is bringing my order A-1042?",
             "expect": "order_status"}]}]}))
    mine = ToolSpec("order_status", "Look up a customer order in our shop: its status, "
                    "carrier and delivery date.", {"type": "object"}, "python:conftest.py")
    report = run_check([path], catalogue=[*builtin_specs(), mine])
    assert report.ok, report.render_table()
    assert report.by_group == {"own tools": report.recall}


def test_exit_codes_and_json(clean: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert check_main([str(tmp_path / "nope")]) == 2
    assert check_main([]) == 2
    assert check_main([str(clean), "--k", "0"]) == 2
    assert check_main([str(clean), "--k", "many"]) == 2
    out = tmp_path / "report.json"
    code = check_main([str(clean), "--offered", "web_search", "--json", str(out)])
    assert code == 1  # read_document and git_log are not offered
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["ok"] is False and data["k"] == 9
    assert {f["kind"] for f in data["failures"]} == {"requires"}
    assert set(data) >= {"recall", "by_language", "by_group", "by_register", "by_miss_class"}
    capsys.readouterr()
    assert check_main([str(clean), "--json", "-", "--language", "en"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["files"] == 1


def test_router_recall_carries_its_interval() -> None:
    """tooleval check printed 'router recall:  99.8% (653/654)', per scope and per split half
    alike, and the router doc 'recall 100.0% (654/654)', with no uncertainty: Wilson over
    the steps (none under 5), and the split table's columns as wide as their cells."""
    assert Tally(653, 654).render() == " 99.8% [99.1–100.0] (653/654)"
    assert Tally(4, 4).render() == "100.0% (4/4)"
    report = CheckReport(k=9)
    for hit, language, half in [(True, "en", "tuning")] * 9 + [(False, "en", "frozen")] + [
            (True, "en", "frozen")] * 9:
        report.count(hit, language, "g", "unspecified", half=half)
    text = report.render_table()
    assert "router recall:  94.7% [75.4–99.1] (18/19)" in text
    assert "    en                        94.7% [75.4–99.1] (18/19)" in text
    # The split table: the widest scope and cell, and two spaces, set the widths.
    table = text.splitlines()[-6:]
    assert table[1] == (f"  {'overall':<22}{'100.0% [70.1–100.0] (9/9)':<27}"
                        " 90.0% [59.6–98.2] (9/10)")
    assert table[-1] == (f"  {'fallback-only':<22}{'  0.0% [0.0–29.9] (0/9)':<27}"
                         "  0.0% [0.0–27.8] (0/10)")
    assert "recall 94.7% [75.4–99.1] (18/19)." in report.router_doc_section()


def test_write_router_doc_rewrites_only_the_marked_section(tmp_path: Path) -> None:
    path = write(
        tmp_path / "cases" / "miss.json",
        bench(
            "miss",
            "en",
            [tool_case("greet", "hello there, lovely day", "send_message")],
            ["send_message"],
        ),
    )
    doc = tmp_path / "router.md"
    doc.write_text(f"# Router\n\nintro\n\n{DOC_START}\nold\n{DOC_END}\n\ntail\n", encoding="utf-8")
    assert check_main([str(path), "--write-router-doc", str(doc)]) == 1
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Router\n\nintro\n") and text.endswith("\n\ntail\n")
    assert "old" not in text
    assert "| hello there, lovely day | send_message | stem |" in text


def test_route_command_prints_the_tools_and_triggers(capsys: pytest.CaptureFixture) -> None:
    assert route_main(["dolar kuru bugün ne kadar"]) == 0
    out = capsys.readouterr().out
    assert "(tr, k=9)" in out and "web_search" in out and "current information" in out
    assert len([line for line in out.splitlines() if line[:3].strip().rstrip(".").isdigit()]) == 9
    assert route_main(["what time is it", "--json", "--k", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["language"] == "en" and len(data["tools"]) == 3
    assert route_main(["x", "--k", "0"]) == 2
