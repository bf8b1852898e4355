"""pytest File and Item classes: each case of a benchmark or scenario file is a test item
(a ``pytest.Function``, so that fixtures work through public API)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.files import DEFAULT_PATTERNS, collected, is_case_path, not_collected
from pytest_tooleval.cases.load import load_case_file, parse_text, same_name
from pytest_tooleval.cases.model import CATEGORIES, Case, CaseFile
from pytest_tooleval.engine.session import ModelSession
from pytest_tooleval.result import CaseResult, ErrorInfo, repeat_suffix
from pytest_tooleval.run import runtime_of
from pytest_tooleval.yamlio import MAX_BYTES

#: The run's benchmark names so far, each with the first file of that name.
_NAMES = pytest.StashKey[dict[str, Path]]()


def wants_file(file_path: Path, config: pytest.Config) -> bool:
    """Benchmark and scenario files by pattern, or any such file named on the command line.
    A case file that is neither, and looks like one (a mapping with ``name`` and ``cases``),
    gets a warning with the fix in a run about cases, never a silent skip."""
    if not is_case_path(file_path):
        return False
    patterns = list(config.getini("tooleval_files") or DEFAULT_PATTERNS)
    # Files under the configured case paths (ini tooleval_paths) are case files too.
    patterns += [f"{base.rstrip('/')}/**/*{suffix}" for base in config.getini("tooleval_paths")
                 for suffix in (".json", ".yaml", ".yml")]
    # From the rootdir; in a folder named on the command line (not `.`), from where pytest
    # runs too when that is below the rootdir (a setup.py above the project moves it there)
    path, root = file_path.resolve(), config.rootpath.resolve()
    here = config.invocation_params.dir.resolve()
    given = {Path(arg.split("::")[0]).resolve() for arg in config.args}
    bases = {root, *([here] if here.is_relative_to(root) and any(
        path.is_relative_to(arg) for arg in given - {here}) else [])}
    relatives = [path.relative_to(base).as_posix() for base in bases
                 if path.is_relative_to(base)] or [file_path.as_posix()]
    if collected(relatives, patterns) or path in given:
        return True
    # (plain pytest over testpaths runs a project's own tests: their data is not a case file)
    about_cases = config.args_source is not pytest.Config.ArgsSource.TESTPATHS or any(
        config.getoption(name, default=None) for name in ("tooleval_model", "tooleval_check"))
    if about_cases and file_path.is_file() and _looks_like_a_case_file(file_path):
        shown = path.relative_to(root) if path.is_relative_to(root) else file_path
        why, fix = not_collected(patterns)
        warnings.warn_explicit(pytest.PytestWarning(
            f"tooleval: {shown} looks like a case file but is {why}; fix: {fix}"),
            pytest.PytestWarning, str(file_path), 1)
    return False


def _looks_like_a_case_file(path: Path) -> bool:
    """A JSON or YAML mapping with ``name`` and ``cases`` (a run's report.json has no name)."""
    try:
        if path.stat().st_size > MAX_BYTES or b"cases" not in (data := path.read_bytes()):
            return False
        parsed = parse_text(data.decode("utf-8"), path)
    except (OSError, UnicodeDecodeError, CaseFileError):
        return False
    return isinstance(parsed, dict) and "name" in parsed and "cases" in parsed


def tooleval_case(tooleval_session: Any) -> None:
    """Stands in as the items' function so that pytest resolves their fixtures."""


class CaseFileCollector(pytest.File):
    """A benchmark (JSON) or scenario (YAML) file."""

    def collect(self) -> Iterator[pytest.Item]:
        runtime = runtime_of(self.config)
        try:
            case_file = load_case_file(self.path)
            first = self.config.stash.setdefault(_NAMES, {}).setdefault(case_file.name,
                                                                         self.path)
            if first != self.path:
                raise CaseFileError(str(self.path), [same_name(case_file.name, str(first))])
        except CaseFileError as exc:
            raise self.CollectError(str(exc)) from None
        runtime.case_files[self.path.resolve()] = case_file
        skip_reason = runtime.requires_problem(case_file, self.nodeid)
        repeats = runtime.settings.repeat
        for case in case_file.cases:
            # One item per try, so -k, xdist and the report see each try on its own.
            for repeat in (range(1, repeats + 1) if repeats > 1 else (None,)):
                name = case.name + (repeat_suffix(repeat) if repeat else "")
                item = CaseItem.from_parent(self, name=name, callobj=tooleval_case)
                item.bind(case_file, case, repeat)
                if skip_reason:
                    item.add_marker(pytest.mark.skip(reason=skip_reason))
                yield item


def _marker(config: pytest.Config, name: str, description: str) -> pytest.MarkDecorator:
    registered = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    if name not in registered:
        config.addinivalue_line("markers", f"{name}: {description}")
    return getattr(pytest.mark, name)


def stop_message(error: Any, errors: int) -> str:
    """Why the session stops after ``errors`` consecutive ERRORs: the last one's message,
    then the stop."""
    last = (error.message if error is not None else "").strip() or "ERROR"
    if not last.endswith((".", "!", "?")):
        last += "."
    return (f"{last} Stopped after {errors} consecutive infrastructure errors; nothing "
            "further was scored.")


class CaseItem(pytest.Function):
    case_file: CaseFile
    case: Case
    result: CaseResult | None = None
    #: Which try this is under --tooleval-repeat (1..K); None for a single run.
    repeat: int | None = None

    def bind(self, case_file: CaseFile, case: Case, repeat: int | None = None) -> None:
        self.case_file = case_file
        self.case = case
        self.repeat = repeat
        config = self.config
        self.add_marker(_marker(config, case.category, f"tooleval category {case.category}"))
        if case.group and case.group not in CATEGORIES:
            self.add_marker(_marker(config, case.group, f"tooleval group {case.group}"))
        for mark in sorted({*case_file.marks, *case.marks}):
            self.add_marker(_marker(config, mark, "a mark from a tooleval case file"))

    def runtest(self) -> None:
        runtime = runtime_of(self.config)
        if runtime.settings.check:
            self._check(runtime)
            return
        session = self.funcargs["tooleval_session"]
        if session is not runtime.session():
            kind = ("a second ModelSession" if isinstance(session, ModelSession)
                    else type(session).__name__)
            self.session.shouldstop = "the tooleval_session fixture was overridden"
            self.result = CaseResult.infrastructure_error(
                self.nodeid, ErrorInfo(kind="configuration",
                                       message=_OVERRIDDEN.format(kind=kind)),
                case=self.case.name, category=self.case.category, group=self.case.group)
            raise CaseNotPassed(self.result)
        self.result = runtime.case_result(self)
        if self.result.is_error:
            errors = runtime.consecutive_errors
            if runtime.stop_reason is not None:
                self.session.shouldstop = runtime.stop_reason
            elif errors >= runtime.settings.max_errors:
                self.session.shouldstop = stop_message(self.result.error, errors)
        outcome = self.result.outcome
        if outcome == "PASS" or (outcome == "PARTIAL" and runtime.settings.partial == "pass"):
            return
        raise CaseNotPassed(self.result)

    def _check(self, runtime: Any) -> None:
        """``tooleval check`` as an item: no model."""
        report = runtime.check_report()
        path = str(self.path)
        found = [f for f in report.failures
                 if f.file == path and f.case in (None, self.case.name)]
        if found:
            lines = [f"tooleval check: {len(found)} problem(s)"]
            lines += [f"  {f.kind}" + (f" step {f.step}" if f.step else "") + f": {f.detail}"
                      for f in found]
            raise CheckFailed("\n".join(lines))

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> Any:
        if isinstance(excinfo.value, CaseNotPassed):
            from pytest_tooleval.report.terminal import explain

            return explain(excinfo.value.result)
        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        # pytest needs a line number for skip reports; a case has none of its own.
        return self.path, 0, f"{self.case_file.name}::{self.name}"


_OVERRIDDEN = (
    "the tooleval_session fixture was overridden (it returned {kind}), but a run has exactly "
    "one model session, made by the hook pytest_tooleval_make_session: requires, the "
    "report's metadata and every case must describe the same session. Move the construction "
    "into that hook in your conftest.py (see docs/usage.md, 'Your own model session') and "
    "remove the fixture override."
)


class CheckFailed(Exception):
    """A failure whose message is the whole story: shown without a traceback."""


class CaseNotPassed(Exception):
    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.outcome.value)
        self.result = result
