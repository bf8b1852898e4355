"""A content-keyed cache of ``tooleval check`` results (docs/dev/check-speed.md lists the key).

The report is stored under a hash of everything the check reads (case files, split files,
catalogue, options, code and library versions), so an entry is never served for different
input; a hit imports none of the checking code. Each file's part of the report is kept too
(``FileParts``): a check after editing one file computes only that file's part. Kept in
``check/`` of the local cache folder (localcache.py); ``--no-cache`` stores nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.files import is_case_path
from pytest_tooleval.check.files import SPLIT_FILE, UsageError, collect_files, split_folder
from pytest_tooleval.check.report import CheckReport
from pytest_tooleval.localcache import cache_root, package_fingerprint, write_entry
from pytest_tooleval.tools.base import ToolSpec

#: Bump when the stored format changes.
FORMAT = 2
MAX_ENTRIES = 32
#: Sets of per-file parts kept (one per options, catalogue and code), and the parts in one.
MAX_PART_SETS = 8
MAX_PARTS = 4096
#: Libraries whose behaviour the check's result depends on (parsing, validation, matching,
#: and the stemmers behind ``--stemmer snowball``).
LIBRARIES = ("pydantic", "pydantic-core", "PyYAML", "jsonschema", "rapidfuzz", "regex",
             "PyStemmer", "snowballstemmer")


def cache_dir() -> Path | None:
    root = cache_root()
    return None if root is None else root / "check"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The package's files and Python (``package_fingerprint``), and the versions of the
    libraries the check's result depends on."""
    digest = hashlib.sha256(package_fingerprint().encode())
    for name in LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"\0{name}={version}".encode())
    return digest.hexdigest()


def _add(digest: Any, label: str, data: bytes) -> None:
    digest.update(label.encode() + b"\0" + len(data).to_bytes(8, "big") + data)


def _common(digest: Any, options: dict[str, Any], catalogue: Sequence[ToolSpec] | None,
            catalogue_sources: Iterable[str]) -> Any:
    """``digest`` updated with everything of the key but the files: format, code, options
    and catalogue."""
    _add(digest, "format", str(FORMAT).encode())
    _add(digest, "code", code_fingerprint().encode())
    _add(digest, "options", json.dumps(options, sort_keys=True, default=str).encode())
    specs = None if catalogue is None else [dataclasses.asdict(spec) for spec in catalogue]
    _add(digest, "catalogue", json.dumps(specs, sort_keys=True, default=str).encode())
    _add(digest, "sources", json.dumps(list(catalogue_sources)).encode())
    return digest


def check_key(paths: Sequence[Path], options: dict[str, Any],
              catalogue: Sequence[ToolSpec] | None, catalogue_sources: Iterable[str]) -> str:
    """The key of one check: see the module docstring. Raises ``UsageError`` for a path
    that does not exist, as the check itself does."""
    digest = _common(hashlib.sha256(), options, catalogue, catalogue_sources)
    files = collect_files(paths)
    for path in files:
        _add(digest, f"file {path}", path.read_bytes())
    for folder in sorted({folder for path in files if (folder := split_folder(path))}):
        _add(digest, f"split {folder}", (folder / SPLIT_FILE).read_bytes())
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and is_case_path(p)):
            _add(digest, f"split-case {path}", path.read_bytes())
    return digest.hexdigest()


def still(key: str, paths: Sequence[Path], options: dict[str, Any],
          catalogue: Sequence[ToolSpec] | None, catalogue_sources: Iterable[str]) -> bool:
    """Whether the input still has ``key`` after the check: a file edited or removed while
    it was checked must not store the report of the new content under the old key."""
    try:
        return check_key(paths, options, catalogue, catalogue_sources) == key
    except (OSError, UsageError):
        return False


def _read(path: Path, key: str, payload: str) -> Any:
    """The ``payload`` of the entry stored at ``path`` under ``key``; None when it is
    absent, unreadable or of another format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") == FORMAT and data.get("key") == key:
            return data[payload]
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    return None


def _write(folder: Path, key: str, payload: str, value: Any, keep: int) -> None:
    data = {"format": FORMAT, "key": key, payload: value}
    write_entry(folder, f"{key}.json", json.dumps(data, ensure_ascii=False), keep)


def load(key: str) -> CheckReport | None:
    """The stored report for ``key``, or None (absent, unreadable or of another format)."""
    folder = cache_dir()
    data = None if folder is None else _read(folder / f"{key}.json", key, "report")
    if data is None:
        return None
    try:
        report = CheckReport.from_json(data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    report.cached = True
    return report


def store(key: str, report: CheckReport) -> None:
    folder = cache_dir()
    if folder is not None:
        _write(folder, key, "report", report.to_json(), MAX_ENTRIES)


class FileParts:
    """The per-file parts (``check.static.FilePart``, as JSON) kept for one set of options,
    catalogue and code, the most recently used last; ``save`` keeps the last ``MAX_PARTS``."""

    def __init__(self, folder: Path, name: str) -> None:
        self._folder, self._name = folder, name
        parts = _read(folder / f"{name}.json", name, "parts")
        self._parts: dict[str, Any] = parts if isinstance(parts, dict) else {}
        self._changed = False

    @classmethod
    def open(cls, options: dict[str, Any], catalogue: Sequence[ToolSpec] | None,
             catalogue_sources: Iterable[str]) -> FileParts | None:
        folder = cache_dir()
        if folder is None:
            return None
        digest = _common(hashlib.sha256(b"file parts\0"), options, catalogue,
                         catalogue_sources)
        return cls(folder / "files", digest.hexdigest())

    @staticmethod
    def key(path: str, data: bytes, context: str) -> str:
        digest = hashlib.sha256()
        _add(digest, "path", path.encode())
        _add(digest, "bytes", data)
        _add(digest, "context", context.encode())
        return digest.hexdigest()

    def get(self, key: str) -> Any:
        raw = self._parts.pop(key, None)
        if raw is not None:
            self._parts[key] = raw
        return raw

    def put(self, key: str, raw: Any, path: Path, context: str) -> None:
        """Keep ``raw`` under ``key`` unless ``path`` no longer holds the bytes ``key`` was
        made from: a file edited while it was checked (an editor saving, a checkout) must
        not store the new content's part under the old bytes' key."""
        try:
            unchanged = self.key(str(path), path.read_bytes(), context) == key
        except OSError:
            unchanged = False
        if unchanged:
            self._parts.pop(key, None)
            self._parts[key] = raw
            self._changed = True

    def save(self) -> None:
        if self._changed:
            parts = dict(list(self._parts.items())[-MAX_PARTS:])
            _write(self._folder, self._name, "parts", parts, MAX_PART_SETS)
