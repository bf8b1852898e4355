"""The one path resolver every built-in tool goes through.

The model controls every argument, so a path is hostile until proven otherwise: it must
stay inside the sandbox root after symlinks are resolved, must not name a device, FIFO or
socket, and must not be a hard link that may share its inode with a file outside.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_PATH_CHARS = 1024
MAX_NAME_CHARS = 255
MAX_READ_BYTES = 4 * 1024 * 1024
MAX_WRITE_BYTES = 1024 * 1024
MAX_EXTRACT_BYTES = 64 * 1024 * 1024
MAX_ARCHIVE_MEMBERS = 2_000


class ToolError(Exception):
    """A refusal or bad argument; the provider turns it into ``ToolResult.error``."""


class SandboxBroken(Exception):
    """The sandbox itself is unusable (infrastructure, not the model's fault)."""


def is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass
class Sandbox:
    """Paths relative to ``root`` (the home folder, or the repository for git tools)."""

    root: Path
    label: str = "home folder"
    #: The name jailed programs see for ``root`` (``jail.JAIL_HOME``): a path they printed
    #: is taken as the same place.
    alias: str | None = None

    def __post_init__(self) -> None:
        try:
            self.real_root = Path(os.path.realpath(self.root))
            if not self.real_root.is_dir():
                raise SandboxBroken(f"sandbox root {self.root} is not a directory")
        except OSError as exc:  # pragma: no cover - infrastructure
            raise SandboxBroken(f"sandbox root {self.root} is unusable: {exc}") from exc

    def resolve(self, path: object, *, must_exist: bool = True, allow_root: bool = True) -> Path:
        """Return the real, contained path for ``path`` or raise ``ToolError``.

        Symlinks are followed (the real path is what gets checked), so a link pointing out
        of the sandbox is refused wherever it sits in the path.
        """
        if not isinstance(path, str):
            raise ToolError("a path must be a string")
        text = path.strip()
        if "\x00" in text:
            raise ToolError("a path must not contain NUL bytes")
        if len(text) > MAX_PATH_CHARS:
            raise ToolError(f"path is longer than {MAX_PATH_CHARS} characters")
        text = text.replace("\\", "/")
        if self.alias and (text == self.alias or text.startswith(self.alias + "/")):
            text = "~" + text[len(self.alias):]
        if text == "~" or text.startswith("~/"):
            candidate = Path(self.real_root, text[2:])
        elif text.startswith("/"):
            candidate = Path(text)
            if not self._lexically_inside(candidate):
                raise ToolError(
                    f"absolute paths outside the {self.label} are not allowed; give a path "
                    f"relative to the {self.label}, such as Documents/notes.txt"
                )
        else:
            candidate = Path(self.real_root, text)
        for part in candidate.parts:
            if len(part) > MAX_NAME_CHARS:
                raise ToolError(f"a path component is longer than {MAX_NAME_CHARS} characters")
        if not self._lexically_inside(candidate):
            raise ToolError(f"path {path!r} leaves the {self.label}; '..' escapes are refused")
        try:
            real = Path(os.path.realpath(candidate))
        except (OSError, ValueError) as exc:
            raise ToolError(f"cannot resolve path {path!r}: {exc}") from exc
        if not is_within(real, self.real_root):
            raise ToolError(
                f"path {path!r} resolves outside the {self.label} (a symlink pointing out?)"
            )
        if real == self.real_root and not allow_root:
            raise ToolError(f"this operation is not allowed on the {self.label} itself")
        try:
            st = os.lstat(real)
        except FileNotFoundError:
            if must_exist:
                raise ToolError(f"{path!r} does not exist in the {self.label}") from None
            return real
        except OSError as exc:
            raise ToolError(f"cannot inspect {path!r}: {exc.strerror or exc}") from exc
        check_mode(st, str(path))
        return real

    def _lexically_inside(self, path: Path) -> bool:
        """Inside the root as written ('..' resolved, links not followed)."""
        lexical = Path(os.path.normpath(path))
        return is_within(lexical, self.real_root) or is_within(
            lexical, Path(os.path.abspath(self.root)))

    def relative(self, real: Path) -> str:
        """The display form of a contained path ('.' for the root)."""
        try:
            rel = real.relative_to(self.real_root).as_posix()
        except ValueError:
            return real.name
        return rel or "."


def check_mode(st: os.stat_result, shown: str) -> None:
    """Refuse special files and hard-linked files (which may alias an outside inode)."""
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        return
    if not stat.S_ISREG(mode):
        raise ToolError(f"{shown!r} is not a regular file or folder (device, FIFO or socket)")
    if st.st_nlink > 1:
        raise ToolError(f"{shown!r} is a hard link shared with another path; refused")


def open_regular(real: Path, shown: str, flags: int = os.O_RDONLY) -> int:
    """Open a resolved path without following a final symlink or blocking on a FIFO."""
    try:
        fd = os.open(real, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)  # non-inheritable
    except FileNotFoundError:
        raise ToolError(f"{shown!r} does not exist") from None
    except IsADirectoryError:
        raise ToolError(f"{shown!r} is a folder, not a file") from None
    except OSError as exc:
        raise ToolError(f"cannot open {shown!r}: {exc.strerror or exc}") from exc
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"{shown!r} is a folder, not a file")
        check_mode(st, shown)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(real: Path, shown: str, limit: int = MAX_READ_BYTES) -> bytes:
    """Read a contained regular file, refusing anything larger than ``limit``."""
    fd = open_regular(real, shown)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ToolError(f"{shown!r} is larger than {limit} bytes; too large to read here")
    return data


def write_bytes(real: Path, shown: str, data: bytes) -> None:
    """Create or overwrite a contained regular file (never through a symlink)."""
    if len(data) > MAX_WRITE_BYTES:
        raise ToolError(f"content is larger than {MAX_WRITE_BYTES} bytes")
    fd = open_regular(real, shown, os.O_WRONLY | os.O_CREAT)
    with os.fdopen(fd, "wb") as handle:
        handle.truncate(0)
        handle.write(data)


def make_parents(sandbox: Sandbox, real: Path) -> None:
    """Create missing parent folders of a resolved path, re-checking containment."""
    parent = real.parent
    if parent.exists():
        if not parent.is_dir():
            raise ToolError(f"{sandbox.relative(parent)!r} is a file, not a folder")
        return
    parent.mkdir(parents=True, exist_ok=True)
    if not is_within(Path(os.path.realpath(parent)), sandbox.real_root):
        raise ToolError("the destination folder resolves outside the sandbox")


def is_git_internal(sandbox: Sandbox, real: Path) -> bool:
    """True for a contained path inside a ``.git`` folder, whose config and hooks can run
    programs."""
    return any(part.lower() == ".git" for part in real.relative_to(sandbox.real_root).parts)


def walk(real: Path, limit: int = 20_000) -> list[Path]:
    """Every entry under ``real`` (not following symlinks), sorted, capped at ``limit``."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(real, followlinks=False):
        dirnames.sort()
        base = Path(dirpath)
        for name in [*dirnames, *sorted(filenames)]:
            found.append(base / name)
            if len(found) >= limit:
                return sorted(found)
    return sorted(found)
