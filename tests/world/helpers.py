"""Snapshots of a world folder for comparing builds."""

from __future__ import annotations

import hashlib
from pathlib import Path

# .git/index stores inode and ctime of each file: machine-specific by design.
VOLATILE = {"home/Projects/kestrel/.git/index"}


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """relative path -> (sha256 of bytes, mtime in whole seconds) for every file."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel not in VOLATILE:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            out[rel] = (digest, int(path.stat().st_mtime))
    return out
