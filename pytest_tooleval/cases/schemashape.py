"""A cheap, exact "valid" verdict for the parameter schemas case files usually hold.

``guards._schema_problem`` checks an inline tool's parameters against the JSON Schema
2020-12 meta-schema with jsonschema, which costs its import (with its meta-schemas and
format checkers, about 70 ms) and about 0.8 ms per schema. Most schemas are built from a
handful of keywords (``type``, ``properties``, ``required``, ``description``, ``enum``,
``minimum``, …) whose meta-schema rules are simple; ``plainly_valid`` decides those here.

It answers True only where the meta-schema accepts the schema, by the same rules
jsonschema applies (its type checker: a bool is not a number, an array is a list, an
object a dict; a ``pattern`` must compile with ``re``, as jsonschema's ``regex`` format
checker asks). Anything else (another keyword, a value of another type, a float where a
non-negative integer is asked, an invalid schema) answers False, and the caller asks
jsonschema, so every verdict and every message stays jsonschema's own
(tests/test_schema_shape.py compares the two).
"""

from __future__ import annotations

import re
from typing import Any

_SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
#: Keywords whose value the meta-schema does not constrain.
_ANY = frozenset({"const", "default"})
_STRING = frozenset({"title", "description", "$comment", "format"})
_BOOLEAN = frozenset({"deprecated", "readOnly", "writeOnly", "uniqueItems"})
_NUMBER = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_COUNT = frozenset({"minLength", "maxLength", "minItems", "maxItems", "minProperties",
                    "maxProperties"})
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not", "contains", "propertyNames",
                        "if", "then", "else"})
_SCHEMA_ARRAY = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _unique_strings(value: Any) -> bool:
    return (isinstance(value, list) and all(isinstance(item, str) for item in value)
            and len(set(value)) == len(value))


def _type_ok(value: Any) -> bool:
    if isinstance(value, str):
        return value in _SIMPLE_TYPES
    return (isinstance(value, list) and len(value) >= 1 and _unique_strings(value)
            and all(item in _SIMPLE_TYPES for item in value))


def _pattern_ok(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        re.compile(value)
    except re.error:
        return False
    return True


def plainly_valid(schema: Any, depth: int = 0) -> bool:
    """True when ``schema`` is surely valid under the 2020-12 meta-schema; False means
    "not decided here" (ask jsonschema), never "invalid"."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > 32:
        return False
    for key, value in schema.items():
        if key in _ANY:
            continue
        if key == "type":
            ok = _type_ok(value)
        elif key in _STRING:
            ok = isinstance(value, str)
        elif key in _BOOLEAN:
            ok = isinstance(value, bool)
        elif key in _NUMBER:
            ok = _is_number(value)
        elif key in _COUNT:
            ok = _is_count(value)
        elif key == "multipleOf":
            ok = _is_number(value) and value > 0
        elif key in ("enum", "examples"):
            ok = isinstance(value, list)
        elif key == "required":
            ok = _unique_strings(value)
        elif key == "pattern":
            ok = _pattern_ok(value)
        elif key == "properties":
            ok = isinstance(value, dict) and all(
                isinstance(name, str) and plainly_valid(sub, depth + 1)
                for name, sub in value.items())
        elif key in _SUBSCHEMA:
            ok = plainly_valid(value, depth + 1)
        elif key in _SCHEMA_ARRAY:
            ok = isinstance(value, list) and len(value) >= 1 and all(
                plainly_valid(sub, depth + 1) for sub in value)
        else:
            ok = False  # a keyword not decided here
        if not ok:
            return False
    return True
