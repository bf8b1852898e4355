"""Case files are untrusted input: bounds checked after parsing, before validation.

- nesting deeper than ``MAX_DEPTH`` (JSON has no alias bombs, but 5,000 nested arrays in a
  ``result`` overflow every recursive consumer downstream);
- values that are not JSON data (a YAML ``!!set``, ``!!binary``) where a list or text is meant;
- ``$ref`` in an inline tool's ``parameters``: a remote reference would be fetched at call
  time, so only local ones (``#/...`` or an ``$anchor``) are allowed, and those must exist
  and must not refer to a schema that contains them (directly or through other refs).

Each problem comes back as (location, message, fix); ``cases/load.py`` names the case,
step and field from the location.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

MAX_DEPTH = 64
REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")

Location = tuple[int | str, ...]
Found = tuple[Location, str, str]


def _items(value: Any) -> Iterator[tuple[int | str, Any]]:
    if isinstance(value, dict):
        yield from value.items()
    elif isinstance(value, list):
        yield from enumerate(value)


# A node's place: None for the root, else (depth, the parent's place, the key in it).
_Place = tuple[int, Any, int | str] | None


def _location(place: _Place) -> Location:
    keys: list[int | str] = []
    while place is not None:
        place, key = place[1], place[2]
        keys.append(key)
    return tuple(reversed(keys))


def check_data(data: Any, max_depth: int = MAX_DEPTH) -> list[Found]:
    """Depth and non-JSON values, found without recursion (so any depth is safe). A
    node's location is spelt out only for a problem (most nodes have none)."""
    found: list[Found] = []
    stack: list[tuple[Any, _Place]] = [(data, None)]
    while stack:
        value, place = stack.pop()
        depth = place[0] if place is not None else 0
        if depth > max_depth:
            found.append((_location(place)[:8], f"nested deeper than {max_depth} levels",
                          "flatten the structure; case files never need that depth"))
            continue
        if isinstance(value, dict):
            stack.extend((child, (depth + 1, place, key)) for key, child in value.items())
        elif isinstance(value, list):
            stack.extend((child, (depth + 1, place, key)) for key, child in enumerate(value))
        elif isinstance(value, set | frozenset):
            found.append((_location(place), "a YAML set (!!set) where a list or object is "
                          "expected", "write a list instead: [a, b]"))
        elif isinstance(value, bytes | bytearray):
            found.append((_location(place), "binary data (!!binary) where text is expected",
                          "write the value as text"))
    return found


def _pointer(fragment: str) -> Location | None:
    """``#/a/b~1c`` → ('a', 'b/c'); None if not a JSON pointer."""
    if fragment == "#":
        return ()
    if not fragment.startswith("#/"):
        return None
    parts = unquote(fragment[2:]).split("/")
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in parts)


def _resolve(schema: Any, path: Location) -> tuple[bool, Location]:
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
            return False, ()
    return True, tuple(real)


def check_schema_refs(schema: Any) -> list[Found]:
    """Remote, missing and recursive references in one inline schema."""
    found: list[Found] = []
    refs: list[tuple[Location, Location]] = []  # (where the ref is, what it points at)
    anchors: dict[str, Location] = {}
    stack: list[tuple[Any, Location]] = [(schema, ())]
    pending: list[tuple[Location, str, str]] = []
    while stack:
        value, loc = stack.pop()
        if isinstance(value, dict):
            anchor = value.get("$anchor")
            if isinstance(anchor, str):
                anchors[anchor] = loc
            for key in REF_KEYS:
                target = value.get(key)
                if isinstance(target, str):
                    pending.append((loc, key, target))
        stack.extend((child, (*loc, key)) for key, child in _items(value))
    for loc, key, target in pending:
        if not target.startswith("#"):
            found.append(((*loc, key), f"{key} {target!r} points outside this file; remote "
                          "references would be fetched when the tool is called",
                          "define the schema inline, or under $defs with a local "
                          "'#/$defs/...' reference"))
            continue
        path = _pointer(target)
        real: Location = ()
        if path is None:
            if target[1:] in anchors:
                refs.append((loc, anchors[target[1:]]))
                continue
            ok = False
        else:
            ok, real = _resolve(schema, path)
        if not ok:
            found.append(((*loc, key), f"{key} {target!r} points at nothing in this schema",
                          "fix the reference or add the definition it names"))
            continue
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
