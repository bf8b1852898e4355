"""The per-file parts of ``tooleval check`` (check/cache.py ``FileParts``): after editing
one case file only that file is loaded, guarded and routed again, and the report equals
a computed one (``--no-cache``) after every edit: guard failures, router misses, near
duplicates across files, a split folder's halves, another language or option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.check import cache, static
from pytest_tooleval.check.split import dump, make_split
from pytest_tooleval.cli.check import main as check_main


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _file(name: str, language: str, steps: list[tuple[str, str]], **extra: Any) -> dict[str, Any]:
    inline = {tool["name"] for tool in extra.get("tools", [])}
    requires = sorted({tool for _, tool in steps} - inline)
    return {"name": name, "language": language, "requires": requires, **extra, "cases": [
        {"name": f"{name}-{i}", "category": "tool", "steps": [
            {"message": message, "expect": tool}]} for i, (message, tool) in enumerate(steps)]}


def _corpus(root: Path) -> Path:
    _write(root / "en" / "calc.json", _file("calc", "en", [
        ("what is 1234 * 5678?", "calculator"), ("convert 5 miles to km please", "convert_units")]))
    _write(root / "en" / "docs.json", _file("docs", "en", [
        ("what does my lease say about the deposit?", "search_documents"),
        ("what's the euro exchange rate today?", "web_search")]))
    _write(root / "tr" / "web.json", _file("web", "tr", [
        ("dolar kuru bugün ne kadar", "web_search"), ("12 çarpı 7 kaç eder?", "calculator")]))
    _write(root / "en" / "inline.json", _file(
        "inline", "en", [("where is my order ORD-12345?", "lookup_order")],
        tools=[{"name": "lookup_order", "description": "Details of one order by its id.",
                "parameters": {"type": "object", "properties": {"order_id": {
                    "type": "string"}}, "required": ["order_id"]},
                "result": {"status": "shipped"}}]))
    return root


class _Counting:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loaded: list[str] = []
        real = static.load_case_file

        def load(path: Path, *args: Any, **kwargs: Any) -> Any:
            self.loaded.append(path.name)
            return real(path, *args, **kwargs)

        monkeypatch.setattr(static, "load_case_file", load)

    def take(self) -> list[str]:
        loaded, self.loaded = self.loaded, []
        return sorted(loaded)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = check_main([*args, "--mcp", "off", "--json", "-"])
    data = json.loads(capsys.readouterr().out)
    check_main([*args, "--mcp", "off"])
    table = capsys.readouterr().out
    return code, data, table


def _strip(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in ("seconds", "cached")}


def _table(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "ms" not in line)


def _agree(capsys: pytest.CaptureFixture[str], counting: _Counting, *args: str) -> list[str]:
    """Check with the parts (first, so that the files it loads are counted), then with
    --no-cache; the two reports and tables must be the same. The files loaded afresh."""
    code, data, table = _run(capsys, *args)
    loaded = counting.take()
    fresh_code, fresh, fresh_table = _run(capsys, *args, "--no-cache")
    counting.take()
    assert code == fresh_code
    assert data["cached"] is False
    assert _strip(data) == _strip(fresh)
    assert _table(table) == _table(fresh_table)
    return loaded


def test_editing_one_file_recomputes_only_that_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    counting = _Counting(monkeypatch)
    assert len(_agree(capsys, counting, str(corpus))) == 4
    calc = corpus / "en" / "calc.json"
    # A router miss in one file.
    _write(calc, _file("calc", "en", [
        ("what is 1234 * 5678?", "calculator"), ("hello there", "convert_units")]))
    assert _agree(capsys, counting, str(corpus)) == ["calc.json"]
    # A guard failure (evidence the message holds) in another.
    docs = corpus / "en" / "docs.json"
    data = json.loads(docs.read_text(encoding="utf-8"))
    data["cases"][0]["steps"][0]["evidence"] = ["the deposit"]
    _write(docs, data)
    assert _agree(capsys, counting, str(corpus)) == ["docs.json"]
    # A near duplicate across files: the new file's question repeats calc.json's.
    _write(corpus / "en" / "again.json", _file("again", "en", [
        ("what is 1234 * 5678 ?", "calculator")]))
    assert _agree(capsys, counting, str(corpus)) == ["again.json"]
    # A file that no longer loads at all, and a schema jsonschema must judge.
    inline = corpus / "en" / "inline.json"
    data = json.loads(inline.read_text(encoding="utf-8"))
    data["tools"][0]["parameters"]["properties"]["order_id"]["type"] = "strin"
    _write(inline, data)
    assert _agree(capsys, counting, str(corpus)) == ["inline.json"]
    # Removing a file: nothing is loaded again, and the report still agrees.
    (corpus / "en" / "again.json").unlink()
    assert _agree(capsys, counting, str(corpus)) == []
    # The whole input seen before: the whole report comes from the cache.
    _, data, _ = _run(capsys, str(corpus))
    assert data["cached"] is True and counting.take() == []


def test_options_and_paths_keep_their_own_parts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    counting = _Counting(monkeypatch)
    _agree(capsys, counting, str(corpus))
    # Another option: its own parts (every file computed once), then reused.
    assert len(_agree(capsys, counting, str(corpus), "--k", "1")) == 4
    assert len(_agree(capsys, counting, str(corpus), "--language", "tr")) == 4
    assert len(_agree(capsys, counting, str(corpus), "--offered", "web_search")) == 4
    _write(corpus / "tr" / "web.json", _file("web", "tr", [("dolar kuru ne", "web_search")]))
    assert _agree(capsys, counting, str(corpus), "--language", "tr") == ["web.json"]
    assert _agree(capsys, counting, str(corpus), "--k", "1") == ["web.json"]
    # The same path, whether found in a folder or given: the same part.
    assert _agree(capsys, counting, str(corpus / "en")) == []
    assert _agree(capsys, counting, str(corpus / "en" / "calc.json")) == []
    # Another path to the same file is another part (failures name the path as given).
    monkeypatch.chdir(tmp_path)
    assert _agree(capsys, counting, "corpus/en/calc.json") == ["calc.json"]


def test_a_split_folder_recomputes_its_halves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    corpus = _corpus(tmp_path / "corpus")
    split = corpus / "split.toml"
    split.write_text(dump(make_split(corpus, "seed-a")), encoding="utf-8")
    counting = _Counting(monkeypatch)
    _agree(capsys, counting, str(corpus))
    # Another split: every file's halves change, so every part is computed again.
    split.write_text(dump(make_split(corpus, "seed-b")), encoding="utf-8")
    assert len(_agree(capsys, counting, str(corpus))) == 4
    # A case edited (a frozen one is a split failure, computed afresh every time).
    _write(corpus / "en" / "calc.json", _file("calc", "en", [
        ("what is 1234 * 5679?", "calculator"), ("convert 5 miles to km please",
                                                  "convert_units")]))
    assert _agree(capsys, counting, str(corpus)) == ["calc.json"]
    _, data, _ = _run(capsys, str(corpus))
    assert data["halves"]


def test_a_damaged_set_of_parts_is_recomputed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    counting = _Counting(monkeypatch)
    _agree(capsys, counting, str(corpus))
    folder = cache.cache_dir()
    assert folder is not None
    [parts] = sorted((folder / "files").glob("*.json"))
    data = json.loads(parts.read_text(encoding="utf-8"))
    for raw in data["parts"].values():
        raw["misses"] = "not a list of misses"
    parts.write_text(json.dumps(data), encoding="utf-8")
    _write(corpus / "en" / "extra.json", _file("extra", "en", [("what is 3 * 4?", "calculator")]))
    assert len(_agree(capsys, counting, str(corpus))) == 5
    parts.write_text("{not json", encoding="utf-8")
    _write(corpus / "en" / "extra.json", _file("extra", "en", [("what is 3 * 5?", "calculator")]))
    assert len(_agree(capsys, counting, str(corpus))) == 5


def test_a_file_edited_while_it_is_checked_stores_nothing_under_its_old_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editor saving (or a checkout) between the key's read and the check's read must
    not leave the new content's result under the old bytes: once the file is back as it
    was, the check equals a computed one, from the per-file parts and the whole report."""
    corpus = _corpus(tmp_path / "corpus")
    target = corpus / "en" / "calc.json"
    original = target.read_bytes()
    # The edit turns a hit into a miss (the question no longer asks for arithmetic).
    edited = json.dumps(_file("calc", "en", [("tell me about the weather in izmir",
                                              "calculator"),
                                             ("convert 5 miles to km please",
                                              "convert_units")]))
    real = static._check_file

    def edit_then_check(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path == target:
            target.write_text(edited, encoding="utf-8")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(static, "_check_file", edit_then_check)
    _run(capsys, str(corpus))
    monkeypatch.setattr(static, "_check_file", real)
    target.write_bytes(original)
    _, cached, _ = _run(capsys, str(corpus))
    _, computed, _ = _run(capsys, str(corpus), "--no-cache")
    assert computed["ok"] is True
    assert _strip(cached) == _strip(computed)


def test_a_stored_entry_that_is_not_an_object_is_a_miss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    _run(capsys, str(corpus))
    folder = cache.cache_dir()
    assert folder is not None
    entries = [p for p in folder.glob("*.json") if p.is_file()]
    assert entries
    for entry in entries:
        entry.write_text("[]", encoding="utf-8")
    code, data, _ = _run(capsys, str(corpus))
    assert code == 0 and data["cached"] is False
