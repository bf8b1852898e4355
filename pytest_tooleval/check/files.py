"""The case files ``tooleval check`` reads: light (no case model, no router), so a cached
check can find and hash them without importing what checking them needs."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pytest_tooleval.cases.files import DEFAULT_PATTERNS, FOLDER_PROBLEM, collected, is_case_path

#: The file recording a folder's tuning/frozen split (check/split.py).
SPLIT_FILE = "split.toml"
#: The files pytest reads its ini options from.
PYTEST_INI = ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "pyproject.toml",
              "tox.ini", "setup.cfg")


class UsageError(Exception):
    """A path that does not exist, holds no case file or is a folder named like one: exit
    code 2."""


def collect_files(paths: Iterable[Path]) -> list[Path]:
    """Case files under ``paths``: files as given, directories walked recursively, sorted.
    A folder named like a case file is a ``UsageError`` (it would be skipped silently)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            named = sorted(p for p in path.rglob("*") if is_case_path(p))
            folders = [path] if is_case_path(path) else []
            folders += [p for p in named if p.is_dir()]
            if folders:
                raise UsageError(f"{folders[0]}: {FOLDER_PROBLEM[0]}; fix: {FOLDER_PROBLEM[1]}")
            found += [p for p in named if p.is_file()]
        elif path.is_file():
            found.append(path)
        else:
            raise UsageError(f"no such file or directory: {path}")
    return list(dict.fromkeys(found))


def not_run(paths: Iterable[Path], start: Path) -> list[Path]:
    """The case files in the folders of ``paths`` that a run would not collect (a file
    named is collected): below no folder by the default patterns. None where a pytest ini
    file from ``start`` up to the project root names ``tooleval_files`` or
    ``tooleval_paths``: the check does not read pytest's ini, and does not guess."""
    for folder in (start, *start.parents):
        for name in PYTEST_INI:
            try:
                text = (folder / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if "tooleval_files" in text or "tooleval_paths" in text:
                return []
        if (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            break
    named = {path.resolve() for path in paths if path.is_file()}
    return [path for path in collect_files(paths) if path.resolve() not in named
            and not collected([path.resolve().relative_to(folder).as_posix()
                               for folder in path.resolve().parents], DEFAULT_PATTERNS)]


def split_folder(path: Path) -> Path | None:
    """The folder whose ``split.toml`` governs ``path``: the nearest one up to the project
    root (a folder with ``pyproject.toml`` or ``.git``)."""
    for folder in path.resolve().parents:
        if (folder / SPLIT_FILE).is_file():
            return folder
        if (folder / "pyproject.toml").exists() or (folder / ".git").exists():
            break
    return None
