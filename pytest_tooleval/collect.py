"""pytest File and Item classes: each case of a benchmark or scenario file is a test item.

Items are ``pytest.Function`` subclasses so that fixtures work through public API: a user
can override ``tooleval_session`` in a conftest.py.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import CATEGORIES, Case, CaseFile

DEFAULT_PATTERNS = ("benchmarks/**/*.json", "scenarios/**/*.yaml", "scenarios/**/*.yml")


def wants_file(file_path: Path, config: pytest.Config) -> bool:
    """Benchmark and scenario files by pattern, or any such file named on the command line."""
    if file_path.suffix not in (".json", ".yaml", ".yml"):
        return False
    patterns = config.getini("tooleval_files") or DEFAULT_PATTERNS
    try:
        relative = file_path.resolve().relative_to(config.rootpath.resolve()).as_posix()
    except ValueError:
        relative = file_path.as_posix()
    for pattern in patterns:
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(
            relative, pattern.replace("**/", "")
        ):
            return True
    given = {Path(arg.split("::")[0]).resolve() for arg in config.args}
    return file_path.resolve() in given


def tooleval_case(tooleval_session: Any) -> None:
    """Stands in as the items' function so that pytest resolves their fixtures."""


class CaseFileCollector(pytest.File):
    """A benchmark (JSON) or scenario (YAML) file."""

    def collect(self) -> Iterator[pytest.Item]:
        from pytest_tooleval.runtime import runtime_of

        runtime = runtime_of(self.config)
        try:
            case_file = load_case_file(self.path)
        except CaseFileError as exc:
            raise self.CollectError(str(exc)) from None
        runtime.register_case_file(self.path)
        skip_reason = runtime.requires_problem(case_file, self.nodeid)
        for case in case_file.cases:
            item = CaseItem.from_parent(self, name=case.name, callobj=tooleval_case)
            item.bind(case_file, case)
            if skip_reason:
                item.add_marker(pytest.mark.skip(reason=skip_reason))
            yield item


def _marker(config: pytest.Config, name: str, description: str) -> pytest.MarkDecorator:
    registered = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    if name not in registered:
        config.addinivalue_line("markers", f"{name}: {description}")
    return getattr(pytest.mark, name)


class CaseItem(pytest.Function):
    case_file: CaseFile
    case: Case
    result: dict[str, Any] | None = None

    def bind(self, case_file: CaseFile, case: Case) -> None:
        self.case_file = case_file
        self.case = case
        config = self.config
        self.add_marker(_marker(config, case.category, f"tooleval category {case.category}"))
        if case.group and case.group not in CATEGORIES:
            self.add_marker(_marker(config, case.group, f"tooleval group {case.group}"))
        for mark in sorted({*case_file.marks, *case.marks}):
            self.add_marker(_marker(config, mark, "a mark from a tooleval case file"))

    def runtest(self) -> None:
        from pytest_tooleval.engine.session import CaseRef
        from pytest_tooleval.runtime import runtime_of

        runtime = runtime_of(self.config)
        if runtime.settings.check:
            self._check(runtime)
            return
        session = self.funcargs["tooleval_session"]
        # The node id's file part: relative to the rootdir, so reports travel between machines.
        ref = CaseRef(self.nodeid, self.nodeid.split("::")[0], self.case_file, self.case)
        self.result = session.run(ref)
        outcome = self.result["outcome"]
        if outcome == "ERROR":
            errors = getattr(session, "consecutive_errors", 0)
            if errors >= runtime.settings.max_errors:
                self.session.shouldstop = (
                    f"{self.result['error']} Stopped after {errors} consecutive infrastructure "
                    "errors; nothing further was scored."
                )
        if outcome == "PASS" or (outcome == "PARTIAL" and runtime.settings.partial == "pass"):
            return
        raise CaseNotPassed(self.result)

    def _check(self, runtime: Any) -> None:
        """No model: the case's guards, its file's requires, router coverage, duplicates."""
        report = runtime.check_report()
        path = str(self.path)
        found = [f for f in report.failures
                 if f.file == path and f.case in (None, self.case.name)]
        if found:
            lines = [f"tooleval check: {len(found)} problem(s)"]
            lines += [f"  {f.kind}" + (f" step {f.step}" if f.step else "") + f": {f.detail}"
                      for f in found]
            raise CheckFailed("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, CaseNotPassed):
            return explain(excinfo.value.result)
        if isinstance(excinfo.value, CheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        # pytest needs a line number for skip reports; a case has none of its own.
        return self.path, 0, f"{self.case_file.name}::{self.case.name}"


class CheckFailed(Exception):
    pass


class CaseNotPassed(Exception):
    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["outcome"])
        self.result = result


def _short(text: str | None, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def explain(result: dict[str, Any]) -> str:
    """What a user needs to see for a non-PASS case: why, what ran, what was answered."""
    lines = [f"{result['outcome']}: {result['nodeid']}"]
    if result.get("error"):
        lines.append(f"  infrastructure error (not scored): {result['error']}")
    lines += [f"  - {reason}" for reason in result.get("reasons", []) if reason != result.get(
        "error")]
    for number, step in enumerate(result.get("transcript", []), start=1):
        lines.append(f"  step {number}: {_short(step['message'], 160)!r}")
        lines.append(f"    shown: {', '.join(step.get('shown', []))}")
        for attempt in step.get("attempts", []):
            status = "ran" if attempt.get("valid") else (
                "leaked into the text" if attempt.get("leaked") else
                f"malformed ({attempt.get('malformed')}: {attempt.get('reason')})")
            arguments = _short(str(attempt.get("arguments")), 120)
            lines.append(f"    call {attempt.get('name')}({arguments}) {status}")
        answer = step.get("answer")
        shown_answer = (_short(answer) if step.get("answered")
                        else f"(none: {step.get('stopped') or 'step limit'})")
        lines.append(f"    answer: {shown_answer}")
    return "\n".join(lines)
