"""Reading tool calls out of model text: Hermes/Qwen ``<tool_call>``, the JSON envelope
``{"tool": …, "arguments": …}`` / ``{"answer": …}`` and bare ``{"name": …, "arguments": …}``
objects, one or several per turn. It only reads; the engine judges names and arguments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from pytest_tooleval.models.base import RawCall

_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
# A JSON fragment that names a tool: enough to call the text an attempt at a call.
_CALL_SHAPED = re.compile(r'\{\s*"(?:tool|name|function)"\s*:\s*"([^"\\]{1,200})"', re.DOTALL)
# A whole reply that calls a tool in Python syntax: get_weather(city="Izmir"), [f(x=1)],
# in a fence or not (```python, Gemma's ```tool_code).
_CALL = r"\((?:[^()]|\([^()]*\))*\)"
_PYTHON_CALL = re.compile(rf"(?:```\w*\s*)?\[?\s*([A-Za-z_][\w.-]*){_CALL}"
                          rf"(?:\s*,\s*[A-Za-z_][\w.-]*{_CALL})*\s*\]?\s*(?:```)?")


def _decode_objects(text: str) -> list[tuple[Any, str, int, int]]:
    """Every top-level JSON value embedded in the text, with its source and span."""
    decoder = json.JSONDecoder()
    found: list[tuple[Any, str, int, int]] = []
    index = 0
    while True:
        starts = (text.find("{", index), text.find("[", index))
        start = min((i for i in starts if i >= 0), default=-1)
        if start < 0:
            return found
        try:
            value, end = decoder.raw_decode(text, start)
        except RecursionError:
            # Nested past the depth limit: so is every value that starts inside it, and
            # trying each would take quadratic time. The rest is no JSON value.
            return found
        except ValueError:  # broken JSON, or a number past Python's digit limit
            index = start + 1
            continue
        found.append((value, text[start:end], start, end))
        index = end


def _as_call(value: Any, raw: str) -> RawCall | None:
    if not isinstance(value, dict):
        return None
    if "function" in value and isinstance(value["function"], dict):
        return _as_call(value["function"], raw)
    name = value.get("name", value.get("tool"))
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


def _calls_of(value: Any, raw: str) -> list[RawCall]:
    items = value if isinstance(value, list) else [value]
    return [call for item in items if (call := _as_call(item, raw))]


def _unparseable(fragment: str) -> RawCall:
    """A call-shaped fragment that did not parse; the name is kept when it can be read."""
    named = _CALL_SHAPED.search(fragment)
    return RawCall(name=named.group(1) if named else None, arguments=None, raw=fragment,
                   parse_error="unparseable")


def _unfenced(text: str) -> str:
    """The text stripped, without a Markdown code fence around it."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    return fenced.group(1) if fenced else stripped


def strip_thinking(text: str) -> str:
    """The text without ``<think>…</think>`` reasoning blocks (an unclosed one runs to the end)."""
    return _THINK.sub("", text)


def _split(text: str) -> tuple[str, list[RawCall]]:
    """(text left once the calls are cut out, calls in order)."""
    tagged = list(_TOOL_CALL_TAG.finditer(text))
    if tagged:
        calls: list[RawCall] = []
        for match in tagged:
            body = match.group(1)
            values = _decode_objects(body)
            parsed = [c for value, raw, _, _ in values for c in _calls_of(value, raw)]
            calls.extend(parsed or [_unparseable(body)])
        return _TOOL_CALL_TAG.sub("", text).strip(), calls
    stripped = _unfenced(text)
    calls = []
    pieces: list[str] = []
    cursor = 0
    covered: list[tuple[int, int]] = []
    for value, raw, start, end in _decode_objects(stripped):
        covered.append((start, end))
        found = _calls_of(value, raw)
        if found:
            calls.extend(found)
            pieces.append(stripped[cursor:start])
            cursor = end
    # A call-shaped fragment outside every parsed value (truncated, or broken JSON) is still
    # an attempt; it runs to the end of the text.
    for shaped in _CALL_SHAPED.finditer(stripped, cursor):
        if not any(a <= shaped.start() < b for a, b in covered):
            calls.append(_unparseable(stripped[shaped.start():]))
            pieces.append(stripped[cursor : shaped.start()])
            cursor = len(stripped)
            break
    pieces.append(stripped[cursor:])
    return "".join(pieces).strip(), calls


def parse_calls(text: str) -> list[RawCall]:
    """Calls written in the text, in order; call-shaped fragments that do not parse are kept
    as attempts with ``parse_error`` set."""
    return _split(text)[1]


def _whole_object(text: str) -> dict[str, Any]:
    """The JSON object that is the whole text (in a fence or not); {} for anything else."""
    try:
        value = json.loads(_unfenced(text))
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _lone_call(text: str, tool_names: Collection[str]) -> list[RawCall]:
    """A reply that is nothing but a call of a shown tool in Python syntax, or a JSON object
    naming one without its arguments ({"tool": "get_time"}; grammar "on" writes them): not
    read as a call (not run), but an attempt at one (at "thanks" it is no abstention)."""
    found = _PYTHON_CALL.fullmatch(text.strip())
    named = _whole_object(text)
    name = found.group(1) if found else named.get("tool", named.get("name"))
    if not isinstance(name, str) or name not in tool_names:
        return []
    why = "a call in Python syntax, not JSON" if found else 'a call without "arguments"'
    return [RawCall(name, None, raw=text, parse_error=why)]


def split_output(text: str, tool_names: Collection[str] = ()) -> tuple[str, list[RawCall]]:
    """A model's raw output as (answer text, calls): reasoning blocks dropped, an
    ``{"answer": …}`` envelope read as its answer, the calls cut out of the answer text;
    a call of one of ``tool_names`` in Python syntax or without arguments is an unparseable
    attempt."""
    visible = strip_thinking(text)
    envelope = _whole_object(visible)
    if set(envelope) == {"answer"} and isinstance(envelope["answer"], str):
        return envelope["answer"], []
    answer, calls = _split(visible)
    python = [] if calls else _lone_call(visible, tool_names)
    return ("", python) if python else (answer, calls)


def find_leaked_calls(text: str, tool_names: set[str]) -> list[RawCall]:
    """Calls of shown tools that a server's parser left in the text content."""
    tagged = "<tool_call>" in text
    return [call for call in parse_calls(text)
            if call.name in tool_names or (call.parse_error and (tagged or call.name is None))
            ] or _lone_call(text, tool_names)
