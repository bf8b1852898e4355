"""Walking and opening inside a folder that someone else may have shaped: by descriptor, one
name at a time, never through a link, never blocking on a FIFO (``jailhome``'s copy back)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator

MAX_ENTRIES = 20_000
MAX_DEPTH = 64
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK


def _sorted_entries(fd: int, seen: list[int], limit: int) -> Iterator[os.DirEntry[str]]:
    """The entries of the folder ``fd`` by name; ``fd`` is closed when listing it fails."""
    found = []
    try:
        with os.scandir(fd) as entries:
            for entry in entries:  # counted as read: a million names stop at the limit
                seen[0] += 1
                if seen[0] > limit:
                    raise OverflowError(f"more than {limit} files and folders")
                found.append(entry)
    except BaseException:
        os.close(fd)
        raise
    return iter(sorted(found, key=lambda e: e.name))


def chmod_at(folder: int, name: str, mode: int, ino: int) -> None:
    """chmod the entry ``name`` of ``folder`` only if it is still the inode ``ino``."""
    handle = os.open(name, os.O_PATH | os.O_NOFOLLOW, dir_fd=folder)
    try:
        if os.fstat(handle).st_ino != ino:
            raise OSError(f"{name!r} changed while it was copied")
        os.chmod(f"/proc/self/fd/{handle}", mode)
    finally:
        os.close(handle)


def walk(top: int, limit: int, *, readable: bool = False,
         unreadable: set[str] | None = None) -> Iterator[tuple[str, os.stat_result]]:
    """(relative path, lstat) of everything under the folder descriptor ``top``, parents
    first, holding one descriptor per level. ``OverflowError`` past ``limit`` entries or
    :data:`MAX_DEPTH` levels. ``readable``: give folders and files the owner's read (and
    search) bit first, as their owner may (the lstat shows the mode found).
    ``unreadable``: collect folders that cannot be opened instead of raising."""
    seen = [0]
    root = os.dup(top)
    stack = [(root, "", _sorted_entries(root, seen, limit), 0)]
    try:
        while stack:
            fd, prefix, entries, depth = stack[-1]
            entry = next(entries, None)
            if entry is None:
                os.close(fd)
                stack.pop()
                continue
            st = entry.stat(follow_symlinks=False)
            rel = prefix + entry.name
            yield rel, st
            need = 0o500 if stat.S_ISDIR(st.st_mode) else 0o400
            if readable and (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)) \
                    and st.st_mode & need != need:
                chmod_at(fd, entry.name, stat.S_IMODE(st.st_mode) | need, st.st_ino)
            if not stat.S_ISDIR(st.st_mode):
                continue
            if depth + 1 > MAX_DEPTH:
                raise OverflowError(f"folders nested deeper than {MAX_DEPTH}")
            try:
                sub = os.open(entry.name, _DIR, dir_fd=fd)
            except PermissionError:
                if unreadable is None:
                    raise
                unreadable.add(rel)
                continue
            stack.append((sub, rel + "/", _sorted_entries(sub, seen, limit), depth + 1))
    finally:
        for fd, _, _, _ in stack:
            os.close(fd)


def open_file(top: int, rel: str, ino: int) -> int:
    """A read descriptor of the regular file ``rel`` under ``top``, reached one name at a
    time without following links; ``OSError`` unless it is still the inode ``ino``."""
    parts = rel.split("/")
    folder = os.dup(top)
    try:
        for part in parts[:-1]:
            inner = os.open(part, _DIR, dir_fd=folder)
            os.close(folder)
            folder = inner
        handle = os.open(parts[-1], _FILE, dir_fd=folder)
    finally:
        os.close(folder)
    st = os.fstat(handle)
    if not stat.S_ISREG(st.st_mode) or st.st_ino != ino:
        os.close(handle)
        raise OSError(f"{rel!r} is no longer the file that was listed")
    os.set_blocking(handle, True)
    return handle
