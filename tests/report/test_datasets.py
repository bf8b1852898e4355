"""``tooleval export`` and ``tooleval import bfcl``: read back with datasets, run through
the plugin, on small fixture files in BFCL's own shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.fake_openai import Rule, answer, call

datasets = pytest.importorskip("datasets", reason="the [datasets] extra is not installed")

FIXTURES = Path(__file__).parent / "fixtures" / "bfcl"
ROOT = Path(__file__).resolve().parents[2]


def test_export_corpus_and_results_read_back(tmp_path, monkeypatch) -> None:
    from pytest_tooleval.cli import main

    report_path = ROOT / "docs" / "results" / "gap-sample4" / "on" / "report.json"
    report = json.loads(report_path.read_text("utf-8"))
    monkeypatch.chdir(ROOT)
    out = tmp_path / "ds"
    assert main(["export", "benchmarks/en/web.json", "scenarios", "--report",
                 str(report_path), "--out", str(out)]) == 0
    # a cache of its own: datasets' offline cache keys a folder by its name
    corpus = datasets.load_dataset(str(out), "corpus", split="train",
                                   cache_dir=str(tmp_path / "cache"))
    web = json.loads((ROOT / "benchmarks/en/web.json").read_text("utf-8"))
    first = web["cases"][0]
    row = next(r for r in corpus if r["nodeid"] == f"benchmarks/en/web.json::{first['name']}")
    assert row["messages"] == [s["message"] for s in first["steps"]]
    assert row["category"] == first["category"] and row["language"] == "en"
    assert len(row["case_hash"]) == 16
    steps = json.loads(row["steps_json"])
    assert steps[0]["message"] == first["steps"][0]["message"]
    assert any(r["file"].startswith("scenarios/") for r in corpus)
    results = datasets.load_dataset(str(out), "results", split="train",
                                    cache_dir=str(tmp_path / "cache"))
    assert len(results) == len(report["cases"])
    by_id = {r["nodeid"]: r for r in results}
    for case in report["cases"]:
        row = by_id[case["nodeid"]]
        assert row["outcome"] == case["outcome"]
        assert row["axis_irrelevance"] == case["axes"].get("irrelevance")
        steps = json.loads(row["steps_json"])
        assert [s["transcript"]["message"] for s in steps] == [
            t["message"] for t in case["transcript"]]
        assert [s["transcript"]["answer"] for s in steps] == [
            t["answer"] for t in case["transcript"]]
    card = (out / "README.md").read_text("utf-8")
    from huggingface_hub import DatasetCard

    data = DatasetCard(card).data.to_dict()
    assert [c["config_name"] for c in data["configs"]] == ["corpus", "results"]
    assert data["language"] == ["en", "tr"]
    assert f"score {report['summary']['score']:.1f} / 100" in card


def test_export_without_a_report_writes_only_the_corpus(tmp_path, monkeypatch) -> None:
    from pytest_tooleval.cli import main

    monkeypatch.chdir(ROOT)
    assert main(["export", "scenarios", "--out", str(tmp_path / "ds")]) == 0
    assert not (tmp_path / "ds" / "results.parquet").exists()
    assert "results" not in (tmp_path / "ds" / "README.md").read_text()


def test_exports_of_different_runs_have_one_schema_and_concatenate(tmp_path,
                                                                   monkeypatch) -> None:
    """A run without errors (an all-null error column) and one with; a corpus without
    groups or registers and one with: the columns keep their types (they were typed by the
    data, and such exports did not load together)."""
    from pytest_tooleval.cli import main

    report_path = ROOT / "docs" / "results" / "gap-sample4" / "on" / "report.json"
    report = json.loads(report_path.read_text("utf-8"))
    clean = json.loads(report_path.read_text("utf-8"))
    clean["cases"] = [case for case in clean["cases"] if case.get("error") is None][:5]
    for case in clean["cases"]:
        case["axes"] = {}
    clean_path = tmp_path / "clean.json"
    clean_path.write_text(json.dumps(clean), encoding="utf-8")
    monkeypatch.chdir(ROOT)
    loaded = {}
    for name, inputs, path in (("a", ["benchmarks/en/web.json"], report_path),
                               ("b", ["scenarios/restaurants.yaml"], clean_path)):
        assert main(["export", *inputs, "--report", str(path),
                     "--out", str(tmp_path / name)]) == 0
        loaded[name] = {table: datasets.Dataset.from_parquet(
            str(tmp_path / name / f"{table}.parquet"), cache_dir=str(tmp_path / "cache"))
            for table in ("corpus", "results")}
    assert any(case.get("error") for case in report["cases"])
    for table in ("corpus", "results"):
        first, second = loaded["a"][table], loaded["b"][table]
        assert first.features == second.features
        joined = datasets.concatenate_datasets([first, second])
        assert len(joined) == len(first) + len(second)


def _import(tmp_path: Path, *names: str) -> Path:
    from pytest_tooleval.cli import main

    out = tmp_path / "benchmarks" / "bfcl"
    assert main(["import", "bfcl", *(str(FIXTURES / n) for n in names),
                 "--out", str(out)]) == 0
    return out


def test_import_bfcl_maps_cases_tools_and_accepted_values(tmp_path, capsys) -> None:
    from pytest_tooleval.cases.load import load_case_file

    out = _import(tmp_path, "BFCL_v4_simple_python.json", "BFCL_v4_multiple.json",
                  "BFCL_v4_irrelevance.json", "BFCL_v4_live_irrelevance.json")
    printed = capsys.readouterr().out
    assert "wrote 8 cases in 4 file(s)" in printed
    assert "1 nested-dictionary argument constraint(s) left out" in printed
    assert printed.count("with datasets") == 6  # four question files, two answer files
    files = {p.name: load_case_file(p) for p in sorted(out.glob("*.json"))}
    simple = files["bfcl-v4-simple-python-001.json"]
    cases = {c.name: c for c in simple.cases}
    area = cases["simple_python_0"].steps[0]
    assert area.expect == ["geometry_rectangle_area"]
    assert area.args == {"length": [12], "width": [7], "unit": ["m", "metres", ""]}
    assert cases["simple_python_2"].steps[0].args == {"numbers": [[4.0, 8.0, 15.0]]}
    tools = {t.name: t for t in simple.tools}
    assert tools["convert_temperature"].parameters["properties"]["value"]["type"] == "number"
    assert tools["stats_mean"].parameters["properties"]["options"]["type"] == "object"
    multiple = files["bfcl-v4-multiple-001.json"]
    assert {t.name for t in multiple.tools} == {"restaurant_book", "restaurant_search",
                                                 "bfcl_read_file"}  # no clash with a built-in
    live = files["bfcl-v4-live-irrelevance-001.json"]
    assert [c.category for c in live.cases] == ["irrelevance", "irrelevance"]
    assert live.cases[0].steps[0].message == "hey, how are you doing today?"
    params = live.tools[0].parameters["properties"]
    assert "type" not in params["headers"]  # BFCL's "any"
    assert params["timeout"]["default"] == 5.0


def test_import_packs_at_most_nine_tools_per_file(tmp_path) -> None:
    from pytest_tooleval.cases.bfcl import TOOLS_PER_FILE, import_bfcl

    source = tmp_path / "BFCL_v4_irrelevance.json"
    rows = [{"id": f"irrelevance_{i}", "question": [[{"role": "user", "content": f"hi {i}"}]],
             "function": [{"name": f"tool_{i}", "description": f"Tool number {i}.",
                           "parameters": {"type": "dict", "properties": {}}}]}
            for i in range(20)]
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    imported = import_bfcl([source])
    assert [len(f["tools"]) for f in imported.files.values()] == [TOOLS_PER_FILE,
                                                                  TOOLS_PER_FILE, 2]
    assert sum(len(f["cases"]) for f in imported.files.values()) == 20


def test_import_errors_name_the_file_and_the_fix(tmp_path, capsys) -> None:
    from pytest_tooleval.cli import main

    lonely = tmp_path / "BFCL_v4_simple_python.json"
    lonely.write_text((FIXTURES / "BFCL_v4_simple_python.json").read_text())
    assert main(["import", "bfcl", str(lonely), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "needs its possible_answer file" in err and "--answers" in err
    other = tmp_path / "BFCL_v3_multi_turn_base.json"
    other.write_text("{}\n")
    assert main(["import", "bfcl", str(other)]) == 2
    assert "parallel and multi-turn files are not supported" in capsys.readouterr().err


def test_imported_bfcl_runs_through_the_plugin(project, fake_model, tmp_path) -> None:
    out = _import(project.path, "BFCL_v4_multiple.json", "BFCL_v4_live_irrelevance.json")
    server = fake_model([
        Rule("book a table", [call("restaurant_book", {"restaurant": "Lokanta Nar",
                                                       "people": 4, "time": "8 pm"}),
                              answer("Booked.")]),
        Rule("how are you", [answer("Fine, thanks!")]),
        Rule("that is all", [call("requests_get", {"url": "http://example.invalid"}),
                             answer("ok")]),
    ])
    project.profile(server)
    project.run(str(out))
    outcomes = {c["case"]: c["outcome"] for c in project.report()["cases"]}
    assert outcomes == {"multiple_0": "PASS", "live_irrelevance_0-0-0": "PASS",
                        "live_irrelevance_1-0-1": "FAIL"}


def test_exported_corpus_and_results_join_on_case_hash(project, fake_model, monkeypatch,
                                                       tmp_path) -> None:
    from pytest_tooleval.cli import main
    from tests.conftest import THANKS_CASE, WEATHER_CASE, scenario

    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario([WEATHER_CASE, THANKS_CASE]))
    project.run()
    monkeypatch.chdir(project.path)
    out = tmp_path / "ds"
    assert main(["export", "scenarios", "--report", "tooleval-report/report.json",
                 "--out", str(out)]) == 0
    cache = str(tmp_path / "cache")
    corpus = datasets.load_dataset(str(out), "corpus", split="train", cache_dir=cache)
    results = datasets.load_dataset(str(out), "results", split="train", cache_dir=cache)
    assert {(r["nodeid"], r["case_hash"]) for r in corpus} == {
        (r["nodeid"], r["case_hash"]) for r in results}
    assert {r["nodeid"]: r["outcome"] for r in results} == {
        "scenarios/demo.yaml::weather": "FAIL", "scenarios/demo.yaml::thanks": "PASS"}
