"""Atomic writes: a temporary file in the same directory, then a rename. Reports,
caches and the world's state are written through here."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Any


@functools.cache
def _file_mode() -> int:
    """What a plain ``open(path, "w")`` would give (0644 under the usual umask);
    ``mkstemp`` alone makes 0600, which hides reports from a CI job's other users.
    Read once: reading the umask sets it, process-wide, racing threads that create files."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, _file_mode())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
