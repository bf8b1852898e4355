"""The user's local cache folder (``$TOOLEVAL_CACHE_DIR``, ``off`` for none, else the
platform's user cache folder) for ``tooleval check`` results, and ``package_fingerprint``,
which keys them so a changed line of code or data is a new key, never a stale entry.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path

import platformdirs

from pytest_tooleval.atomic import write_atomic

PACKAGE = Path(__file__).resolve().parent


def cache_root() -> Path | None:
    """The cache folder, or None when switched off (``TOOLEVAL_CACHE_DIR=off``)."""
    explicit = os.environ.get("TOOLEVAL_CACHE_DIR")
    if explicit:
        return None if explicit == "off" else Path(explicit)
    return Path(platformdirs.user_cache_dir("pytest-tooleval", appauthor=False))


@lru_cache(maxsize=1)
def package_fingerprint() -> str:
    """Every file of the package (code, trigger lists, data) and the Python version."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        data = path.read_bytes()
        digest.update(len(data).to_bytes(8, "big") + data)
    digest.update(sys.version.encode())
    return digest.hexdigest()


def write_entry(folder: Path, name: str, text: str, keep: int) -> None:
    """Write ``folder/name`` atomically (a reader never sees half a file) and keep the
    newest ``keep`` entries with its suffix. A cache that cannot be written is skipped:
    nothing depends on it."""
    suffix = Path(name).suffix
    try:
        write_atomic(folder / name, text)
        entries = sorted(folder.glob(f"*{suffix}"), key=lambda p: p.stat().st_mtime,
                         reverse=True)
        for old in entries[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        return
