"""The case format: one validated model for JSON benchmark files and YAML scenario files.

See docs/format.md. Field-level validation lives here; cross-field rules that need the
whole file (unknown tools, evidence echo, duplicates) live in ``guards.py``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

Category = Literal["tool", "irrelevance", "chain"]
CATEGORIES: tuple[str, ...] = ("tool", "irrelevance", "chain")

EvidenceItem = str | list[str]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Step(_Strict):
    """One user turn and what must happen during it."""

    message: str = Field(min_length=1)
    expect: list[str] = Field(default_factory=list)
    evidence: list[EvidenceItem] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    args: dict[str, list[Any]] | None = None

    @field_validator("expect", "forbidden", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [value]
        return value

    @field_validator("evidence", mode="before")
    @classmethod
    def _evidence_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [value]
        return value

    def evidence_alternatives(self) -> list[list[str]]:
        """Each evidence item as a list of accepted alternatives."""
        return [[item] if isinstance(item, str) else list(item) for item in self.evidence]


class Case(_Strict):
    name: str
    category: Category
    group: str | None = None
    marks: list[str] = Field(default_factory=list)
    register_: str | None = Field(default=None, alias="register")
    job: str | None = None
    steps: list[Step] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not NAME_PATTERN.match(value):
            raise ValueError(
                "a case name may hold letters, digits, '.', '_' and '-' only "
                f"(it becomes a pytest node id; got {value!r})"
            )
        return value

    @field_validator("marks")
    @classmethod
    def _marks_are_identifiers(cls, value: list[str]) -> list[str]:
        for mark in value:
            if not mark.isidentifier():
                raise ValueError(f"a mark must be a Python identifier, got {mark!r}")
        return value

    @model_validator(mode="after")
    def _shape_follows_category(self) -> Case:
        if self.category == "tool" and len(self.steps) != 1:
            raise ValueError(
                f"a 'tool' case has exactly one step, this one has {len(self.steps)}; "
                "use category 'chain' for a conversation of several steps"
            )
        return self

    @property
    def register(self) -> str | None:  # type: ignore[override]
        """The phrasing register (formal, whatsapp, caps, …) for the register axis."""
        return self.register_

    @property
    def is_hardmode(self) -> bool:
        return "hardmode" in self.marks


class InlineTool(_Strict):
    """A tool declared inside a scenario file, answering with canned results."""

    name: str
    description: str = Field(min_length=1)
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    result: Any = None
    results: list[Any] | None = None
    error: bool = False

    @field_validator("name")
    @classmethod
    def _tool_name(cls, value: str) -> str:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$", value):
            raise ValueError(
                "a tool name starts with a letter or '_' and holds letters, digits, "
                f"'_', '.' or '-' (at most 64 characters); got {value!r}"
            )
        return value

    @model_validator(mode="after")
    def _one_result_source(self) -> InlineTool:
        if self.result is not None and self.results is not None:
            raise ValueError("give either 'result' or 'results' (one per call), not both")
        return self


class WorldOverrides(_Strict):
    """Per-file changes to the built-in world: the clock, extra files."""

    clock: str | None = None
    timezone: str | None = None
    files: dict[str, str] = Field(default_factory=dict)


class CaseFile(_Strict):
    name: str
    language: str = "en"
    description: str | None = None
    requires: list[str] = Field(default_factory=list)
    tools: list[InlineTool] = Field(default_factory=list)
    world: WorldOverrides | None = None
    marks: list[str] = Field(default_factory=list)
    cases: list[Case] = Field(min_length=1)

    @field_validator("language")
    @classmethod
    def _bcp47_primary(cls, value: str) -> str:
        if not re.match(r"^[a-z]{2,3}$", value):
            raise ValueError(
                f"language is a BCP-47 primary tag such as 'en' or 'tr', got {value!r}"
            )
        return value

    @property
    def inline_tool_names(self) -> list[str]:
        return [tool.name for tool in self.tools]

    @property
    def available_names(self) -> set[str]:
        """Tool names a case of this file may name: requires plus inline tools."""
        return set(self.requires) | set(self.inline_tool_names)
