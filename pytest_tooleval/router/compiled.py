"""What a router builds from the package's data files, kept between processes in the local
cache folder: the compiled trigger sets (kind ``router``), the parsed learned cue
(``lexical``, router/lexical.py) and the built-ins' listing (``builtin``,
router/catalogue.py).

Parsing the trigger files and building their pattern indexes is most of a router's
start (tens of milliseconds, paid by every ``tooleval check`` and every run); unpickling
the built sets is a few. An entry is keyed on its files' resolved paths and bytes and on
``package_fingerprint()`` (every file of the package, so the builder's code, and Python's
version), so an edit to a trigger, to the code that compiles them, or to any data they use
is a new key; a missing, damaged or unreadable entry is rebuilt. A file that changes while
it is built (a rebuilt model written, a checkout) is not stored: the key is taken again
after the build, and the build is kept only when it is unchanged. Like ``__pycache__``,
the folder is the user's own: it is trusted as their files are.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from pytest_tooleval.localcache import cache_root, package_fingerprint, write_entry

T = TypeVar("T")
MAX_ENTRIES = 8


def sets_key(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256(package_fingerprint().encode())
    for path in paths:
        data = path.read_bytes()
        digest.update(f"\0{path.resolve()}\0".encode() + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def cached_build(paths: Sequence[Path], build: Callable[[Sequence[Path]], T],
                 valid: Callable[[object], bool], kind: str = "router") -> T:
    """``build(paths)``, or the result of an earlier build of the same input (when
    ``valid`` accepts it, else it is rebuilt); ``kind`` names the folder of the entries
    (each kind keeps its newest ``MAX_ENTRIES``)."""
    root = cache_root()
    if root is None:
        return build(paths)
    folder = root / kind
    key = sets_key(paths)
    entry = folder / f"{key}.pickle"
    try:
        value = pickle.loads(entry.read_bytes())
        if valid(value):
            return value
    except Exception:  # absent, damaged or foreign: rebuild it (and replace the entry)
        pass
    value = build(paths)
    try:
        unchanged = sets_key(paths) == key
    except OSError:
        unchanged = False
    if unchanged:  # else the build may hold other bytes than the key's: not stored
        write_entry(folder, entry.name, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL),
                    MAX_ENTRIES)
    return value
