"""A content-keyed cache of ``tooleval check`` results.

The check is a pure function of what it reads, so its report is stored under a hash of
all of it: every case file's path (as given) and bytes; for a folder with a ``split.toml``,
that file and every case file under the folder (``verify`` reads them all); the catalogue
(every spec, whole) and its source lines; the options (k, router, similarity, language,
strict, offered names); and the code that computes the result (every file of this package,
the Python version and the versions of the libraries the check uses). Any change to any of
these is a different key, so an entry is never served for different input; nothing
expires by time. A hit reads one JSON file instead of loading, guarding and routing every
case (and imports none of that code). ``tooleval check --no-cache`` computes afresh and
stores nothing.

Where: ``$TOOLEVAL_CACHE_DIR/check``, else ``$XDG_CACHE_HOME/pytest-tooleval/check``,
else ``~/.cache/pytest-tooleval/check``; the newest ``MAX_ENTRIES`` are kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.files import is_case_path
from pytest_tooleval.check.files import SPLIT_FILE, collect_files, split_folder
from pytest_tooleval.check.report import CheckReport
from pytest_tooleval.tools.base import ToolSpec

#: Bump when the stored format changes.
FORMAT = 1
MAX_ENTRIES = 32
#: Libraries whose behaviour the check's result depends on (parsing, validation, matching).
LIBRARIES = ("pydantic", "pydantic-core", "PyYAML", "jsonschema", "rapidfuzz", "regex")
PACKAGE = Path(__file__).resolve().parents[1]


def cache_dir() -> Path:
    explicit = os.environ.get("TOOLEVAL_CACHE_DIR")
    if explicit:
        return Path(explicit) / "check"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-tooleval" / "check"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Every file of the package (code, trigger lists, data), Python and library versions."""
    from importlib import metadata

    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    digest.update(sys.version.encode() + b"\0")
    for name in LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"{name}={version}\0".encode())
    return digest.hexdigest()


def _spec_json(spec: ToolSpec) -> Any:
    return dataclasses.asdict(spec)


def check_key(
    paths: Sequence[Path],
    options: dict[str, Any],
    catalogue: Sequence[ToolSpec] | None,
    catalogue_sources: Iterable[str],
) -> str:
    """The key of one check: see the module docstring. Raises ``UsageError`` for a path
    that does not exist, as the check itself does."""
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(label.encode() + b"\0" + len(data).to_bytes(8, "big") + data)

    add("format", str(FORMAT).encode())
    add("code", code_fingerprint().encode())
    add("options", json.dumps(options, sort_keys=True, default=str).encode())
    specs = None if catalogue is None else [_spec_json(spec) for spec in catalogue]
    add("catalogue", json.dumps(specs, sort_keys=True, default=str).encode())
    add("sources", json.dumps(list(catalogue_sources)).encode())
    files = collect_files(paths)
    folders: dict[Path, Path | None] = {}
    splits: set[Path] = set()
    for path in files:
        add(f"file {path}", path.read_bytes())
        folder = split_folder(path, folders)
        if folder is not None:
            splits.add(folder)
    for folder in sorted(splits):
        add(f"split {folder}", (folder / SPLIT_FILE).read_bytes())
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and is_case_path(p)):
            add(f"split-case {path}", path.read_bytes())
    return digest.hexdigest()


def load(key: str) -> CheckReport | None:
    """The stored report for ``key``, or None (absent, unreadable or of another format)."""
    path = cache_dir() / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("key") != key:
            return None
        report = CheckReport.from_json(data["report"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    report.cached = True
    return report


def store(key: str, report: CheckReport) -> None:
    """Write the entry atomically (a reader never sees half a file); a cache that cannot be
    written is skipped silently, as the check's result does not depend on it."""
    folder = cache_dir()
    data = {"format": FORMAT, "key": key, "report": report.to_json()}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=folder, prefix=".entry-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(data, stream, ensure_ascii=False)
            os.replace(temp, folder / f"{key}.json")
        finally:
            Path(temp).unlink(missing_ok=True)
        entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[MAX_ENTRIES:]:
            old.unlink(missing_ok=True)
    except OSError:
        return
