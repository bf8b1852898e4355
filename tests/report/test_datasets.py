"""``tooleval export``: read back with datasets (``tooleval import bfcl`` is in
tests/test_bfcl.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.fake_openai import Rule, answer

datasets = pytest.importorskip("datasets", reason="the [datasets] extra is not installed")

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
            s["transcript"]["message"] for s in case["steps"]]
        assert [s["transcript"]["answer"] for s in steps] == [
            s["transcript"]["answer"] for s in case["steps"]]
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

    reference = ROOT / "docs" / "results" / "gap-sample4" / "on" / "report.json"
    report = json.loads(reference.read_text("utf-8"))
    # One run with an ERROR case (its error fields filled, its axes empty), one without.
    errored = next(case for case in report["cases"] if case["file"] == "benchmarks/en/web.json")
    errored.update(outcome="ERROR", axes={}, reasons=["llama.cpp refused the request"],
                   error={"kind": "backend", "message": "llama.cpp refused the request",
                          "detail": "context_overflow"})
    report_path = tmp_path / "errored.json"
    report_path.write_text(json.dumps(report), encoding="utf-8")
    clean = json.loads(reference.read_text("utf-8"))
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
    assert {r["repeat"] for r in results} == {None}


def test_a_result_row_says_which_try_it_is_under_repeats(project, fake_model, monkeypatch,
                                                         tmp_path) -> None:
    """Two tries of a case had no column telling them apart (only the nodeid's suffix)."""
    from pytest_tooleval.cli import main
    from tests.conftest import THANKS_CASE, scenario

    project.profile(fake_model([Rule("", [answer("bye")])]))
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    project.run("--tooleval-repeat", "2")
    monkeypatch.chdir(project.path)
    out = tmp_path / "ds"
    assert main(["export", "scenarios", "--report", "tooleval-report/report.json",
                 "--out", str(out)]) == 0
    results = datasets.load_dataset(str(out), "results", split="train",
                                    cache_dir=str(tmp_path / "cache"))
    assert sorted((r["repeat"], r["nodeid"]) for r in results) == [
        (1, "scenarios/demo.yaml::thanks[r1]"), (2, "scenarios/demo.yaml::thanks[r2]")]


def test_a_new_export_into_the_same_folder_reads_back_its_own_rows(tmp_path,
                                                                    monkeypatch) -> None:
    """datasets keys its cache by the card's configs, not the Parquet files: with the same
    card, loading a re-exported folder (the default tooleval-dataset, after the next run)
    gave the previous export's rows."""
    from pytest_tooleval.cli import main

    reference = ROOT / "docs" / "results" / "gap-sample4" / "on" / "report.json"
    report = json.loads(reference.read_text("utf-8"))
    report["cases"] = report["cases"][:3]
    shorter = tmp_path / "shorter.json"
    shorter.write_text(json.dumps(report), encoding="utf-8")
    monkeypatch.chdir(ROOT)
    out, cache = tmp_path / "tooleval-dataset", str(tmp_path / "cache")
    for path in (reference, shorter):
        assert main(["export", "scenarios", "--report", str(path), "--out", str(out)]) == 0
        results = datasets.load_dataset(str(out), "results", split="train", cache_dir=cache)
        cases = json.loads(path.read_text("utf-8"))["cases"]
        assert [r["nodeid"] for r in results] == [c["nodeid"] for c in cases]
