"""The case files ``tooleval check`` reads: light (no case model, no router), so a cached
check can find and hash them without importing what checking them needs."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pytest_tooleval.cases.files import FOLDER_PROBLEM, is_case_path

#: The file recording a folder's tuning/frozen split (check/split.py).
SPLIT_FILE = "split.toml"


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


def split_folder(path: Path) -> Path | None:
    """The folder whose ``split.toml`` governs ``path``: the nearest one up to the project
    root (a folder with ``pyproject.toml`` or ``.git``)."""
    for folder in path.resolve().parents:
        if (folder / SPLIT_FILE).is_file():
            return folder
        if (folder / "pyproject.toml").exists() or (folder / ".git").exists():
            break
    return None
