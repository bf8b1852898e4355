"""``tooleval import bfcl`` on entries cut from BFCL's own v3 and v4 files
(tests/fixtures/bfcl, Apache-2.0, see its NOTICE): the kind from BFCL's file name, all or
nothing, gold calls the oracle proves, refused entries named, the language, duplicates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_tooleval.cases import bfcl
from pytest_tooleval.cases.errors import CaseFileError, Problem
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cli import main
from tests.support.fake_openai import Rule, answer, call

FIXTURES = Path(__file__).parent / "fixtures" / "bfcl"
FOUR = ("BFCL_v4_simple_python.json", "BFCL_v4_multiple.json", "BFCL_v4_irrelevance.json",
        "BFCL_v4_live_irrelevance.json")
BAD = {"simple_python_307": "a ground truth its own function's schema refuses at venue: "
                            "True is not of type 'string'",
       "live_irrelevance_214-34-3": "a system prompt (the case format has no place for one)",
       "live_irrelevance_296-73-3": "earlier turns (user, assistant, user; "}


def _import(out: Path, *names: str, extra: tuple[str, ...] = ()) -> int:
    return main(["import", "bfcl", *(str(FIXTURES / n) for n in names), "--out", str(out),
                 *extra])


def _cases(out: Path) -> dict[str, tuple[str, object]]:
    """Each imported case by name: (its file's language, the case)."""
    found = {}
    for path in sorted(out.glob("*.json")):
        loaded = load_case_file(path)
        found.update({case.name: (loaded.language, case) for case in loaded.cases})
    return found


def test_the_kind_is_bfcls_own_name_and_other_kinds_are_refused_by_name(tmp_path,
                                                                       capsys) -> None:
    # "parallel_multiple" holds "multiple": a substring match imported each entry's first
    # call only. "simple_java" holds "simple".
    assert _import(tmp_path / "o", "BFCL_v4_parallel_multiple.json") == 2
    err = capsys.readouterr().err
    assert ("BFCL kind 'parallel_multiple' (2 entries) is not supported: each entry expects "
            "several calls") in err
    java = tmp_path / "BFCL_v4_simple_java.json"
    java.write_text('{"id": "simple_java_0"}\n')
    with pytest.raises(bfcl.BfclError, match="'simple_java' \\(1 entries\\) is not supported"):
        bfcl.kind_of(java)
    renamed = tmp_path / "simple_python.json"
    shutil.copy(FIXTURES / "BFCL_v4_simple_python.json", renamed)
    with pytest.raises(bfcl.BfclError, match="not a BFCL file name"):
        bfcl.kind_of(renamed)
    assert [bfcl.kind_of(Path(n)) for n in ("BFCL_v3_simple.json", "BFCL_v4_simple_python.json",
                                            "BFCL_v3_live_irrelevance.json")] == [
        "simple", "simple_python", "live_irrelevance"]
    assert not (tmp_path / "o").exists()


def test_a_bad_entry_writes_nothing_and_is_named_with_its_reason(tmp_path, capsys) -> None:
    assert _import(tmp_path / "o", *FOUR) == 1
    err = capsys.readouterr().err
    assert "3 entries cannot be converted, so nothing was written" in err
    for bfcl_id, reason in BAD.items():
        assert f"{bfcl_id}: {reason}" in err
    assert list(tmp_path.iterdir()) == []  # neither the folder nor a staging folder


def test_skip_bad_imports_the_others_and_lists_what_was_skipped(tmp_path, capsys) -> None:
    out = tmp_path / "o"
    assert _import(out, *FOUR, extra=("--skip-bad",)) == 0
    printed = capsys.readouterr().out
    for bfcl_id, reason in BAD.items():
        assert f"skipped {bfcl_id}: {reason}" in printed
    assert ("skipped 3 entries: 1 × a ground truth its own function's schema refuses; "
            "1 × a system prompt; 1 × earlier turns") in printed
    cases = _cases(out)
    assert not set(BAD) & set(cases)
    assert len(cases) == 11


def test_an_output_that_fails_the_guards_leaves_nothing_behind(tmp_path, monkeypatch,
                                                               capsys) -> None:
    checked: list[Path] = []

    def second_fails(path: Path, *args: object, **kwargs: object) -> None:
        checked.append(path)
        if len(checked) == 2:
            raise CaseFileError(str(path), [Problem("broken", "fix it")])

    monkeypatch.setattr(bfcl, "load_case_file", second_fails, raising=False)
    monkeypatch.setattr("pytest_tooleval.cases.load.load_case_file", second_fails)
    assert _import(tmp_path / "o", "BFCL_v4_multiple.json", "BFCL_v4_irrelevance.json") == 2
    assert "would not pass the guards" in capsys.readouterr().err
    assert len(checked) == 2 and list(tmp_path.iterdir()) == []  # not the first file either
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.json").write_text("{}")
    assert _import(tmp_path / "full", *FOUR, extra=("--skip-bad",)) == 2
    assert "is not an empty folder" in capsys.readouterr().err


def test_imported_cases_carry_gold_calls_the_oracle_proves(tmp_path, monkeypatch,
                                                           capsys) -> None:
    out = tmp_path / "o"
    assert _import(out, *FOUR, extra=("--skip-bad",)) == 0
    printed = capsys.readouterr().out
    # BFCL asks simple_python_4 again as multiple_96: left out and named once, at import
    assert "1 entries left out as near-duplicates" in printed
    assert "multiple_96 ~ simple_python_4 (100% similar)" in printed
    cases = _cases(out)
    assert "multiple_96" not in cases
    area = cases["simple_python_0"][1].steps[0]
    assert area.expect == ["calculate_triangle_area"]
    assert area.args == {"base": [10], "height": [5], "unit": ["units", ""]}
    assert [(g.tool, g.args) for g in area.gold] == [
        ("calculate_triangle_area", {"base": 10, "height": 5, "unit": "units"})]
    nested = cases["simple_python_89"][1].steps[0]
    assert nested.gold[0].args["conditions"] == {"department": "Science",
                                                 "school": "Bluebird High School"}
    assert nested.gold[0].args["fetch_limit"] == 0  # ["", 0]: the value given
    assert "conditions" not in nested.args  # a nested constraint: the gold call has it
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--oracle", "--no-builtin", "--no-cache", str(out)]) == 0
    report = capsys.readouterr().out
    assert "oracle: 11/11 cases proven by their gold path" in report
    assert "near-duplicate" not in report


def test_only_bfcls_curated_files_are_labelled_english(tmp_path) -> None:
    live = tmp_path / "BFCL_v4_live_irrelevance.json"
    live.write_text("".join(line for line in (FIXTURES / live.name).open(encoding="utf-8")
                            if json.loads(line)["id"] not in BAD), encoding="utf-8")
    out = tmp_path / "o"
    assert main(["import", "bfcl", str(live), str(FIXTURES / "BFCL_v4_irrelevance.json"),
                 "--out", str(out)]) == 0
    cases = _cases(out)
    assert {name: lang for name, (lang, _) in cases.items()} == {
        "live_irrelevance_0-0-0": "und", "live_irrelevance_58-2-46": "und",
        "irrelevance_0": "en", "irrelevance_1": "en", "irrelevance_2": "en"}
    assert cases["live_irrelevance_58-2-46"][1].steps[0].message == "Olá, tudo bem?"


def test_v3_file_names_and_answers(tmp_path) -> None:
    out = tmp_path / "o"
    assert _import(out, "BFCL_v3_simple.json") == 0
    cases = _cases(out)
    factorial = cases["simple_1"][1]
    assert factorial.group == "bfcl-simple"
    assert [(g.tool, g.args) for g in factorial.steps[0].gold] == [("math_factorial",
                                                                    {"number": 5})]


def test_functions_become_json_schema_tools(tmp_path) -> None:
    out = tmp_path / "o"
    assert _import(out, "BFCL_v4_multiple.json", "BFCL_v4_irrelevance.json",
                   "BFCL_v4_live_irrelevance.json", extra=("--skip-bad",)) == 0
    tools = {t.name: t for p in out.glob("*.json") for t in load_case_file(p).tools}
    budget = tools["realestate_find_properties"].parameters["properties"]["budget"]
    assert budget["type"] == "object"  # BFCL's "dict"
    assert tools["math_sum"].parameters["properties"]["numbers"]["items"] == {
        "type": "number"}  # BFCL's "float"
    timeout = tools["requests_get"].parameters["properties"]["timeout"]
    assert (timeout["type"], timeout["default"]) == ("number", 5.0)


def test_import_packs_at_most_nine_tools_per_file(tmp_path) -> None:
    source = tmp_path / "BFCL_v4_irrelevance.json"
    rows = [{"id": f"irrelevance_{i}", "question": [[{"role": "user", "content": f"hi {i}"}]],
             "function": [{"name": f"tool_{i}", "description": f"Tool number {i}.",
                           "parameters": {"type": "dict", "properties": {}}}]}
            for i in range(20)]
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    imported = bfcl.import_bfcl([source])
    assert [len(f["tools"]) for f in imported.files.values()] == [bfcl.TOOLS_PER_FILE,
                                                                  bfcl.TOOLS_PER_FILE, 2]
    assert sum(len(f["cases"]) for f in imported.files.values()) == 20


def test_an_entry_in_another_shape_is_named_not_a_traceback(tmp_path, capsys) -> None:
    """A 'question' that is a flat list of messages (not a list of turns), a ground truth
    whose parameters are not an object and a function doc whose parameters are no schema
    ended the import with an AttributeError."""
    function = {"name": "circle_area", "description": "area",
                "parameters": {"type": "dict", "properties": {"r": {"type": "integer"}}}}
    rows = [{"id": "simple_0", "question": [{"role": "user", "content": "area of r=4?"}],
             "function": [function]},
            {"id": "simple_1", "question": [[{"role": "user", "content": "area of r=5?"}]],
             "function": [function]},
            {"id": "simple_2", "question": [[{"role": "user", "content": "area of r=6?"}]],
             "function": [{**function, "parameters": {"type": "dict",
                                                      "properties": {"r": "integer"}}}]}]
    answers = [{"id": "simple_0", "ground_truth": [{"circle_area": {"r": [4]}}]},
               {"id": "simple_1", "ground_truth": [{"circle_area": ["r", 5]}]},
               {"id": "simple_2", "ground_truth": [{"circle_area": {"r": [6]}}]}]
    (tmp_path / "possible_answer").mkdir()
    for folder, lines in ((tmp_path, rows), (tmp_path / "possible_answer", answers)):
        (folder / "BFCL_v3_simple.json").write_text(
            "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["import", "bfcl", str(tmp_path / "BFCL_v3_simple.json"),
                 "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "simple_0: a 'question' turn that is not a list of messages" in err
    assert "simple_1: a ground truth whose arguments are not an object" in err
    assert "simple_2: a function whose parameters are not a valid schema" in err


def test_a_missing_answer_file_names_the_fix(tmp_path, capsys) -> None:
    lonely = tmp_path / "BFCL_v4_simple_python.json"
    shutil.copy(FIXTURES / lonely.name, lonely)
    assert main(["import", "bfcl", str(lonely), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "needs its possible_answer file" in err and "--answers" in err


def test_imported_bfcl_runs_through_the_plugin(project, fake_model) -> None:
    out = project.path / "benchmarks" / "bfcl"
    assert _import(out, "BFCL_v4_simple_python.json", "BFCL_v4_irrelevance.json",
                   extra=("--skip-bad",)) == 0
    server = fake_model([
        Rule("Find the area of a triangle", [call("calculate_triangle_area",
                                                  {"base": 10, "height": 5}), answer("25")]),
        Rule("Solve the quadratic equation with", [call("math_sum", {"numbers": [1, 2, 3]}),
                                                   answer("6")]),
        Rule("", [answer("I cannot do that with these tools.")]),
    ])
    project.profile(server)
    project.run(str(out), "-k", "simple_python_0 or irrelevance_0 or irrelevance_1")
    outcomes = {c["case"]: c["outcome"] for c in project.report()["cases"]}
    assert outcomes == {"simple_python_0": "PASS", "irrelevance_0": "PASS",
                        "irrelevance_1": "FAIL"}
