"""The result of ``tooleval check``: failures, router recall, and its three renderings
(a terminal table, JSON, and the generated section of docs/router.md)."""

from __future__ import annotations

import re
import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

from pytest_tooleval.scoring.proportion import interval_text, wilson_bounds
from pytest_tooleval.scoring.settings import INTERVAL_MIN_CASES

DOC_START = "<!-- router-misses:start -->"
DOC_END = "<!-- router-misses:end -->"

# Failure kinds
GUARD = "guard"
REQUIRES = "requires"
ROUTER_MISS = "router-miss"
NEAR_DUPLICATE = "near-duplicate"
SPLIT = "split"  # a frozen-half case edited or removed, or a case in neither half


@dataclass(frozen=True)
class Failure:
    kind: str
    file: str
    case: str | None
    step: int | None  # 1-based
    detail: str


@dataclass(frozen=True)
class Miss:
    """A step whose expected tool the router does not show."""

    file: str
    case: str
    step: int
    message: str
    language: str
    expected: list[str]
    missing: list[str]
    miss_class: str
    shown: list[str]


@dataclass
class Tally:
    hits: int = 0
    total: int = 0

    @property
    def recall(self) -> float | None:
        return self.hits / self.total if self.total else None

    def add(self, hit: bool) -> None:
        self.total += 1
        self.hits += int(hit)

    def merge(self, other: Tally) -> None:
        self.hits += other.hits
        self.total += other.total

    def to_json(self) -> dict[str, Any]:
        return {"hits": self.hits, "total": self.total, "recall": self.recall}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        return cls(int(data["hits"]), int(data["total"]))

    def render(self) -> str:
        """The share with its Wilson interval (none under 5 steps) and its counts."""
        if not self.total:
            return "n/a"
        found = wilson_bounds(self.hits, self.total) if self.total >= INTERVAL_MIN_CASES else None
        shown = "" if found is None else f" [{interval_text(*found, scale=100)}]"
        return f"{100 * self.hits / self.total:5.1f}%{shown} ({self.hits}/{self.total})"


#: The per-scope tables of a ``Breakdown``, each in its attribute ``by_<scope>``.
_SCOPES = ("language", "group", "register")


@dataclass(kw_only=True)
class Breakdown:
    """Recall per language, group and register, and the steps served only by the
    no-signal fallback (``fallback_only.hits``): the whole report's, or one split half's."""

    recall: Tally = field(default_factory=Tally)
    by_language: dict[str, Tally] = field(default_factory=dict)
    by_group: dict[str, Tally] = field(default_factory=dict)
    by_register: dict[str, Tally] = field(default_factory=dict)
    fallback_only: Tally = field(default_factory=Tally)

    def tables(self) -> list[tuple[str, dict[str, Tally]]]:
        return [(scope, getattr(self, f"by_{scope}")) for scope in _SCOPES]

    def count(self, hit: bool, language: str, group: str, register: str, fallback: bool) -> None:
        self.recall.add(hit)
        self.fallback_only.add(fallback)
        for (_, table), key in zip(self.tables(), (language, group, register), strict=True):
            table.setdefault(key, Tally()).add(hit)

    def merge(self, other: Breakdown) -> None:
        self.recall.merge(other.recall)
        self.fallback_only.merge(other.fallback_only)
        for (_, table), (_, theirs) in zip(self.tables(), other.tables(), strict=True):
            for key, tally in theirs.items():
                table.setdefault(key, Tally()).merge(tally)

    def rows(self) -> dict[str, Tally]:
        """Scope label → tally, in the order the tables print them."""
        out = {"overall": self.recall}
        for title, table in self.tables():
            out.update({f"{title} {key}": table[key] for key in sorted(table)})
        out["fallback-only"] = self.fallback_only
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "recall": self.recall.to_json(),
            **{f"by_{scope}": {key: table[key].to_json() for key in sorted(table)}
               for scope, table in self.tables()},
            "fallback_only": self.fallback_only.to_json(),
        }

    @staticmethod
    def fields_from_json(data: dict[str, Any]) -> dict[str, Any]:
        return {
            "recall": Tally.from_json(data["recall"]),
            "fallback_only": Tally.from_json(data["fallback_only"]),
            **{f"by_{scope}": {key: Tally.from_json(value)
                               for key, value in data[f"by_{scope}"].items()}
               for scope in _SCOPES},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        return cls(**cls.fields_from_json(data))


@dataclass(kw_only=True)
class CheckReport(Breakdown):
    k: int
    failures: list[Failure] = field(default_factory=list)
    misses: list[Miss] = field(default_factory=list)
    files: int = 0
    cases: int = 0
    steps_routed: int = 0
    steps_skipped: int = 0  # an expected tool this machine does not offer (see requires)
    by_miss_class: dict[str, int] = field(default_factory=dict)
    halves: dict[str, Breakdown] = field(default_factory=dict)  # split folders only
    splits: list[str] = field(default_factory=list)  # the split files that governed
    seconds: float = 0.0
    #: Where the catalogue came from, one line per source ("mcp:git: 12 tools (started …)").
    catalogue: list[str] = field(default_factory=list)
    #: Read from the content-keyed cache (check/cache.py) instead of computed.
    cached: bool = False

    @property
    def ok(self) -> bool:
        return not self.failures

    def count(self, hit: bool, language: str, group: str, register: str,
              fallback: bool = False, *, half: str | None = None) -> None:
        super().count(hit, language, group, register, fallback)
        if half is not None:
            self.halves.setdefault(half, Breakdown()).count(
                hit, language, group, register, fallback)

    def merge(self, other: Breakdown) -> None:
        """Add ``other``'s counts, failures and misses (one file's part) to this report."""
        super().merge(other)
        if not isinstance(other, CheckReport):
            return
        for name in ("files", "cases", "steps_routed", "steps_skipped"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures
        self.misses += other.misses
        for miss_class, n in other.by_miss_class.items():
            self.by_miss_class[miss_class] = self.by_miss_class.get(miss_class, 0) + n
        for half, breakdown in other.halves.items():
            self.halves.setdefault(half, Breakdown()).merge(breakdown)

    def to_json(self) -> dict[str, Any]:
        totals = super().to_json()
        return {
            "ok": self.ok,
            "k": self.k,
            "files": self.files,
            "cases": self.cases,
            "steps_routed": self.steps_routed,
            "steps_skipped": self.steps_skipped,
            "seconds": round(self.seconds, 4),
            **{key: value for key, value in totals.items() if key != "fallback_only"},
            "by_miss_class": dict(sorted(self.by_miss_class.items())),
            "fallback_only": totals["fallback_only"],
            "splits": list(self.splits),
            "halves": {half: self.halves[half].to_json() for half in sorted(self.halves)},
            "catalogue": list(self.catalogue),
            "failures": [asdict(failure) for failure in self.failures],
            "misses": [asdict(miss) for miss in self.misses],
            "cached": self.cached,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """The report ``to_json`` wrote (``ok`` and the recalls are derived again)."""
        return cls(
            **cls.fields_from_json(data),
            k=int(data["k"]),
            files=int(data["files"]),
            cases=int(data["cases"]),
            steps_routed=int(data["steps_routed"]),
            steps_skipped=int(data["steps_skipped"]),
            failures=[Failure(**failure) for failure in data["failures"]],
            misses=[Miss(**miss) for miss in data["misses"]],
            by_miss_class={key: int(n) for key, n in data["by_miss_class"].items()},
            halves={half: Breakdown.from_json(b) for half, b in data["halves"].items()},
            splits=list(data["splits"]),
            seconds=float(data["seconds"]),
            catalogue=list(data["catalogue"]),
            cached=bool(data.get("cached", False)),
        )

    def render_table(self, width: int | None = None) -> str:
        """The terminal table: failures (each cell wrapped to ``width`` columns, nothing
        cut, the fix included; ``None``: one unwrapped line per failure), then the totals."""
        lines: list[str] = []
        if self.failures:
            rows = [
                (f.kind, f.file, f.case or "-", str(f.step or "-"), f.detail) for f in self.failures
            ]
            heads = ("kind", "file", "case", "step", "detail")
            widths = [max(len(row[i]) for row in [heads, *rows]) for i in range(5)]
            below = False  # a narrow terminal: each detail on the lines under its row
            if width is not None:
                widths[:4] = [min(w, 40) for w in widths[:4]]
                widths[4] = width - sum(widths[:4]) - 8
                if widths[4] < 30:
                    below = True
                    widths[:4] = [min(w, max(4, (width - 6) // 4)) for w in widths[:4]]
                    widths[4] = max(width - 4, 20)
            for index, row in enumerate([heads, tuple("-" * w for w in [*widths[:4], 6]), *rows]):
                if below:
                    lines += _table_lines(row[:4], widths[:4])
                    lines += ["    " + part for part in textwrap.wrap(row[4], widths[4])
                              if index > 1]
                else:
                    lines += _table_lines(row, widths)
            lines.append("")
        lines.append(
            f"tooleval check: {self.files} file(s), {self.cases} case(s), "
            f"{self.steps_routed} step(s) routed (k={self.k}), {self.steps_skipped} skipped, "
            f"{len(self.failures)} static failure(s), {self.seconds * 1000:.0f} ms"
            + (" (cached: these files, tools and options were checked before)"
               if self.cached else "")
        )
        if self.catalogue:
            lines.append("catalogue: " + "; ".join(self.catalogue))
        lines.append(f"router recall: {self.recall.render()}")
        for title, table in self.tables():
            if table:
                lines.append(f"  per {title}:")
                lines += [f"    {key:<24} {table[key].render()}" for key in sorted(table)]
        if self.by_miss_class:
            lines.append("  misses per class:")
            lines += [f"    {key:<24} {count}" for key, count in sorted(self.by_miss_class.items())]
        lines.append(f"  served only by the look-up fallback: {self.fallback_only.render()}")
        lines += self.render_halves()
        return "\n".join(lines)

    def render_halves(self) -> list[str]:
        """The split's table: each scope's recall on the tuning and the frozen half."""
        if not self.halves:
            return []
        halves = sorted(self.halves, key=lambda h: (h != "tuning", h != "frozen", h))
        rows: dict[str, list[str]] = {"scope": halves}
        for half in halves:
            for scope, tally in self.halves[half].rows().items():
                rows.setdefault(scope, ["n/a"] * len(halves))[halves.index(half)] = tally.render()
        # Each column as wide as its widest cell, and two spaces more.
        left = max(map(len, rows)) + 2
        width = max(len(cell) for cells in rows.values() for cell in cells) + 2
        return [f"split ({', '.join(self.splits)}):"] + [
            f"  {scope:<{left}}{''.join(f'{cell:<{width}}' for cell in cells)}".rstrip()
            for scope, cells in rows.items()]

    def router_doc_section(self) -> str:
        """The generated list of cases the router cannot serve (Markdown)."""
        lines = [
            "",
            f"Generated by `tooleval check --write-router-doc` (k = {self.k}): "
            f"{len(self.misses)} step(s) of {self.steps_routed} routed; "
            f"recall {self.recall.render().strip()}. Do not edit by hand.",
            "",
        ]
        if not self.misses:
            lines += ["No misses in the corpus checked.", ""]
            return "\n".join(lines)
        lines += ["| sentence | expected tool | class | where |", "|---|---|---|---|"]
        for miss in self.misses:
            sentence = miss.message.replace("|", "\\|").replace("\n", " ")
            where = f"{miss.file} · {miss.case} · step {miss.step}"
            lines.append(
                f"| {sentence} | {', '.join(miss.missing)} | {miss.miss_class} | {where} |"
            )
        lines.append("")
        return "\n".join(lines)


def write_router_doc(report: CheckReport, path: Path) -> None:
    """Rewrite only the section between the markers; append it when they are absent."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{DOC_START}\n{report.router_doc_section()}\n{DOC_END}"
    pattern = re.compile(re.escape(DOC_START) + r".*?" + re.escape(DOC_END), re.DOTALL)
    text, found = pattern.subn(lambda _: block, text, count=1)
    if not found:
        text = text.rstrip("\n") + "\n\n## Cases the router cannot serve\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def _table_lines(row: tuple[str, ...], widths: list[int]) -> list[str]:
    """One table row as lines: each cell wrapped to its column, never cut."""
    cells = [textwrap.wrap(cell, width) or [""]
             for cell, width in zip(row, widths, strict=True)]
    return ["  ".join(
        (cell[n] if n < len(cell) else "").ljust(width if i < len(row) - 1 else 0)
        for i, (cell, width) in enumerate(zip(cells, widths, strict=True))).rstrip()
        for n in range(max(len(cell) for cell in cells))]
