"""Options (command line and ini) and the project configuration file.

Configuration lives in ``[tool.tooleval]`` of ``pyproject.toml`` or at the top level of a
``tooleval.toml`` (the latter wins when both exist). Command-line options win over ini
values, ini values over the defaults below.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

DEFAULT_REPORT_DIR = "tooleval-report"


@dataclass(frozen=True)
class Option:
    dest: str
    flag: str
    help: str
    default: Any = None
    type: type = str
    choices: tuple[str, ...] | None = None
    is_flag: bool = False


OPTIONS: tuple[Option, ...] = (
    Option("model", "--model", "model profile name, or a path to a GGUF file"),
    Option(
        "grammar",
        "--grammar",
        "decoding constraint: on (constrained), off (free, same prompt), vendor "
        "(the server's own tool calling)",
        choices=("on", "off", "vendor"),
    ),
    Option("report_dir", "--tooleval-report", "directory for report.json and report.md",
           DEFAULT_REPORT_DIR),
    Option("k", "--tooleval-k", "tools shown to the model per message", 9, int),
    Option("router", "--tooleval-router",
           "routing ablation: triggers (normal), oracle (each step's expected tools forced "
           "into the k shown), all (every offered tool shown); docs/router.md", "triggers",
           choices=("triggers", "oracle", "all")),
    Option("gate", "--tooleval-gate",
           "safety gate: minimum irrelevance axis (0..1)", 0.90, float),
    Option("min_score", "--tooleval-min-score",
           "deployability: minimum score out of 100", 70.0, float),
    Option("max_malformed", "--tooleval-max-malformed",
           "deployability: maximum share of malformed tool calls (0..1)", 0.02, float),
    Option("min_cases", "--tooleval-min-cases",
           "verdict: scored cases every weighted axis needs, else NOT MEASURED", 10, int),
    Option("latency_p95", "--tooleval-latency-p95",
           "deployability: optional budget for the p95 seconds per step", None, float),
    Option("partial", "--tooleval-partial",
           "how a PARTIAL case counts for pytest's exit status", "fail",
           choices=("fail", "pass")),
    Option("max_errors", "--tooleval-max-errors",
           "stop the session after this many consecutive ERROR cases", 3, int),
    Option("skip_missing", "--tooleval-skip-missing",
           "skip (with the reason) the cases of a file whose required tools are missing, "
           "instead of stopping the run", False, is_flag=True),
    Option("no_builtin", "--tooleval-no-builtin",
           "do not offer the built-in tool catalogue", False, is_flag=True),
    Option("unsafe_no_jail", "--tooleval-unsafe-no-jail",
           "UNSAFE: where the bubblewrap jail is unavailable, still offer run_python and the "
           "git tools, unjailed (the report's first line says so)", False, is_flag=True),
    Option("baseline", "--tooleval-baseline",
           "compare this run with a baseline report.json at the end"),
    Option("sample", "--tooleval-sample",
           "run every Nth case of each file (deterministic, stratified by file): a quick "
           "measurement on slow hardware; the report records N", 1, int),
    Option("check", "--tooleval-check",
           "run `tooleval check` as test items (no model): guards, requires, router", False,
           is_flag=True),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tooleval", "tool-use evaluation (pytest-tooleval)")
    for option in OPTIONS:
        ini_name = f"tooleval_{option.dest}"
        if option.is_flag:
            group.addoption(option.flag, action="store_true", dest=f"tooleval_{option.dest}",
                            default=None, help=f"{option.help} (ini: {ini_name})")
            parser.addini(ini_name, option.help, type="bool", default=option.default)
            continue
        shown = f"; default {option.default}" if option.default is not None else ""
        group.addoption(option.flag, dest=f"tooleval_{option.dest}", default=None,
                        choices=option.choices, help=f"{option.help} (ini: {ini_name}{shown})")
        parser.addini(ini_name, option.help, default=None)


def _convert(option: Option, raw: Any) -> Any:
    if raw is None or option.is_flag:
        return raw
    try:
        value = option.type(raw)
    except (TypeError, ValueError):
        raise pytest.UsageError(
            f"{option.flag} (or ini tooleval_{option.dest}) expects a "
            f"{option.type.__name__}, got {raw!r}"
        ) from None
    if option.choices and value not in option.choices:
        raise pytest.UsageError(f"{option.flag} must be one of {', '.join(option.choices)}")
    return value


@dataclass
class Settings:
    """Everything a run needs to know, resolved once per process."""

    rootdir: Path
    model: str | None = None
    grammar: str | None = None
    report_dir: Path = Path(DEFAULT_REPORT_DIR)
    k: int = 9
    router: str = "triggers"
    gate: float = 0.90
    min_score: float = 70.0
    max_malformed: float = 0.02
    latency_p95: float | None = None
    min_cases: int = 10
    partial: str = "fail"
    max_errors: int = 3
    skip_missing: bool = False
    no_builtin: bool = False
    unsafe_no_jail: bool = False
    baseline: Path | None = None
    check: bool = False
    sample: int = 1
    project: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_pytest(cls, config: pytest.Config) -> Settings:
        values: dict[str, Any] = {}
        project = load_project_config(config.rootpath)
        for option in OPTIONS:
            cli = config.getoption(f"tooleval_{option.dest}", default=None)
            raw = cli if cli is not None else config.getini(f"tooleval_{option.dest}")
            if raw in (None, "") and option.dest in project and not isinstance(
                project[option.dest], dict
            ):
                raw = project[option.dest]
            if raw in (None, ""):
                raw = option.default
            values[option.dest] = _convert(option, raw)
        if project.get("builtin") is False:
            values["no_builtin"] = True
        report_dir = Path(values.pop("report_dir"))
        if not report_dir.is_absolute():
            report_dir = config.rootpath / report_dir
        baseline = values.pop("baseline")
        return cls(
            rootdir=config.rootpath,
            report_dir=report_dir,
            baseline=Path(baseline) if baseline else None,
            project=project,
            **values,
        )


def load_project_config(rootdir: Path) -> dict[str, Any]:
    """``tooleval.toml`` (whole file) or ``[tool.tooleval]`` of ``pyproject.toml``."""
    dedicated = rootdir / "tooleval.toml"
    if dedicated.is_file():
        return _read_toml(dedicated)
    pyproject = rootdir / "pyproject.toml"
    if pyproject.is_file():
        data = _read_toml(pyproject)
        section = data.get("tool", {}).get("tooleval", {})
        if not isinstance(section, dict):
            raise pytest.UsageError(f"{pyproject}: [tool.tooleval] must be a table")
        return section
    return {}


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise pytest.UsageError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise pytest.UsageError(f"{path}: cannot read: {exc}") from None
