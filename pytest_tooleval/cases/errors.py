"""Errors in users' case files: always named by file, case, step and field, with a fix."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a case file."""

    message: str
    fix: str = ""
    case: str | None = None
    step: int | None = None  # 1-based, as users count
    field: str | None = None
    value: str | None = None

    def render(self, path: str) -> str:
        where = [path]
        if self.case is not None:
            where.append(f"case {self.case!r}")
        if self.step is not None:
            where.append(f"step {self.step}")
        if self.field is not None:
            where.append(f"field {self.field!r}")
        text = f"{', '.join(where)}: {self.message}"
        if self.value is not None:
            text += f" (value: {self.value!r})"
        if self.fix:
            text += f"\n    fix: {self.fix}"
        return text


@dataclass
class CaseFileError(Exception):
    """A case file that cannot be used; carries every problem found, not just the first."""

    path: str
    problems: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        head = f"{self.path}: {len(self.problems)} problem(s) in this case file"
        return "\n".join([head, *("  " + p.render(self.path) for p in self.problems)])
