"""The content-keyed cache of ``tooleval check`` (check/cache.py): a repeat is served from
it, and any edit to what the check reads is checked afresh, never answered from a stale
entry."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval import localcache
from pytest_tooleval.check import cache
from pytest_tooleval.check.report import CheckReport
from pytest_tooleval.check.static import run_check
from pytest_tooleval.cli.check import main as check_main


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _corpus(root: Path, evidence: str = "Kestrel Lane") -> Path:
    """Two files: a routed case with evidence, and a chain."""
    _write(root / "en" / "docs.json", {
        "name": "docs", "language": "en", "requires": ["search_documents", "web_search"],
        "cases": [
            {"name": "lease", "category": "tool", "steps": [
                {"message": "what does my lease say about the deposit?",
                 "expect": "search_documents", "evidence": [evidence]}]},
            {"name": "rate", "category": "tool", "steps": [
                {"message": "what's the euro exchange rate today?", "expect": "web_search"}]},
        ],
    })
    _write(root / "tr" / "web.json", {
        "name": "web", "language": "tr", "requires": ["web_search"],
        "cases": [{"name": "kur", "category": "tool", "steps": [
            {"message": "dolar kuru bugün ne kadar", "expect": "web_search"}]}],
    })
    return root


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = check_main([*args, "--mcp", "off", "--json", "-"])
    return code, json.loads(capsys.readouterr().out)


def _entries() -> list[Path]:
    folder = cache.cache_dir()
    assert folder is not None
    return sorted(folder.glob("*.json"))


def _same(first: dict[str, Any], second: dict[str, Any]) -> None:
    ignore = {"seconds", "cached"}
    assert {k: v for k, v in first.items() if k not in ignore} == {
        k: v for k, v in second.items() if k not in ignore
    }


def test_a_repeat_is_served_from_the_cache_with_the_same_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    code, first = _check(capsys, str(corpus))
    assert code == 0 and first["cached"] is False and first["cases"] == 3
    assert len(_entries()) == 1
    again, second = _check(capsys, str(corpus))
    assert again == 0 and second["cached"] is True
    _same(first, second)
    check_main([str(corpus), "--mcp", "off"])
    assert "(cached:" in capsys.readouterr().out


def test_an_edited_case_file_is_checked_afresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    assert _check(capsys, str(corpus))[0] == 0
    # Evidence the message itself holds, which a guard refuses.
    docs = corpus / "en" / "docs.json"
    text = docs.read_text(encoding="utf-8")
    docs.write_text(text.replace('"Kestrel Lane"', '"the deposit"'), encoding="utf-8")
    code, report = _check(capsys, str(corpus))
    assert code == 1 and report["cached"] is False
    assert [f["kind"] for f in report["failures"]] == ["guard"]
    assert "echo" in report["failures"][0]["detail"]
    # Put back: the first entry is still there and still right.
    docs.write_text(text, encoding="utf-8")
    code, report = _check(capsys, str(corpus))
    assert code == 0 and report["cached"] is True and not report["failures"]


def test_a_new_file_options_and_catalogue_are_part_of_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    _, base = _check(capsys, str(corpus))
    _, narrower = _check(capsys, str(corpus), "--k", "1")
    assert narrower["cached"] is False and narrower["k"] == 1
    _, english = _check(capsys, str(corpus), "--language", "en")
    assert english["cached"] is False and english["cases"] == 2
    _, offered = _check(capsys, str(corpus), "--offered", "web_search")
    assert offered["cached"] is False
    assert [f["kind"] for f in offered["failures"]] == ["requires"]
    _, strict = _check(capsys, str(corpus), "--strict")
    assert strict["cached"] is False
    _, repeat = _check(capsys, str(corpus), "--k", "1")
    assert repeat["cached"] is True and repeat["k"] == 1
    _write(corpus / "en" / "more.json", {
        "name": "more", "language": "en", "requires": ["calculator"],
        "cases": [{"name": "sum", "category": "tool", "steps": [
            {"message": "what is 1234 * 5678?", "expect": "calculator"}]}],
    })
    _, grown = _check(capsys, str(corpus))
    assert grown["cached"] is False and grown["cases"] == base["cases"] + 1


def test_the_key_covers_the_catalogue_specs_and_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_tooleval.router.catalogue import builtin_specs

    corpus = _corpus(tmp_path / "corpus")
    specs = list(builtin_specs())
    key = cache.check_key([corpus], {"k": 9}, specs, ["builtin: 36 tools"])
    assert key == cache.check_key([corpus], {"k": 9}, specs, ["builtin: 36 tools"])
    reworded = [specs[0].__class__(specs[0].name, specs[0].description + " (v2)",
                                   specs[0].parameters, specs[0].source), *specs[1:]]
    assert cache.check_key([corpus], {"k": 9}, reworded, ["builtin: 36 tools"]) != key
    assert cache.check_key([corpus], {"k": 9}, specs, ["builtin: 35 tools"]) != key
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "another version of the code")
    assert cache.check_key([corpus], {"k": 9}, specs, ["builtin: 36 tools"]) != key


def test_the_code_fingerprint_follows_the_package_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pkg"
    _write(package / "data.json", {"a": 1})
    (package / "module.py").write_text("X = 1\n", encoding="utf-8")
    monkeypatch.setattr(localcache, "PACKAGE", package)

    def fresh() -> str:
        localcache.package_fingerprint.cache_clear()
        cache.code_fingerprint.cache_clear()
        return cache.code_fingerprint()

    try:
        first = fresh()
        (package / "module.py").write_text("X = 2\n", encoding="utf-8")
        assert fresh() != first
        (package / "module.py").write_text("X = 1\n", encoding="utf-8")
        assert fresh() == first
        _write(package / "data.json", {"a": 2})
        assert fresh() != first
    finally:
        monkeypatch.undo()
        fresh()


@pytest.mark.parametrize("library", ["PyStemmer", "snowballstemmer", "rapidfuzz"])
def test_the_code_fingerprint_follows_each_library_version(
    library: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new stemmer (``--stemmer snowball``) or matcher can route a step differently: a
    result computed with the old version must not be served."""
    from importlib import metadata

    real = metadata.version

    def fresh() -> str:
        cache.code_fingerprint.cache_clear()
        return cache.code_fingerprint()

    try:
        first = fresh()
        monkeypatch.setattr(
            metadata, "version", lambda name: "999.0" if name == library else real(name)
        )
        assert fresh() != first
    finally:
        monkeypatch.undo()
        fresh()


def test_the_cache_can_be_switched_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", "off")
    corpus = _corpus(tmp_path / "corpus")
    assert [_check(capsys, str(corpus))[1]["cached"] for _ in range(2)] == [False, False]


def test_the_cache_folder_is_the_users_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unset: the platform's user cache folder (platformdirs; XDG on Linux)."""
    monkeypatch.delenv("TOOLEVAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert localcache.cache_root() == tmp_path / "pytest-tooleval"
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "own"))
    assert cache.cache_dir() == tmp_path / "own" / "check"


def test_a_split_file_edit_is_checked_afresh(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    split = corpus / "split.toml"
    split.write_text('seed = "s"\n[cases]\n', encoding="utf-8")
    # A case file in the split's folder but outside the paths checked still counts.
    outside = _write(corpus / "other" / "x.json", {"name": "x", "language": "en", "cases": []})
    key = cache.check_key([corpus / "en"], {}, None, [])
    split.write_text('seed = "t"\n[cases]\n', encoding="utf-8")
    assert cache.check_key([corpus / "en"], {}, None, []) != key
    again = cache.check_key([corpus / "en"], {}, None, [])
    outside.write_text(outside.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert cache.check_key([corpus / "en"], {}, None, []) != again


def test_no_cache_stores_nothing_and_a_damaged_entry_is_recomputed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    code, report = _check(capsys, str(corpus), "--no-cache")
    assert code == 0 and report["cached"] is False and _entries() == []
    _check(capsys, str(corpus))
    [entry] = _entries()
    entry.write_text("{not json", encoding="utf-8")
    code, report = _check(capsys, str(corpus))
    assert code == 0 and report["cached"] is False and report["cases"] == 3
    assert json.loads(entry.read_text(encoding="utf-8"))["format"] == cache.FORMAT


def test_the_report_round_trips_through_json(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus", evidence="deposit")  # a guard failure
    _write(corpus / "en" / "miss.json", {
        "name": "miss", "language": "en", "requires": ["calculator"],
        "cases": [{"name": "m", "category": "tool", "steps": [
            {"message": "hello there", "expect": "calculator"}]}],
    })
    report = run_check([corpus], k=2)
    assert report.failures and report.misses
    data = report.to_json()
    assert CheckReport.from_json(json.loads(json.dumps(data))).to_json() == data


def test_a_cached_check_imports_none_of_the_checking_code(tmp_path: Path) -> None:
    """Run in fresh interpreters: the miss imports no numpy, pytest, HTTP, MCP or model
    code; the hit not even the case model, the guards, the router or jsonschema; and a
    computed check (``--no-cache``) imports none of the MCP provider or configuration, the
    Python tools, the model profiles or tomllib either. (Every check imports
    the built-in tools: it lists them.)"""
    import subprocess
    import sys

    corpus = _corpus(tmp_path / "corpus")
    _write(corpus / "en" / "inline.json", {  # an inline tool: its schema is checked
        "name": "inline", "language": "en",
        "tools": [{"name": "lookup_order", "description": "Details of one order by its id.",
                   "parameters": {"type": "object", "properties": {"order_id": {
                       "type": "string", "pattern": "^ORD-[0-9]{5}$"}},
                       "required": ["order_id"]},
                   "result": {"status": "shipped"}}],
        "cases": [{"name": "order", "category": "tool", "steps": [
            {"message": "where is my order ORD-12345?", "expect": "lookup_order"}]}],
    })
    never = ["numpy", "pytest", "_pytest", "httpx", "httpcore", "mcp", "llama_cpp", "pypdf",
             "filelock", "asyncio", "pytest_tooleval.scoring.statistics",
             "pytest_tooleval.world.build", "pytest_tooleval.engine.loop"]
    on_a_hit_too = ["pytest_tooleval.cases.model", "pytest_tooleval.cases.guards",
                    "pytest_tooleval.router.trigger_router", "jsonschema", "rapidfuzz", "yaml"]
    computed_too = ["pytest_tooleval.tools.mcp.provider",
                    "pytest_tooleval.tools.mcp.render", "pytest_tooleval.tools.mcp.cache",
                    "pytest_tooleval.tools.python", "pytest_tooleval.models.profiles",
                    # nor, where no such thing is configured, the MCP configuration model or
                    # tomllib (no configuration or split file)
                    "pytest_tooleval.tools.mcp", "pytest_tooleval.tools.mcp.config",
                    "tomllib"]
    script = (
        "import contextlib, io, json, sys\n"
        "from pytest_tooleval.cli import main\n"
        f"sys.argv = ['tooleval', 'check', {str(corpus)!r}, '--mcp', 'off', *sys.argv[1:]]\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(json.dumps([m for m in {never + on_a_hit_too + computed_too!r} "
        "if m in sys.modules]))\n"
        "print('(cached:' in out.getvalue())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    runs = []
    for extra in ([], [], ["--no-cache"]):
        done = subprocess.run([sys.executable, "-c", script, *extra], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120, check=True)
        loaded, cached = done.stdout.strip().splitlines()[-2:]
        runs.append((json.loads(loaded), cached == "True"))
    (miss, miss_cached), (hit, hit_cached), (computed, computed_cached) = runs
    assert not miss_cached and hit_cached and not computed_cached
    assert not set(miss) & set(never), miss
    assert hit == [], hit
    assert not set(computed) & {*never, *computed_too}, computed
    assert "pytest_tooleval.router.trigger_router" in computed  # it did compute
