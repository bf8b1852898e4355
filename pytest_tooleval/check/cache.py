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

Where: ``check/`` in the local cache folder (localcache.py: ``$TOOLEVAL_CACHE_DIR``, else
``$XDG_CACHE_HOME/pytest-tooleval``, else ``~/.cache/pytest-tooleval``; ``off`` for
none); the newest ``MAX_ENTRIES`` are kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.files import is_case_path
from pytest_tooleval.check.files import SPLIT_FILE, collect_files, split_folder
from pytest_tooleval.check.report import CheckReport
from pytest_tooleval.localcache import cache_root, package_fingerprint, write_entry
from pytest_tooleval.tools.base import ToolSpec

#: Bump when the stored format changes.
FORMAT = 1
MAX_ENTRIES = 32
#: Libraries whose behaviour the check's result depends on (parsing, validation, matching).
LIBRARIES = ("pydantic", "pydantic-core", "PyYAML", "jsonschema", "rapidfuzz", "regex")


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
    folder = cache_dir()
    if folder is None:
        return None
    try:
        data = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("key") != key:
            return None
        report = CheckReport.from_json(data["report"])
    except (OSError, ValueError, KeyError, TypeError):
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
