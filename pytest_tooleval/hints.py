"""The one "did you mean" hint every configuration message uses."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known word, or '' when none is close."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def choice_hint(error: Mapping[str, Any]) -> str:
    """``did_you_mean`` among the allowed values, for pydantic's error on a value outside a
    fixed set (``literal_error``: "per_case" for 'per-case' or 'per-run'); else ''."""
    if error.get("type") != "literal_error":
        return ""
    choices = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
    return did_you_mean(str(error.get("input")), choices)
