"""Turning an MCP ``CallToolResult`` into the text a model sees.

Text blocks are passed through; structured content is added as JSON unless a text block
already carries the same value (servers built with the SDK send both); images, audio and
binary resources are summarized, since the harness speaks text to the model; the whole is
clipped as a built-in's result is.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from pytest_tooleval.tools.base import ToolResult, clip


def render_result(result: Any) -> ToolResult:
    """Render a ``CallToolResult`` (duck-typed, so any protocol revision's model works)."""
    parts = [_render_block(block) for block in getattr(result, "content", None) or []]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not _already_shown(structured, parts):
        shown = structured["result"] if _is_wrapper(structured) else structured
        parts.append(json.dumps(shown, ensure_ascii=False, default=str))
    text = clip("\n".join(part for part in parts if part) or "(no content)")
    return ToolResult(text=text, is_error=bool(getattr(result, "is_error", False)))


def _render_block(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if kind == "resource":
        resource = block.resource
        uri = str(getattr(resource, "uri", ""))
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {uri}]\n{text}"
        mime = getattr(resource, "mime_type", None) or "application/octet-stream"
        return f"[resource {uri}: {mime}, {_decoded_size(getattr(resource, 'blob', ''))} bytes]"
    if kind == "resource_link":
        label = getattr(block, "title", None) or getattr(block, "name", "")
        description = getattr(block, "description", None)
        line = f"[resource link: {label} {block.uri}]"
        return f"{line} {description}" if description else line
    return f"[{kind or 'unknown'} content]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data))
    except ValueError:  # binascii.Error is one
        return len(data)


def _already_shown(structured: Any, parts: list[str]) -> bool:
    """Whether the text blocks already carry ``structured`` (or its ``result`` wrapper).

    The SDK's servers send the JSON of the value as text too: one block, or one block per
    item when the value is a list.
    """
    candidates = [structured]
    if _is_wrapper(structured):
        candidates.append(structured["result"])
    if any(_shows(part, candidate) for part in parts for candidate in candidates):
        return True
    return bool(parts) and any(
        isinstance(candidate, list) and len(candidate) == len(parts)
        and all(_shows(part, item) for part, item in zip(parts, candidate, strict=True))
        for candidate in candidates
    )


def _shows(part: str, value: Any) -> bool:
    """Whether a text block carries ``value``: as its JSON, or, for a string, as the text
    itself (a str result "42" is sent as the text 42, which parses as a number)."""
    return part == value or _json_or_text(part) == value


def _is_wrapper(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"result"}


def _json_or_text(part: str) -> Any:
    try:
        return json.loads(part)
    except ValueError:
        return part
