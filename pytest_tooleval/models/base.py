"""The model-backend interface: one conversation turn in, one model turn out.

Backends speak the OpenAI chat message shape (role, content, tool_calls, tool_call_id).
A backend that cannot reach its model raises ``BackendUnavailable``: infrastructure, so the
case becomes ERROR, never FAIL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from pytest_tooleval.tools.base import ToolSpec

Message = dict[str, Any]


class BackendUnavailable(Exception):
    """The model could not be reached or did not answer (after retries)."""


@dataclass
class RawCall:
    """A tool call as the model emitted it, before the harness validated it.

    ``arguments`` is the raw JSON text (or None when the call carried none); ``name`` is
    None when not even a name could be read.
    """

    name: str | None
    arguments: str | None
    call_id: str | None = None
    raw: str = ""
    parse_error: str | None = None  # set when the backend could not parse the call at all


@dataclass
class ModelTurn:
    content: str
    calls: list[RawCall] = field(default_factory=list)
    leaked_calls: list[RawCall] = field(default_factory=list)  # calls left in the text
    latency_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None


class Backend(ABC):
    """A model behind some API. One instance per pytest process."""

    #: The grammar mode this backend runs ("vendor", "on", "off").
    mode: str = "vendor"

    @abstractmethod
    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        """Ask for the next assistant turn given the conversation and the shown tools."""

    def describe(self) -> dict[str, Any]:
        """What the report records about the backend (kind, address, model, version)."""
        return {"backend": type(self).__name__, "grammar": self.mode}

    def close(self) -> None:  # noqa: B027 - optional hook
        pass
