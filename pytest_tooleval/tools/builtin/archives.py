"""Zip and tar archives: creation from contained paths, listing, and slip-proof extraction.

Extraction never calls ``extractall``: every member is vetted first (names, types, total
size, count, no ``.git`` component in any case, no ``.gitattributes``/``.gitmodules`` into
the repository), then regular files are streamed with a running byte cap, because a zip's
declared sizes can lie. Listing a compressed tar decompresses what it skips, so it stops
once the declared sizes pass a cap or a time limit.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tarfile
import time
import zipfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Any

from pytest_tooleval.tools.builtin.common import Context, Tool, get_str, need_str, prop
from pytest_tooleval.tools.builtin.sandbox import (
    MAX_ARCHIVE_MEMBERS,
    MAX_EXTRACT_BYTES,
    ToolError,
    is_git_internal,
    make_parents,
    open_regular,
    walk,
)

_TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")
LIST_SECONDS = 5.0
LIST_BYTES = 2 * MAX_EXTRACT_BYTES  # declared member bytes a listing may skip through
STOPPED = "stopped"
REPO_CONTROL_FILES = (".gitattributes", ".gitmodules")


def archive_kind(path: Path | str) -> str:
    name = str(path).lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith(_TAR_SUFFIXES):
        return "tar"
    raise ToolError("unsupported archive type; use a name ending in .zip, .tar.gz, .tgz or .tar")


def _collect(ctx: Context, raw_paths: Any) -> list[tuple[Path, str]]:
    if isinstance(raw_paths, str):
        raw_paths = [raw_paths]
    if not isinstance(raw_paths, list) or not raw_paths:
        raise ToolError("paths must be a non-empty list of files or folders")
    if len(raw_paths) > 200:
        raise ToolError("too many paths (at most 200)")
    chosen: dict[Path, str] = {}
    total = 0
    for raw in raw_paths:
        real = ctx.home.resolve(raw)
        items = [real, *walk(real)] if real.is_dir() else [real]
        for item in items:
            if item.is_symlink() or is_git_internal(ctx.home, item):
                continue  # links are never archived: they could point anywhere on unpack
            st = os.lstat(item)
            if stat.S_ISREG(st.st_mode):
                if st.st_nlink > 1:
                    continue
                total += st.st_size
            elif not stat.S_ISDIR(st.st_mode):
                continue
            if total > MAX_EXTRACT_BYTES:
                raise ToolError("the selected files are too large to archive")
            chosen[item] = ctx.home.relative(item)
            if len(chosen) > MAX_ARCHIVE_MEMBERS:
                raise ToolError(f"more than {MAX_ARCHIVE_MEMBERS} files selected")
    return sorted(chosen.items())


def _create_archive(ctx: Context, args: dict[str, Any]) -> str:
    target_shown = need_str(args, "archive_path", limit=1024)
    kind = archive_kind(target_shown)
    target = ctx.home.resolve(target_shown, must_exist=False, allow_root=False)
    if target.exists() or target.is_symlink():
        raise ToolError(f"{target_shown!r} already exists; choose another name")
    if is_git_internal(ctx.home, target):
        raise ToolError("an archive cannot be written inside a .git folder")
    members = [(path, name) for path, name in _collect(ctx, args.get("paths")) if path != target]
    if not members:
        raise ToolError("nothing to archive (links and special files are skipped)")
    make_parents(ctx.home, target)
    fd = open_regular(target, target_shown, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        with os.fdopen(fd, "wb") as handle:
            if kind == "zip":
                with zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
                    for path, name in members:
                        if path.is_dir():
                            archive.writestr(name.rstrip("/") + "/", b"")
                        else:
                            archive.write(path, name)
            else:
                suffix = target_shown.lower().rsplit(".", 1)[-1]
                mode = {"gz": "w:gz", "tgz": "w:gz", "bz2": "w:bz2", "xz": "w:xz"}.get(suffix, "w")
                with tarfile.open(fileobj=handle, mode=mode) as tar:  # type: ignore[call-overload]
                    for path, name in members:
                        tar.add(path, name, recursive=False)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    files = sum(1 for path, _ in members if not path.is_dir())
    return f"created {ctx.home.relative(target)} with {files} file(s)"


def _entries(real: Path, shown: str) -> Iterator[tuple[str, str, int]]:
    """(name, type, size) for each member; type is file, folder, link or special."""
    fd = open_regular(real, shown)
    with os.fdopen(fd, "rb") as handle:
        if archive_kind(real) == "zip":
            try:
                with zipfile.ZipFile(handle) as archive:
                    for info in archive.infolist()[: MAX_ARCHIVE_MEMBERS + 1]:
                        kind = ("link" if stat.S_ISLNK(info.external_attr >> 16) else
                                "folder" if info.is_dir() else "file")
                        yield info.filename, kind, info.file_size
            except (zipfile.BadZipFile, OSError, ValueError) as exc:
                raise ToolError(f"{shown!r} is not a readable zip archive: {exc}") from None
        else:
            deadline = time.monotonic() + LIST_SECONDS
            declared = 0
            try:
                with tarfile.open(fileobj=handle, mode="r:*") as tar:
                    for count, member in enumerate(tar):
                        if count > MAX_ARCHIVE_MEMBERS:
                            break
                        kind = ("file" if member.isreg() else "folder" if member.isdir() else
                                "link" if member.issym() or member.islnk() else "special")
                        yield member.name, kind, member.size
                        declared += max(member.size, 0)
                        # Reading the next header means decompressing this member's data.
                        if declared > LIST_BYTES or time.monotonic() > deadline:
                            yield (f"declared sizes pass {LIST_BYTES} bytes or reading took "
                                   f"over {LIST_SECONDS:g} s"), STOPPED, declared
                            return
            except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
                raise ToolError(f"{shown!r} is not a readable tar archive: {exc}") from None


def _list_archive(ctx: Context, args: dict[str, Any]) -> str:
    shown = need_str(args, "archive_path", limit=1024)
    real = ctx.home.resolve(shown)
    entries = list(_entries(real, shown))
    lines = [f"{name}  ({size} bytes)" if kind == "file" else
             f"[listing stopped: {name}; the rest was not read]" if kind == STOPPED else
             f"{name}  [{kind}]"
             for name, kind, size in entries[:MAX_ARCHIVE_MEMBERS + 1]]
    files = sum(1 for _, kind, _ in entries if kind == "file")
    return f"{ctx.home.relative(real)}: {files} file(s)\n" + "\n".join(lines)


def safe_member_name(name: str, folder: bool = False) -> PurePosixPath:
    """Refuse absolute names, drive letters, '..' and empty names (zip-slip, tar-slip).

    A folder named '.' or './' (``tar -C folder .`` writes one) is the destination itself.
    """
    clean = name.replace("\\", "/")
    if "\x00" in clean or clean.startswith("/") or (len(clean) > 1 and clean[1] == ":"):
        raise ToolError(f"archive member {name!r} has an absolute name; refusing to extract")
    parts = [part for part in clean.split("/") if part not in ("", ".")]
    if not parts and folder:
        return PurePosixPath()
    if not parts or any(part == ".." for part in parts):
        raise ToolError(f"archive member {name!r} points outside the destination; refusing")
    if any(part.lower() == ".git" for part in parts):
        raise ToolError(f"archive member {name!r} is inside a .git folder, whose files can "
                        "make git run programs; nothing was extracted")
    return PurePosixPath(*parts)


def _plan(real: Path, shown: str) -> list[tuple[PurePosixPath, str, int]]:
    plan = []
    total = 0
    for name, kind, size in _entries(real, shown):
        if kind == STOPPED:
            raise ToolError(f"the archive cannot be vetted within limits ({name}); nothing "
                            "was extracted")
        if kind in ("link", "special"):
            raise ToolError(f"archive member {name!r} is a {kind}; links and device entries "
                            "are refused, nothing was extracted")
        total += max(size, 0)
        if total > MAX_EXTRACT_BYTES:
            raise ToolError(f"the archive expands to more than {MAX_EXTRACT_BYTES} bytes")
        plan.append((safe_member_name(name, kind == "folder"), kind, size))
        if len(plan) > MAX_ARCHIVE_MEMBERS:
            raise ToolError(f"the archive has more than {MAX_ARCHIVE_MEMBERS} members")
    return plan


def _copy_capped(source: IO[bytes], target: Path, budget: int) -> int:
    """Stream ``source`` into the new file ``target``; the bytes of ``budget`` left."""
    fd = open_regular(target, target.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(64 * 1024):
            budget -= len(chunk)
            if budget < 0:
                raise ToolError(f"the archive expands to more than {MAX_EXTRACT_BYTES} bytes "
                                "(a zip bomb?); extraction stopped")
            out.write(chunk)
    return budget


def _extract_archive(ctx: Context, args: dict[str, Any]) -> str:
    shown = need_str(args, "archive_path", limit=1024)
    real = ctx.home.resolve(shown)
    default = ctx.home.relative(real.parent / _stem(real.name))
    dest_shown = get_str(args, "destination", limit=1024) or default
    dest = ctx.home.resolve(dest_shown, must_exist=False)
    if is_git_internal(ctx.home, dest):
        raise ToolError("cannot extract into a .git folder")
    plan = _plan(real, shown)
    targets = []
    for member, kind, _ in plan:
        target = Path(dest, *member.parts)
        check = ctx.home.resolve(ctx.home.relative(dest) + "/" + member.as_posix(),
                                 must_exist=False)
        if check != target:
            raise ToolError(f"archive member {member} resolves elsewhere; refusing")
        if member.name.lower() in REPO_CONTROL_FILES and _in_repository(ctx, target):
            raise ToolError(f"archive member {member} would set the repository's "
                            f"{member.name.lower()}; refused, nothing was extracted")
        if is_git_internal(ctx.home, target):
            raise ToolError(f"archive member {member} lands inside a .git folder; refused")
        if kind == "file" and (target.exists() or target.is_symlink()):
            raise ToolError(f"{ctx.home.relative(target)} already exists; extract into an "
                            "empty destination folder")
        targets.append((kind, target))
    created: list[Path] = []
    budget = MAX_EXTRACT_BYTES
    dest_existed = dest.exists()
    try:
        dest.mkdir(parents=True, exist_ok=True)
        fd = open_regular(real, shown)
        with os.fdopen(fd, "rb") as handle, contextlib.ExitStack() as stack:
            members: list[Callable[[], Any]]  # each opens one member's data
            if archive_kind(real) == "zip":
                archive = stack.enter_context(zipfile.ZipFile(handle))
                members = [partial(archive.open, info) for info in archive.infolist()]
            else:
                tar = stack.enter_context(tarfile.open(fileobj=handle, mode="r:*"))
                members = [partial(tar.extractfile, entry) for entry in tar]
            for (kind, target), open_member in zip(targets, members, strict=True):
                folder = target if kind == "folder" else target.parent
                if not folder.exists():
                    folder.mkdir(parents=True)
                    created.append(folder)
                if kind == "file":
                    with open_member() as source:
                        created.append(target)
                        budget = _copy_capped(source, target, budget)
    except BaseException:
        for path in reversed(created):
            if path.is_dir() and not path.is_symlink():
                with contextlib.suppress(OSError):
                    path.rmdir()
            else:
                path.unlink(missing_ok=True)
        if not dest_existed and dest.is_dir() and not any(dest.iterdir()):
            dest.rmdir()
        raise
    files = sum(1 for kind, _ in targets if kind == "file")
    return f"extracted {files} file(s) from {ctx.home.relative(real)} to {ctx.home.relative(dest)}"


def _in_repository(ctx: Context, target: Path) -> bool:
    """Inside the world's repository, or any folder that is a git work tree."""
    repo = Path(os.path.realpath(ctx.world.repo))
    if target == repo or repo in target.parents:
        return True
    return any((parent / ".git").exists() for parent in target.parents
               if parent == ctx.home.real_root or ctx.home.real_root in parent.parents)


def _stem(name: str) -> str:
    lower = name.lower()
    for suffix in (".zip", *_TAR_SUFFIXES):
        if lower.endswith(suffix):
            return name[: -len(suffix)] or "extracted"
    return name + ".extracted"


_ARCHIVE = "Archive path relative to the home folder, ending in .zip, .tar.gz, .tgz or .tar."

TOOLS = [
    Tool("create_archive", "Pack files and folders of the home folder into a new .zip or "
         ".tar.gz archive (the type follows the archive name).",
         {"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                    "description": "Files or folders to include, relative to the home folder."},
          "archive_path": prop("string", _ARCHIVE)},
         ("paths", "archive_path"), _create_archive),
    Tool("list_archive", "List the files inside a .zip or .tar(.gz) archive without "
         "extracting it.", {"archive_path": prop("string", _ARCHIVE)},
         ("archive_path",), _list_archive),
    Tool("extract_archive", "Extract a .zip or .tar(.gz) archive into a folder of the home "
         "folder (default: a folder named after the archive, next to it).",
         {"archive_path": prop("string", _ARCHIVE),
          "destination": prop("string", "Folder to extract into, relative to the home folder.")},
         ("archive_path",), _extract_archive),
]
