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

Each file's part of the report (its load, guards, ``requires`` and routed steps) is also
kept (``FileParts``), under the same options, catalogue and code and the file's path and
bytes, the split that assigns its cases to halves, and the tools this machine offers: a
check after editing one file computes only that file's part, and the parts that span
files (the splits, the near-duplicate search) afresh; the report equals a computed one.

Where: ``check/`` (``check/files/`` for the parts) in the local cache folder
(localcache.py: ``$TOOLEVAL_CACHE_DIR``, else the platform's user cache folder;
``off`` for none); the newest ``MAX_ENTRIES`` reports and
``MAX_PART_SETS`` sets of parts are kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_tooleval.cases.files import is_case_path
from pytest_tooleval.check.files import SPLIT_FILE, UsageError, collect_files, split_folder
from pytest_tooleval.check.report import CheckReport
from pytest_tooleval.localcache import cache_root, package_fingerprint, write_entry
from pytest_tooleval.tools.base import ToolSpec

if TYPE_CHECKING:
    from pytest_tooleval.check.static import FilePart

#: Bump when the stored format changes.
FORMAT = 1
MAX_ENTRIES = 32
#: Sets of per-file parts kept (one per options, catalogue and code), and the parts in one.
MAX_PART_SETS = 8
MAX_PARTS = 4096
#: Libraries whose behaviour the check's result depends on (parsing, validation, matching,
#: and the stemmers behind ``--stemmer snowball``: text/stem.py takes PyStemmer, else
#: snowballstemmer, so a new version of either can route a step differently).
LIBRARIES = ("pydantic", "pydantic-core", "PyYAML", "jsonschema", "rapidfuzz", "regex",
             "PyStemmer", "snowballstemmer")


def cache_dir() -> Path | None:
    root = cache_root()
    return None if root is None else root / "check"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The package's files and Python (``package_fingerprint``), and the versions of the
    libraries the check's result depends on."""
    from importlib import metadata

    digest = hashlib.sha256(package_fingerprint().encode())
    for name in LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"\0{name}={version}".encode())
    return digest.hexdigest()


def _spec_json(spec: ToolSpec) -> Any:
    return dataclasses.asdict(spec)


def _add(digest: Any, label: str, data: bytes) -> None:
    digest.update(label.encode() + b"\0" + len(data).to_bytes(8, "big") + data)


def _common(
    digest: Any,
    options: dict[str, Any],
    catalogue: Sequence[ToolSpec] | None,
    catalogue_sources: Iterable[str],
) -> None:
    """Everything of the key but the files: format, code, options and catalogue."""
    _add(digest, "format", str(FORMAT).encode())
    _add(digest, "code", code_fingerprint().encode())
    _add(digest, "options", json.dumps(options, sort_keys=True, default=str).encode())
    specs = None if catalogue is None else [_spec_json(spec) for spec in catalogue]
    _add(digest, "catalogue", json.dumps(specs, sort_keys=True, default=str).encode())
    _add(digest, "sources", json.dumps(list(catalogue_sources)).encode())


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
        _add(digest, label, data)

    _common(digest, options, catalogue, catalogue_sources)
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


def still(key: str, paths: Sequence[Path], options: dict[str, Any],
          catalogue: Sequence[ToolSpec] | None, catalogue_sources: Iterable[str]) -> bool:
    """Whether the input still has ``key`` after the check: a file edited or removed while
    it was checked must not store the report of the new content under the old key."""
    try:
        return check_key(paths, options, catalogue, catalogue_sources) == key
    except (OSError, UsageError):
        return False


def load(key: str) -> CheckReport | None:
    """The stored report for ``key``, or None (absent, unreadable or of another format)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        data = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("key") != key:
            return None
        report = CheckReport.from_json(data["report"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    report.cached = True
    return report


def store(key: str, report: CheckReport) -> None:
    folder = cache_dir()
    if folder is None:
        return
    data = {"format": FORMAT, "key": key, "report": report.to_json()}
    write_entry(folder, f"{key}.json", json.dumps(data, ensure_ascii=False).encode(),
                MAX_ENTRIES)


class FileParts:
    """The per-file parts of the report kept for one set of options, catalogue and code
    (``check.static.FilePart``; see the module docstring). ``run_check`` asks for a
    file's part under ``key`` (its path, bytes and context) and puts what it computed;
    ``save`` keeps this check's parts first, then older ones, up to ``MAX_PARTS``."""

    def __init__(self, folder: Path, name: str) -> None:
        self._path = folder / f"{name}.json"
        self._folder = folder
        self._old: dict[str, Any] = {}
        self._used: dict[str, Any] = {}
        self._changed = False
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
            if data.get("format") == FORMAT and data.get("key") == name:
                self._old = dict(data["parts"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self._old = {}
        self._name = name

    @classmethod
    def open(cls, options: dict[str, Any], catalogue: Sequence[ToolSpec] | None,
             catalogue_sources: Iterable[str]) -> FileParts | None:
        folder = cache_dir()
        if folder is None:
            return None
        digest = hashlib.sha256(b"file parts\0")
        _common(digest, options, catalogue, catalogue_sources)
        return cls(folder / "files", digest.hexdigest())

    @staticmethod
    def key(path: str, data: bytes, context: str) -> str:
        digest = hashlib.sha256()
        _add(digest, "path", path.encode())
        _add(digest, "bytes", data)
        _add(digest, "context", context.encode())
        return digest.hexdigest()

    def get(self, key: str) -> FilePart | None:
        raw = self._old.get(key)
        if raw is None:
            return None
        try:
            part = _part_from_json(raw)
        except (ValueError, KeyError, TypeError):
            return None
        self._used[key] = raw
        return part

    def put(self, key: str, part: FilePart) -> None:
        self._used[key] = _part_to_json(part)
        self._changed = True

    def save(self) -> None:
        if not self._changed:
            return
        parts = dict(self._used)
        for key, raw in self._old.items():
            if len(parts) >= MAX_PARTS:
                break
            parts.setdefault(key, raw)
        data = {"format": FORMAT, "key": self._name, "parts": parts}
        write_entry(self._folder, self._path.name,
                    json.dumps(data, ensure_ascii=False).encode(), MAX_PART_SETS)


def _part_to_json(part: FilePart) -> dict[str, Any]:
    return dataclasses.asdict(part)


def _part_from_json(raw: dict[str, Any]) -> FilePart:
    from pytest_tooleval.cases.duplicates import Question
    from pytest_tooleval.check.report import Failure, Miss
    from pytest_tooleval.check.static import FilePart

    return FilePart(
        files=int(raw["files"]), cases=int(raw["cases"]),
        steps_routed=int(raw["steps_routed"]), steps_skipped=int(raw["steps_skipped"]),
        failures=[Failure(**failure) for failure in raw["failures"]],
        misses=[Miss(**miss) for miss in raw["misses"]],
        counts=[(bool(hit), str(language), str(group), str(register),
                 None if half is None else str(half), bool(fallback))
                for hit, language, group, register, half, fallback in raw["counts"]],
        questions=[Question(**question) for question in raw["questions"]],
        name=None if raw["name"] is None else str(raw["name"]),
    )
