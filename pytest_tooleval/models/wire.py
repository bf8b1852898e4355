"""What goes over the wire to OpenAI-compatible servers, and what may come back.

Messages: servers differ in what they accept. llama-server refuses ``"content": null``
beside ``tool_calls`` ("Expected 'content' to be a string or an array", llama.cpp#13471),
llama-cpp-python's server answers it with HTTP 500 "content must be a string" (and a
missing content fails too, llama-cpp-python#1805), Ollama refuses a content
that is a list of parts ("cannot unmarshal array … of type string"); the OpenAI schema,
which vLLM follows, allows a null content beside tool calls and a string always. So
every message carries a string content, ``""`` when empty; tool-call arguments are JSON
text; ``type: "function"`` and an id are always present; an empty ``tool_calls`` is left out.

Replies: a 200 body is checked field by field; anything but the documented shape is a
``MalformedReply`` naming what was wrong, never a TypeError.
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
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return {
        "id": str(call.get("id") or default_id),
        "type": "function",
        "function": {"name": str(function.get("name") or "unknown"),
                     "arguments": arguments or "{}"},
    }


def chat_sampling(sampling: dict[str, Any]) -> dict[str, Any]:
    """Sampling fields for an OpenAI-style request body. ``top_k``, ``min_p`` and
    ``repeat_penalty`` are llama.cpp's names (llama-server, llama-cpp-python); vLLM calls
    the last one ``repetition_penalty``, so it goes under both names. Servers ignore
    fields they do not know (set a field to None in the profile to leave it out)."""
    body = dict(sampling)
    if "repeat_penalty" in body:
        body["repetition_penalty"] = body["repeat_penalty"]
    return body


def llama_server_sampling(sampling: dict[str, Any]) -> dict[str, Any]:
    """Sampling fields for llama-server's native ``/completion`` (``n_predict``)."""
    body = dict(sampling)
    if "max_tokens" in body:
        body["n_predict"] = body.pop("max_tokens")
    return body


# ----------------------------------------------------------------------------- replies


def _expect_dict(value: Any, where: str, body: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedReply(
            f"{where} is not an object ({type(value).__name__}): {_short(body)}",
            detail=_short(body, 20_000),
        )
    return value


def _short(value: Any, limit: int = 300) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text[:limit]


def first_choice(body: Any, url: str) -> dict[str, Any]:
    """``choices[0]`` of a chat or text completion reply."""
    data = _expect_dict(body, f"the reply of {url}", body)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise MalformedReply(f"the reply of {url} has no choices: {_short(body)}",
                             detail=_short(body, 20_000))
    return _expect_dict(choices[0], f"choices[0] in the reply of {url}", body)


def usage_of(body: dict[str, Any]) -> tuple[int | None, int | None]:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None, None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (prompt if isinstance(prompt, int) else None,
            completion if isinstance(completion, int) else None)


def chat_message(body: Any, url: str) -> tuple[str, list[RawCall], dict[str, Any]]:
    """(content, calls, choice) of a chat completion reply, or ``MalformedReply``."""
    choice = first_choice(body, url)
    message = _expect_dict(choice.get("message"), f"choices[0].message in the reply of {url}",
                           body)
    content = content_text(message.get("content"), f"choices[0].message.content of {url}")
    raw_calls = message.get("tool_calls")
    if raw_calls is None:
        raw_calls = []
    if not isinstance(raw_calls, list):
        raise MalformedReply(f"choices[0].message.tool_calls of {url} is not a list: "
                             f"{_short(raw_calls)}", detail=_short(body, 20_000))
    calls = [_read_call(raw, index, url, body) for index, raw in enumerate(raw_calls)]
    return content, calls, choice


def _read_call(raw: Any, index: int, url: str, body: Any) -> RawCall:
    where = f"choices[0].message.tool_calls[{index}] of {url}"
    call = _expect_dict(raw, where, body)
    function = _expect_dict(call.get("function"), f"{where}.function", body)
    name = function.get("name")
    if name is not None and not isinstance(name, str):
        raise MalformedReply(f"{where}.function.name is not a string: {_short(name)}",
                             detail=_short(body, 20_000))
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
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise MalformedReply(f"choices[0].text of {url} is not a string: {_short(text)}",
                             detail=_short(body, 20_000))
    return text, choice
