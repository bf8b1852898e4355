"""``tooleval import bfcl``: Berkeley Function-Calling Leaderboard files as benchmark files.

BFCL ships JSON Lines: a question file (``id``, ``question`` as a list of turns of chat
messages, ``function`` as the function docs offered) and, for the categories with an answer,
a ``possible_answer`` file of the same name (``id``, ``ground_truth``: one
``{function: {parameter: [accepted values]}}`` per expected call, ``""`` meaning the
parameter may be left out). Both are read from local files through ``datasets``' JSON
loader; nothing is downloaded.

Mapping: an ``irrelevance`` or ``live_irrelevance`` entry becomes an irrelevance case (no
call may be attempted); a ``simple`` or ``multiple`` entry a tool case expecting the ground
truth's function, its accepted values as ``args``. Function docs become inline tools (BFCL's
``dict``/``float``/``tuple``/``any`` types turned into JSON Schema; dots in names become
``_``, as BFCL does for OpenAI-style tools). Entries are packed into files of at most
``TOOLS_PER_FILE`` distinct tools, so with ``--tooleval-no-builtin`` the router shows every
tool of the file and the expected one is always among them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_tooleval.tools.names import BUILTIN_TOOL_NAMES

TOOLS_PER_FILE = 9
KINDS = ("live_irrelevance", "irrelevance", "simple", "multiple")
TYPE_MAP = {"dict": "object", "float": "number", "tuple": "array", "integer": "integer",
            "string": "string", "boolean": "boolean", "array": "array", "object": "object",
            "number": "number", "null": "null"}
TOOL_RESULT = "done"


class BfclError(Exception):
    pass


def kind_of(path: Path) -> str:
    """The BFCL category a file holds, from its name (BFCL_v3_simple.json → simple)."""
    stem = path.name.lower()
    for kind in KINDS:
        if re.search(rf"(^|_){kind}(_|\.|$)", stem):
            return kind
    raise BfclError(f"{path}: not a BFCL file this importer knows (the name must contain one "
                    f"of: {', '.join(KINDS)}; parallel and multi-turn files are not supported)")


def _without_nulls(value: Any) -> Any:
    """Arrow unifies nested records across rows, filling absent keys with null: drop them."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def read_rows(path: Path) -> tuple[list[dict[str, Any]], str]:
    """Rows of a JSON Lines file through ``datasets``; returns (rows, how they were read).

    Arrow needs one type per column: BFCL's nested docs and answers mix types (a default of
    5.0 in one row, {} in another; accepted values ``["", 0]``), which Arrow refuses. Such a
    file is read line by line with the json module instead, and the answer says so.
    """
    import os

    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import datasets
    except ImportError:
        raise BfclError("tooleval import needs the datasets package: "
                        "pip install 'pytest-tooleval[datasets]'") from None
    if not path.is_file():
        raise BfclError(f"{path}: no such file")
    datasets.disable_progress_bars()
    import tempfile

    try:
        # A fresh cache each time: datasets' offline cache can hand back an earlier
        # version of a file with the same name.
        with tempfile.TemporaryDirectory(prefix="tooleval-datasets-") as cache:
            loaded = datasets.load_dataset("json", data_files=str(path), split="train",
                                           cache_dir=cache, keep_in_memory=True)
            return [_without_nulls(row) for row in loaded], "datasets"
    except Exception as exc:  # Arrow's and datasets' own errors alike: mixed nested types
        reason = type(exc).__name__
    rows = []
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise BfclError(f"{path}: line {number} is not JSON: {err}") from None
    return rows, f"json module (datasets: {reason}, nested types differ between rows)"


def to_json_schema(schema: Any) -> Any:
    """BFCL's parameter docs as JSON Schema."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            if value == "any":
                continue
            out["type"] = TYPE_MAP.get(value, "string")
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {name: to_json_schema(v) for name, v in value.items()}
        elif key == "items":
            out["items"] = to_json_schema(value)
        elif key in ("description", "enum", "default", "required", "format", "minimum",
                     "maximum"):
            out[key] = value
    if out.get("type") == "object":
        out.setdefault("properties", {})
        if "required" in out:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
    return out


def tool_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)
    if not re.match(r"^[A-Za-z_]", cleaned):
        cleaned = "f_" + cleaned
    cleaned = cleaned[:64]
    return f"bfcl_{cleaned}"[:64] if cleaned in BUILTIN_TOOL_NAMES else cleaned


def inline_tool(doc: dict[str, Any]) -> dict[str, Any]:
    parameters = to_json_schema(doc.get("parameters") or {"type": "dict", "properties": {}})
    parameters["type"] = "object"
    parameters.setdefault("properties", {})
    return {"name": tool_name(str(doc["name"])),
            "description": str(doc.get("description") or doc["name"]).strip() or doc["name"],
            "parameters": parameters, "result": TOOL_RESULT}


def _message(row: dict[str, Any]) -> str:
    turns = row.get("question") or []
    users = [m.get("content", "") for turn in turns for m in turn if m.get("role") == "user"]
    if not users or not str(users[-1]).strip():
        raise BfclError(f"entry {row.get('id')!r}: no user message in 'question'")
    return str(users[-1]).strip()


def _accepted(values: Any) -> list[Any] | None:
    """Accepted values we can check: scalars and lists of scalars (nested dicts are not)."""
    if not isinstance(values, list):
        return None
    if any(isinstance(v, dict) for v in values):
        return None
    return values


def case_name(bfcl_id: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "-", bfcl_id).strip("-.") or "entry"
    return name if re.match(r"^[A-Za-z0-9]", name) else f"e{name}"


@dataclass
class Entry:
    case: dict[str, Any]
    tools: list[dict[str, Any]]
    skipped_constraints: int = 0


def entry_of(row: dict[str, Any], kind: str, answer: dict[str, Any] | None) -> Entry:
    tools = [inline_tool(doc) for doc in row.get("function") or []]
    name = case_name(str(row.get("id")))
    step: dict[str, Any] = {"message": _message(row)}
    skipped = 0
    if kind in ("irrelevance", "live_irrelevance"):
        return Entry({"name": name, "category": "irrelevance", "steps": [step]}, tools)
    if answer is None:
        raise BfclError(f"entry {row.get('id')!r}: no ground truth in the possible_answer file")
    truth = answer.get("ground_truth") or []
    if not truth or not isinstance(truth[0], dict):
        raise BfclError(f"entry {row.get('id')!r}: ground_truth is empty")
    function, params = next(iter(truth[0].items()))
    step["expect"] = tool_name(function)
    args: dict[str, list[Any]] = {}
    for parameter, values in (params or {}).items():
        accepted = _accepted(values)
        if accepted is None:
            skipped += 1
        else:
            args[parameter] = accepted
    if args:
        step["args"] = args
    return Entry({"name": name, "category": "tool", "group": "bfcl-" + kind, "steps": [step]},
                 tools, skipped)


@dataclass
class Imported:
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    readers: dict[str, str] = field(default_factory=dict)
    cases: int = 0
    skipped_constraints: int = 0


def _pack(entries: Iterable[Entry], base: str, kind: str, source: str) -> list[dict[str, Any]]:
    files: list[dict[str, Any]] = []
    tools: dict[str, dict[str, Any]] = {}
    cases: list[dict[str, Any]] = []

    def flush() -> None:
        if cases:
            files.append({"name": f"{base}-{len(files) + 1:03d}", "language": "en",
                          "description": f"Imported from BFCL {kind} ({source}) by tooleval "
                          "import bfcl.", "marks": ["bfcl"], "tools": list(tools.values()),
                          "cases": list(cases)})

    for entry in entries:
        new = {t["name"]: t for t in entry.tools}
        clash = any(n in tools and tools[n] != t for n, t in new.items())
        if clash or len(set(tools) | set(new)) > TOOLS_PER_FILE:
            flush()
            tools, cases = {}, []
        tools.update(new)
        cases.append(entry.case)
    flush()
    return files


def import_bfcl(paths: list[Path], answers_dir: Path | None = None) -> Imported:
    result = Imported()
    for path in paths:
        kind = kind_of(path)
        rows, how = read_rows(path)
        result.readers[str(path)] = how
        answers: dict[str, dict[str, Any]] = {}
        if kind in ("simple", "multiple"):
            answer_path = (answers_dir or path.parent / "possible_answer") / path.name
            if not answer_path.is_file():
                raise BfclError(f"{path}: BFCL {kind} needs its possible_answer file; looked "
                                f"for {answer_path} (give the folder with --answers)")
            answer_rows, answer_how = read_rows(answer_path)
            result.readers[str(answer_path)] = answer_how
            answers = {str(a.get("id")): a for a in answer_rows}
        entries = [entry_of(row, kind, answers.get(str(row.get("id")))) for row in rows]
        result.cases += len(entries)
        result.skipped_constraints += sum(e.skipped_constraints for e in entries)
        stem = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
        base = "bfcl-" + stem.removeprefix("bfcl-")
        for data in _pack(entries, base, kind, path.name):
            result.files[data["name"] + ".json"] = data
    return result


def import_main(argv: list[str]) -> int:
    import argparse
    import sys

    from pytest_tooleval.cases.errors import CaseFileError
    from pytest_tooleval.cases.load import load_case_file
    from pytest_tooleval.report.write import write_atomic

    parser = argparse.ArgumentParser(
        prog="tooleval import",
        description="Convert another benchmark's local files into tooleval benchmark files. "
        "bfcl: Berkeley Function-Calling Leaderboard question files (irrelevance, "
        "live_irrelevance, simple, multiple); simple and multiple need their "
        "possible_answer file (default: possible_answer/ beside the question file).")
    parser.add_argument("source", choices=("bfcl",))
    parser.add_argument("paths", nargs="+", type=Path, help="BFCL question files (JSON Lines)")
    parser.add_argument("--answers", type=Path, help="folder of the possible_answer files")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/bfcl"),
                        help="folder for the benchmark files (default benchmarks/bfcl)")
    options = parser.parse_args(argv)
    try:
        imported = import_bfcl(options.paths, options.answers)
    except BfclError as exc:
        print(f"tooleval import: {exc}", file=sys.stderr)
        return 2
    for name, data in imported.files.items():
        target = options.out / name
        write_atomic(target, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
        try:
            load_case_file(target)  # the guards run here: a file that would not load is an error
        except CaseFileError as exc:
            print(f"tooleval import: {target} does not pass the guards: {exc}", file=sys.stderr)
            return 1
    for source, how in imported.readers.items():
        print(f"read {source} with {how}")
    print(f"wrote {imported.cases} cases in {len(imported.files)} file(s) under {options.out}")
    if imported.skipped_constraints:
        print(f"{imported.skipped_constraints} nested-dictionary argument constraint(s) left out "
              "(only scalar and list values are checked)")
    print("run them with: pytest " + str(options.out) + " --model M --tooleval-no-builtin")
    return 0
