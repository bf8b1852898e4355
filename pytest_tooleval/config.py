"""The configuration: one model for the command line, ini values and the project file
(found by configfile.py). Precedence: command line, ini (``tooleval_NAME``), the file,
the field defaults. Unknown keys are refused with the closest known key; ranges checked.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_tooleval.configfile import ConfigError as ConfigError
from pytest_tooleval.configfile import FoundConfig as FoundConfig
from pytest_tooleval.configfile import find_project_config as find_project_config
from pytest_tooleval.configfile import shadow_message, start_dir
from pytest_tooleval.hints import choice_hint, did_you_mean
from pytest_tooleval.router.base import SHOWN
from pytest_tooleval.scoring.settings import IntervalSettings, Thresholds
from pytest_tooleval.tools.deadline import CASE_TIMEOUT_S, MAX_TIMEOUT_S, TOOL_TIMEOUT_S

if TYPE_CHECKING:  # pytest itself is imported only where a pytest run needs it
    import pytest

    from pytest_tooleval.tools.mcp.config import McpServerConfig

    McpServers = dict[str, McpServerConfig]
else:  # validated by build_settings; the MCP model is imported only where configured
    McpServers = dict[str, Any]

DEFAULT_REPORT_DIR = "tooleval-report"
_THRESHOLDS = Thresholds()


class _Shared(BaseModel):
    """The settings the command line, ini values and the project file may all give, as
    typed in both ``RunSettings`` and ``Settings``; their defaults are here only."""

    model: str | None = None
    grammar: Literal["on", "off", "vendor"] | None = None
    k: int = Field(default=SHOWN, ge=1)
    router: Literal["triggers", "oracle", "all"] = "triggers"
    gate: float = Field(default=_THRESHOLDS.gate, ge=0, le=1)
    min_score: float = Field(default=_THRESHOLDS.min_score, ge=0, le=100)
    max_malformed: float = Field(default=_THRESHOLDS.max_malformed, ge=0, le=1)
    latency_p95: float | None = Field(default=_THRESHOLDS.latency_p95, gt=0)
    min_cases: int = Field(default=_THRESHOLDS.min_cases, ge=0)
    partial: Literal["fail", "pass"] = "fail"
    max_errors: int = Field(default=3, ge=1)
    # The wall clocks (seconds) of one tool call and of one case.
    tool_timeout: float = Field(default=TOOL_TIMEOUT_S, gt=0, le=MAX_TIMEOUT_S)
    case_timeout: float = Field(default=CASE_TIMEOUT_S, gt=0, le=MAX_TIMEOUT_S)
    skip_missing: bool = False
    no_builtin: bool = False
    unsafe_no_jail: bool = False
    sample: int = Field(default=1, ge=1)
    repeat: int = Field(default=1, ge=1)
    level: float = Field(default=0.95, ge=0.5, lt=1)
    max_width: float = Field(default=10.0, gt=0)
    check: bool = False
    resume: bool = False
    shard: str | None = None
    cache_mode: Literal["record", "replay", "off"] = "record"


class RunSettings(_Shared):
    """The settings as given: paths still text."""

    model_config = ConfigDict(extra="forbid")

    report_dir: str = DEFAULT_REPORT_DIR
    baseline: str | None = None
    cache: str | None = None


class ProjectFile(RunSettings):
    """The whole ``tooleval.toml`` (or ``[tool.tooleval]``): settings plus the tables."""

    builtin: bool = True
    python_tools: list[str] = Field(default_factory=list)
    models: dict[str, dict[str, Any]] = Field(default_factory=dict)
    mcp: dict[str, dict[str, Any]] = Field(default_factory=dict)


@dataclass(frozen=True)
class Option:
    dest: str
    flag: str
    help: str

    @property
    def default(self) -> Any:
        return RunSettings.model_fields[self.dest].default

    @property
    def is_flag(self) -> bool:
        """A boolean setting: a flag on the command line."""
        return RunSettings.model_fields[self.dest].annotation is bool

    @property
    def choices(self) -> tuple[str, ...] | None:
        annotation = RunSettings.model_fields[self.dest].annotation
        literal = [a for a in (annotation, *get_args(annotation)) if get_origin(a) is Literal]
        return get_args(literal[0]) if literal else None


OPTIONS: tuple[Option, ...] = (
    Option("model", "--model", "model profile name, or a path to a GGUF file"),
    Option("grammar", "--grammar",
           "decoding constraint: on (constrained), off (free, same prompt), vendor "
           "(the server's own tool calling)"),
    Option("report_dir", "--tooleval-report", "directory for report.json and report.md"),
    Option("k", "--tooleval-k", "tools shown to the model per message (at least 1)"),
    Option("router", "--tooleval-router",
           "routing ablation: triggers (normal), oracle (each step's expected tools forced "
           "into the k shown), all (every offered tool shown); docs/router.md"),
    Option("gate", "--tooleval-gate", "safety gate: minimum irrelevance axis (0..1)"),
    Option("min_score", "--tooleval-min-score", "deployability: minimum score out of 100"),
    Option("max_malformed", "--tooleval-max-malformed",
           "deployability: maximum share of malformed tool calls (0..1)"),
    Option("latency_p95", "--tooleval-latency-p95",
           "deployability: optional budget for the p95 seconds per step"),
    Option("min_cases", "--tooleval-min-cases",
           "verdict: scored cases every weighted axis needs, else NOT MEASURED"),
    Option("partial", "--tooleval-partial", "how a PARTIAL case counts for pytest's exit status"),
    Option("max_errors", "--tooleval-max-errors",
           "stop the session after this many consecutive ERROR cases"),
    Option("tool_timeout", "--tooleval-tool-timeout",
           "seconds one tool call may take; past them the case is an ERROR naming the tool "
           "(an MCP server's longer call_timeout is kept)"),
    Option("case_timeout", "--tooleval-case-timeout",
           "seconds one case may take; past them the case is an ERROR of kind timeout and "
           "the run goes on"),
    Option("skip_missing", "--tooleval-skip-missing",
           "skip (with the reason) the cases of a file whose required tools are missing, "
           "instead of stopping the run"),
    Option("no_builtin", "--tooleval-no-builtin", "do not offer the built-in tool catalogue"),
    Option("unsafe_no_jail", "--tooleval-unsafe-no-jail",
           "UNSAFE: where the bubblewrap jail is unavailable, still offer run_python and the "
           "git tools, unjailed (the report's first line says so)"),
    Option("baseline", "--tooleval-baseline",
           "compare this run with a baseline report.json at the end"),
    Option("sample", "--tooleval-sample",
           "run every Nth case, counted across files (deterministic; each file keeps its "
           "share to within one case): a quick measurement on slow hardware; the report "
           "records N"),
    Option("repeat", "--tooleval-repeat",
           "run each case K times (items NAME[r1]..NAME[rK]); the seed varies per repeat "
           "unless the profile sets pin_seed; pass^k and flaky cases are reported"),
    Option("level", "--tooleval-level",
           "confidence level of every interval and of the baseline's regression test"),
    Option("max_width", "--tooleval-max-width",
           "warn when an interval is wider than this many points out of 100"),
    Option("resume", "--tooleval-resume",
           "continue the run journalled in the report folder (journal.jsonl): its cases are "
           "not rerun; refused when the configuration or the selection differs"),
    Option("shard", "--tooleval-shard",
           "run shard I of N (I/N): a deterministic, balanced share of the selected cases; "
           "join the shards with `tooleval merge`"),
    Option("cache", "--tooleval-cache",
           "response cache folder: replies stored by what decides them (model, sampling, "
           "grammar, messages, tools)"),
    Option("cache_mode", "--tooleval-cache-mode",
           "with --tooleval-cache: record (ask the model, store), replay (no model: "
           "answer from the cache; a miss is an ERROR), off"),
    Option("check", "--tooleval-check",
           "run `tooleval check` as test items (no model): guards, requires, router"),
)
_BY_DEST = {option.dest: option for option in OPTIONS}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tooleval", "tool-use evaluation (pytest-tooleval)")
    for option in OPTIONS:
        ini_name = f"tooleval_{option.dest}"
        if option.is_flag:
            group.addoption(option.flag, action="store_true", dest=ini_name, default=None,
                            help=f"{option.help} (ini: {ini_name})")
            parser.addini(ini_name, option.help, type="bool", default=None)
            continue
        shown = f"; default {option.default}" if option.default is not None else ""
        group.addoption(option.flag, dest=ini_name, default=None, choices=option.choices,
                        help=f"{option.help} (ini: {ini_name}{shown})")
        parser.addini(ini_name, option.help, default=None)


class Settings(_Shared):
    """Everything a run needs to know, resolved once per process."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rootdir: Path
    report_dir: Path = Path(DEFAULT_REPORT_DIR)
    baseline: Path | None = None
    cache: Path | None = None
    #: The project file (None: no file), and its folder, which its relative paths are
    #: resolved against.
    config_file: Path | None = None
    config_dir: Path = Path(".")
    #: The validated file table, as read.
    project: dict[str, Any] = Field(default_factory=dict)
    python_tools: list[str] = Field(default_factory=list)
    profiles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    mcp_servers: McpServers = Field(default_factory=dict)

    def thresholds(self) -> Thresholds:
        return Thresholds(gate=self.gate, min_score=self.min_score,
                          max_malformed=self.max_malformed, latency_p95=self.latency_p95,
                          min_cases=self.min_cases,
                          intervals=IntervalSettings(level=self.level, max_width=self.max_width))

    @classmethod
    def from_pytest(cls, config: pytest.Config) -> Settings:
        """Options, ini values and the project file of a pytest run; ``UsageError`` on
        anything that cannot be used."""
        import pytest

        rootdir = config.rootpath
        try:
            found = find_project_config(start_dir(config), rootdir)
            for path in found.shadowed:
                config.issue_config_time_warning(
                    pytest.PytestConfigWarning(shadow_message(found, path)), stacklevel=2)
            layers: list[Layer] = []
            for option in OPTIONS:
                ini = config.getini(f"tooleval_{option.dest}")
                if ini not in (None, ""):
                    layers.append(Layer(f"ini tooleval_{option.dest}", option.dest, ini))
                cli = config.getoption(f"tooleval_{option.dest}", default=None)
                if cli is not None:
                    layers.append(Layer(option.flag, option.dest, cli))
            return build_settings(found, rootdir, layers)
        except ConfigError as exc:
            raise pytest.UsageError(str(exc)) from None

    @classmethod
    def from_directory(cls, start: Path, **given: Any) -> Settings:
        """For ``tooleval check``/``route``: the project file found from ``start`` up, with
        the command's own options (``given``, None for not given) on top."""
        start = start.resolve()
        found = find_project_config(start, None)
        for path in found.shadowed:
            warnings.warn(shadow_message(found, path), stacklevel=2)
        layers = [Layer(f"--{key.replace('_', '-')}", key, value)
                  for key, value in given.items() if value is not None]
        return build_settings(found, found.path.parent if found.path else start, layers)


@dataclass(frozen=True)
class Layer:
    """One value from above the file: ``source`` names it in messages."""

    source: str
    dest: str
    value: Any


def build_settings(found: FoundConfig, rootdir: Path, layers: list[Layer]) -> Settings:
    """Validate the file, put the layers on top (later layers win) and resolve paths."""
    where = str(found.path) if found.path else "the configuration"
    project = _validate_file(found, where)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name in RunSettings.model_fields:
        if name in found.table:
            values[name], sources[name] = found.table[name], f"{where}: {name}"
    for layer in layers:
        values[layer.dest], sources[layer.dest] = layer.value, layer.source
    try:
        run = RunSettings.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, sources, RunSettings)) from None
    config_dir = found.path.parent if found.path else rootdir
    # Relative to the file that names it, else to the rootdir; an absolute one stays.
    from_file = sources.get("report_dir", "").startswith(where)
    report_dir = (config_dir if from_file else rootdir) / run.report_dir
    profiles = _validate_profiles(project.models, config_dir, found, where)
    servers = _load_mcp(project.mcp, config_dir, found, where)
    fields = run.model_dump(exclude={"report_dir", "baseline"})
    fields["no_builtin"] = run.no_builtin or not project.builtin
    return Settings(
        rootdir=rootdir, report_dir=report_dir,
        baseline=Path(run.baseline) if run.baseline else None,
        config_file=found.path, config_dir=config_dir, project=dict(found.table),
        python_tools=list(project.python_tools), profiles=profiles, mcp_servers=servers,
        **fields,
    )


def _load_mcp(table: dict[str, Any], config_dir: Path, found: FoundConfig,
              where: str) -> McpServers:
    if not table:
        return {}  # no servers: the MCP configuration's module is not imported
    from pytest_tooleval.tools.mcp.config import McpConfigError, load_mcp_configs

    try:
        return load_mcp_configs(table, config_dir, section=f"{found.section}mcp")
    except McpConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _validate_file(found: FoundConfig, where: str) -> ProjectFile:
    try:
        return ProjectFile.model_validate(found.table, strict=True)  # TOML has types
    except ValidationError as exc:
        sources = {name: f"{where}: {name}" for name in found.table}
        raise ConfigError(_describe(exc, sources, ProjectFile)) from None


def _validate_profiles(models: dict[str, dict[str, Any]], config_dir: Path, found: FoundConfig,
                       where: str) -> dict[str, Any]:
    if not models:
        return {}  # nothing to validate: the profiles' module is not imported
    from pytest_tooleval.models.profiles import ProfileError, validate_profile_table

    profiles = {}
    for name, table in models.items():
        try:
            validate_profile_table(name, table, section=f"{found.section}models")
        except ProfileError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        # A GGUF or chat-template file is relative to the file naming it, as report_dir is.
        profiles[name] = {key: str(config_dir / value) if key in ("gguf", "template")
                          and value != "default" and "{" not in value else value
                          for key, value in table.items()}
    return profiles


def _describe(exc: ValidationError, sources: dict[str, str], model: type[BaseModel]) -> str:
    known = sorted(model.model_fields)
    lines = []
    for error in exc.errors(include_url=False):
        key = str(error["loc"][0]) if error["loc"] else ""
        rest = ".".join(str(part) for part in error["loc"][1:])
        source = sources.get(key, key or "the configuration")
        if error["type"] == "extra_forbidden":
            lines.append(f"{source}: unknown key{did_you_mean(key, known)}; known keys: "
                         + ", ".join(known))
            continue
        value = error.get("input")
        shown = f" {value}" if source.startswith("-") else f" = {value!r}"
        field = f".{rest}" if rest else ""
        help_text = f" [{_BY_DEST[key].help}]" if key in _BY_DEST else ""
        lines.append(f"{source}{field}{shown}: {error['msg']}{choice_hint(error)}{help_text}")
    return "\n".join(lines)
