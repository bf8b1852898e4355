"""Prompt rendering owned by the harness, so grammar "on" and "off" see the same prompt.

The model's own chat template renders the conversation. A template that drops tools (checked
with a sentinel tool) gets a tool block injected into the system message, which ends with the
JSON envelope's format instruction. Everything case-specific comes after the system message,
so consecutive prompts share a long prefix (``kv_reuse``).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pytest_tooleval.models.base import BackendUnavailable, Message
from pytest_tooleval.tools.base import ToolSpec

SENTINEL_TOOL = "tooleval_sentinel_7d41"
SENTINEL_RESULT = "tooleval-result-5b2e"

# (messages, tools in OpenAI shape or None, template kwargs) -> prompt text
Renderer = Callable[[list[Message], list[dict[str, Any]] | None, dict[str, Any]], str]

CALL_FORMAT = (
    "Reply in exactly one of two ways.\n"
    'To call a tool, reply with only a JSON object: {"tool": "<tool name>", "arguments": '
    "{<the arguments, matching the tool's parameters>}}\n"
    'To give your final answer, reply with only a JSON object: {"answer": "<your answer>"}\n'
    "After a tool call you receive its result; then call another tool or give your answer."
)
ANSWER_ONLY_FORMAT = 'Reply with only a JSON object: {"answer": "<your answer>"}'


def tool_block(tools: list[ToolSpec]) -> str:
    """The injected listing: one JSON line per tool, in the harness's order."""
    lines = [
        json.dumps(
            {"name": t.name, "description": t.description, "parameters": t.parameters},
            ensure_ascii=False,
        )
        for t in tools
    ]
    return "You can use these tools:\n" + "\n".join(lines)


class ChatTemplate:
    """A Hugging Face style chat template rendered in a sandboxed jinja2 environment."""

    def __init__(self, source: str, *, bos_token: str = "", eos_token: str = "") -> None:
        import jinja2.ext  # import on use: the plugin itself loads nothing heavy
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        env = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
        )
        env.filters["tojson"] = _tojson
        self.bos_token, self.eos_token = bos_token, eos_token
        self._template = env.from_string(source)

    def render(self, messages: list[Message], tools: list[dict[str, Any]] | None = None,
               kwargs: dict[str, Any] | None = None) -> str:
        return self._template.render(
            messages=messages,
            tools=tools,
            add_generation_prompt=True,
            bos_token=self.bos_token,
            eos_token=self.eos_token,
            raise_exception=_raise,
            strftime_now=lambda fmt: datetime.now().strftime(fmt),
            **(kwargs or {}),
        )


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent,
                      separators=separators, sort_keys=sort_keys)


def _raise(message: str) -> None:
    raise ValueError(message)


def _envelope_of_call(call: dict[str, Any]) -> str:
    function = call.get("function", call)
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        # broken text stays as the model wrote it
        with contextlib.suppress(ValueError, RecursionError):
            arguments = json.loads(arguments)
    return json.dumps({"tool": function.get("name"), "arguments": arguments}, ensure_ascii=False)


class PromptBuilder:
    """Turns (messages, tools) into the prompt text, the same for every grammar mode."""

    def __init__(self, render: Renderer, *, thinking: bool = False) -> None:
        self._render = render
        self.thinking = thinking
        self.template_kwargs = {"enable_thinking": thinking}

    def _shows_sentinel(self, sentinel: str, messages: list[Message],
                        tools: list[dict[str, Any]] | None) -> bool:
        """Whether the template renders ``sentinel`` from this probe. An unavailable model
        is raised; any other error means the template does not show it."""
        try:
            return sentinel in self._render(messages, tools, self.template_kwargs)
        except BackendUnavailable:
            raise
        except Exception:
            return False

    @functools.cached_property
    def native_tools(self) -> bool:
        """Whether the template shows tools itself (checked with a sentinel tool)."""
        sentinel = ToolSpec(SENTINEL_TOOL, "Sentinel.", {"type": "object"}, "sentinel")
        return self._shows_sentinel(SENTINEL_TOOL, [{"role": "system", "content": "s"},
                                                    {"role": "user", "content": "u"}],
                                    [sentinel.openai_schema()])

    @functools.cached_property
    def native_tool_role(self) -> bool:
        """Whether the template renders ``role: tool`` messages (with their content)."""
        return self._shows_sentinel(SENTINEL_RESULT, [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": '{"tool": "t", "arguments": {}}'},
            {"role": "tool", "content": SENTINEL_RESULT, "tool_call_id": "call_0"},
        ], None)

    def system_text(self, tools: list[ToolSpec], system: str | None = None) -> str:
        """The system content: the case's own, the tool block (when injected), then the
        format instruction last, where small models heed it most (measured on SmolLM2)."""
        parts = [system] if system else []
        if tools and not self.native_tools:
            parts.append(tool_block(tools))
        parts.append(CALL_FORMAT if tools else ANSWER_ONLY_FORMAT)
        return "\n\n".join(parts)

    def messages_for_template(
        self, messages: list[Message], tools: list[ToolSpec]
    ) -> list[Message]:
        """The conversation as the template will see it (see ``build``)."""
        rest = list(messages)
        system = None
        if rest and rest[0].get("role") == "system":
            system = rest.pop(0).get("content") or None
        out: list[Message] = [{"role": "system", "content": self.system_text(tools, system)}]
        names: dict[str, str] = {}
        for message in rest:
            role = message.get("role")
            content = message.get("content") or ""
            if role == "assistant":
                calls = message.get("tool_calls") or []
                for call in calls:
                    names[call.get("id", "")] = call.get("function", call).get("name", "")
                if calls:
                    text = "\n".join(_envelope_of_call(c) for c in calls)
                else:
                    text = json.dumps({"answer": content}, ensure_ascii=False)
                out.append({"role": "assistant", "content": text})
            elif role == "tool":
                name = message.get("name") or names.get(message.get("tool_call_id", ""), "")
                if self.native_tool_role:
                    out.append({"role": "tool", "content": content, "name": name,
                                "tool_call_id": message.get("tool_call_id", "")})
                else:
                    label = f"Tool result ({name})" if name else "Tool result"
                    out.append({"role": "user", "content": f"{label}:\n{content}"})
            else:
                out.append({"role": role, "content": content})
        return out

    def build(self, messages: list[Message], tools: list[ToolSpec]) -> str:
        """The prompt. Past assistant turns are shown in the envelope form the instruction
        asks for (whatever form the model used), so the history agrees with the instruction.
        """
        shown = [t.openai_schema() for t in tools] if tools and self.native_tools else None
        return self._render(self.messages_for_template(messages, tools), shown,
                            self.template_kwargs)

    def describe(self) -> dict[str, Any]:
        return {
            "tools_shown": "native" if self.native_tools else "injected",
            "tool_results": "tool role" if self.native_tool_role else "user-role wrapper",
            "thinking": self.thinking,
        }
