"""The case format: one validated model for JSON benchmark files and YAML scenario files.

See docs/format.md. Field-level validation lives here; cross-field rules that need the
whole file (unknown tools, evidence echo, duplicates) live in ``guards.py``.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any, Literal, get_args
from zoneinfo import ZoneInfo

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from pytest_tooleval.world.api import DEFAULT_NOW, DEFAULT_TIMEZONE

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")  # \Z: "$" allows a final newline
#: Benchmark and case names and job ids: pytest node ids, report keys, terminal lines.
MAX_NAME_LENGTH = 100

Category = Literal["tool", "irrelevance", "chain"]
CATEGORIES: tuple[str, ...] = get_args(Category)

EvidenceItem = str | list[str]

#: A field value in a state check: one text, or a list of accepted alternatives.
FieldValue = str | list[str]
STATE_KINDS: tuple[str, ...] = (
    "file", "absent", "event", "reminder", "memory", "contact", "message", "commit",
)
#: The fields a record check may name, per kind (the world's JSON state, docs/world.md).
RECORD_FIELDS: dict[str, tuple[str, ...]] = {
    "event": ("title", "start", "end", "location", "notes"),
    "reminder": ("text", "at"),
    "memory": ("key", "text"),
    "contact": ("name", "phone", "email", "address", "notes"),
    "message": ("to", "text"),
}


#: pytest's own marks: as a case's mark or group they would skip or excuse it silently
#: (exit 0, absent from report.json, or a wrong answer reported as expected).
MUTING_MARKS = frozenset({"skip", "skipif", "xfail", "usefixtures", "filterwarnings",
                          "parametrize"})


def _refuse_muting(name: str, where: str) -> None:
    if name.lower() in MUTING_MARKS:
        raise ValueError(
            f"{where} {name!r} is pytest's own mark: it would mute the case silently "
            "(a skipped case vanishes from the report; an xfail case hides a wrong answer). "
            "Remove the case, or record why it is out in the folder's REJECTED.md"
        )


def _valid_marks(value: list[str]) -> list[str]:
    """A case's or a file's marks: pytest markers (identifiers), none of pytest's own."""
    for mark in value:
        if not mark.isidentifier():
            raise ValueError(f"a mark must be a Python identifier, got {mark!r}")
        _refuse_muting(mark, "the mark")
    return value


#: A case's or a file's marks.
Marks = Annotated[list[str], AfterValidator(_valid_marks)]


def moment(text: str) -> date | datetime:
    """A state check's time field: an ISO date (any time that day) or date-time;
    ``ValueError`` for anything else."""
    text = text.strip()
    return (date if len(text) == 10 else datetime).fromisoformat(text)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class GoldCall(_Strict):
    """One call of a gold path: the tool and the exact arguments a competent assistant sends."""

    tool: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class CommitCheck(_Strict):
    """The repository's last commit: its message holds ``message``; it touched exactly
    ``paths`` (repository-relative), no more, no fewer."""

    message: FieldValue | None = None
    paths: list[str] | None = None

    @model_validator(mode="after")
    def _something(self) -> CommitCheck:
        if self.message is None and self.paths is None:
            raise ValueError("a commit check names a 'message', 'paths', or both")
        return self


class StateCheck(_Strict):
    """One assertion over the world's state after a step (or after the case).

    Exactly one kind: ``file`` (exists; with ``contains``, holds that text), ``absent``
    (does not exist), ``event``/``reminder``/``memory``/``contact``/``message`` (some record
    has every given field), ``commit`` (the last commit).
    """

    file: str | None = None
    contains: FieldValue | None = None
    absent: str | None = None
    event: dict[str, FieldValue] | None = None
    reminder: dict[str, FieldValue] | None = None
    memory: dict[str, FieldValue] | None = None
    contact: dict[str, FieldValue] | None = None
    message: dict[str, FieldValue] | None = None
    commit: CommitCheck | None = None

    @model_validator(mode="after")
    def _exactly_one_kind(self) -> StateCheck:
        kinds = [kind for kind in STATE_KINDS if getattr(self, kind) is not None]
        if len(kinds) != 1:
            raise ValueError(
                "a state check has exactly one of " + ", ".join(STATE_KINDS)
                + (f"; this one has {', '.join(kinds)}" if kinds else "")
                + " (write several checks as several list entries)"
            )
        if self.contains is not None and kinds[0] != "file":
            raise ValueError("'contains' goes with 'file' only")
        kind = kinds[0]
        path = self.file if kind == "file" else self.absent
        if path is not None and (not path.strip() or path.startswith(("/", "\\", "~"))
                                 or ".." in re.split(r"[/\\]", path)):
            raise ValueError(f"{kind} {path!r} is not a path under the home folder: write "
                             "it from there, as Documents/a.txt")
        if kind in RECORD_FIELDS:
            fields = getattr(self, kind)
            if not fields:
                raise ValueError(f"a {kind} check names at least one field")
            unknown = sorted(set(fields) - set(RECORD_FIELDS[kind]))
            if unknown:
                raise ValueError(
                    f"unknown {kind} field(s) {unknown}; known: {list(RECORD_FIELDS[kind])}"
                )
            for name, value in fields.items():
                if value in ("", []) or (isinstance(value, list) and "" in value):
                    raise ValueError(f"{kind} field {name!r} is empty")
                for when in [value] if isinstance(value, str) else value:
                    try:
                        if name in ("start", "end", "at"):
                            moment(when)
                    except ValueError:
                        raise ValueError(f"{kind} field {name!r} is not an ISO date or date-"
                                         f"time (got {when!r}): write 2026-03-14T15:00 or "
                                         "2026-03-14") from None
        return self

    @property
    def kind(self) -> str:
        return next(kind for kind in STATE_KINDS if getattr(self, kind) is not None)

    def describe(self) -> str:
        """A short human form for reports: ``message to=Mira text=GeoJSON``."""
        kind = self.kind
        if kind == "file":
            return f"file {self.file}" + (f" contains {self.contains!r}" if self.contains else "")
        if kind == "absent":
            return f"no file {self.absent}"
        if kind == "commit":
            assert self.commit is not None
            parts = []
            if self.commit.message is not None:
                parts.append(f"message={self.commit.message!r}")
            if self.commit.paths is not None:
                parts.append(f"paths={self.commit.paths}")
            return "last commit " + " ".join(parts)
        fields = getattr(self, kind)
        return f"{kind} " + " ".join(f"{k}={v!r}" for k, v in fields.items())


#: State checks: a list of them, or one.
StateChecks = Annotated[
    list[StateCheck], BeforeValidator(lambda value: [value] if isinstance(value, dict) else value)
]


class Step(_Strict):
    """One user turn and what must happen during it."""

    message: str = Field(min_length=1)
    expect: list[str] = Field(default_factory=list)
    evidence: list[EvidenceItem] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    args: dict[str, list[Any]] | None = None
    forbidden_why: str | None = None
    expect_any: list[list[str]] | None = None
    gold: list[GoldCall] | None = None
    after: StateChecks = Field(default_factory=list)
    #: Claims that make the answer wrong however right the rest is (the inverted direction,
    #: the wrong score, "booked" after a failure). Left out of dumps while empty, so a case
    #: without it keeps its content hash.
    wrong: list[str] = Field(default_factory=list, exclude_if=lambda value: not value)
    #: The oracle's only: this step's evidence deliberately recalls an earlier step's fact.
    #: Left out of dumps, so it is no part of a case's content hash (the outcome ignores it).
    recall: bool = Field(False, exclude=True)

    @field_validator("message")
    @classmethod
    def _says_something(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a message of only spaces: write what the user says")
        return value

    @field_validator("expect", "forbidden", "wrong", "evidence", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [value]
        return value

    @field_validator("expect_any", mode="before")
    @classmethod
    def _routes(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [[route] if isinstance(route, str) else route for route in value]
        return value

    @model_validator(mode="after")
    def _routes_are_sound(self) -> Step:
        if self.forbidden_why is not None and not self.forbidden:
            raise ValueError("'forbidden_why' explains 'forbidden', which this step does not have")
        if self.expect_any is None:
            return self
        if self.expect:
            raise ValueError(
                "give either 'expect' (one route) or 'expect_any' (alternative routes), not "
                "both; put a tool every route runs into each route of 'expect_any'"
            )
        if len(self.expect_any) < 2:
            raise ValueError("'expect_any' lists at least two routes; for one, use 'expect'")
        for route in self.expect_any:
            if not route:
                raise ValueError("a route in 'expect_any' is empty; every route runs a tool")
        if len({tuple(sorted(set(route))) for route in self.expect_any}) < len(self.expect_any):
            raise ValueError("two routes of 'expect_any' name the same tools")
        return self

    @property
    def routes(self) -> list[list[str]]:
        """The accepted routes: each a list of tools that must all run. Empty: no tool."""
        if self.expect_any is not None:
            return [list(route) for route in self.expect_any]
        return [list(self.expect)] if self.expect else []

    @property
    def expected_tools(self) -> list[str]:
        """Every tool some route expects, in first-mention order."""
        return list(dict.fromkeys(tool for route in self.routes for tool in route))

    @property
    def gold_calls(self) -> list[GoldCall] | None:
        """The gold path; a step that expects no tool has an implied empty one."""
        if self.gold is None and not self.routes:
            return []
        return self.gold

    def evidence_alternatives(self) -> list[list[str]]:
        """Each evidence item as a list of accepted alternatives."""
        return [[item] if isinstance(item, str) else list(item) for item in self.evidence]


class Case(_Strict):
    name: str = Field(max_length=MAX_NAME_LENGTH)
    category: Category
    group: str | None = None
    marks: Marks = Field(default_factory=list)
    register_: str | None = Field(default=None, alias="register")
    job: str | None = Field(default=None, max_length=MAX_NAME_LENGTH)
    steps: list[Step] = Field(min_length=1)
    after: StateChecks = Field(default_factory=list)

    @field_validator("job")
    @classmethod
    def _job_slug(cls, value: str | None) -> str | None:
        if value is not None and not NAME_PATTERN.match(value):
            raise ValueError(
                "a job id may hold ASCII letters (no ş, ı, İ), digits, '.', '_' and '-' only "
                f"(got {value!r}); twins in two languages share it"
            )
        return value

    @field_validator("name")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not NAME_PATTERN.match(value):
            raise ValueError(
                "a case name may hold ASCII letters (no ş, ı, İ), digits, '.', '_' and '-' only "
                f"(it becomes a pytest node id; got {value!r})"
            )
        return value

    @field_validator("group")
    @classmethod
    def _group_is_not_a_pytest_mark(cls, value: str | None) -> str | None:
        if value is not None:
            _refuse_muting(value, "the group")
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
    def register(self) -> str | None:
        """The phrasing register (formal, whatsapp, caps, …) for the register axis."""
        return self.register_

    def checks_after(self, index: int) -> list[StateCheck]:
        """The state checks to run after step ``index`` (0-based): the step's own, and the
        case's after its last step."""
        checks = list(self.steps[index].after)
        if index == len(self.steps) - 1:
            checks += self.after
        return checks


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
    #: It only reads (scoring: no action claimed after it ran); out of dumps while unset.
    read_only: bool | None = Field(None, exclude_if=lambda value: value is None)

    @field_validator("name")
    @classmethod
    def _tool_name(cls, value: str) -> str:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}\Z", value):
            raise ValueError(
                "a tool name starts with a letter or '_' and holds letters, digits, '_' or "
                f"'-' (at most 64 characters: OpenAI's chat API refuses others); got {value!r}"
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
    name: str = Field(min_length=1, max_length=MAX_NAME_LENGTH)
    language: str = "en"
    description: str | None = None
    requires: list[str] = Field(default_factory=list)
    tools: list[InlineTool] = Field(default_factory=list)
    world: WorldOverrides | None = None
    marks: Marks = Field(default_factory=list)
    cases: list[Case] = Field(min_length=1)

    @field_validator("language")
    @classmethod
    def _bcp47_primary(cls, value: str) -> str:
        if not re.match(r"^[a-z]{2,3}\Z", value):
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


def case_today(case_file: CaseFile) -> date:
    """The day the case's world clock reads, in its zone: the day "today" (and so
    "tomorrow", "yarın") means in an answer."""
    world = case_file.world
    zone = ZoneInfo(world.timezone if world and world.timezone else DEFAULT_TIMEZONE)
    now = datetime.fromisoformat(world.clock if world and world.clock else DEFAULT_NOW)
    return (now.replace(tzinfo=zone) if now.tzinfo is None else now).astimezone(zone).date()
