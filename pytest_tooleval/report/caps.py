"""Caps on what a report keeps of untrusted text (answers, tool output, arguments): one
30 MB answer must not make a 30 MB report. Scoring reads the full text first.
"""

from __future__ import annotations

from typing import Any

MAX_REPORT_CHARS = 20_000


def cap_text(text: str) -> str:
    if len(text) <= MAX_REPORT_CHARS:
        return text
    cut = len(text) - MAX_REPORT_CHARS
    return text[:MAX_REPORT_CHARS] + f" [... {cut} more characters cut from the report]"


def cap_strings(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON object with every string longer than ``MAX_REPORT_CHARS`` cut
    (iteratively, so deeply nested tool arguments are safe)."""
    root: dict[str, Any] = {}
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, str):
                copied: Any = cap_text(item)
            elif isinstance(item, dict | list):
                copied = {} if isinstance(item, dict) else []
                stack.append((item, copied))
            else:
                copied = item
            if isinstance(target, dict):
                target[cap_text(key) if isinstance(key, str) else key] = copied
            else:
                target.append(copied)
    return root
