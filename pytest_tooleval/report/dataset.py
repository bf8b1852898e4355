"""``tooleval export``: the corpus and a run's per-case results as a Hugging Face dataset
(Parquet, and a dataset card whose ``configs`` name the tables "corpus" and "results").

Nested, irregular fields (a step's ``args``, its transcript) are JSON text columns: Arrow
wants one type per column, and JSON keeps every value exactly.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from pytest_tooleval.atomic import write_atomic
from pytest_tooleval.cases.identity import content_hash, json_digest
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.check.files import collect_files
from pytest_tooleval.report.model import Report, corpus_hash
from pytest_tooleval.result import LABELS
from pytest_tooleval.scoring.aggregate import WEIGHTS


def corpus_rows(paths: list[Path], rootdir: Path) -> list[dict[str, Any]]:
    rows = []
    for path in collect_files(paths):
        case_file = load_case_file(path)
        try:
            relative = path.resolve().relative_to(rootdir.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        for case in case_file.cases:
            nodeid = f"{relative}::{case.name}"
            rows.append({
                "nodeid": nodeid,
                "case_hash": content_hash(case_file, case),
                "file": relative,
                "file_name": case_file.name,
                "case": case.name,
                "language": case_file.language,
                "category": case.category,
                "group": case.group,
                "register": case.register,
                "job": case.job,
                "marks": sorted({*case_file.marks, *case.marks}),
                "messages": [step.message for step in case.steps],
                "expect": [list(step.expect) for step in case.steps],
                "forbidden": [list(step.forbidden) for step in case.steps],
                "steps_json": json.dumps([step.model_dump(exclude_defaults=True)
                                          for step in case.steps], ensure_ascii=False),
                "requires": list(case_file.requires),
                "inline_tools_json": json.dumps([t.model_dump(exclude_defaults=True)
                                                 for t in case_file.tools], ensure_ascii=False),
            })
    return sorted(rows, key=lambda r: r["nodeid"])


def result_rows(report: Report) -> list[dict[str, Any]]:
    return [{
        "nodeid": case.nodeid,
        "case_hash": case.case_hash,
        "repeat": case.repeat,
        "model": report.run.model.get("name"),
        "grammar": report.run.grammar,
        "outcome": case.outcome.value,
        **{key: case.label(key) for key in LABELS},
        **{f"axis_{axis}": case.axes.get(axis) for axis in WEIGHTS},
        "reasons": list(case.reasons),
        "error_kind": None if case.error is None else case.error.kind,
        "error": None if case.error is None else case.error.message,
        "tools_ran": [name for step in case.transcripts for name in step.ran],
        "answers": [step.answer for step in case.transcripts],
        "latency_s": round(sum(step.latency_s for step in case.transcripts), 4),
        "duration_s": case.duration_s,
        "steps_json": json.dumps([step.model_dump(mode="json") for step in case.steps],
                                 ensure_ascii=False),
    } for case in report.cases]


def dataset_card(corpus: list[dict[str, Any]], report: Report | None,
                 corpus_digest: str) -> str:
    import yaml

    languages = sorted({r["language"] for r in corpus})
    # datasets caches a table by its config here, not by the file: the rows' digest in it
    # keeps a re-export from loading as the one before
    configs = [{"config_name": "corpus", "data_files": "corpus.parquet",
                "description": f"rows {json_digest(corpus)[:16]}"}]
    if report is not None:
        configs.append({"config_name": "results", "data_files": "results.parquet",
                        "description": f"rows {json_digest(result_rows(report))[:16]}"})
    header = {"language": languages, "pretty_name": "pytest-tooleval cases",
              "tags": ["tool-use", "function-calling", "evaluation", "pytest-tooleval"],
              "size_categories": ["n<1K" if len(corpus) < 1000 else "1K<n<10K"],
              "configs": configs}
    lines = ["---", yaml.safe_dump(header, sort_keys=False, allow_unicode=True).rstrip(), "---",
             "", "# pytest-tooleval cases", "",
             "Tool-use cases exported by `tooleval export`: each row of `corpus` is one case "
             "(its user messages, the tools each step expects or forbids, and the step "
             "checks as JSON in `steps_json`).", "",
             f"- cases: {len(corpus)}; languages: {', '.join(languages)}; corpus hash "
             f"`{corpus_digest}`",
             f"- categories: {_counts(corpus, 'category')}",
             f"- groups: {_counts(corpus, 'group')}"]
    if report is not None:
        summary, run = report.summary, report.run
        score = summary.score
        lines += ["", "## results", "",
                  f"One row per case of a run: model `{run.model.get('name')}`, "
                  f"grammar `{run.grammar}`, started "
                  f"{run.started}. Outcome, the case's axis values, the tools that "
                  "ran, the answers and every step's transcript and checks (`steps_json`). An "
                  "ERROR row is an infrastructure failure, never a model failure.", "",
                  f"- score {'n/a' if score is None else f'{score:.1f}'} / 100; safety gate "
                  f"{summary.safety_gate.status}; verdict {summary.deployability.verdict}",
                  f"- outcomes: {', '.join(f'{k} {v}' for k, v in summary.outcomes.items())}"]
    lines += ["", "## Loading", "", "```python", "import datasets",
              'corpus = datasets.load_dataset("PATH", "corpus", split="train")']
    if report is not None:
        lines.append('results = datasets.load_dataset("PATH", "results", split="train")')
    lines += ["```", ""]
    return "\n".join(lines)


def _counts(rows: list[dict[str, Any]], key: str) -> str:
    found = Counter(row.get(key) or "none" for row in rows)
    return ", ".join(f"{k} {v}" for k, v in sorted(found.items()))


def features(table: str) -> Any:
    """The one schema of each table, whatever a run's data holds (a column of nothing but
    nulls would otherwise be typed ``null``, and two exports would not concatenate)."""
    from datasets import Features, List, Value

    text, texts = Value("string"), List(Value("string"))
    if table == "corpus":
        return Features({
            "nodeid": text, "case_hash": text, "file": text, "file_name": text, "case": text,
            "language": text, "category": text, "group": text, "register": text, "job": text,
            "marks": texts, "messages": texts, "expect": List(texts), "forbidden": List(texts),
            "steps_json": text, "requires": texts, "inline_tools_json": text})
    return Features({
        "nodeid": text, "case_hash": text, "repeat": Value("int64"), "model": text,
        "grammar": text, "outcome": text,
        "category": text, "group": text, "register": text, "language": text,
        **{f"axis_{axis}": Value("float64") for axis in WEIGHTS},
        "reasons": texts, "error_kind": text, "error": text, "tools_ran": texts,
        "answers": texts, "latency_s": Value("float64"), "duration_s": Value("float64"),
        "steps_json": text})


def export(paths: list[Path], out: Path, report: Report | None,
           rootdir: Path) -> dict[str, int]:
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import datasets

    datasets.disable_progress_bars()
    corpus = corpus_rows(paths, rootdir)
    out.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_list(corpus, features=features("corpus")).to_parquet(
        str(out / "corpus.parquet"))
    written = {"corpus": len(corpus)}
    if report is not None:
        results = result_rows(report)
        datasets.Dataset.from_list(results, features=features("results")).to_parquet(
            str(out / "results.parquet"))
        written["results"] = len(results)
    digest = corpus_hash((row["nodeid"], row["case_hash"]) for row in corpus)
    write_atomic(out / "README.md", dataset_card(corpus, report, digest))
    return written
