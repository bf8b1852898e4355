"""The run report as typed models: what ``report.json`` holds, read and written in one place.

``Report`` is built once at the end of a run (``report/json_report.py``) and handed to every
renderer and exporter; a stored report is read with ``load_report`` (one validation).
``CaseResult`` (pytest_tooleval/result.py) is the type of each case.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_tooleval.result import CaseResult
from pytest_tooleval.scoring.proportion import interval_text

SCHEMA: Literal["pytest-tooleval/report"] = "pytest-tooleval/report"
#: 2: cases are typed ``CaseResult`` records (pytest_tooleval/result.py); each step holds
#: its transcript and its checks; ``error`` is an object with a kind.
SCHEMA_VERSION: Literal[2] = 2


def _absent_if_none(value: Any) -> bool:
    return value is None


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Interval(_Model):
    """A two-sided interval on the figure's own scale (0–100 for a score, 0–1 for an axis),
    as scoring/statistics.py computes it; report.json keeps it ``rounded``."""

    low: float
    high: float
    method: str

    def rounded(self) -> Interval:
        return Interval(low=round(self.low, 4), high=round(self.high, 4), method=self.method)

    def scaled(self, factor: float) -> Interval:
        return Interval(low=self.low * factor, high=self.high * factor, method=self.method)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def text(self, scale: float = 1.0, digits: int = 1) -> str:
        return interval_text(self.low, self.high, scale, digits)


# -- the summary -------------------------------------------------------------------------
class AxisFigure(_Model):
    value: float
    cases: int
    weight: float
    interval: Interval | None = None


class Routing(_Model):
    """Router recall over a row's cases (router/coverage.py); recall None without a step."""

    routed: int
    steps: int
    recall: float | None
    #: Wilson over the steps; none under 5 steps.
    interval: Interval | None = Field(default=None, exclude_if=_absent_if_none)


class BreakdownRow(_Model):
    score: float | None
    axes: dict[str, float]
    cases: int
    outcomes: dict[str, int]
    routing: Routing
    #: Only when repeats make tries differ from cases.
    tries: int | None = Field(default=None, exclude_if=_absent_if_none)
    interval: Interval | None = None


class PassK(_Model):
    k: int
    pass_hat_k: float
    pass_at_k: float
    cases: int
    cases_short_of_k: int
    #: Over cases, with repeats (k > 1); none under 5 cases.
    pass_hat_k_interval: Interval | None = Field(default=None, exclude_if=_absent_if_none)
    pass_at_k_interval: Interval | None = Field(default=None, exclude_if=_absent_if_none)


class CaseTriesRow(_Model):
    case: str
    tries: int
    scored: int
    passes: int
    pass_rate: float | None
    pass_hat_k: float | None
    pass_at_k: float | None
    flaky: bool
    outcomes: list[str]


class Repeats(_Model):
    k: int
    overall: PassK | None
    curve: list[PassK]
    axes: dict[str, PassK | None]
    flaky_count: int
    flaky: list[CaseTriesRow]
    #: Every case's row, only with repeats (k > 1).
    cases: list[CaseTriesRow] | None = Field(default=None, exclude_if=_absent_if_none)


class StatisticsInfo(_Model):
    level: float
    max_width: float
    bootstrap_resamples: int
    bootstrap_seed: int
    methods: dict[str, str]


class LanguageGap(_Model):
    jobs: int
    jobs_in_every_language: int
    languages: list[str]
    scores: dict[str, float | None]
    #: Each score's (points), over its jobs: Wilson where each job scores 0 or 100, else
    #: the bootstrap; none under 5 jobs.
    score_intervals: dict[str, Interval] = Field(default_factory=dict)
    gap: float | None
    gap_is: str | None
    #: The gap's interval (points), over the jobs in both languages; none under 20 jobs.
    interval: Interval | None = None


class Calls(_Model):
    attempts: int
    malformed: int
    malformed_rate: float
    malformed_kinds: dict[str, int]
    parser_leaks: int
    steps: int
    latency_p50_s: float | None
    latency_p95_s: float | None


class SafetyGate(_Model):
    status: str
    passed: bool
    threshold: float
    irrelevance: float | None
    forbidden_ran: list[str]
    detail: str


class Coverage(_Model):
    measured: bool
    minimum: int
    cases: dict[str, int]
    short: dict[str, int]
    detail: str


class Baseline(_Model):
    """A scripted policy's figures on the run's selection (scoring/baselines.py)."""

    policy: str
    score: float | None
    axes: dict[str, float]
    outcomes: dict[str, int]
    cases: int
    errors: int


class Criterion(_Model):
    #: Stable, for programs: safety_gate, score, malformed_rate, errors, baseline, latency_p95.
    key: str
    name: str
    value: int | float | str | None
    threshold: str
    passed: bool
    #: The malformed-call rate's (Wilson, over the attempts).
    interval: Interval | None = Field(default=None, exclude_if=_absent_if_none)

    @property
    def shown(self) -> str:
        """The value as the reports print it: "n/a" where nothing was measured; the
        malformed-call rate (a share) as a percent, as every figure beside it."""
        if self.value is None:
            return "n/a"
        share = self.key == "malformed_rate"
        if self.interval is None and not share:
            return str(self.value)
        digits = next((d for d in range(4, 17) if float(f"{self.value:.{d}f}") == self.value), 17)
        scale, places, unit = (100, 2, "%") if share else (1, 4, "")
        bounds = "" if self.interval is None else f" [{self.interval.text(scale, places)}]"
        return f"{scale * float(self.value):.{digits + places - 4}f}{unit}{bounds}"  # as rounded

    @property
    def needs(self) -> str:
        """The threshold as the reports print it: the malformed-call rate's as a percent."""
        if self.key != "malformed_rate":
            return self.threshold
        sign, share = self.threshold.split()
        return f"{sign} {100 * float(share):g}%"


class Verdict(_Model):
    verdict: str
    valid: bool
    measured: bool
    beats_baselines: bool
    score: float
    criteria: list[Criterion]

    def criterion(self, key: str) -> Criterion | None:
        return next((c for c in self.criteria if c.key == key), None)


class CaseError(_Model):
    nodeid: str
    kind: str | None
    reason: str | None


class FailureModes(_Model):
    """Failure modes counted (scoring/failure_modes.py ``MODES``: key → label): failing
    steps by mode, ERROR cases by kind; only modes that occurred, in ``MODES`` order."""

    run: dict[str, int] = Field(default_factory=dict)
    groups: dict[str, dict[str, int]] = Field(default_factory=dict)
    languages: dict[str, dict[str, int]] = Field(default_factory=dict)


class Summary(_Model):
    score: float | None
    score_interval: Interval | None
    cases_scored: int
    weights: dict[str, float]
    axes: dict[str, AxisFigure]
    outcomes: dict[str, int]
    groups: dict[str, BreakdownRow]
    categories: dict[str, BreakdownRow]
    languages: dict[str, BreakdownRow]
    registers: dict[str, BreakdownRow]
    repeats: Repeats
    statistics: StatisticsInfo
    language_gap: LanguageGap
    calls: Calls
    safety_gate: SafetyGate
    coverage: Coverage
    baselines: dict[str, Baseline]
    deployability: Verdict
    errors: list[CaseError]
    warnings: list[str] = Field(default_factory=list)
    failure_modes: FailureModes = Field(default_factory=FailureModes)

    def breakdowns(self) -> list[tuple[str, str, dict[str, BreakdownRow]]]:
        """(title, row label, table) of each breakdown, in the order reports show them."""
        return [("Groups", "group", self.groups), ("Categories", "category", self.categories),
                ("Registers", "register", self.registers),
                ("Languages", "language", self.languages)]


# -- the run -----------------------------------------------------------------------------
class Platform(_Model):
    system: str
    machine: str
    python: str
    implementation: str


class RepeatInfo(_Model):
    k: int
    seed_policy: str
    seeds: list[int]


class ThresholdInfo(_Model):
    gate: float
    min_score: float
    max_malformed: float
    latency_p95: float | None
    min_cases: int
    partial: str


class Selection(_Model):
    paths: list[str]
    keyword: str | None
    markers: str | None
    deselected: list[str] = []  # --deselect ids (absent in older reports)
    ignored: list[str] = []  # --ignore and --ignore-glob paths
    sample_every: int
    cases: int
    case_set_hash: str
    command_line: list[str]


class Skipped(_Model):
    nodeid: str
    reason: str


class Resumed(_Model):
    from_started: str | None
    cases_carried: int


class OverMaxTokens(_Model):
    """Model calls that ended by themselves past ``max_tokens``: the server did not stop
    them there. Their turns are scored as written (the text is the model's)."""

    max_tokens: int
    model_calls: int
    of: int
    most: int


class RunInfo(BaseModel):
    """What ran: set up by the controller, field by field (run/controller.py, ``run_info``).

    ``model`` is the profile as configured; ``backend`` is what the backend said of itself
    (``Backend.describe``: backend, grammar, ``constraint``, sampling, preflight, …).
    A plugin's ``pytest_tooleval_run_metadata`` may add keys of its own: kept as extras.
    """

    model_config = ConfigDict(extra="allow")

    package_version: str
    platform: Platform
    model: dict[str, Any]
    grammar_requested: str
    config_file: str | None
    k: int
    router_mode: str
    seed: int | None
    sample_every: int
    isolation: dict[str, Any]
    repeat: RepeatInfo
    thresholds: ThresholdInfo
    backend: dict[str, Any]
    backend_variants: int
    router: dict[str, Any]
    tools_offered: list[str]
    providers: str
    tool_providers: list[dict[str, Any]]
    started: str
    finished: str
    interrupted: str | None
    concurrency: dict[str, Any] | None
    cases_done: int
    cases_selected: int | None
    identity_hash: str | None
    shard: str | None
    selection: Selection | None
    skipped: list[Skipped] | None = Field(default=None, exclude_if=_absent_if_none)
    resumed: Resumed | None = Field(default=None, exclude_if=_absent_if_none)
    #: ``tooleval merge``: the parts the report was joined from.
    merged_from: list[str] | None = Field(default=None, exclude_if=_absent_if_none)
    over_max_tokens: OverMaxTokens | None = Field(default=None, exclude_if=_absent_if_none)

    @property
    def model_name(self) -> str:
        return str(self.model.get("name", "?"))

    @property
    def grammar(self) -> str:
        """The grammar mode that ran (the backend's), else the one asked for."""
        return str(self.backend.get("grammar") or self.grammar_requested)

    @property
    def constraint(self) -> str | None:
        """What constrained the output (``Backend.describe``'s ``constraint``)."""
        value = self.backend.get("constraint")
        return None if value is None else str(value)


# -- the report --------------------------------------------------------------------------
class Report(_Model):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_name: Literal["pytest-tooleval/report"] = Field(default=SCHEMA, alias="schema")
    schema_version: Literal[2] = SCHEMA_VERSION
    run: RunInfo
    summary: Summary
    cases: list[CaseResult]

    def to_json(self) -> dict[str, Any]:
        """``report.json``'s content."""
        return self.model_dump(mode="json", by_alias=True)


def corpus_hash(cases: Iterable[tuple[str, str | None]]) -> str:
    """A short hash of the cases a run covered, from each case's (node id, content hash):
    the same cases give the same hash on any machine and worker count."""
    content = sorted(cases, key=lambda pair: (pair[0], pair[1] or ""))
    digest = hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:12]


class ReportError(Exception):
    """A file that is not a report this version reads: the message names the file."""


def load_report(path: Path | str) -> Report:
    """A stored report.json (or the folder a run wrote it in), validated once."""
    path = Path(path)
    if path.is_dir():
        if not (path / "report.json").is_file():
            raise ReportError(f"{path}: a folder without a report.json; give a run's report "
                              "folder or its report.json")
        path = path / "report.json"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read a report: {exc}") from None
    try:
        return Report.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        broken = first["type"] == "json_invalid"
        if broken and text.lstrip()[:1] in ("", "{"):  # empty or cut short
            raise ReportError(f"{path}: a report.json cut short ({first['msg']}); rebuild it "
                              f"from the run's journal: tooleval rescore "
                              f"{path.with_name('journal.jsonl')} --report DIR") from None
        if broken or not isinstance(data := json.loads(text), dict) \
                or data.get("schema") != SCHEMA:  # another tool's file
            raise ReportError(f"{path}: not a pytest-tooleval report (no \"schema\": "
                              f"\"{SCHEMA}\"); give the report.json a run wrote into its "
                              "report folder (--tooleval-report, default tooleval-report)") \
                from None
        raise ReportError(f"{path}: not a pytest-tooleval report of schema version "
                          f"{SCHEMA_VERSION} ({where}: {first['msg']}); write it again with "
                          "this version: tooleval rescore JOURNAL --report DIR on the run's "
                          "journal.jsonl, or a new run") from None
