"""A jailed call's home folder on a size-capped tmpfs: the write quota, enforced by the kernel.

Polling the folder's size cannot bound a fast writer (it writes to the page cache faster than
any poll runs), so a call with a write quota never sees the case's home on disk. The jail
mounts a tmpfs of *what the home holds + the quota* at the home's path, and its first
program is a trusted stager (:data:`STAGER`) that hands the controller a descriptor of that
tmpfs over a socket and waits. The controller copies the home in through the descriptor,
lets the stager exec the real program, and, once the jail is gone (the descriptor keeps the
tmpfs alive), applies what changed to the home on disk: regular files and folders only.
Past the quota every write fails with "No space left on device" inside the jail. What is
copied back is capped by size too (a sparse file or a hard link would otherwise turn the
quota's bytes into many more on disk), and read from the tmpfs by descriptor, one name at a
time, never through a link (``fdwalk``).

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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_tooleval.tools import fdwalk

PAGE = 4096
FULL_BELOW = 64 * 1024
SYNC_PREFIX = ".tooleval-sync-"
#: The most a home may hold (file sizes, holes included) and still be staged in memory,
#: and the most files and folders.
HOME_LIMIT = 256 * 2**20
HOME_ENTRIES = 100_000
FILE_MODES, FOLDER_MODES = 0o777, 0o1777  # never setuid, setgid or device bits

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


class HomeTooLarge(ValueError):
    """The home holds more than :data:`HOME_LIMIT`: the call is refused, the model told."""


@dataclass(frozen=True)
class Entry:
    kind: str  # "f" a regular file, "d" a folder
    mode: int
    size: int
    times: tuple[int, int]  # (atime, mtime) in nanoseconds
    ino: int = 0

    @classmethod
    def of(cls, st: os.stat_result, linked: bool = False) -> Entry | None:
        """The entry for an lstat result; ``None`` for links, special files and, unless
        ``linked``, files with more than one hard link (another name may be outside the
        home; on the tmpfs every name is inside it)."""
        kind = "f" if stat.S_ISREG(st.st_mode) else "d" if stat.S_ISDIR(st.st_mode) else ""
        if not kind or (kind == "f" and st.st_nlink > 1 and not linked):
            return None
        mode = stat.S_IMODE(st.st_mode) & (FILE_MODES if kind == "f" else FOLDER_MODES)
        return cls(kind, mode, st.st_size if kind == "f" else 0,
                   (st.st_atime_ns, st.st_mtime_ns), st.st_ino)


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


def snapshot(home: Path) -> dict[str, Entry]:
    """The home's regular files and folders; links, special files, hard-linked files and
    folders this process cannot read are left out (and left alone). :class:`HomeTooLarge`
    past :data:`HOME_LIMIT`."""
    top = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    try:
        found: dict[str, Entry] = {}
        unreadable: set[str] = set()
        for rel, st in fdwalk.walk(top, limit=HOME_ENTRIES, unreadable=unreadable):
            entry = Entry.of(st)
            if entry is not None:
                found[rel] = entry
    except OverflowError as exc:
        raise HomeTooLarge(f"the home folder has {exc}; run_python works on homes of at "
                           f"most {HOME_ENTRIES} entries {fdwalk.MAX_DEPTH} folders deep: "
                           "delete or move files first") from None
    finally:
        os.close(top)
    for rel in unreadable:
        found.pop(rel, None)
    if held_bytes(found) > HOME_LIMIT:
        raise HomeTooLarge(f"the home folder holds {held_bytes(found) / 2**20:.0f} MB; "
                           f"run_python works on homes of at most {HOME_LIMIT // 2**20} MB: "
                           "delete or move files first")
    return found


def held_bytes(files: dict[str, Entry]) -> int:
    """The files' sizes (what copying them writes)."""
    return sum(e.size for e in files.values() if e.kind == "f")


def tmpfs_bytes(files: dict[str, Entry], quota: int) -> int:
    """The tmpfs size: the home's files rounded up to pages, the quota, a little slack."""
    held = sum(-(-e.size // PAGE) * PAGE for e in files.values() if e.kind == "f")
    return held + quota + 16 * PAGE


def receive(sock: socket.socket, timeout: float) -> int:
    """The tmpfs descriptor the stager sends; :class:`StagingFailed` when none comes."""
    sock.settimeout(timeout)
    try:
        _, fds, _, _ = socket.recv_fds(sock, 1, 1)
    except OSError as exc:  # a timeout too: TimeoutError is an OSError
        raise StagingFailed(f"the jail's home was not handed over: {exc}") from exc
    if len(fds) != 1 or not stat.S_ISDIR(os.fstat(fds[0]).st_mode):
        for fd in fds:
            os.close(fd)
        raise StagingFailed("the jail ended before handing its home over")
    os.set_inheritable(fds[0], False)
    return fds[0]


def copy_in(home: Path, files: dict[str, Entry], tmpfs: int, uid: int | None = None) -> None:
    """Copy the snapshot's files and folders from ``home`` into the tmpfs, times and modes
    kept (folders' modes are set last, so read-only folders can be filled), everything
    owned by ``uid`` when the jail runs as that host uid. A file this process cannot read
    is left out of ``files`` (and so left alone afterwards)."""
    root = os.fspath(home)
    if uid is not None:
        os.fchown(tmpfs, uid, uid)
    for rel, entry in list(files.items()):
        if entry.kind == "d":
            os.mkdir(rel, 0o700, dir_fd=tmpfs)
        else:
            try:
                source = os.open(f"{root}/{rel}", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except PermissionError:
                del files[rel]
                continue
            _copy(source, tmpfs, rel, entry)
        if uid is not None:
            os.chown(rel, uid, uid, dir_fd=tmpfs, follow_symlinks=False)
    for rel, entry in reversed(files.items()):
        if entry.kind == "d":
            os.chmod(rel, entry.mode, dir_fd=tmpfs)
            os.utime(rel, ns=entry.times, dir_fd=tmpfs)


def _copy(source: int, dst_dir: int, dst: str, entry: Entry) -> None:
    """Copy the open ``source`` (closed here) to a new file ``dst`` of ``dst_dir``, at most
    ``entry.size`` bytes."""
    try:
        target = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                         dir_fd=dst_dir)
        try:
            left = entry.size
            while left > 0 and (chunk := os.read(source, min(left, 1 << 20))):
                os.write(target, chunk)
                left -= len(chunk)
            os.fchmod(target, entry.mode)
            os.utime(target, ns=entry.times)
        finally:
            os.close(target)
    finally:
        os.close(source)


def _same_file(tmpfs: int, rel: str, entry: Entry, path: str) -> bool:
    try:
        with open(fdwalk.open_file(tmpfs, rel, entry.ino), "rb") as new, \
                open(path, "rb") as old:
            while True:
                a, b = new.read(1 << 20), old.read(1 << 20)
                if a != b:
                    return False
                if not a:
                    return True
    except OSError:
        return False


def _listing(tmpfs: int, applied: Applied, limit: int) -> dict[str, Entry] | None:
    """The tmpfs's files and folders (``None`` past the caps: a call may add at most
    ``fdwalk.MAX_ENTRIES``), made readable to the controller first: the program may have
    taken its own permissions away."""
    os.fchmod(tmpfs, 0o700)
    after: dict[str, Entry] = {}
    try:
        for rel, st in fdwalk.walk(tmpfs, limit, readable=True):
            entry = Entry.of(st, linked=True)
            if entry is None:
                applied.dropped.append(rel)
            else:
                after[rel] = entry
    except (OverflowError, OSError) as exc:
        applied.discarded = True
        applied.dropped = [str(exc) if isinstance(exc, OverflowError) else
                           f"its files could not be listed ({exc.strerror or exc})"]
        return None
    return after


def copy_out(tmpfs: int, home: Path, before: dict[str, Entry], *, budget: int) -> Applied:
    """Apply the tmpfs's state to ``home`` (unchanged since :func:`snapshot`): removals,
    then new folders, then new or changed files (each written beside and renamed over),
    then the touched folders' modes and times. Nothing is applied when the files would
    take more than ``budget`` bytes. What cannot be applied is in ``dropped``."""
    applied = Applied()
    vfs = os.fstatvfs(tmpfs)
    applied.full = vfs.f_bavail * vfs.f_frsize < FULL_BELOW
    after = _listing(tmpfs, applied, limit=len(before) + fdwalk.MAX_ENTRIES)
    if after is None:
        return applied
    size = held_bytes(after)
    if size > budget + 16 * PAGE:
        applied.discarded = True
        applied.dropped = [f"its files would take {size / 2**20:.0f} MB on disk (sparse "
                           "files and hard links count in full), more than the home's room "
                           "(what it held plus the quota)"]
        return applied
    try:
        _apply(tmpfs, os.fspath(home), before, after, applied)
    except OSError as exc:
        applied.dropped.append(f"the copy back stopped: {exc.strerror or exc}")
    return applied


def _apply(tmpfs: int, root: str, before: dict[str, Entry], after: dict[str, Entry],
           applied: Applied) -> None:
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
        if _changed_since(real(rel), before[rel]):
            applied.dropped.append(rel)
        elif _remove(real(rel), before[rel], applied, rel):
            folders.discard(rel)
            touched.add(os.path.dirname(rel))
    for rel, entry in sorted(after.items(), key=lambda item: (item[0].count("/"), item[0])):
        old, path = before.get(rel), real(rel)
        if os.path.dirname(rel) not in folders or (old is not None and _changed_since(path, old)):
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
                touched.update((rel, os.path.dirname(rel)))
            elif old is not None and (old.mode, old.times) != (entry.mode, entry.times):
                touched.add(rel)
        elif old is not None and old.size == entry.size and \
                _same_file(tmpfs, rel, entry, path):
            if old.mode != entry.mode:
                _attempt(applied, rel, os.chmod, path, entry.mode)
            if old.times != entry.times:
                _attempt(applied, rel, os.utime, path, None, ns=entry.times)
        elif _attempt(applied, rel, _write_beside, tmpfs, rel, path, entry):
            applied.written += 1
            touched.add(os.path.dirname(rel))
    for rel in sorted(touched & folders, reverse=True):
        if not rel:  # the home itself keeps its mode; its time is when it changed
            _attempt(applied, rel, os.chmod, root, home_mode)
        elif rel in after:
            _attempt(applied, rel, os.chmod, real(rel), after[rel].mode)
            _attempt(applied, rel, os.utime, real(rel), None, ns=after[rel].times)
        else:  # removed inside, but its removal here was refused: it keeps its own mode
            _attempt(applied, rel, os.chmod, real(rel), before[rel].mode)


def _changed_since(path: str, entry: Entry) -> bool:
    """Whether the home's file at ``path`` is no longer the one the snapshot saw: another
    tool call changed it meanwhile (a jailed call may outlive its tool call's clock), and
    the newer file wins over this call's copy. Folders are never rewritten, only filled."""
    if entry.kind != "f":
        return False
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    return (st.st_ino, st.st_size, st.st_mtime_ns) != (entry.ino, entry.size, entry.times[1])


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
        _copy(fdwalk.open_file(tmpfs, rel, entry.ino), folder, spare, entry)
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
