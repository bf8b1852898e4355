"""Loading the world's package data (YAML and JSON under ``world/data``)."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_tooleval.world.api import REPO_DIR
from pytest_tooleval.yamlio import safe_load

DATA_DIR = Path(__file__).with_name("data")


@cache
def _load_cached(name: str) -> str:
    return (DATA_DIR / name).read_text(encoding="utf-8")


def load_yaml(name: str) -> Any:
    """Parse one data file; a fresh object each call so callers may mutate it."""
    return safe_load(_load_cached(name))


_HASHED = {".py", ".yaml", ".json", ".txt", ".md"}


def fingerprint() -> str:
    """A hash of every data file and builder module: a new one means a new template."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package).as_posix()
        # state.py only reads a built world (state checks): it does not change the template.
        if rel != "state.py" and path.is_file() and path.suffix in _HASHED:
            digest.update(rel.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def home_folders() -> frozenset[str]:
    """Every folder of the template's home, read from its data (no world is built)."""
    home, repo = load_yaml("home.yaml"), load_yaml("repo.yaml")
    files = [doc["path"] for lang in ("en", "tr") for doc in load_yaml(f"documents_{lang}.yaml")]
    files += [rel for part in ("notes", "photos", "downloads", "archives") for rel in home[part]]
    files += [f"{REPO_DIR}/{rel}" for commit in repo["commits"]
              for rel in commit.get("write") or {}]
    return frozenset(str(folder) for rel in files for folder in PurePosixPath(rel).parents
                     if folder.name)
