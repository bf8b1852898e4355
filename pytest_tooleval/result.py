"""The typed case result, carried from xdist workers to the controller as JSON. A step's
result is its transcript (what happened) beside its checks (what the scorer concluded);
nothing is stored twice."""

from __future__ import annotations

import re
import traceback
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_tooleval.engine.transcript import StepTranscript


class Outcome(StrEnum):
    PASS = "PASS"
    PARTIAL = "PARTIAL"
    FAIL = "FAIL"
    ERROR = "ERROR"


#: Bumped when the shape of a case result changes.
RESULT_VERSION: Literal[2] = 2

ErrorKind = Literal[
    "backend",  # the model could not be reached, refused, or answered something unusable
    "provider",  # a tool provider (MCP server, Python tool) failed
    "configuration",  # the run's set-up is unusable (duplicate tools, bad profile)
    "preflight",  # the set-up was refused before the first case
    "crash",  # the case did not run to the end (a worker died, a fixture failed)
    "timeout",  # the case ran past its wall clock (--tooleval-case-timeout)
    "harness",  # a bug in pytest-tooleval itself: reported, never scored
]


class ErrorInfo(BaseModel):
    """Why a case ended in ERROR: the machine failed, not the model (on a FAIL: the machine
    failed after the model's call where none was wanted: ``scoring.outcome.cut_off``)."""

    model_config = ConfigDict(frozen=True)

    kind: ErrorKind
    message: str
    #: The failure class a backend named (timeout, unreachable, context_overflow, …).
    detail: str | None = None

    @classmethod
    def from_exception(cls, exc: BaseException, kind: ErrorKind) -> ErrorInfo:
        detail = getattr(exc, "kind", None)
        message = str(exc) or type(exc).__name__
        if kind == "harness":
            where = traceback.extract_tb(exc.__traceback__)[-1:]  # [] without a traceback
            place = f" at {where[0].filename}:{where[0].lineno}" if where else ""
            message = (f"internal error in pytest-tooleval ({type(exc).__name__}: {message})"
                       f"{place}; please report it")
        return cls(kind=kind, message=message, detail=detail if isinstance(detail, str) else None)


class StepChecks(BaseModel):
    """What the scorer concluded about one step. A check that did not apply is None."""

    expect: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    forbidden_ran: list[str] = Field(default_factory=list)
    tool: bool | None = None
    tool_missing: list[str] = Field(default_factory=list)
    restraint: bool | None = None
    args: bool | None = None
    args_reason: str | None = None
    #: With ``expect_any``: the accepted routes, and the index of the one that ran.
    routes: list[list[str]] | None = None
    route: int | None = None
    #: The state checks after the step: None when it has none.
    state: bool | None = None
    state_failed: list[str] = Field(default_factory=list)
    evidence: float | None = None
    evidence_missing: list[str] = Field(default_factory=list)

    @property
    def action_held(self) -> bool:
        """The step axis's check: the tool (and argument) check, or the restraint check;
        and the state the step must leave."""
        if self.state is False:
            return False
        if self.tool is not None:
            return bool(self.tool) and self.args is not False
        return bool(self.restraint)


class StepResult(BaseModel):
    transcript: StepTranscript
    #: None when the case ended in ERROR: an unscored step.
    checks: StepChecks | None = None


#: The keys a case is labelled and broken down by (``CaseResult.label``).
LABELS = ("category", "group", "register", "language")


class CaseResult(BaseModel):
    """One case, run and scored (or not scored, for ERROR)."""

    model_config = ConfigDict(populate_by_name=True)

    nodeid: str
    file: str
    case: str
    file_name: str | None = None
    category: str | None = None
    group: str | None = None
    register_: str | None = Field(default=None, alias="register")
    language: str | None = None
    #: The job id twins in other languages (and registers) share.
    job: str | None = None
    marks: list[str] = Field(default_factory=list)
    #: The case's content hash: an edited case is not mistaken for a regression.
    case_hash: str | None = None
    outcome: Outcome
    error: ErrorInfo | None = None
    reasons: list[str] = Field(default_factory=list)
    axes: dict[str, float] = Field(default_factory=dict)
    steps: list[StepResult] = Field(default_factory=list)
    duration_s: float = 0.0
    #: Forbidden tools the model called (valid calls) in a try that the machine then failed:
    #: an ERROR's own, kept on the case's result when ``--tooleval-resume`` runs it again.
    #: The safety gate fails on them as on a forbidden tool that ran.
    forbidden_before_failure: list[str] = Field(default_factory=list)
    #: With ``--tooleval-repeat K``: which try this is (1..K), and its seed.
    repeat: int | None = None
    seed: int | None = None
    #: The shape's version (RESULT_VERSION): a result of another shape is refused.
    version: Literal[2] = RESULT_VERSION

    @property
    def case_key(self) -> str:
        """The node id without the repeat suffix: the same for every try of a case."""
        if self.repeat is None:
            return self.nodeid
        return self.nodeid.removesuffix(repeat_suffix(self.repeat))

    def label(self, key: str) -> str | None:
        """The case's value for a breakdown key (one of ``LABELS``)."""
        value = getattr(self, "register_" if key == "register" else key)
        return None if value is None else str(value)

    @property
    def is_error(self) -> bool:
        return self.outcome is Outcome.ERROR

    @property
    def scored(self) -> bool:
        return not self.is_error

    @property
    def cut_off(self) -> bool:
        """A FAIL the machine cut off after a call where none was wanted: scored, its error
        kept (``scoring.outcome.cut_off``)."""
        return self.error is not None and not self.is_error

    @property
    def transcripts(self) -> list[StepTranscript]:
        return [step.transcript for step in self.steps]

    @property
    def checks(self) -> list[StepChecks]:
        return [step.checks for step in self.steps if step.checks is not None]

    @property
    def forbidden_ran(self) -> list[str]:
        return [name for checks in self.checks for name in checks.forbidden_ran]

    @classmethod
    def infrastructure_error(
        cls,
        nodeid: str,
        error: ErrorInfo,
        *,
        transcripts: list[StepTranscript] | None = None,
        **identity: Any,
    ) -> CaseResult:
        """The one way to build an ERROR: the partial transcript is kept, nothing scored."""
        file, _, name = nodeid.partition("::")
        identity.setdefault("file", file)
        identity.setdefault("case", name)
        return cls(
            nodeid=nodeid,
            outcome=Outcome.ERROR,
            error=error,
            reasons=[error.message],
            steps=[StepResult(transcript=t) for t in transcripts or []],
            **identity,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (travels on an xdist report; one entry of report.json)."""
        return self.model_dump(mode="json", by_alias=True)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseResult:
        return cls.model_validate(data)


def repeat_suffix(repeat: int) -> str:
    """What a repeated case's item name ends with: ``[r2]`` for the second try."""
    return f"[r{repeat}]"


def without_repeat(nodeid: str) -> str:
    """The case's node id without a try's ``repeat_suffix``, whichever try it is."""
    return re.sub(r"\[r\d+\]\Z", "", nodeid)
