"""Prompt rendering: the model's template, thinking control, the sentinel check that
injects tools when the template drops them, and tool results a strict template accepts."""

from __future__ import annotations

import json

import pytest

from pytest_tooleval.models.prompt import (
    ANSWER_ONLY_FORMAT,
    CALL_FORMAT,
    ChatTemplate,
    PromptBuilder,
    tool_block,
)
from pytest_tooleval.tools.base import ToolSpec
from tests.models.templates import QWEN3_LIKE, SMOLLM2, STRICT_ROLES

QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]


def test_thinking_control_reaches_the_template() -> None:
    template = ChatTemplate(QWEN3_LIKE)
    off = template.render(QUESTION, None, {"enable_thinking": False})
    on = template.render(QUESTION, None, {"enable_thinking": True})
    assert off != on
    assert off.endswith("<think>\n\n</think>\n\n") and "<think>" not in on


def test_builder_turns_thinking_off_by_default() -> None:
    render = ChatTemplate(QWEN3_LIKE).render
    assert PromptBuilder(render).build(QUESTION, []).endswith("</think>\n\n")
    on = PromptBuilder(render, thinking=True).build(QUESTION, [])
    assert "<think>" not in on


def test_sentinel_detects_dropped_tools_and_injects(tools: list[ToolSpec]) -> None:
    builder = PromptBuilder(ChatTemplate(SMOLLM2).render)
    prompt = builder.build(QUESTION, tools)
    assert builder.native_tools is False
    assert builder.describe()["tools_shown"] == "injected"
    assert tool_block(tools) in prompt and CALL_FORMAT in prompt
    assert prompt.index('"get_weather"') < prompt.index('"add"')  # the harness's order
    assert "SmolLM, trained by" not in prompt  # our system message replaces the default


def test_native_tools_are_left_to_the_template(tools: list[ToolSpec]) -> None:
    builder = PromptBuilder(ChatTemplate(QWEN3_LIKE).render)
    prompt = builder.build(QUESTION, tools)
    assert builder.native_tools is True
    assert "<tools>" in prompt and "You can use these tools" not in prompt
    assert CALL_FORMAT in prompt  # the same response-format instruction either way


def test_case_system_prompt_comes_first_and_no_tools_asks_for_an_answer() -> None:
    builder = PromptBuilder(ChatTemplate(SMOLLM2).render)
    messages = [{"role": "system", "content": "Be terse."}, *QUESTION]
    prompt = builder.build(messages, [])
    assert prompt.startswith("<|im_start|>system\nBe terse.\n\n" + ANSWER_ONLY_FORMAT)


def test_history_in_envelope_form_and_tool_results(tools: list[ToolSpec]) -> None:
    messages = [
        *QUESTION,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_weather", "arguments": '{"city": "Paris"}'}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "12 C, rain"},
    ]
    native = PromptBuilder(ChatTemplate(QWEN3_LIKE).render).build(messages, tools)
    assert '{"tool": "get_weather", "arguments": {"city": "Paris"}}' in native
    assert "<tool_response>\n12 C, rain\n</tool_response>" in native

    strict = PromptBuilder(ChatTemplate(STRICT_ROLES).render)
    wrapped = strict.build(messages, tools)
    assert strict.native_tool_role is False
    assert "<<user>>Tool result (get_weather):\n12 C, rain" in wrapped
    assert strict.describe()["tool_results"] == "user-role wrapper"


def test_same_prompt_for_both_grammar_modes(tools: list[ToolSpec]) -> None:
    # The builder has no grammar input at all: the prompt cannot depend on the mode.
    a = PromptBuilder(ChatTemplate(SMOLLM2).render).build(QUESTION, tools)
    b = PromptBuilder(ChatTemplate(SMOLLM2).render).build(QUESTION, tools)
    assert a == b


def test_template_is_sandboxed() -> None:
    evil = "{{ ''.__class__.__mro__[1].__subclasses__() }}"
    with pytest.raises(Exception, match=r"unsafe|not safely|access"):
        ChatTemplate(evil).render(QUESTION)


def test_a_call_with_arguments_the_decoder_gives_up_on_is_replayed_as_written(
        tools: list[ToolSpec]) -> None:
    """A runaway number (past Python's 4,300 digits) stays the text the model wrote, as
    any broken arguments do, rather than failing the next prompt."""
    arguments = '{"a": ' + "1" * 4400 + "}"
    messages = [
        *QUESTION,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add",
                                                          "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "error: the call was not run"},
    ]
    prompt = PromptBuilder(ChatTemplate(QWEN3_LIKE).render).build(messages, tools)
    assert '{"tool": "add", "arguments": ' + json.dumps(arguments) in prompt
