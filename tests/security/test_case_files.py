"""Issue 12, build item 4: case files are untrusted input. Each hostile file gives a clear
message naming the file (and the case and field where it can), quickly, never a
traceback, a hang or a fetch."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

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
