"""A jailed call's home folder on a size-capped tmpfs: the write quota, enforced by the kernel.

Polling the folder's size cannot bound a fast writer (it writes to the page cache faster than
any poll runs), so a call with a write quota never sees the case's home on disk. The jail
mounts a tmpfs of *what the home holds + the quota* at the home's path, and its first
program is a trusted stager (:data:`STAGER`) that hands the controller a descriptor of that
tmpfs over a socket and waits. The controller copies the home in through the descriptor,
lets the stager exec the real program, and, once the jail is gone (the descriptor keeps the
tmpfs alive), applies what changed to the home on disk: regular files and folders only.
Past the quota every write fails with "No space left on device" inside the jail.

What the program makes besides files and folders (links, FIFOs, sockets, devices) is not
kept; links, special files and hard-linked files already in the home are not copied in (the
program does not see them) and stay as they are.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

PAGE = 4096
MAX_ENTRIES = 20_000
MAX_DEPTH = 64
FULL_BELOW = 64 * 1024
SYNC_PREFIX = ".tooleval-sync-"

# Runs first inside the jail, before any untrusted code: passes the home (the tmpfs) out,
# waits for the controller to fill it, closes the socket and becomes the real program.
STAGER = r"""
import os, socket, sys
s = socket.socket(fileno=int(sys.argv[1]))
d = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECTORY)
socket.send_fds(s, [b"h"], [d])
os.close(d)
go = s.recv(1)
s.close()
if go != b"g":
    os._exit(125)
os.execv(sys.argv[3], sys.argv[3:])
"""


class StagingFailed(OSError):
    """The stager never handed the home over (the jail did not start as expected)."""


@dataclass(frozen=True)
class Entry:
    kind: str  # "f" a regular file, "d" a folder
    mode: int
    size: int
    times: tuple[int, int]  # (atime, mtime) in nanoseconds

    @classmethod
    def of(cls, st: os.stat_result, linked: bool = False) -> Entry | None:
        """The entry for an lstat result; ``None`` for links, special files and, unless
        ``linked``, files with more than one hard link (another name may be outside the
        home; on the tmpfs every name is inside it)."""
        kind = "f" if stat.S_ISREG(st.st_mode) else "d" if stat.S_ISDIR(st.st_mode) else ""
        if not kind or (kind == "f" and st.st_nlink > 1 and not linked):
            return None
        return cls(kind, stat.S_IMODE(st.st_mode), st.st_size if kind == "f" else 0,
                   (st.st_atime_ns, st.st_mtime_ns))


@dataclass
class Applied:
    """What copying the tmpfs back changed in the home on disk."""

    written: int = 0
    removed: int = 0
    dropped: list[str] = field(default_factory=list)
    discarded: bool = False
    full: bool = False


def stager_argv(interpreter: str, sock_fd: int, home: str, argv: list[str]) -> list[str]:
    """The jail's command line: the stager, then ``argv`` (its first item an absolute path)."""
    return [interpreter, "-I", "-S", "-c", STAGER, str(sock_fd), home, *argv]


def _walk(top: int, limit: int | None = None) -> Iterator[tuple[str, os.stat_result]]:
    """(relative path, lstat) of everything under the folder descriptor ``top``, parents
    first, never following a link; raises ``OverflowError`` past ``limit`` entries or
    :data:`MAX_DEPTH` levels. The tree must not change meanwhile (the jail is gone, or the
    home is not in it)."""
    seen, limit = 0, MAX_ENTRIES if limit is None else limit
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        prefix, depth = stack.pop()
        fd = (os.dup(top) if not prefix else
              os.open(prefix, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top))
        try:
            with os.scandir(fd) as entries:
                listed = sorted(entries, key=lambda e: e.name)
            for entry in listed:
                seen += 1
                if seen > limit:
                    raise OverflowError(f"more than {limit} files and folders")
                st = entry.stat(follow_symlinks=False)
                rel = prefix + entry.name
                yield rel, st
                if stat.S_ISDIR(st.st_mode):
                    if depth + 1 > MAX_DEPTH:
                        raise OverflowError(f"folders nested deeper than {MAX_DEPTH}")
                    stack.append((rel + "/", depth + 1))
        finally:
            os.close(fd)


def snapshot(home: Path) -> dict[str, Entry]:
    """The home's regular files and folders (links and special files left out)."""
    top = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    try:
        found: dict[str, Entry] = {}
        for rel, st in _walk(top, limit=10**9):
            entry = Entry.of(st)
            if entry is not None:
                found[rel] = entry
        return found
    finally:
        os.close(top)


def tmpfs_bytes(files: dict[str, Entry], quota: int) -> int:
    """The tmpfs size: the home's files rounded up to pages, the quota, a little slack."""
    held = sum(-(-e.size // PAGE) * PAGE for e in files.values() if e.kind == "f")
    return held + quota + 16 * PAGE


def receive(sock: socket.socket, timeout: float) -> int:
    """The tmpfs descriptor the stager sends; :class:`StagingFailed` when none comes."""
    sock.settimeout(timeout)
    try:
        _, fds, _, _ = socket.recv_fds(sock, 1, 1)
    except (OSError, TimeoutError) as exc:
        raise StagingFailed(f"the jail's home was not handed over: {exc}") from exc
    if len(fds) != 1:
        for fd in fds:
            os.close(fd)
        raise StagingFailed("the jail ended before handing its home over")
    return fds[0]


def copy_in(home: Path, files: dict[str, Entry], tmpfs: int) -> None:
    """Copy the snapshot's files and folders from ``home`` into the tmpfs, times and modes
    kept (folders' modes are set last, so read-only folders can be filled)."""
    root = os.fspath(home)
    for rel, entry in files.items():
        if entry.kind == "d":
            os.mkdir(rel, 0o700, dir_fd=tmpfs)
        else:
            _copy(None, f"{root}/{rel}", tmpfs, rel, entry)
    for rel, entry in reversed(files.items()):
        if entry.kind == "d":
            os.chmod(rel, entry.mode, dir_fd=tmpfs)
            os.utime(rel, ns=entry.times, dir_fd=tmpfs)


def _copy(src_dir: int | None, src: str, dst_dir: int, dst: str, entry: Entry) -> None:
    source = os.open(src, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=src_dir)
    try:
        target = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                         dir_fd=dst_dir)
        try:
            while chunk := os.read(source, 1 << 20):
                os.write(target, chunk)
            os.fchmod(target, entry.mode)
            os.utime(target, ns=entry.times)
        finally:
            os.close(target)
    finally:
        os.close(source)


def _same_file(tmpfs: int, rel: str, path: str) -> bool:
    try:
        with open(os.open(rel, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=tmpfs), "rb") as new, \
                open(path, "rb") as old:
            while True:
                a, b = new.read(1 << 20), old.read(1 << 20)
                if a != b:
                    return False
                if not a:
                    return True
    except OSError:
        return False


def _listing(tmpfs: int, applied: Applied) -> dict[str, Entry] | None:
    """The tmpfs's files and folders (``None`` past the caps), made readable to the
    controller first: the program may have taken its own permissions away."""
    os.fchmod(tmpfs, 0o700)
    after: dict[str, Entry] = {}
    try:
        for rel, st in _walk(tmpfs):
            entry = Entry.of(st, linked=True)
            if entry is None:
                applied.dropped.append(rel)
                continue
            need = 0o400 if entry.kind == "f" else 0o500
            if entry.mode & need != need:
                os.chmod(rel, entry.mode | need, dir_fd=tmpfs)
            after[rel] = entry
    except OverflowError as exc:
        applied.discarded = True
        applied.dropped = [str(exc)]
        return None
    return after


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def copy_out(tmpfs: int, home: Path, before: dict[str, Entry]) -> Applied:
    """Apply the tmpfs's state to ``home`` (unchanged since :func:`snapshot`): removals,
    then new folders, then new or changed files (each written beside and renamed over),
    then the touched folders' modes and times. What cannot be applied is in ``dropped``."""
    applied = Applied()
    vfs = os.fstatvfs(tmpfs)
    applied.full = vfs.f_bavail * vfs.f_frsize < FULL_BELOW
    after = _listing(tmpfs, applied)
    if after is None:
        return applied
    root = os.fspath(home)

    def real(rel: str) -> str:
        return f"{root}/{rel}" if rel else root

    # Real folders only (the home does not change meanwhile), so no path crosses a link.
    folders = {""} | {rel for rel, e in before.items() if e.kind == "d"}
    home_mode = stat.S_IMODE(os.lstat(root).st_mode)
    touched: set[str] = set()
    for rel in folders:  # writable while copying; the final modes are set at the end
        mode = before[rel].mode if rel else home_mode
        if mode & 0o700 != 0o700 and _attempt(applied, rel, os.chmod, real(rel), mode | 0o700):
            touched.add(rel)
    for rel in sorted(set(before) - set(after), key=lambda r: r.count("/"), reverse=True):
        if _remove(real(rel), before[rel], applied, rel):
            folders.discard(rel)
            touched.add(_parent(rel))
    for rel, entry in sorted(after.items(), key=lambda item: (item[0].count("/"), item[0])):
        old, path = before.get(rel), real(rel)
        if _parent(rel) not in folders:
            applied.dropped.append(rel)
            continue
        if old is not None and old.kind != entry.kind:
            if not _remove(path, old, applied, rel):
                continue
            folders.discard(rel)
            old = None
        if old is None and os.path.lexists(path):  # a link or special file kept its place
            applied.dropped.append(rel)
        elif entry.kind == "d":
            if old is None and _attempt(applied, rel, os.mkdir, path, 0o700):
                folders.add(rel)
                touched.update((rel, _parent(rel)))
            elif old is not None and old != entry:
                touched.add(rel)
        elif old is not None and old.size == entry.size and _same_file(tmpfs, rel, path):
            if old.mode != entry.mode and _attempt(applied, rel, os.chmod, path, entry.mode):
                touched.add(_parent(rel))
        elif _attempt(applied, rel, _write_beside, tmpfs, rel, path, entry):
            applied.written += 1
            touched.add(_parent(rel))
    for rel in sorted(touched & folders, reverse=True):
        if not rel:  # the home itself keeps its mode; its time is when it changed
            _attempt(applied, rel, os.chmod, root, home_mode)
        elif rel in after:
            _attempt(applied, rel, os.chmod, real(rel), after[rel].mode)
            _attempt(applied, rel, os.utime, real(rel), None, ns=after[rel].times)
    return applied


def _attempt(applied: Applied, rel: str, action: Callable[..., object], *args: object,
             **kwargs: object) -> bool:
    try:
        action(*args, **kwargs)
    except OSError:
        applied.dropped.append(rel)
        return False
    return True


def _write_beside(tmpfs: int, rel: str, path: str, entry: Entry) -> None:
    parent, name = os.path.split(path)
    spare = f"{SYNC_PREFIX}{secrets.token_hex(6)}"
    folder = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        _copy(tmpfs, rel, folder, spare, entry)
        os.replace(spare, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(spare, dir_fd=folder)
        raise
    finally:
        os.close(folder)


def _remove(path: str, entry: Entry, applied: Applied, rel: str) -> bool:
    try:
        if entry.kind == "d":
            os.rmdir(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        # A folder that still holds a link or special file (never copied in) stays.
        applied.dropped.append(rel)
        return False
    applied.removed += 1
    return True
