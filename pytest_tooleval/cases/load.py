"""Loaders for JSON benchmark files and YAML scenario files.

A broken file never produces a traceback: every problem becomes a ``CaseFileError``
naming the file, case, step and field, and how to fix it. Case files are untrusted input:
``yamlio.py`` refuses alias bombs and deep nesting before building anything (its
``MAX_BYTES`` bounds either format), ``cases/bounds.py`` what JSON data cannot hold.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path, PurePosixPath
from typing import Any, get_args

import yaml
from pydantic import BaseModel, ValidationError

from pytest_tooleval.cases.bounds import check_data, check_schema_refs
from pytest_tooleval.cases.errors import CaseFileError, Problem
from pytest_tooleval.cases.files import FOLDER_PROBLEM, is_scenario_path
from pytest_tooleval.cases.guards import check_file
from pytest_tooleval.cases.model import MAX_NAME_LENGTH, CaseFile
from pytest_tooleval.hints import choice_hint
from pytest_tooleval.world.data_io import home_folders
from pytest_tooleval.world.factory import WorldOverrideError, validate_overrides
from pytest_tooleval.yamlio import MAX_BYTES, MAX_INT_DIGITS, LongNumber, YamlLimitError, safe_load


class DuplicateKey(ValueError):
    """A JSON object names one key twice."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = dict(pairs)
    if len(data) == len(pairs):
        return data  # no key twice (the common case, decided without a Python loop)
    data = {}
    for key, value in pairs:
        if key in data:
            names = [v for k, v in pairs if k in ("name", "message") and isinstance(v, str)]
            where = f" in the object {names[0]!r}" if names else ""
            raise DuplicateKey(f"duplicate key {key!r}{where}")
        data[key] = value
    return data


def _int(text: str) -> int | LongNumber:
    """JSON integers as YAML's (``yamlio``): one too long to convert is refused later, with
    its case and field (``cases/bounds.py``), not a ``ValueError`` here."""
    if len(text) > MAX_INT_DIGITS:
        return LongNumber(text)
    try:
        return int(text)
    except ValueError:  # past sys.get_int_max_str_digits()
        return LongNumber(text)


def same_name(name: str, first: str) -> Problem:
    """A second case file of one run or check with an earlier one's benchmark name."""
    return Problem(f"the benchmark name {name!r} is already the name of {first}",
                   "rename one of them: a benchmark's name is unique in a run",
                   field="name")


def parse_text(text: str, path: Path) -> Any:
    """Parse JSON or YAML by suffix; syntax errors carry line and column."""
    try:
        if is_scenario_path(path):
            return safe_load(text)
        return json.loads(text, object_pairs_hook=_unique_keys, parse_int=_int)
    except YamlLimitError as exc:
        problem = Problem(f"YAML refused{_where(exc)}: {exc.problem or exc}",
                          "case files are read as untrusted input")
    except yaml.YAMLError as exc:
        lines, mark = text.split("\n"), getattr(exc, "problem_mark", None)
        tab = mark is not None and "\t" in (lines[mark.line:] or [""])[0][:mark.column + 1]
        # Where it began matters more than where it broke: an unclosed quote is reported at
        # the end of the file ("while scanning a quoted scalar" at its line, as context).
        begun, during = getattr(exc, "context_mark", None), getattr(exc, "context", None)
        context = (f" ({during} at line {begun.line + 1}, column {begun.column + 1})"
                   if during and begun is not None else "")
        problem = Problem(
            f"not valid YAML{_where(exc)}: {getattr(exc, 'problem', None) or exc}{context}",
            "indent with spaces: YAML refuses a tab there" if tab else
            f"close the quote opened at line {begun.line + 1}"
            if begun is not None and "quoted" in context
            else "look for an unclosed quote or bracket, a missing space after a colon or a "
            "wrong indentation on that line or the one before")
    except RecursionError:
        problem = Problem("the JSON is nested too deeply to read",
                          "flatten the structure; case files never need that depth")
    except DuplicateKey as exc:
        problem = Problem(str(exc), "merge or rename them (JSON keeps only the last one, "
                          "silently dropping the first)")
    except json.JSONDecodeError as exc:
        problem = Problem(f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
                          "fix the JSON syntax there (a trailing comma or a missing quote is "
                          "common)")
    raise CaseFileError(str(path), [problem])


def _where(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    return f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""


def _locate(data: Any, loc: tuple[int | str, ...]) -> tuple[str | None, int | None, str | None]:
    """Turn a pydantic error location into (case name, 1-based step, field path): the case
    is ``cases.N`` at the top, its step ``steps.N`` right inside it (a tool's argument may
    itself be called "cases" or "steps")."""
    case = step = None
    if len(loc) > 1 and loc[0] == "cases" and isinstance(loc[1], int):
        index = loc[1]
        node = data.get("cases", [])[index] if isinstance(data, dict) else None
        name = node.get("name") if isinstance(node, dict) else None
        case = str(name) if name is not None else f"#{index + 1}"
        if len(case) > MAX_NAME_LENGTH:  # itself refused: not repeated in full
            case = f"#{index + 1} ({case[:40]}…)"
        loc = loc[2:]
        if len(loc) > 1 and loc[0] == "steps" and isinstance(loc[1], int):
            step = loc[1] + 1
            loc = loc[2:]
    return case, step, ".".join(str(part) for part in loc) or None


_FIXES = {
    "missing": "add the field",
    "extra_forbidden": "remove it, or check its spelling against docs/format.md",
    "literal_error": "use one of the values listed",
    "too_short": "give at least one entry",
    "string_too_long": "shorten it",
    "string_too_short": "write it: it may not be empty",
}


def _union_tag(data: Any, loc: tuple[Any, ...]) -> int | None:
    """Where in ``loc`` pydantic named the member of the model's one union, ``str |
    list[str]`` (evidence items, state check fields), that it tried: ``evidence.0.str``,
    ``evidence.0.list[str]``; None when the error is not one of those."""
    node = data
    for i, part in enumerate(loc):
        if (isinstance(node, dict) and part in node) or (
                isinstance(node, list) and isinstance(part, int) and part < len(node)):
            node = node[part]
        elif part == 0 and not isinstance(node, list):
            continue  # one value where a list goes: the model made it a list of one
        else:
            return i if part in ("str", "list[str]") else None
    return None


def _close_field(loc: tuple[Any, ...]) -> str | None:
    """The field of the object at ``loc[:-1]`` that the unknown key ``loc[-1]`` misspells."""
    model: type[BaseModel] = CaseFile
    for part in (part for part in loc[:-1] if not isinstance(part, int)):
        field = next((f for name, f in model.model_fields.items() if part in (name, f.alias)),
                     None)
        inner = [t for t in _types(field and field.annotation)
                 if isinstance(t, type) and issubclass(t, BaseModel)]
        if not inner:
            return None
        model = inner[0]
    names = [field.alias or name for name, field in model.model_fields.items()]
    close = difflib.get_close_matches(str(loc[-1]), names, n=1, cutoff=0.6)
    return close[0] if close else None


def _types(annotation: Any) -> list[Any]:
    """``annotation`` and every type inside it (``list[Case] | None``: Case among them)."""
    return [annotation, *(t for arg in get_args(annotation) for t in _types(arg))]


def validation_problems(data: Any, exc: ValidationError) -> list[Problem]:
    found = []
    said: set[tuple[int | str, ...]] = set()
    errors = exc.errors(include_url=False)
    misspelt = {tuple(e["loc"]): _close_field(tuple(e["loc"])) for e in errors
                if e["type"] == "extra_forbidden"}
    # A required field written misspelt is said once, as the misspelling.
    renamed = {(*loc[:-1], name) for loc, name in misspelt.items() if name}
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] == "missing" and loc in renamed:
            continue
        message = error["msg"].removeprefix("Value error, ") + choice_hint(error)
        tag = _union_tag(data, loc)
        if tag is not None:  # a value no member fits: one problem, not one per member
            loc = loc[:tag]
            if loc in said:
                continue
            said.add(loc)
            message = "Input should be a text, or a list of texts (alternatives)"
        if error["type"] == "extra_forbidden":
            message = "unknown field"
        fix = _FIXES.get(error["type"], "")
        if misspelt.get(loc):
            message += f" (did you mean {misspelt[loc]!r}?)"
            fix = f"rename it to {misspelt[loc]!r}, or remove it"
        if tag is not None:
            fix = 'write it in quotes, as text ("412,80"); alternatives as a list of texts'
        elif error["type"] == "string_type" and isinstance(error["input"], bool | int | float):
            fix = "write it in quotes, as text" + (
                " (unquoted, YAML reads no, yes, on and off as false and true)"
                if isinstance(error["input"], bool) else "")
        elif not fix and error["type"].endswith(("_type", "_parsing")):  # a wrong type
            fix = "write the value as docs/format.md shows it (a text, a list, an object, true)"
        found.append((loc, message, fix))
    return _problems(data, found)


def _problems(data: Any, found: list[tuple[tuple[int | str, ...], str, str]]) -> list[Problem]:
    problems = []
    for loc, message, fix in found:
        case, step, field = _locate(data, loc)
        problems.append(Problem(message, fix, case=case, step=step, field=field))
    return problems


def load_case_file(
    path: Path, *, strict: bool = False
) -> CaseFile:
    """Load, validate and guard (``guards.check_file``) one case file, or raise
    ``CaseFileError``."""
    if path.is_dir():
        raise CaseFileError(str(path), [Problem(*FOLDER_PROBLEM)])
    try:
        if path.stat().st_size > MAX_BYTES:
            raise CaseFileError(str(path), [Problem(
                f"the file is larger than {MAX_BYTES // 2**20} MiB, the most a case file "
                "may hold", "split it into several case files")])
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CaseFileError(str(path), [Problem(f"cannot read the file: {exc.strerror or exc}",
                                                "give the path of a case file you can read")]
                            ) from None
    except UnicodeDecodeError as exc:
        raise CaseFileError(
            str(path), [Problem(f"cannot read the file: {exc}", "save it as UTF-8 text")]
        ) from None
    data = parse_text(text, path)
    if not isinstance(data, dict):
        raise CaseFileError(
            str(path),
            [Problem("the file must hold one object with 'name' and 'cases'",
                     "see docs/format.md")],
        )
    bounded = _problems(data, check_data(data))
    if bounded:
        raise CaseFileError(str(path), bounded)
    try:
        case_file = CaseFile.model_validate(data)
    except ValidationError as exc:
        raise CaseFileError(str(path), validation_problems(data, exc)) from None
    problems = check_file(case_file, strict=strict)
    for tool in case_file.tools:
        for loc, message, fix in check_schema_refs(tool.parameters):
            field = ".".join(map(str, ("tools", tool.name, "parameters", *loc)))
            problems.append(Problem(message, fix, field=field))
    if case_file.world is not None:
        try:
            validate_overrides(case_file.world)
        except WorldOverrideError as exc:
            problems.append(Problem(str(exc), "see docs/format.md (world overrides)",
                                    field="world"))
        folders = home_folders() | {str(folder) for rel in case_file.world.files
                                    for folder in PurePosixPath(rel).parents}
        for rel in case_file.world.files:
            if rel.endswith(("/", "\\")) or str(PurePosixPath(rel)) in folders:
                problems.append(Problem(
                    "this names a folder, and a world file is written as a file",
                    f"give a file's path, such as {rel.rstrip('/')}/notes.txt",
                    field=f"world.files.{rel}"))
            if any(part.lower() == ".git" for part in rel.replace("\\", "/").split("/")):
                problems.append(Problem(
                    "a case file may not plant files inside a .git folder (git config, "
                    "hooks and attributes there can make git run programs)",
                    "change the repository through its working files instead",
                    field=f"world.files.{rel}"))
    if problems:
        raise CaseFileError(str(path), problems)
    return case_file
