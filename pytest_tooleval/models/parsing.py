"""Reading tool calls out of model text: Hermes/Qwen ``<tool_call>``, the JSON envelope
``{"tool": …, "arguments": …}`` and bare ``{"name": …, "arguments": …}`` objects.

Used to recognise a "parser leak" (a server left the call in the text content) and, for
backends whose output the harness parses itself, to read the calls.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_tooleval.models.base import RawCall

_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def _decode_objects(text: str) -> list[tuple[Any, str]]:
    """Every top-level JSON value embedded in the text, with its source."""
    decoder = json.JSONDecoder()
    found: list[tuple[Any, str]] = []
    index = 0
    while True:
        start = min((i for i in (text.find("{", index), text.find("[", index)) if i >= 0), default=-1)
        if start < 0:
            return found
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        found.append((value, text[start:end]))
        index = end


def _as_call(value: Any, raw: str) -> RawCall | None:
    if not isinstance(value, dict):
        return None
    name = value.get("name", value.get("tool"))
    if "function" in value and isinstance(value["function"], dict):
        return _as_call(value["function"], raw)
    if not isinstance(name, str):
        return None
    if "arguments" in value:
        arguments = value["arguments"]
    elif "parameters" in value:
        arguments = value["parameters"]
    else:
        return None
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return RawCall(name=name, arguments=text, raw=raw)


def parse_calls(text: str) -> list[RawCall]:
    """Calls written in the text, in order. Unparseable ``<tool_call>`` bodies are kept as
    attempts with ``parse_error`` set: an attempt that failed to parse is still an attempt.
    """
    calls: list[RawCall] = []
    tagged = _TOOL_CALL_TAG.findall(text)
    if tagged:
        for body in tagged:
            values = _decode_objects(body)
            parsed = [call for value, raw in values for call in _calls_of(value, raw)]
            if parsed:
                calls.extend(parsed)
            else:
                calls.append(
                    RawCall(name=None, arguments=None, raw=body, parse_error="unparseable")
                )
        return calls
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1)
    for value, raw in _decode_objects(stripped):
        calls.extend(_calls_of(value, raw))
    return calls


def _calls_of(value: Any, raw: str) -> list[RawCall]:
    if isinstance(value, list):
        return [call for item in value if (call := _as_call(item, raw))]
    call = _as_call(value, raw)
    return [call] if call else []


def find_leaked_calls(text: str, tool_names: set[str]) -> list[RawCall]:
    """Calls of shown tools that a server's parser left in the text content."""
    if not text or ("{" not in text and "<tool_call>" not in text):
        return []
    return [call for call in parse_calls(text) if call.name in tool_names or call.parse_error]
