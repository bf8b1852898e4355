"""The JSON envelope: its schema admits exactly an answer or a schema-valid call of a shown
tool, and llama.cpp's converter keeps every alternative."""

from __future__ import annotations

import ctypes
import json
import math
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from pytest_tooleval.models.grammar import (
    GrammarError,
    envelope_schema,
    inline_refs,
    schema_to_gbnf,
    unenforced_keywords,
    validate_gbnf,
)
from pytest_tooleval.tools.base import ToolSpec


@pytest.fixture(scope="module")
def vocab() -> Iterator[Any]:
    """The default model's vocabulary, for llama.cpp's own grammar parser and matcher."""
    import llama_cpp

    from pytest_tooleval.models.llama import default_model_path

    llama = llama_cpp.Llama(model_path=str(default_model_path()), vocab_only=True,
                            verbose=False)
    yield llama
    llama.close()


def _admits(vocab: Any, gbnf: str, text: str) -> bool:
    """Whether llama.cpp's grammar sampler lets ``text`` through, token by token, and
    then the end of the generation."""
    import llama_cpp

    validate_gbnf(vocab._model.vocab, gbnf)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab._model.vocab, gbnf.encode(), b"root")
    one = (llama_cpp.llama_token_data * 1)()
    array = llama_cpp.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
    try:
        for token in [*vocab.tokenize(text.encode(), add_bos=False), vocab.token_eos()]:
            one[0].id, one[0].logit, one[0].p = token, 0.0, 0.0
            array.size, array.selected = 1, -1
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
            if not math.isfinite(one[0].logit):
                return False
            if token != vocab.token_eos():
                llama_cpp.llama_sampler_accept(sampler, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)


def _call(arguments: dict[str, Any]) -> str:
    return json.dumps({"tool": "t", "arguments": arguments}, ensure_ascii=False)


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


@pytest.mark.realmodel
def test_quotes_backslashes_and_unicode_in_literals_are_the_values_themselves(vocab: Any) -> None:
    value = {"type": "string", "enum": ['say "hi"', "C:\\temp", "Zürich"]}
    spec = ToolSpec("t", "t", {"type": "object", "properties": {'we"ird': value},
                               "required": ['we"ird']}, "t")
    gbnf = schema_to_gbnf(envelope_schema([spec]))
    for choice in value["enum"]:
        assert _admits(vocab, gbnf, _call({'we"ird': choice})), choice
    assert not _admits(vocab, gbnf, _call({'we"ird': "C:\temp"}))  # a tab, not a backslash
    assert _admits(vocab, gbnf, '{"answer": "You are welcome."}')


@pytest.mark.realmodel
def test_any_value_is_any_value_not_an_object(vocab: Any) -> None:
    from pytest_tooleval.tools.python import python_tool

    def remember(key: str, value: Any, note=None) -> str:
        """Remember a value."""
        return key

    schema = python_tool(remember).parameters  # value: {}, note: {"default": null}
    python = ToolSpec("remember", "Remember a value.", schema, "python")
    mcp = ToolSpec("t", "t", {"type": "object", "additionalProperties": True, "properties": {
        "v": {"description": "anything"}, "w": True}, "required": ["v"]}, "mcp")
    gbnf = schema_to_gbnf(envelope_schema([python, mcp]))
    for value in ("text", 5, None, [1, "a"], {"k": 1}):
        for call in ({"tool": "remember", "arguments": {"key": "k", "value": value}},
                     {"tool": "t", "arguments": {"v": value, "w": value, "extra": value}}):
            assert _valid(envelope_schema([python, mcp]), call)
            assert _admits(vocab, gbnf, json.dumps(call)), call
    assert not _admits(vocab, gbnf, _call({"v": "x"}).replace('"t"', '"remember"'))


@pytest.mark.realmodel
def test_one_of_these_fields_is_required_is_a_grammar(vocab: Any) -> None:
    """anyOf/oneOf of "required" lists beside the properties: the converter refused it
    ("Unrecognized schema: {'required': ['a']}"), so every case showing the tool was an
    ERROR under grammar on."""
    for key in ("anyOf", "oneOf"):
        spec = ToolSpec("t", "t", {"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "integer"}},
            key: [{"required": ["a"]}, {"required": ["b"]}]}, "mcp")
        gbnf = schema_to_gbnf(envelope_schema([spec]))
        assert _admits(vocab, gbnf, _call({"a": "x"})) and _admits(vocab, gbnf, _call({"b": 2}))
        assert not _admits(vocab, gbnf, _call({})) and not _admits(vocab, gbnf, _call({"b": "x"}))


@pytest.mark.realmodel
def test_a_type_list_keeps_the_keywords_beside_it(vocab: Any) -> None:
    """{"type": ["string", "null"], "enum": [...]} became "string | null": any string
    admitted, the enum and maxLength dropped without a word."""
    spec = ToolSpec("t", "t", {"type": "object", "required": ["u", "v"], "properties": {
        "u": {"type": ["string", "null"], "enum": ["a", "b"]},
        "v": {"type": ["string", "null"], "maxLength": 3}}}, "mcp")
    gbnf = schema_to_gbnf(envelope_schema([spec]))
    for ok in ({"u": "a", "v": "abc"}, {"u": "b", "v": None}):
        assert _admits(vocab, gbnf, _call(ok)), ok
    for bad in ({"u": "zzz", "v": "abc"}, {"u": "a", "v": "abcd"}):
        assert not _valid(spec.parameters, bad) and not _admits(vocab, gbnf, _call(bad)), bad


@pytest.mark.realmodel
def test_the_grammar_admits_no_string_the_parser_cannot_read(vocab: Any) -> None:
    from pytest_tooleval.models.parsing import split_output

    spec = ToolSpec("t", "t", {"type": "object", "properties": {"content": {"type": "string"}},
                               "required": ["content"]}, "t")
    gbnf = schema_to_gbnf(envelope_schema([spec]))
    for raw in ('{"answer": "Sure:\n- a\n- b"}', '{"tool": "t", "arguments": {"content": "a\tb"}}'):
        assert not _admits(vocab, gbnf, raw)  # raw control characters: no JSON
    for value in ("Sure:\n- a\n- b", "a\tb\u0001"):
        call, answer = _call({"content": value}), json.dumps({"answer": value})
        assert _admits(vocab, gbnf, call) and _admits(vocab, gbnf, answer)
        assert split_output(call, {"t"})[1][0].arguments == json.dumps({"content": value})
        assert split_output(answer, {"t"}) == (value, [])


@pytest.mark.realmodel
def test_a_pattern_is_not_translated_but_reported(vocab: Any) -> None:
    properties = {"month": {"type": "string", "pattern": "^\\d{4}-\\d{2}$"},
                  "code": {"type": "string", "pattern": "[A-Z]{3}"},
                  "name": {"type": "string", "pattern": "^.+$"}}
    spec = ToolSpec("t", "t", {"type": "object", "properties": properties,
                               "required": list(properties)}, "t")
    gbnf = schema_to_gbnf(envelope_schema([spec]))
    arguments = {"month": "2024-01", "code": "USD", "name": 'x"y'}
    assert _admits(vocab, gbnf, _call(arguments))
    assert not _admits(vocab, gbnf, _call(arguments).replace('\\"', '"'))  # no JSON
    assert unenforced_keywords(envelope_schema([spec])) == {"pattern"}
    properties["code"]["minLength"] = 3  # dropped with the pattern: reported too
    assert unenforced_keywords(envelope_schema([spec])) == {"pattern", "minLength"}
    properties["name"] = {"type": "string", "minLength": 1}  # enforced without a pattern
    assert unenforced_keywords(envelope_schema([spec])) == {"pattern", "minLength"}
