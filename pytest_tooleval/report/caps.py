"""Caps on what a report keeps of untrusted text (answers, tool output, arguments): one
30 MB answer must not make a 30 MB report. Scoring reads the full text first.
"""

from __future__ import annotations

from typing import Any

MAX_REPORT_CHARS = 20_000


def cap_text(text: str, limit: int = MAX_REPORT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" [... {len(text) - limit} more characters cut from the report]"


def cap_strings(value: Any, limit: int = MAX_REPORT_CHARS) -> Any:
    """A copy of JSON data with every string longer than ``limit`` cut (iteratively, so
    deeply nested tool arguments are safe)."""
    if isinstance(value, str):
        return cap_text(value, limit)
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, str):
                copied: Any = cap_text(item, limit)
            elif isinstance(item, dict | list):
                copied = {} if isinstance(item, dict) else []
                stack.append((item, copied))
            else:
                copied = item
            if isinstance(target, dict):
                target[cap_text(key, limit) if isinstance(key, str) else key] = copied
            else:
                target.append(copied)
    return root
