"""Reading calls and answers out of model text: every native form, several calls per turn,
and malformed attempts kept as attempts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_tooleval.engine.loop import validate_call
from pytest_tooleval.models.parsing import (
    find_leaked_calls,
    parse_calls,
    split_output,
    strip_thinking,
)
from pytest_tooleval.models.wire import chat_message
from pytest_tooleval.tools.base import ToolSpec


def test_envelope_answer_is_answer_text() -> None:
    assert split_output('{"answer": "It is 12 degrees."}') == ("It is 12 degrees.", [])


def test_envelope_call() -> None:
    text, calls = split_output('{"tool": "get_weather", "arguments": {"city": "Paris"}}')
    assert text == ""
    assert [(c.name, json.loads(c.arguments or "")) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert calls[0].parse_error is None


def test_hermes_tags_several_calls_and_prose() -> None:
    out = (
        "Let me check.\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'
    )
    text, calls = split_output(out)
    assert text == "Let me check."
    assert [c.name for c in calls] == ["get_weather", "add"]
    assert json.loads(calls[1].arguments or "") == {"a": 1, "b": 2}


def test_bare_objects_and_lists() -> None:
    assert [c.name for c in parse_calls('{"name": "a", "arguments": {}} {"name": "b", '
                                        '"parameters": {"x": 1}}')] == ["a", "b"]
    listed = parse_calls('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]')
    assert [c.name for c in listed] == ["a", "b"]
    fenced = parse_calls('```json\n{"tool": "a", "arguments": {"q": "x"}}\n```')
    assert [c.name for c in fenced] == ["a"]
    openai_shape = parse_calls('{"function": {"name": "a", "arguments": "{\\"q\\": 1}"}}')
    assert openai_shape[0].arguments == '{"q": 1}'


@pytest.mark.parametrize(
    ("out", "name"),
    [
        ('{"tool": "get_weather", "arguments": {"city": "Par', "get_weather"),
        ('<tool_call>{"name": "add", "arguments": {"a": 1,</tool_call>', "add"),
        ("<tool_call>get_weather(city='Paris')</tool_call>", None),
        ('I will call {"name": "add", "arguments": {a: 1}}', "add"),
    ],
)
def test_call_shaped_but_unparseable(out: str, name: str | None) -> None:
    calls = parse_calls(out)
    assert len(calls) == 1
    assert calls[0].parse_error == "unparseable"
    assert calls[0].name == name
    assert calls[0].arguments is None


def test_plain_text_and_non_call_json_are_not_calls() -> None:
    assert split_output("The answer is 4.") == ("The answer is 4.", [])
    text = 'The record is {"name": "Bob", "age": 3}.'
    assert split_output(text) == (text, [])


def test_truncated_answer_envelope_is_text_not_a_call() -> None:
    assert split_output('{"answer": "It is') == ('{"answer": "It is', [])


def test_thinking_is_dropped() -> None:
    out = '<think>maybe {"tool": "x"</think>\n{"tool": "add", "arguments": {"a": 1, "b": 2}}'
    assert strip_thinking("<think>a</think>b") == "b"
    text, calls = split_output(out)
    assert text == ""
    assert [c.name for c in calls] == ["add"]


def test_leaks_only_of_shown_tools_or_broken_tags() -> None:
    content = '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'
    assert [c.name for c in find_leaked_calls(content, {"add"})] == ["add"]
    assert find_leaked_calls(content, {"other"}) == []
    assert find_leaked_calls("plain words", {"add"}) == []
    broken = find_leaked_calls("<tool_call>oops</tool_call>", {"add"})
    assert broken[0].parse_error == "unparseable"
    assert find_leaked_calls('Data: {"name": "Bob", "age": 3', {"add"}) == []


@pytest.mark.parametrize("reply", ['add(a=1, b=2)', '[add(a=1, b=2), add(a=3, b=4)]',
                                   '```python\nadd(a=1, b=2)\n```',
                                   '```tool_code\nadd(\n  a=1,\n  b=(2),\n)\n```'])
def test_a_reply_that_is_a_call_in_python_syntax_is_an_attempt_not_an_answer(reply) -> None:
    """Llama's and Gemma's pythonic calls: not run (no JSON), but at "thanks" no abstention;
    they passed as a plain answer."""
    for found in (split_output(reply, {"add"})[1], find_leaked_calls(reply, {"add"})):
        assert [(c.name, c.arguments) for c in found] == [("add", None)]
        assert found[0].parse_error == "a call in Python syntax, not JSON"
    assert split_output(reply, {"add"})[0] == ""
    assert split_output(reply, {"other"})[1] == []  # only a tool that was shown


@pytest.mark.parametrize("reply", ['{"tool": "add"}', '```json\n{"name": "add"}\n```',
                                   '{"tool": "add", "a": 1, "b": 2}'])
def test_a_reply_that_names_a_shown_tool_without_arguments_is_an_attempt_not_an_answer(
        reply: str) -> None:
    """Grammar "on" writes a call's arguments; off read {"tool": "add"} as a plain answer,
    so at "thanks" the same intent failed restraint under on and passed under off."""
    for found in (split_output(reply, {"add"})[1], find_leaked_calls(reply, {"add"})):
        assert [(c.name, c.arguments, c.parse_error) for c in found] == [
            ("add", None, 'a call without "arguments"')]
    assert split_output(reply, {"add"})[0] == ""
    assert split_output(reply, {"other"})[1] == []  # only a tool that was shown
    assert split_output('{"name": "Ana Lopez"}', {"add"}) == ('{"name": "Ana Lopez"}', [])


@pytest.mark.parametrize("reply", ['print("hi")', "add", 'Try add(a=1, b=2).',
                                   "add(1) is 1 (one)", '{"answer": "add(a=1)"}'])
def test_text_that_mentions_a_call_is_still_an_answer(reply) -> None:
    assert split_output(reply, {"add"})[1] == [] and find_leaked_calls(reply, {"add"}) == []


# A number past Python's 4,300-digit limit, and nesting past the recursion limit: what a
# degenerate model writes until max_tokens (or a server that ignores it) stops it.
RUNAWAY_NUMBER = '{"tool": "add", "arguments": {"a": ' + "1" * 4400 + "}}"
RUNAWAY_NESTING = '{"tool": "add", "arguments": {"a": ' + "[" * 1500


@pytest.mark.parametrize("out", [RUNAWAY_NUMBER, RUNAWAY_NESTING,
                                 f"<tool_call>{RUNAWAY_NUMBER}</tool_call>",
                                 '{"a": ' * 1500], ids=["number", "nesting", "tagged", "deep"])
def test_runaway_output_is_an_unparseable_attempt_not_a_crash(out: str) -> None:
    """JSON the decoder gives up on (ValueError past the digit limit, RecursionError past
    the depth limit) is the model's malformed output, as any broken JSON is."""
    _, calls = split_output(out)
    assert all(c.parse_error == "unparseable" for c in calls)
    if out != '{"a": ' * 1500:
        assert [c.name for c in calls] == ["add"]
        assert [c.name for c in find_leaked_calls(out, {"add"})] == ["add"]


PARITY_TOOLS = {
    "get_weather": ToolSpec("get_weather", "Weather.", {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "t"),
    "get_time": ToolSpec("get_time", "Time.", {"type": "object", "properties": {}}, "t"),
}


@pytest.mark.parametrize(("name", "arguments", "read"), [
    ("get_weather", '{"city": "Izmir"}', {"city": "Izmir"}),
    ("get_time", "", {}),
    ("get_weather", "Izmir", "unparseable"),
], ids=["object-in-a-string", "empty-string", "not-json"])
def test_string_arguments_are_read_alike_from_the_text_and_from_a_server(
        name: str, arguments: str, read: Any) -> None:
    """A model that writes its arguments as a string ("arguments": "{\\"city\\": ...}"):
    off/on read them from the text, vendor from a server that JSON-encodes the value again
    (vLLM's hermes parser: json.dumps(call["arguments"])). Same call, same verdict."""
    text = f'<tool_call>{{"name": "{name}", "arguments": {json.dumps(arguments)}}}</tool_call>'
    from_text = split_output(text, set(PARITY_TOOLS))[1]
    body = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}]}}]}
    from_server = chat_message(body, "http://server/v1/chat/completions")[1]
    for calls in (from_text, from_server):
        attempt = validate_call(calls[0], PARITY_TOOLS)
        assert (attempt.arguments if attempt.valid else attempt.malformed) == read
