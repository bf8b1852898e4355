"""The JSON envelope: its schema admits exactly an answer or a schema-valid call of a shown
tool, and llama.cpp's converter keeps every alternative."""

from __future__ import annotations

import jsonschema
import pytest

from pytest_tooleval.models.grammar import (
    GrammarError,
    envelope_schema,
    inline_refs,
    schema_to_gbnf,
    unenforced_keywords,
)
from pytest_tooleval.tools.base import ToolSpec


def _valid(schema: dict, value: object) -> bool:
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError:
        return False
    return True


def test_envelope_admits_answers_and_valid_calls_only(tools: list[ToolSpec]) -> None:
    schema = envelope_schema(tools)
    assert _valid(schema, {"answer": "hello"})
    assert _valid(schema, {"tool": "get_weather", "arguments": {"city": "Paris"}})
    assert _valid(schema, {"tool": "add", "arguments": {"a": 1, "b": 2}})
    assert not _valid(schema, {"tool": "add", "arguments": {"a": "1", "b": 2}})
    assert not _valid(schema, {"tool": "add", "arguments": {"a": 1}})
    assert not _valid(schema, {"tool": "delete_all", "arguments": {}})
    assert not _valid(schema, {"answer": "x", "tool": "add"})
    assert not _valid(schema, {"answer": 3})


def test_envelope_without_tools_is_answer_only() -> None:
    schema = envelope_schema([])
    assert len(schema["anyOf"]) == 1
    assert _valid(schema, {"answer": "x"})


def test_tool_without_parameters_takes_any_object() -> None:
    bare = ToolSpec("now", "The time.", {}, "inline:test")
    assert _valid(envelope_schema([bare]), {"tool": "now", "arguments": {}})


def test_local_refs_are_inlined_and_recursion_refused() -> None:
    schema = {
        "type": "object",
        "properties": {"where": {"$ref": "#/$defs/place"}},
        "$defs": {"place": {"type": "string", "enum": ["home", "work"]}},
    }
    assert inline_refs(schema) == {
        "type": "object",
        "properties": {"where": {"type": "string", "enum": ["home", "work"]}},
    }
    recursive = {"type": "object", "properties": {"child": {"$ref": "#"}}}
    with pytest.raises(GrammarError, match="recursive"):
        inline_refs(recursive)


def test_unenforced_keywords_are_reported() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1, "description": "count"},
            "when": {"type": "string", "format": "date"},
            "mail": {"type": "string", "format": "email"},
            "minimum": {"type": "string"},  # a property named like a keyword is not one
        },
    }
    assert unenforced_keywords(schema) == {"minimum", "format:email"}


def test_gbnf_keeps_every_alternative(tools: list[ToolSpec]) -> None:
    gbnf = schema_to_gbnf(envelope_schema(tools))
    assert '\\"get_weather\\"' in gbnf and '\\"add\\"' in gbnf and '\\"answer\\"' in gbnf


def test_unconvertible_schema_raises_instead_of_any_json() -> None:
    bad = ToolSpec("x", "x", {"type": "object", "properties": {"y": {"type": "frobnicate"}}}, "t")
    with pytest.raises(GrammarError):
        schema_to_gbnf(envelope_schema([bad]))
