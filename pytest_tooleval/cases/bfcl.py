"""``tooleval import bfcl``: Berkeley Function-Calling Leaderboard files as benchmark files.

BFCL ships JSON Lines named ``BFCL_v<N>_<kind>.json`` (``id``, ``question``: turns of chat
messages, ``function``: the function docs offered) and, for the kinds with an answer, a
``possible_answer`` file of the same name (``ground_truth``: one ``{function: {parameter:
[accepted values]}}`` per call, ``""`` meaning the parameter may be left out). Nothing is
downloaded.

The kind comes from the file's name (``KINDS``; ``UNSUPPORTED`` are refused by name). An
irrelevance entry becomes an irrelevance case; a simple or multiple entry a tool case
expecting the ground truth's function, with its scalar accepted values as ``args`` and one
accepted value of each parameter as the ``gold`` call. An entry the format cannot hold is
refused with its id and the reason; of BFCL's own near-duplicates the later is left out.
Function docs become inline tools (BFCL's types turned into JSON Schema), packed into
files of at most ``TOOLS_PER_FILE`` tools, so the router shows every tool of a file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from pytest_tooleval.cases.duplicates import DEFAULT_SIMILARITY, Question, find_near_duplicates
from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.tools.names import BUILTIN_TOOL_NAMES

TOOLS_PER_FILE = 9
FILE_NAME = re.compile(r"^BFCL_v(\d+)_([a-z_]+)\.json$")
#: BFCL's kind (``BFCL_v4_simple_python.json`` → ``simple_python``) → the case it becomes.
KINDS = {"simple": "simple", "simple_python": "simple", "live_simple": "simple",
         "multiple": "multiple", "live_multiple": "multiple",
         "irrelevance": "irrelevance", "live_irrelevance": "irrelevance"}
_SEVERAL = "each entry expects several calls in one turn (one case expects one call)"
_MULTI_TURN = "its entries are conversations over BFCL's own stateful Python classes"
_OTHER_LANGUAGE = "its functions and answers are typed in that language, not JSON"
UNSUPPORTED = {
    "parallel": _SEVERAL, "parallel_multiple": _SEVERAL, "live_parallel": _SEVERAL,
    "live_parallel_multiple": _SEVERAL,
    "java": _OTHER_LANGUAGE, "javascript": _OTHER_LANGUAGE, "simple_java": _OTHER_LANGUAGE,
    "simple_javascript": _OTHER_LANGUAGE,
    "live_relevance": "it has no ground truth (BFCL counts any call as right)",
    "multi_turn_base": _MULTI_TURN, "multi_turn_miss_func": _MULTI_TURN,
    "multi_turn_miss_param": _MULTI_TURN, "multi_turn_long_context": _MULTI_TURN,
    "multi_turn_composite": _MULTI_TURN, "memory": _MULTI_TURN,
    "web_search": "its entries search the live web over several turns",
    "format_sensitivity": "it varies BFCL's own prompt format, which tooleval does not use",
}
TYPE_MAP = {"dict": "object", "float": "number", "tuple": "array", "integer": "integer",
            "string": "string", "boolean": "boolean", "array": "array", "object": "object",
            "number": "number", "null": "null"}
TOOL_RESULT = "done"


class BfclError(Exception):
    pass


class BadEntry(Exception):
    """One entry the case format cannot hold: ``reason`` says why, ``detail`` adds what."""

    def __init__(self, bfcl_id: str, reason: str, detail: str = "") -> None:
        super().__init__(f"{bfcl_id}: {reason}{detail}")
        self.bfcl_id, self.reason = bfcl_id, reason


def kind_of(path: Path) -> str:
    """BFCL's kind of a file, from its name as BFCL spells it (BFCL_v3_simple.json → simple)."""
    match = FILE_NAME.match(path.name)
    if match is None:
        raise BfclError(f"{path}: not a BFCL file name (BFCL names its files "
                        "BFCL_v<N>_<kind>.json, e.g. BFCL_v4_simple_python.json); give the "
                        "file under the name BFCL gave it")
    kind = match.group(2)
    if kind in KINDS:
        return kind
    why = UNSUPPORTED.get(kind, "this importer does not know it")
    raise BfclError(f"{path}: BFCL kind {kind!r} ({len(read_rows(path))} entries) is not "
                    f"supported: {why}. Supported kinds: {', '.join(KINDS)}")


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The entries of a JSON Lines file, as written."""
    if not path.is_file():
        raise BfclError(f"{path}: no such file")
    rows = []
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise BfclError(f"{path}: line {number} is not JSON: {err}") from None
            if not isinstance(row, dict) or "id" not in row:
                raise BfclError(f"{path}: line {number} is not a BFCL entry (an object with "
                                "an 'id')")
            rows.append(row)
    return rows


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


def language_of(kind: str) -> str:
    """BFCL's curated sets are English; its live data was typed by users in many languages
    and is recorded as undetermined (``und``)."""
    return "und" if kind.startswith("live_") else "en"


def _message(bfcl_id: str, question: Any) -> str:
    """The one user message of a single-turn entry; anything else is refused."""
    if not isinstance(question, list) or not question:
        raise BadEntry(bfcl_id, "no 'question' turns")
    if len(question) > 1:
        raise BadEntry(bfcl_id, "earlier turns", f" ({len(question)} turns; the case format "
                       "holds the user's messages only, not the assistant's replies)")
    messages = question[0]
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise BadEntry(bfcl_id, "a 'question' turn that is not a list of messages",
                       " (BFCL's shape: [[{\"role\": \"user\", \"content\": ...}]])")
    roles = [m.get("role") for m in messages]
    if "system" in roles:
        raise BadEntry(bfcl_id, "a system prompt", " (the case format has no place for one)")
    if roles != ["user"]:
        raise BadEntry(bfcl_id, "earlier turns", f" ({', '.join(map(str, roles))}; the case "
                       "format holds the user's messages only, not the assistant's replies)")
    text = str(messages[0].get("content") or "").strip()
    if not text:
        raise BadEntry(bfcl_id, "an empty user message")
    return text


def _has_dict(value: Any) -> bool:
    return isinstance(value, dict) or (isinstance(value, list) and any(map(_has_dict, value)))


def _gold_value(value: Any) -> Any:
    """A concrete value from a ground-truth value: a nested dict's keys hold accepted
    values in turn (the first that is given; keys that may be left out are)."""
    if isinstance(value, dict):
        chosen = {key: _first(values) for key, values in value.items()}
        return {key: v for key, v in chosen.items() if v != ""}
    if isinstance(value, list):
        return [_gold_value(v) for v in value]
    return value


def _first(values: Any) -> Any:
    """The first accepted value given; BFCL's null ("the default") only when nothing else
    is accepted and the parameter may not be left out; ``""`` to leave it out."""
    values = values if isinstance(values, list) else [values]
    given = [v for v in values if v not in ("", None)]
    if given:
        return _gold_value(given[0])
    return None if None in values and "" not in values else ""


def case_name(bfcl_id: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "-", bfcl_id).strip("-.") or "entry"
    return name if re.match(r"^[A-Za-z0-9]", name) else f"e{name}"


@dataclass
class Entry:
    bfcl_id: str
    case: dict[str, Any]
    tools: list[dict[str, Any]]
    skipped_constraints: int = 0


def entry_of(row: dict[str, Any], kind: str, answer: dict[str, Any] | None) -> Entry:
    bfcl_id = str(row.get("id"))
    step: dict[str, Any] = {"message": _message(bfcl_id, row.get("question"))}
    try:
        tools = [inline_tool(doc) for doc in row.get("function") or []]
    except (KeyError, TypeError, AttributeError) as exc:
        raise BadEntry(bfcl_id, "a function doc without a name", f" ({exc})") from None
    for offered in tools:
        try:
            jsonschema.Draft202012Validator.check_schema(offered["parameters"])
        except jsonschema.SchemaError as exc:
            raise BadEntry(bfcl_id, "a function whose parameters are not a valid schema",
                           f": {offered['name']!r}: {exc.message}"[:200]) from None
    names = Counter(t["name"] for t in tools)
    if twice := [n for n, count in names.items() if count > 1]:
        raise BadEntry(bfcl_id, "two functions with one tool name", f": {twice[0]!r}")
    case = {"name": case_name(bfcl_id), "category": "irrelevance", "group": f"bfcl-{kind}",
            "steps": [step]}
    if KINDS[kind] == "irrelevance":
        return Entry(bfcl_id, case, tools)
    truth = (answer or {}).get("ground_truth")
    if not isinstance(truth, list) or not truth:
        raise BadEntry(bfcl_id, "no ground truth in the possible_answer file")
    if len(truth) != 1 or not isinstance(truth[0], dict) or len(truth[0]) != 1:
        raise BadEntry(bfcl_id, "a ground truth of several calls", f" ({len(truth)}; one "
                       "case expects one call)")
    function, params = next(iter(truth[0].items()))
    tool = next((t for t in tools if t["name"] == tool_name(function)), None)
    if tool is None:
        raise BadEntry(bfcl_id, "a ground truth calling a function not offered",
                       f": {function!r}")
    params = params or {}
    if not isinstance(params, dict):
        raise BadEntry(bfcl_id, "a ground truth whose arguments are not an object",
                       f": {function!r}: {params!r}"[:200])
    # The accepted values ``args`` can check: scalars and lists of scalars, not nested dicts.
    args = {p: vs for p, vs in params.items() if isinstance(vs, list) and not _has_dict(vs)}
    gold_args = {p: v for p, v in ((p, _first(vs)) for p, vs in params.items()) if v != ""}
    schema = tool["parameters"]
    error = jsonschema.exceptions.best_match(
        jsonschema.validators.validator_for(schema)(schema).iter_errors(gold_args))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(arguments)"
        raise BadEntry(bfcl_id, "a ground truth its own function's schema refuses",
                       f" at {where}: {error.message}")
    step["expect"] = tool["name"]
    if args:
        step["args"] = args
    step["gold"] = [{"tool": tool["name"], "args": gold_args}]
    case["category"] = "tool"
    return Entry(bfcl_id, case, tools, len(params) - len(args))


@dataclass
class Imported:
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    cases: int = 0
    skipped_constraints: int = 0
    bad: list[BadEntry] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)  # "later ~ earlier: text"


def _pack(entries: Iterable[Entry], base: str, kind: str, source: str) -> list[dict[str, Any]]:
    files: list[dict[str, Any]] = []
    tools: dict[str, dict[str, Any]] = {}
    cases: list[dict[str, Any]] = []

    def flush() -> None:
        if cases:
            files.append({"name": f"{base}-{len(files) + 1:03d}", "language": language_of(kind),
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
    """Convert every entry of ``paths``; the entries that cannot be are in ``bad``."""
    result = Imported()
    converted: list[tuple[Path, str, list[Entry]]] = []
    for path in paths:
        kind = kind_of(path)
        rows = read_rows(path)
        answers: dict[str, dict[str, Any]] = {}
        if KINDS[kind] != "irrelevance":
            answer_path = (answers_dir or path.parent / "possible_answer") / path.name
            if not answer_path.is_file():
                raise BfclError(f"{path}: BFCL {kind} needs its possible_answer file; looked "
                                f"for {answer_path} (give the folder with --answers)")
            answers = {str(a.get("id")): a for a in read_rows(answer_path)}
        entries = []
        for row in rows:
            try:
                entries.append(entry_of(row, kind, answers.get(str(row.get("id")))))
            except BadEntry as bad:
                result.bad.append(bad)
        converted.append((path, kind, entries))
    questions = [Question(file=str(path), case=e.bfcl_id, language=language_of(kind),
                          text=e.case["steps"][0]["message"])
                 for path, kind, entries in converted for e in entries]
    later = set()
    for pair in find_near_duplicates(questions, DEFAULT_SIMILARITY):
        later.add((pair.second.file, pair.second.case))
        result.duplicates.append(f"{pair.second.case} ~ {pair.first.case} "
                                 f"({pair.score:.0f}% similar): {pair.second.text[:60]!r}")
    for path, kind, entries in converted:
        kept = [e for e in entries if (str(path), e.bfcl_id) not in later]
        result.cases += len(kept)
        result.skipped_constraints += sum(e.skipped_constraints for e in kept)
        stem = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")
        base = "bfcl-" + stem.removeprefix("bfcl-")
        for data in _pack(kept, base, kind, path.name):
            result.files[data["name"] + ".json"] = data
    return result


def write_all(files: dict[str, dict[str, Any]], out: Path) -> None:
    """Every file into a new folder beside ``out``, checked by the loader's guards, then the
    folder moved into place: ``out`` holds all of them or is left as it was."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        folder = staging / out.name
        folder.mkdir()  # the umask's mode, as a plain folder (mkdtemp's is private)
        for name, data in files.items():
            target = folder / name
            target.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                              encoding="utf-8")
            try:
                load_case_file(target)
            except CaseFileError as exc:
                raise BfclError(f"{out / name} would not pass the guards: {exc}") from None
        if out.exists():
            out.rmdir()  # empty: checked before the import
        os.replace(folder, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
