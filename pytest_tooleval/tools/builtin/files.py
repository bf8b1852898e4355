"""File tools on the sandboxed home folder; every path goes through ``Sandbox.resolve``."""

from __future__ import annotations

import os
import re
import shutil
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_tooleval.text.normalize import fold
from pytest_tooleval.tools.base import MAX_OUTPUT_CHARS, clip
from pytest_tooleval.tools.builtin.common import (
    Context,
    Tool,
    get_bool,
    get_str,
    need_str,
    prop,
)
from pytest_tooleval.tools.builtin.sandbox import (
    MAX_WRITE_BYTES,
    ToolError,
    is_git_internal,
    make_parents,
    read_bytes,
    walk,
    write_bytes,
)

MAX_LIST = 500
MAX_FOUND = 200


def _refuse_git_internal(ctx: Context, real: Path) -> None:
    if is_git_internal(ctx.home, real):
        raise ToolError("files inside a .git folder cannot be changed; use the git tools")


def _list_directory(ctx: Context, args: dict[str, Any]) -> str:
    shown = get_str(args, "path", limit=1024) or "."
    real = ctx.home.resolve(shown)
    if not real.is_dir():
        raise ToolError(f"{shown!r} is a file, not a folder; use read_file or file_info")
    lines = []
    entries = sorted(os.scandir(real), key=lambda e: (not e.is_dir(follow_symlinks=False),
                                                      e.name.lower()))
    for entry in entries[:MAX_LIST]:
        st = entry.stat(follow_symlinks=False)
        if entry.is_symlink():
            lines.append(f"{entry.name} -> (link)")
        elif stat.S_ISDIR(st.st_mode):
            lines.append(f"{entry.name}/")
        else:
            lines.append(f"{entry.name}  ({st.st_size} bytes)")
    header = f"{ctx.home.relative(real)}: {len(entries)} entries"
    if len(entries) > MAX_LIST:
        header += f" (first {MAX_LIST} shown)"
    return "\n".join([header, *lines]) if lines else f"{header} (empty folder)"


def _read_file(ctx: Context, args: dict[str, Any]) -> str:
    shown = need_str(args, "path", limit=1024)
    real = ctx.home.resolve(shown)
    if real.is_dir():
        raise ToolError(f"{shown!r} is a folder; use list_directory")
    data = read_bytes(real, shown)
    if b"\x00" in data[:4096]:
        raise ToolError(f"{shown!r} is a binary file; use read_document for PDF/DOCX, "
                        "list_archive for archives, or file_info")
    return clip(data.decode("utf-8", errors="replace"), MAX_OUTPUT_CHARS * 2)


def _write_file(ctx: Context, args: dict[str, Any]) -> str:
    shown = need_str(args, "path", limit=1024)
    content = need_str(args, "content", limit=MAX_WRITE_BYTES)
    mode = get_str(args, "mode", limit=20) or "overwrite"
    real = ctx.home.resolve(shown, must_exist=False, allow_root=False)
    _refuse_git_internal(ctx, real)
    if real.is_dir():
        raise ToolError(f"{shown!r} is a folder")
    data = content.encode("utf-8")
    existed = real.exists()
    if mode == "append" and existed:
        data = read_bytes(real, shown, MAX_WRITE_BYTES) + data
    elif mode not in ("overwrite", "append"):
        raise ToolError("mode must be 'overwrite' or 'append'")
    make_parents(ctx.home, real)
    write_bytes(real, shown, data)
    verb = "appended to" if mode == "append" and existed else (
        "overwrote" if existed else "created")
    return f"{verb} {ctx.home.relative(real)} ({len(data)} bytes)"


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Glob to regex: ``**`` spans folders, ``*`` and ``?`` stay within one name."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1:end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


def _find_files(ctx: Context, args: dict[str, Any]) -> str:
    pattern = need_str(args, "pattern", limit=300).strip()
    if not pattern:
        raise ToolError("pattern is empty; try '*.pdf' or '**/*fatura*'")
    base_shown = get_str(args, "path", limit=1024) or "."
    base = ctx.home.resolve(base_shown)
    if not base.is_dir():
        raise ToolError(f"{base_shown!r} is not a folder")
    try:
        regex = glob_regex(fold(pattern))
    except re.error as exc:
        raise ToolError(f"bad pattern: {exc}") from None
    by_path = "/" in pattern
    found = []
    for path in walk(base):
        rel = path.relative_to(base).as_posix()
        subject = fold(rel if by_path else path.name)
        if regex.fullmatch(subject):
            suffix = "/" if path.is_dir() and not path.is_symlink() else ""
            found.append(ctx.home.relative(path) + suffix)
    if not found:
        return f"no files match {pattern!r} under {ctx.home.relative(base)}"
    shown = found[:MAX_FOUND]
    more = f"\n[{len(found) - MAX_FOUND} more not shown]" if len(found) > MAX_FOUND else ""
    return f"{len(found)} match(es):\n" + "\n".join(shown) + more


def _file_info(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    shown = need_str(args, "path", limit=1024)
    real = ctx.home.resolve(shown)
    st = os.stat(real)
    info: dict[str, Any] = {
        "path": ctx.home.relative(real),
        "type": "folder" if stat.S_ISDIR(st.st_mode) else "file",  # resolve refused the rest
        "size_bytes": st.st_size,
        "modified": datetime.fromtimestamp(st.st_mtime, UTC).isoformat(timespec="seconds"),
    }
    if stat.S_ISDIR(st.st_mode):
        info["entries"] = len(os.listdir(real))
    else:
        info["extension"] = real.suffix.lower()
    return info


def _move_file(ctx: Context, args: dict[str, Any]) -> str:
    src_shown = need_str(args, "source", limit=1024)
    dst_shown = need_str(args, "destination", limit=1024)
    source = ctx.home.resolve(src_shown, allow_root=False)
    target = ctx.home.resolve(dst_shown, must_exist=False, allow_root=True)
    for path in (source, target):
        _refuse_git_internal(ctx, path)
    _refuse_moving_a_repository(ctx, source)
    if target.is_dir():
        target = ctx.home.resolve(ctx.home.relative(target / source.name), must_exist=False)
        _refuse_git_internal(ctx, target)
    if target.exists() or target.is_symlink():
        raise ToolError(f"{ctx.home.relative(target)!r} already exists; delete it first or "
                        "choose another name")
    if source.is_dir() and (target == source or source in target.parents):
        raise ToolError("cannot move a folder into itself")
    make_parents(ctx.home, target)
    os.rename(source, target)
    return f"moved {ctx.home.relative(source)} to {ctx.home.relative(target)}"


def _refuse_the_repository(ctx: Context, real: Path, verb: str) -> None:
    repo = Path(os.path.realpath(ctx.world.repo))
    if real == repo or real in repo.parents:
        raise ToolError(f"the project repository (or a folder holding it) cannot be {verb}")


def _refuse_moving_a_repository(ctx: Context, source: Path) -> None:
    """The repository (or a folder holding it, or any folder with a ``.git`` inside) stays."""
    _refuse_the_repository(ctx, source, "moved")
    if source.is_dir() and not source.is_symlink():
        for path in walk(source):
            if path.name.lower() == ".git":
                raise ToolError(f"{ctx.home.relative(source)!r} holds a git repository "
                                f"({ctx.home.relative(path)}); it cannot be moved")


def _delete_file(ctx: Context, args: dict[str, Any]) -> str:
    shown = need_str(args, "path", limit=1024)
    recursive = get_bool(args, "recursive")
    raw = shown.strip().rstrip("/") or shown
    # A symlink itself is removed, never followed: resolve only its parent.
    parent = ctx.home.resolve(os.path.dirname(raw) or ".")
    link = parent / os.path.basename(raw)
    if os.path.islink(link):
        _refuse_git_internal(ctx, link)
        os.unlink(link)
        return f"deleted link {ctx.home.relative(link)}"
    real = ctx.home.resolve(shown, allow_root=False)
    _refuse_git_internal(ctx, real)
    _refuse_the_repository(ctx, real, "deleted")
    if real.is_dir():
        if any(real.iterdir()):
            if not recursive:
                raise ToolError(f"{shown!r} is a folder that is not empty; pass "
                                "recursive=true to delete it with its contents")
            shutil.rmtree(real)
        else:
            real.rmdir()
        return f"deleted folder {ctx.home.relative(real)}"
    real.unlink()  # a regular file with one link: resolve refused anything else
    return f"deleted {ctx.home.relative(real)}"


_PATH = "Path relative to the home folder, e.g. Documents/notes.txt."

TOOLS = [
    Tool("list_directory", "List the files and folders in a folder of the user's home folder "
         "(sizes included). Use find_files to search by name across folders.",
         {"path": prop("string", "Folder relative to the home folder; default the home folder.")},
         (), _list_directory),
    Tool("read_file", "Read a plain-text file from the home folder (code, notes, .txt, .csv). "
         "For PDF or DOCX documents use read_document instead.",
         {"path": prop("string", _PATH)}, ("path",), _read_file),
    Tool("write_file", "Create or overwrite (or append to) a text file in the home folder; "
         "missing parent folders are created.",
         {"path": prop("string", _PATH), "content": prop("string", "The text to write."),
          "mode": prop("string", "'overwrite' (default) or 'append'.",
                       enum=["overwrite", "append"])},
         ("path", "content"), _write_file),
    Tool("find_files", "Find files and folders by name with a glob pattern such as '*.pdf', "
         "'*fatura*' or 'Projects/**/*.py' (case-insensitive). Searches names, not contents; "
         "use search_documents or grep_code for contents.",
         {"pattern": prop("string", "Glob pattern; with a '/' it matches the relative path."),
          "path": prop("string", "Folder to search in; default the home folder.")},
         ("pattern",), _find_files),
    Tool("file_info", "Show a file's or folder's type, size in bytes and modification time.",
         {"path": prop("string", _PATH)}, ("path",), _file_info),
    Tool("move_file", "Move or rename a file or folder inside the home folder. If the "
         "destination is an existing folder the item is moved into it; never overwrites.",
         {"source": prop("string", _PATH), "destination": prop("string", _PATH)},
         ("source", "destination"), _move_file),
    Tool("delete_file", "Delete a file (or a folder, with recursive=true) from the home "
         "folder. This cannot be undone.",
         {"path": prop("string", _PATH),
          "recursive": prop("boolean", "Needed to delete a folder that is not empty.")},
         ("path",), _delete_file),
]
