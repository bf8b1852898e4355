"""Issue 12, build item 4: case files are untrusted input. Each hostile file gives a clear
message naming the file (and the case and field where it can), quickly, never a
traceback, a hang or a fetch."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file

CASE = ("cases:\n  - name: c1\n    category: tool\n    steps:\n      - message: hello\n"
        "        expect: [probe]\n")


def _alias_bomb(indent: str) -> str:
    """About 1.2 KB standing for 10**9 strings."""
    lines = [f"{indent}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, 10):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"{indent}a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n"


def _scenario(tool_body: str) -> str:
    return ("name: hostile\nlanguage: en\nrequires: []\ntools:\n  - name: probe\n"
            "    description: a probe\n" + tool_body + CASE)


def _load(tmp_path: Path, name: str, text: str, seconds: float = 5.0) -> CaseFileError:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(CaseFileError) as caught:
        load_case_file(path)
    assert time.perf_counter() - started < seconds
    assert str(path) in str(caught.value)
    return caught.value


def test_alias_bomb_in_parameters_is_refused_quickly(tmp_path: Path) -> None:
    body = ("    parameters:\n      type: object\n      properties: {}\n"
            "      x-bomb:\n" + _alias_bomb("        "))
    assert len(body) < 1600
    error = _load(tmp_path, "bomb.yaml", _scenario(body))
    assert "alias" in str(error) and "line" in str(error)


def test_alias_bomb_in_a_result_is_refused_quickly(tmp_path: Path) -> None:
    body = "    result:\n" + _alias_bomb("      ")
    error = _load(tmp_path, "bomb-result.yaml", _scenario(body))
    assert "alias" in str(error)


def test_tooleval_check_on_an_alias_bomb_returns_quickly(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    from pytest_tooleval.cli import main

    path = tmp_path / "bomb.yaml"
    path.write_text(_scenario("    result:\n" + _alias_bomb("      ")), encoding="utf-8")
    started = time.perf_counter()
    code = main(["check", str(path)])
    assert time.perf_counter() - started < 20
    assert code != 0
    assert "alias" in capsys.readouterr().out


def test_recursive_alias_is_refused(tmp_path: Path) -> None:
    error = _load(tmp_path, "loop.yaml", _scenario("    result: &r [1, *r]\n"))
    assert "recursive alias" in str(error)


def test_json_nested_100000_deep_gives_a_message(tmp_path: Path) -> None:
    text = '{"name": "x", "cases": ' + "[" * 100_000 + "]" * 100_000 + "}"
    error = _load(tmp_path, "deep.json", text)
    assert "nested too deeply" in str(error)


def test_a_5000_deep_array_in_a_result_gives_a_message(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    text = ('{"name": "x", "language": "en", "tools": [{"name": "probe", "description": "p", '
            f'"result": {deep}}}], "cases": []}}')
    error = _load(tmp_path, "deep-result.json", text)
    assert "nested too deeply" in str(error) or "nested deeper" in str(error)


def test_moderate_nesting_names_the_field(tmp_path: Path) -> None:
    deep = "[" * 100 + "]" * 100
    text = ('{"name": "x", "language": "en", "tools": [{"name": "probe", "description": "p", '
            f'"result": {deep}}}], "cases": []}}')
    error = _load(tmp_path, "deep100.json", text)
    assert "nested deeper than" in str(error) and "tools.0.result" in str(error)


def test_a_yaml_set_gives_a_message_not_a_type_error(tmp_path: Path) -> None:
    error = _load(tmp_path, "set.yaml", "name: s\nlanguage: en\ncases: !!set {a, b}\n")
    assert "!!set" in str(error) and "'cases'" in str(error)


def test_a_yaml_date_gives_a_message_not_an_internal_error(tmp_path: Path) -> None:
    """An unquoted date is a YAML timestamp, not JSON data: as a canned result, a gold
    argument or a key it made the oracle (and a run) fail with 'internal error ... date is
    not JSON serializable'."""
    body = "    result: 2026-03-14\n"
    error = _load(tmp_path, "date.yaml", _scenario(body))
    assert "date" in str(error) and "tools.0.result" in str(error) and "quote" in str(error)
    gold = CASE + "        gold: [{tool: probe, args: {day: 2026-03-14 10:00:00}}]\n"
    text = _scenario("    result: ok\n").replace(CASE, gold)
    error = _load(tmp_path, "gold-date.yaml", text)
    assert "'c1'" in str(error) and "step 1" in str(error) and "gold.0.args.day" in str(error)
    text = _scenario("    result: {2026-03-14: ok}\n")
    assert "tools.0.result" in str(_load(tmp_path, "key-date.yaml", text))


def test_a_byte_order_mark_is_accepted_in_json_and_yaml(tmp_path: Path) -> None:
    data = {"name": "bom", "language": "en", "requires": ["calculator"], "cases": [
        {"name": "c1", "category": "tool",
         "steps": [{"message": "What is 2+2?", "expect": ["calculator"]}]}]}
    json_path = tmp_path / "bom.json"
    json_path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data).encode())
    yaml_path = tmp_path / "bom.yaml"
    yaml_path.write_bytes(b"\xef\xbb\xbf" + (
        b"name: bom\nlanguage: en\nrequires: [calculator]\ncases:\n  - name: c1\n"
        b"    category: tool\n    steps:\n"
        b"      - message: What is 2+2?\n        expect: [calculator]\n"))
    assert load_case_file(json_path).name == load_case_file(yaml_path).name == "bom"


def test_a_remote_ref_is_refused_at_load_and_nothing_is_fetched(tmp_path: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        body = ("    parameters:\n      type: object\n      properties:\n"
                f"        q: {{$ref: 'http://127.0.0.1:{port}/schema.json'}}\n")
        error = _load(tmp_path, "remote.yaml", _scenario(body))
        assert "points outside this file" in str(error)
        assert "tools.probe.parameters.properties.q.$ref" in str(error)
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()


def test_missing_and_recursive_local_refs_are_refused(tmp_path: Path) -> None:
    missing = ("    parameters:\n      type: object\n      properties:\n"
               "        q: {$ref: '#/$defs/nothing'}\n")
    assert "points at nothing" in str(_load(tmp_path, "missing.yaml", _scenario(missing)))
    recursive = ("    parameters:\n      type: object\n      $defs:\n"
                 "        a: {type: object, properties: {b: {$ref: '#/$defs/b'}}}\n"
                 "        b: {type: object, properties: {a: {$ref: '#/$defs/a'}}}\n"
                 "      properties:\n        q: {$ref: '#/$defs/a'}\n")
    assert "recursive $ref" in str(_load(tmp_path, "rec.yaml", _scenario(recursive)))
    itself = "    parameters:\n      type: object\n      properties:\n        q: {$ref: '#'}\n"
    assert "recursive $ref" in str(_load(tmp_path, "self.yaml", _scenario(itself)))


def test_a_good_local_ref_still_loads(tmp_path: Path) -> None:
    body = ("    parameters:\n      type: object\n      $defs:\n"
            "        id: {type: string, pattern: '^[0-9]+$'}\n"
            "      properties:\n        q: {$ref: '#/$defs/id'}\n      required: [q]\n"
            "    result: ok\n")
    path = tmp_path / "good.yaml"
    path.write_text(_scenario(body).replace("expect: [probe]", "expect: [probe]"),
                    encoding="utf-8")
    assert load_case_file(path).tools[0].parameters["$defs"]["id"]["type"] == "string"


@pytest.mark.parametrize("rel", ["Projects/kestrel/.git/config.worktree",
                                 "Projects/kestrel/.GIT/hooks/pre-commit", "a/.git"])
def test_world_files_may_not_plant_inside_git(tmp_path: Path, rel: str) -> None:
    text = ("name: plant\nlanguage: en\nworld:\n  files:\n"
            f"    {rel}: '[filter \"x\"]'\n" + CASE.replace("[probe]", "[]"))
    error = _load(tmp_path, "plant.yaml", text)
    assert ".git folder" in str(error) and f"world.files.{rel}" in str(error)


@pytest.mark.parametrize("rel", ["Documents", "Notes/", "Projects/kestrel/kestrel", "a.txt"])
def test_world_files_may_not_name_a_folder(tmp_path: Path, rel: str) -> None:
    """A template folder, a trailing slash, or a key that is another key's folder: refused
    at load (each failed every case at run time, or wrote a file named like the folder)."""
    text = ("name: folder\nlanguage: en\nworld:\n  files:\n"
            f"    {rel}: x\n    a.txt/b.txt: y\n" + CASE.replace("[probe]", "[]"))
    error = str(_load(tmp_path, "folder.yaml", text))
    assert f"world.files.{rel}" in error and "names a folder" in error
    assert error.count("names a folder") == 1


# Issue 27, item 8: every input refused with one message naming the file, case, step and
# field, and the fix; never a traceback, a MemoryError or a silent skip.


def _bench(step: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    return {"name": "hostile", "language": "en", "requires": ["calculator"], "cases": [
        {"name": "c1", "category": "tool", "steps": [
            {"message": "What is 2+2?", "expect": ["calculator"], **(step or {})}]}],
        **fields}


def _yaml_args(value: str) -> str:
    return ("name: hostile\nlanguage: en\nrequires: [calculator]\ncases:\n  - name: c1\n"
            "    category: tool\n    steps:\n      - message: What is 2+2?\n"
            f"        expect: [calculator]\n        args: {{expression: [{value}]}}\n")


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from pytest_tooleval.cli import main

    code = main(["check", "--offered", "calculator", "--offered", "probe", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_byte_bomb_is_refused_in_collection_and_by_check(
        project: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """One 1 MiB string anchored once and referred to 2,000 times: 2,004 nodes, far under
    the node bound, but 2 GiB of text once expanded. Collection ended in
    ``INTERNALERROR> MemoryError`` (the case hash dumps the tools as JSON) while
    ``tooleval check`` accepted the file; both refuse it now, by the same bound."""
    project.profile("http://127.0.0.1:9/v1")
    body = ("    result: &big " + "x" * 2**20 + "\n    parameters:\n      type: object\n"
            "      properties: {}\n      x-refs: [" + ", ".join(["*big"] * 2000) + "]\n")
    path = project.write("scenarios/bomb.yaml", _scenario(body))
    started = time.perf_counter()
    result = project.run("--collect-only", "-q")
    assert time.perf_counter() - started < 30
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and result.parseoutcomes().get("errors") == 1
    assert "past 8 MiB of text (a byte bomb?)" in output and "bomb.yaml" in output
    code, output = _check(path, capsys)
    assert code == 1 and "past 8 MiB of text (a byte bomb?)" in output


def test_a_case_file_over_the_size_bound_is_refused_unread(tmp_path: Path) -> None:
    """Valid JSON, one byte over the bound that YAML's expanded text has too."""
    text = json.dumps(_bench())
    error = _load(tmp_path, "big.json", text + " " * (8 * 2**20 + 1 - len(text)))
    assert "larger than 8 MiB" in str(error) and "split it" in str(error)


@pytest.mark.parametrize("name, text", [
    ("decimal.json", json.dumps(_bench({"args": {"expression": ["N"]}})).replace(
        '"N"', "9" * 5000)),
    ("decimal.yaml", _yaml_args("9" * 5000)),
    ("hex.yaml", _yaml_args("0x" + "f" * 4000)),  # converts (base 16 has no limit): 4,817 digits
    ("base60.yaml", _yaml_args("1" + ":1" * 20_000)),  # YAML 1.1 base 60: quadratic to compute
])
def test_a_huge_integer_is_refused_with_case_step_and_field(tmp_path: Path, name: str,
                                                            text: str) -> None:
    """Over 4,300 digits Python refuses int() and str(): a raw ``ValueError`` traceback at
    load, or (hexadecimal, base 60) later, wherever the value was printed."""
    error = str(_load(tmp_path, name, text))
    assert "an integer of more than 4300 digits" in error
    assert "case 'c1', step 1, field 'args.expression.0'" in error and "fix: " in error
    assert len(error) < 1000


@pytest.mark.parametrize("name, literal", [
    ("nan.json", "NaN"), ("inf.json", "Infinity"), ("minus-inf.json", "-Infinity"),
    ("overflow.json", "1e999"), ("nan.yaml", ".nan"), ("inf.yaml", ".inf"),
])
def test_nan_and_infinity_are_refused_with_case_step_and_field(tmp_path: Path, name: str,
                                                               literal: str) -> None:
    """Python's JSON reader accepts NaN, Infinity and an overflowing number, YAML its
    ``.nan`` and ``.inf``: none is a JSON number, and a report written with them is not
    JSON."""
    text = (json.dumps(_bench({"args": {"expression": ["N"]}})).replace('"N"', literal)
            if name.endswith(".json") else _yaml_args(literal))
    error = str(_load(tmp_path, name, text))
    assert "where a number is expected: JSON has no such number" in error
    assert "case 'c1', step 1, field 'args.expression.0'" in error and "fix: " in error


@pytest.mark.parametrize("key", ["cases", "steps"])
def test_a_tool_argument_named_cases_or_steps_is_not_taken_for_a_case_or_step(
        tmp_path: Path, key: str) -> None:
    """The location of a bad value under ``args.cases`` read that "cases" as the file's
    (an IndexError traceback), and under ``args.steps`` in step 2 said step 1."""
    bench = _bench({"args": {"expression": ["2+2"]}})
    bench["cases"][0]["steps"].append({"message": "and 3+3?", "expect": ["calculator"],
                                       "args": {key: ["N"]}})
    error = str(_load(tmp_path, "c.json", json.dumps(bench).replace('"N"', "NaN")))
    assert f"case 'c1', step 2, field 'args.{key}.0'" in error and "fix: " in error


def test_a_nul_character_is_refused_in_a_message_and_in_a_key(tmp_path: Path) -> None:
    error = str(_load(tmp_path, "nul.json", json.dumps(_bench({"message": "What is\0 2+2?"}))))
    assert "NUL character" in error and "case 'c1', step 1, field 'message'" in error
    text = ('name: nul\nlanguage: en\nworld:\n  files:\n    "Documents/a\\0b.txt": hi\n'
            + CASE.replace("[probe]", "[]"))
    error = str(_load(tmp_path, "nul-key.yaml", text))
    assert "NUL character" in error and "field 'world.files.Documents/a\\x00b.txt'" in error


def test_an_overlong_name_is_refused_without_repeating_it(tmp_path: Path) -> None:
    data = _bench()
    data["cases"][0]["name"] = "a" * 10_000
    error = str(_load(tmp_path, "long-case.json", json.dumps(data)))
    assert "case '#1 (" in error and "field 'name': String should have at most 100" in error
    assert "fix: shorten it" in error and len(error) < 1000
    error = str(_load(tmp_path, "long-file.json", json.dumps({**_bench(), "name": "b" * 10_000})))
    assert "field 'name': String should have at most 100" in error and len(error) < 1000


def test_two_files_with_one_benchmark_name_are_refused(
        project: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """The name is the benchmark's identity in a run (docs/format.md: unique in a run)."""
    project.profile("http://127.0.0.1:9/v1")
    first = project.write("benchmarks/a.json", _bench(name="same"))
    second = project.write("benchmarks/b.json", {**_bench(name="same"), "cases": [
        {"name": "c2", "category": "irrelevance", "steps": [{"message": "thanks a lot"}]}]})
    result = project.run("--collect-only", "-q")
    assert result.parseoutcomes().get("errors") == 1
    result.stdout.fnmatch_lines([f"*{second}*field 'name': the benchmark name 'same' is "
                                 f"already the name of {first}*",
                                 "*fix: rename one of them*"])
    code, output = _check(project.path / "benchmarks", capsys)
    assert code == 1 and "the benchmark name 'same' is already the name of" in output


def test_a_folder_named_like_a_case_file_is_refused(
        project: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """pytest and ``tooleval check`` walked into it (or past it) silently."""
    project.profile("http://127.0.0.1:9/v1")
    project.write("benchmarks/good.json", _bench(name="good"))
    (project.path / "benchmarks" / "x.json").mkdir()
    result = project.run("--collect-only", "-q")
    assert result.parseoutcomes().get("errors") == 1
    result.stdout.fnmatch_lines(["*x.json*a folder named like a case file*",
                                 "*fix: rename the folder*"])
    code, output = _check(project.path / "benchmarks", capsys)
    assert code == 2 and "x.json: a folder named like a case file" in output
