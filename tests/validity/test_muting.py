"""Nothing mutes a case silently: pytest's skip/xfail as marks or groups, duplicate keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file


def case(**fields: Any) -> dict[str, Any]:
    return {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks!"}],
            **fields}


def refusal(tmp_path: Path, text: str, suffix: str = ".json") -> str:
    path = tmp_path / f"f{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    return str(info.value)


@pytest.mark.parametrize("mark", ["skip", "xfail", "skipif", "SKIP"])
def test_muting_marks_are_refused_on_cases(tmp_path: Path, mark: str) -> None:
    text = refusal(tmp_path, json.dumps({"name": "m", "cases": [case(marks=[mark])]}))
    assert f"the mark {mark!r} is pytest's own mark" in text and "case 'thanks'" in text


def test_muting_groups_and_file_marks_are_refused(tmp_path: Path) -> None:
    text = refusal(tmp_path, json.dumps({"name": "m", "cases": [case(group="skip")]}))
    assert "the group 'skip' is pytest's own mark" in text
    text = refusal(tmp_path, json.dumps({"name": "m", "marks": ["xfail"], "cases": [case()]}))
    assert "the mark 'xfail'" in text and "field 'marks'" in text


def test_ordinary_marks_still_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"name": "m", "cases": [case(marks=["hardmode"], group="x")]}))
    assert load_case_file(path).cases[0].marks == ["hardmode"]


def test_a_duplicate_json_key_is_refused(tmp_path: Path) -> None:
    first = json.dumps([case(name="a")])
    second = json.dumps([case(name="b")])
    text = refusal(tmp_path, f'{{"name": "d", "cases": {first}, "cases": {second}}}')
    assert "duplicate key 'cases' in the object 'd'" in text and "silently" in text


def test_a_duplicate_key_inside_a_step_is_refused(tmp_path: Path) -> None:
    text = refusal(tmp_path, '{"name": "d", "cases": [{"name": "c", "category": "tool", '
                             '"steps": [{"message": "hi", "expect": "calculator", '
                             '"expect": "web_search"}]}]}')
    assert "duplicate key 'expect' in the object 'hi'" in text


def test_a_duplicate_yaml_key_is_refused_with_its_line(tmp_path: Path) -> None:
    yaml_text = (
        "name: d\n"
        "cases:\n  - {name: a, category: irrelevance, steps: [{message: hi}]}\n"
        "cases:\n  - {name: b, category: irrelevance, steps: [{message: ho}]}\n"
    )
    text = refusal(tmp_path, yaml_text, ".yaml")
    assert "not valid YAML at line 4" in text
    assert "duplicate key 'cases' (first at line 2)" in text


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "merge.yaml"
    path.write_text(
        "name: m\n"
        "cases:\n"
        "  - &base {name: a, category: irrelevance, steps: [{message: hi}]}\n"
        "  - {<<: *base, name: b}\n",
        encoding="utf-8",
    )
    assert [c.name for c in load_case_file(path).cases] == ["a", "b"]


def test_a_skip_mark_stops_the_pytest_run(project: Any) -> None:
    project.profile("http://127.0.0.1:9/v1")
    project.write("benchmarks/muted.json", {"name": "muted", "cases": [case(marks=["skip"])]})
    result = project.run("benchmarks/muted.json")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*muted.json, case 'thanks', field 'marks': the mark 'skip'*"])


@pytest.mark.parametrize("mark", ["", "hard mode"])
def test_a_file_mark_is_an_identifier_as_a_case_mark_is(tmp_path: Path, mark: str) -> None:
    # A file's "" crashed pytest's collection with an IndexError traceback (tooleval check
    # passed it); "hard mode" was refused on a case but taken on the file.
    text = refusal(tmp_path, json.dumps({"name": "m", "marks": [mark], "cases": [case()]}))
    assert "field 'marks': a mark must be a Python identifier" in text
