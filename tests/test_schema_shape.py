"""``cases.schemashape.plainly_valid`` says "valid" only where jsonschema's meta-schema
check agrees: over the corpus's own schemas and thousands of generated ones, valid and
invalid, the guard's verdict and message are the same with and without the shortcut."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_tooleval.cases import guards
from pytest_tooleval.cases.schemashape import plainly_valid

ROOT = Path(__file__).resolve().parents[1]


def _jsonschema_valid(schema: Any) -> bool:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


_KEYS = ["type", "description", "title", "properties", "required", "enum", "minimum",
         "maximum", "minLength", "maxItems", "items", "additionalProperties", "pattern",
         "default", "const", "format", "anyOf", "oneOf", "not", "uniqueItems", "multipleOf",
         "examples", "deprecated", "$ref", "dependentRequired", "x-extra", "minContains"]
_VALUES: list[Any] = ["string", "object", "integer", "number", "array", "boolean", "null",
                      "strin", "", "^[a-z]+$", "([", 0, 1, -1, 2.0, 2.5, True, False, None,
                      [], ["a"], ["a", "a"], ["string", "null"], ["string", "string"],
                      [1, 2], {}, [{}], [True], {"a": {}}, {"a": 1}, {1: {}}, "#/x"]


def _random_schema(rng: random.Random, depth: int = 0) -> Any:
    if depth > 2 or rng.random() < 0.1:
        return rng.choice([True, False, {}, {"type": "string"}, rng.choice(_VALUES)])
    schema: dict[Any, Any] = {}
    for _ in range(rng.randint(0, 5)):
        key = rng.choice(_KEYS)
        roll = rng.random()
        if key == "properties" and roll < 0.8:
            count = rng.randint(0, 3)
            schema[key] = {f"p{i}": _random_schema(rng, depth + 1) for i in range(count)}
        elif key in ("items", "additionalProperties", "not") and roll < 0.7:
            schema[key] = _random_schema(rng, depth + 1)
        elif key in ("anyOf", "oneOf") and roll < 0.7:
            schema[key] = [_random_schema(rng, depth + 1) for _ in range(rng.randint(0, 2))]
        else:
            schema[key] = rng.choice(_VALUES)
    return schema


def test_plainly_valid_never_disagrees_with_jsonschema() -> None:
    rng = random.Random(20)
    decided = 0
    for _ in range(4000):
        schema = _random_schema(rng)
        if plainly_valid(schema):
            decided += 1
            assert _jsonschema_valid(schema), schema
    assert decided > 500  # the shortcut does decide the common shapes


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"id": {"type": "string", "pattern": "^ORD-[0-9]{5}$",
                                             "description": "the id"}}, "required": ["id"]},
    {"type": "object", "properties": {"unit": {"type": "string", "enum": ["km", "mi"]},
                                      "n": {"type": "number", "minimum": 0, "maximum": 9}}},
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
     "additionalProperties": False},
])
def test_the_usual_shapes_are_decided_without_jsonschema(schema: dict[str, Any]) -> None:
    assert plainly_valid(schema) and _jsonschema_valid(schema)


@pytest.mark.parametrize("schema", [
    {"type": "strin"},
    {"type": "object", "required": ["a", "a"]},
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "(["}}},
    {"type": "object", "properties": {"a": {"minLength": -1}}},
    {"type": "object", "properties": {"a": {"minimum": True}}},
    {"type": "object", "enum": "a"},
    {"type": "object", "anyOf": []},
    {"type": "object", "$ref": "#/$defs/x"},
    {"type": "object", "properties": {"a": {"maxLength": 2.0}}},
])
def test_everything_else_goes_to_jsonschema(schema: dict[str, Any]) -> None:
    assert not plainly_valid(schema)


@pytest.mark.parametrize("schema", [
    {"type": "strin"},
    {"type": "object", "required": ["a", "a"]},
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "(["}}},
    {"type": "object", "properties": {"a": {"minLength": -1}}},
    {"type": "string"},
    {"type": "object", "properties": {"a": {"type": "string"}}},
])
def test_the_guard_says_what_jsonschema_says(schema: dict[str, Any],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    shortcut = guards._schema_problem(schema)
    monkeypatch.setattr(guards, "plainly_valid", lambda schema: False)
    assert guards._schema_problem(schema) == shortcut


def test_the_corpus_schemas_agree() -> None:
    from pytest_tooleval.cases.load import load_case_file
    from pytest_tooleval.check.files import collect_files

    folders = [ROOT / name for name in ("benchmarks", "scenarios") if (ROOT / name).is_dir()]
    schemas = []
    for path in collect_files(folders):
        try:
            schemas += [tool.parameters for tool in load_case_file(path, ()).tools]
        except Exception:  # a file the guards refuse: not this test's business
            continue
    assert schemas
    for schema in schemas:
        assert plainly_valid(schema) and _jsonschema_valid(schema), schema
