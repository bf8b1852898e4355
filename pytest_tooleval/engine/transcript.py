"""Transcripts: what happened in a case, step by step, as plain dataclasses (a result
keeps them as they are; pydantic serialises them in the report)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RESULT_PREVIEW = 2000


@dataclass
class Attempt:
    """One tool call the model tried, valid or not."""

    name: str | None
    arguments: Any
    valid: bool
    malformed: str | None = None  # "unparseable" | "unknown_tool" | "schema_violation"
    reason: str | None = None
    leaked: bool = False  # left in the text content by the server's parser
    result: str | None = None
    result_is_error: bool = False
    duration_s: float = 0.0
    #: The tool that ran only reads (its spec's ``read_only``): True, False, or None when
    #: its provider does not say (an undeclared @tool or MCP tool) or nothing ran.
    read_only: bool | None = None


@dataclass
class ModelCall:
    latency_s: float
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    #: Replayed from the response cache (``--tooleval-cache-mode replay``), not generated.
    cached: bool = False


@dataclass
class StepTranscript:
    message: str
    shown: list[str] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    answer: str | None = None
    answered: bool = False
    stopped: str | None = None  # why the step ended without an answer
    model_calls: list[ModelCall] = field(default_factory=list)
    #: The state checks run after the step: {"check", "held", "detail"} each.
    state: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ran(self) -> list[str]:
        """The tools that ran: valid calls with a result (an ERROR's call the machine failed
        during or before has none)."""
        return [a.name for a in self.attempts if a.valid and a.name and a.result is not None]

    @property
    def latency_s(self) -> float:
        return sum(call.latency_s for call in self.model_calls)


def shorten(text: str, limit: int = RESULT_PREVIEW) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"
