"""Case files are untrusted input: bounds checked after parsing, before validation.

Nesting deeper than ``MAX_DEPTH`` (it overflows recursive consumers downstream); values
that are not JSON data (a YAML ``!!set`` or ``!!binary``); NaN, Infinity and integers of
more than ``MAX_INT_DIGITS`` digits; a NUL character in any text or key (it cuts text short
in C libraries, XML and paths); and in an inline tool's ``parameters``, a ``$ref`` that is
remote (it would be fetched at call time), points at nothing, or refers to a schema that
contains it. Each problem is (location, message, fix); ``cases/load.py`` names the case,
step and field from the location.
"""

from __future__ import annotations

import datetime
import math
from typing import Any
from urllib.parse import unquote

from pytest_tooleval.yamlio import MAX_INT_DIGITS, LongNumber

MAX_DEPTH = 64
_INT_LIMIT = 10**MAX_INT_DIGITS
REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")

Location = tuple[int | str, ...]
Found = tuple[Location, str, str]


def _scalar_problem(value: Any) -> tuple[str, str] | None:
    """(message, fix) for a number or text no case file may hold; None if it is fine."""
    if isinstance(value, str):
        if "\0" in value:
            return ("a NUL character (\\0) in the text: it cuts the text short in C "
                    "libraries, XML reports and file names",
                    "remove it; case files hold printable text")
    elif isinstance(value, float):
        if not math.isfinite(value):
            word = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
            return (f"{word} where a number is expected: JSON has no such number (one too "
                    "large for a float reads as Infinity)",
                    "write a finite number, or the word as text in quotes")
    elif isinstance(value, LongNumber) or (isinstance(value, int) and abs(value) >= _INT_LIMIT):
        return (f"an integer of more than {MAX_INT_DIGITS} digits",
                "write it as text in quotes; Python cannot print an integer that long")
    elif isinstance(value, datetime.date):  # datetime too: YAML reads an unquoted date
        return ("a YAML date (an unquoted date or date-time) where JSON data is expected",
                f"write it as text in quotes: '{value.isoformat()}'")
    return None


def check_data(data: Any) -> list[Found]:
    """Depth, non-JSON values, NUL, NaN and huge integers, found without recursion (so
    any depth is safe)."""
    found: list[Found] = []
    stack: list[tuple[Any, Location]] = [(data, ())]
    while stack:
        value, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            found.append((loc[:8], f"nested deeper than {MAX_DEPTH} levels",
                          "flatten the structure; case files never need that depth"))
            continue
        if isinstance(value, dict):
            for key, child in value.items():
                if type(key) is not str or "\0" in key:  # YAML keys may be anything
                    problem = _scalar_problem(key)
                    if problem is not None:
                        found.append(((*loc, key), *problem))
                stack.append((child, (*loc, key)))
        elif isinstance(value, list):
            stack.extend((child, (*loc, index)) for index, child in enumerate(value))
        elif isinstance(value, set | frozenset):
            found.append((loc, "a YAML set (!!set) where a list or object is expected",
                          "write a list instead: [a, b]"))
        elif isinstance(value, bytes | bytearray):
            found.append((loc, "binary data (!!binary) where text is expected",
                          "write the value as text"))
        else:
            problem = _scalar_problem(value)
            if problem is not None:
                found.append((loc, *problem))
    return found


def _pointer(fragment: str) -> Location | None:
    """``#/a/b~1c`` → ('a', 'b/c'); None if not a JSON pointer."""
    if fragment == "#":
        return ()
    if not fragment.startswith("#/"):
        return None
    parts = unquote(fragment[2:]).split("/")
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in parts)


def _resolve(schema: Any, path: Location) -> Location | None:
    """The location ``path`` points at in ``schema`` (list indices as ints); None if none."""
    node = schema
    real: list[int | str] = []
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
            real.append(part)
        elif isinstance(node, list) and isinstance(part, str) and part.isdigit() and \
                int(part) < len(node):
            node = node[int(part)]
            real.append(int(part))
        else:
            return None
    return tuple(real)


def check_schema_refs(schema: Any) -> list[Found]:
    """Remote, missing and recursive references in one inline schema."""
    found: list[Found] = []
    refs: list[tuple[Location, Location]] = []  # (where the ref is, what it points at)
    anchors: dict[str, Location] = {}
    stack: list[tuple[Any, Location]] = [(schema, ())]
    pending: list[tuple[Location, str, str]] = []
    while stack:
        value, loc = stack.pop()
        if isinstance(value, list):
            stack.extend((child, (*loc, index)) for index, child in enumerate(value))
        if not isinstance(value, dict):
            continue
        anchor = value.get("$anchor")
        if isinstance(anchor, str):
            anchors[anchor] = loc
        for key in REF_KEYS:
            target = value.get(key)
            if isinstance(target, str):
                pending.append((loc, key, target))
        stack.extend((child, (*loc, key)) for key, child in value.items())
    for loc, key, target in pending:
        if not target.startswith("#"):
            found.append(((*loc, key), f"{key} {target!r} points outside this file; remote "
                          "references would be fetched when the tool is called",
                          "define the schema inline, or under $defs with a local "
                          "'#/$defs/...' reference"))
            continue
        path = _pointer(target)
        real = anchors.get(target[1:]) if path is None else _resolve(schema, path)
        if real is None:
            found.append(((*loc, key), f"{key} {target!r} points at nothing in this schema",
                          "fix the reference or add the definition it names"))
        else:
            refs.append((loc, real))
    found += _recursive(refs)
    return found


def _recursive(refs: list[tuple[Location, Location]]) -> list[Found]:
    """A ref whose target contains, directly or through other refs, the ref itself."""
    def inside(loc: Location, target: Location) -> bool:
        return loc[: len(target)] == target

    edges = {i: [j for j, (loc, _) in enumerate(refs) if inside(loc, refs[i][1])]
             for i in range(len(refs))}
    found: list[Found] = []
    for start in range(len(refs)):
        seen: set[int] = set()
        stack = list(edges[start])
        while stack:
            current = stack.pop()
            if current == start:
                found.append(((*refs[start][0], "$ref"), "a recursive $ref: it refers to a "
                              "schema that contains it; inline schemas must be finite",
                              "give the nested levels explicitly, without a reference loop"))
                break
            if current not in seen:
                seen.add(current)
                stack.extend(edges[current])
    return found
