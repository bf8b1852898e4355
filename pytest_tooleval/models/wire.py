"""What goes over the wire to OpenAI-compatible servers, and what may come back.

Every message carries a string content (llama-server refuses ``null`` beside ``tool_calls``,
llama-cpp-python's server answers a missing one with HTTP 500, Ollama refuses a list of
parts). A 200 body that is not the documented shape is a ``MalformedReply`` naming what was
wrong, never a TypeError.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_tooleval.models.base import MalformedReply, Message, RawCall

_ROLES = {"system", "user", "assistant", "tool"}


def content_text(content: Any, where: str = "content") -> str:
    """Content as one string: None is ``""``; a list of text parts is joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, str):
                texts.append(part)
            else:
                raise MalformedReply(f"{where}: a content part without text: {part!r:.200}")
        return "".join(texts)
    raise MalformedReply(f"{where} must be a string, null or a list of text parts, "
                         f"not {type(content).__name__}: {content!r:.200}")


def vendor_messages(messages: list[Message]) -> list[Message]:
    """The conversation in the form every OpenAI-compatible server accepts."""
    out: list[Message] = []
    for index, message in enumerate(messages):
        role = str(message.get("role", "user"))
        clean: Message = {"role": role if role in _ROLES else "user",
                          "content": content_text(message.get("content"),
                                                  f"messages[{index}].content")}
        if role == "assistant" and message.get("tool_calls"):
            clean["tool_calls"] = [
                _tool_call(call, f"call_{index}_{n}")
                for n, call in enumerate(message["tool_calls"])
            ]
        if role == "tool":
            clean["tool_call_id"] = str(message.get("tool_call_id") or f"call_{index}")
            if message.get("name"):
                clean["name"] = str(message["name"])
        out.append(clean)
    return out


def _tool_call(call: dict[str, Any], default_id: str) -> dict[str, Any]:
    """A past call as servers take it: arguments that are not a JSON object (a malformed
    call's text) go as ``{}``, since llama-server and vLLM parse them and answer HTTP 500."""
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    try:
        is_object = isinstance(json.loads(arguments), dict)
    except (ValueError, RecursionError):
        is_object = False
    return {
        "id": str(call.get("id") or default_id),
        "type": "function",
        "function": {"name": str(function.get("name") or "unknown"),
                     "arguments": arguments if is_object else "{}"},
    }


def chat_sampling(sampling: dict[str, Any]) -> dict[str, Any]:
    """Sampling fields for an OpenAI-style request body: ``repeat_penalty`` (llama.cpp's
    name) goes as vLLM's ``repetition_penalty`` too; servers ignore fields they do not know."""
    body = dict(sampling)
    if "repeat_penalty" in body:
        body["repetition_penalty"] = body["repeat_penalty"]
    return body


def _short(value: Any, limit: int = 300) -> str:
    """``value`` (part of a reply ``HttpClient`` decoded from JSON) as JSON text, cut."""
    return json.dumps(value, ensure_ascii=False)[:limit]


def _malformed(problem: str, shown: Any) -> MalformedReply:
    """``problem``, then ``shown`` in short."""
    return MalformedReply(f"{problem}: {_short(shown)}")


def _expect_dict(value: Any, where: str, body: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _malformed(f"{where} is not an object ({type(value).__name__})", body)
    return value


def first_choice(body: Any, url: str) -> dict[str, Any]:
    """``choices[0]`` of a chat or text completion reply."""
    choices = _expect_dict(body, f"the reply of {url}", body).get("choices")
    if not isinstance(choices, list) or not choices:
        raise _malformed(f"the reply of {url} has no choices", body)
    return _expect_dict(choices[0], f"choices[0] in the reply of {url}", body)


def usage_of(body: dict[str, Any]) -> tuple[int | None, int | None]:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None, None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (prompt if isinstance(prompt, int) else None,
            completion if isinstance(completion, int) else None)


def turn_fields(body: dict[str, Any], choice: dict[str, Any]) -> dict[str, Any]:
    """A ``ModelTurn``'s finish reason and token counts, from a reply and its choice."""
    prompt, completion = usage_of(body)
    reason = choice.get("finish_reason")
    return {"finish_reason": reason if isinstance(reason, str) else None,
            "prompt_tokens": prompt, "completion_tokens": completion}


def chat_message(body: Any, url: str) -> tuple[str, list[RawCall], dict[str, Any]]:
    """(content, calls, choice) of a chat completion reply, or ``MalformedReply``."""
    choice = first_choice(body, url)
    message = _expect_dict(choice.get("message"), f"choices[0].message in the reply of {url}",
                           body)
    content = content_text(message.get("content"), f"choices[0].message.content of {url}")
    raw_calls = message.get("tool_calls")
    raw_calls = [] if raw_calls is None else raw_calls
    if not isinstance(raw_calls, list):
        raise _malformed(f"choices[0].message.tool_calls of {url} is not a list", raw_calls)
    return content, [_read_call(raw, i, url, body) for i, raw in enumerate(raw_calls)], choice


def _read_call(raw: Any, index: int, url: str, body: Any) -> RawCall:
    where = f"choices[0].message.tool_calls[{index}] of {url}"
    call = _expect_dict(raw, where, body)
    function = _expect_dict(call.get("function"), f"{where}.function", body)
    name = function.get("name")
    if name is not None and not isinstance(name, str):
        raise _malformed(f"{where}.function.name is not a string", name)
    arguments = function.get("arguments")
    if arguments is not None and not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)  # some servers send an object
    call_id = call.get("id")
    return RawCall(name=name or None, arguments=arguments,
                   call_id=call_id if isinstance(call_id, str) and call_id else None,
                   raw=_short(call, 20_000))


def completion_text(body: Any, url: str) -> tuple[str, dict[str, Any]]:
    """(text, choice) of a ``/v1/completions`` reply, or ``MalformedReply``."""
    choice = first_choice(body, url)
    text = choice.get("text")
    if not isinstance(text, str):
        raise _malformed(f"choices[0].text of {url} is not a string", text)
    return text, choice
