"""Git tools on the world's repository through the ``git`` binary, and ``grep_code``.

Git can run programs named in a repository's config (hooks, fsmonitor, filters, pagers),
so every git call runs inside the jail (``tools/jail.py``: only the repository writable,
no network, nothing of the host to reach), with no system or global config, hooks pointed
at /dev/null, no attributes file, no replace objects and no alternates from the
environment; the repository's own config is checked against an allowlist first, and a
repository that would make git read files the allowlist never sees (``commondir``,
alternates, ``info/attributes``, ``config.worktree``, ``worktrees/``, ``modules/``), or
that holds another repository in its working tree (whose config git reads unchecked), is
refused. Refs and paths from the model never reach git's option parser
(``--end-of-options`` and ``--``).
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import regex

from pytest_tooleval.tools import deadline, jail
from pytest_tooleval.tools.base import ProviderError, clip
from pytest_tooleval.tools.builtin.common import Context, Tool, get_int, get_str, need_str, prop
from pytest_tooleval.tools.builtin.runner import CPU_SECONDS, FILE_BYTES, process_limits
from pytest_tooleval.tools.builtin.sandbox import Sandbox, SandboxBroken, ToolError, is_within, walk
from pytest_tooleval.world.api import REPO_DIR

GIT_TIMEOUT = 20
#: The most bytes of git's stdout (and of its stderr) read; git is stopped past it.
MAX_GIT_OUTPUT = 4 * 1024 * 1024
MAX_ERROR_CHARS = 2_000
DEFAULT_NAME = "Tooleval User"
DEFAULT_EMAIL = "user@tooleval.invalid"
_SAFE_CONFIG = re.compile(
    r"^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|"
    r"precomposeunicode|symlinks|autocrlf|eol)|user\.(name|email)|init\.defaultbranch|"
    r"(commit|tag)\.gpgsign|branch\..+\.(remote|merge)|remote\..+\.(url|fetch)|gc\.auto|"
    r"extensions\.objectformat)$",
    re.IGNORECASE,
)
_REF = re.compile(r"^[A-Za-z0-9._/~^@{}:+-]{1,200}$")
_HARDEN = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c",
           "core.pager=cat", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false",
           "-c", "protocol.allow=never", "-c", "color.ui=false", "-c", "core.quotepath=false",
           "-c", "core.attributesFile=/dev/null", "-c", "submodule.recurse=false"]
# Files and folders that make git read configuration, attributes or objects from places the
# allowlist never sees (or from outside the world).
_UNCHECKED = ("commondir", "objects/info/alternates", "objects/info/http-alternates",
              "info/attributes", "config.worktree", "worktrees", "modules", "gitdir")


def _repo(ctx: Context) -> Path:
    repo = ctx.world.repo
    try:
        real = Path(os.path.realpath(repo))
        git_dir = Path(os.path.realpath(repo / ".git"))
    except OSError as exc:
        raise ToolError(f"the repository is unavailable: {exc}") from None
    if not (repo / ".git").is_dir() or not is_within(real, ctx.home.real_root) or not \
            is_within(git_dir, real):
        raise ToolError(f"there is no git repository at {REPO_DIR}")
    return real


def _env(ctx: Context, git_dir: Path, *, jailed: bool, commit: bool = False) -> dict[str, str]:
    env = {
        "PATH": "/usr/bin:/bin:/usr/local/bin",
        "HOME": "/tmp" if jailed else str(ctx.world.root / "state"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "GIT_DIR": str(git_dir),
        "GIT_WORK_TREE": str(git_dir.parent),
        "GIT_CEILING_DIRECTORIES": str(git_dir.parent.parent),
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_ATTR_NOSYSTEM": "1",
        # A path argument is a path: ":(glob)**", ":!x" or "*" are not pathspec magic.
        "GIT_LITERAL_PATHSPECS": "1",
    }
    if commit:
        stamp = ctx.world.now().isoformat(timespec="seconds")
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    return env


def refuse_unchecked(git_dir: Path) -> None:
    """Refuse a repository whose git folder points git at files the allowlist never sees."""
    for name in _UNCHECKED:
        if os.path.lexists(git_dir / name):
            raise ToolError(f"the repository has .git/{name}, which makes git read files "
                            "outside its checked config; git tools refuse to run it")
    config = git_dir / "config"
    if config.is_symlink() or (config.exists() and not config.is_file()):
        raise ToolError("the repository's config is not a plain file; refusing to run git")


def refuse_nested(repo: Path) -> None:
    """Refuse a working tree that holds another repository (a ``.git`` folder, file or link
    below the top): for a gitlink there, ``git status``, ``git diff`` and ``git add`` run
    ``git status`` inside it, which reads that repository's own config, never checked
    against the allowlist (its filters, for one, run). ``--ignore-submodules`` cannot stop
    it: ``git add`` has no such option. A folder that cannot be listed (its mode, under a
    controller that is not root) is refused too: git still reaches a ``.git`` below it by
    its path, which only needs the folder's search bit."""

    def unlisted(exc: OSError) -> None:
        where = Path(exc.filename or repo)
        rel = where.relative_to(repo).as_posix() if is_within(where, repo) else "?"
        raise ToolError(f"the repository's folder {rel} cannot be listed ({exc.strerror}), "
                        "so it may hold another repository, whose config git would read "
                        "unchecked; git tools refuse to run it (make it readable first)")

    for folder, dirs, files in os.walk(repo, onerror=unlisted):
        if folder == str(repo):
            dirs[:] = [name for name in dirs if name != ".git"]
            files = [name for name in files if name != ".git"]
        for name in dirs + files:
            if name.lower() == ".git":
                rel = Path(folder, name).relative_to(repo).as_posix()
                raise ToolError(f"the repository holds another repository at {rel}, whose "
                                "config git would read unchecked; git tools refuse to run "
                                "it (delete that folder first)")


def run_git(ctx: Context, *args: str, commit: bool = False) -> str:
    binary = shutil.which("git")
    if binary is None:
        raise ToolError("git is not installed on this machine")
    jailed = jail.use_jail(ctx.unsafe_no_jail)
    repo, home = _repo(ctx), ctx.home.real_root
    git_dir = repo / ".git"
    refuse_unchecked(git_dir)
    refuse_nested(repo)
    config = git_dir / "config"
    env = _env(ctx, git_dir, jailed=jailed, commit=commit)
    if config.exists() and not commit:
        # One jail: the config check, then (only if it passes) the command itself.
        gated = git_process(["/bin/sh", "-c", _GATE, binary, str(config), _SAFE_CONFIG.pattern,
                             *_HARDEN, *args], env, repo, jailed, home)
        _refuse_gate(gated)
        return _checked(gated)
    entries: list[tuple[str, str]] = []
    if config.exists():  # a commit: checked here, since it reads the identity from it
        # "key\nvalue\0" each: a key holds no newline, but a subsection may hold "=".
        listed = git_process([binary, "config", "--file", str(config), "--list", "-z"], env,
                             repo, jailed, home).stdout
        entries = [(key, value) for key, _, value in
                   (entry.partition("\n") for entry in listed.split("\0") if entry)]
        bad = [key for key, _ in entries if not _SAFE_CONFIG.fullmatch(key)]
        if bad:
            _refuse_keys(bad)
    if commit:
        name, email = _identity(entries)
        env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
                   GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    return _checked(git_process([binary, *_HARDEN, *args], env, repo, jailed, home))


# Inside the jail: list the repository's config keys with git's own parser (the names only,
# one a line: a subsection may hold "=", never a newline), refuse any key the allowlist
# ($2, an extended regex) does not match, and only then run git ("$0") itself.
_GATE = r"""
listed=$("$0" config --file "$1" --list --name-only 2>&1) || {
  printf 'tooleval-gate-unreadable: %s
' "$listed" >&2; exit 97; }
bad=$(printf '%s
' "$listed" | grep -Eiv -e "$2" | grep -v '^$')
if [ -n "$bad" ]; then printf 'tooleval-gate-refused: %s
' "$bad" >&2; exit 98; fi
shift 2
exec "$0" "$@"
"""


def _refuse_keys(keys: list[str]) -> NoReturn:
    raise ToolError("the repository's config was changed to set "
                    f"{', '.join(keys[:5])}; git tools refuse to run such a repository")


def _refuse_gate(done: _Done) -> None:
    if done.returncode == 98 and done.stderr.startswith("tooleval-gate-refused: "):
        _refuse_keys([line.removeprefix("tooleval-gate-refused: ")
                      for line in done.stderr.splitlines() if line])
    if done.returncode == 97 and done.stderr.startswith("tooleval-gate-unreadable: "):
        why = done.stderr.removeprefix("tooleval-gate-unreadable: ").strip().splitlines()
        raise ToolError("git: the repository's config cannot be read: "
                        + (" ".join(why[-2:]) or "unknown error"))


def _checked(result: _Done) -> str:
    if result.cut:  # git was stopped by the cap (SIGPIPE), not failing on its own
        return result.stdout + (f"\n[git's output passed {MAX_GIT_OUTPUT // 2**20} MiB; "
                                "git was stopped there]")
    if result.returncode in (-signal.SIGXFSZ, -signal.SIGXCPU):
        limit = (f"{FILE_BYTES // 2**20} MiB per file" if result.returncode == -signal.SIGXFSZ
                 else f"{CPU_SECONDS} s of CPU time")
        raise ToolError(f"git was stopped at its limit of {limit}")
    if result.returncode != 0:
        message = (result.stderr or result.stdout).strip().splitlines()
        raise ToolError(clip("git: " + (" ".join(message[-3:]) if message else "failed"),
                             MAX_ERROR_CHARS))
    return result.stdout


@dataclass
class _Done:
    returncode: int
    stdout: str
    stderr: str
    cut: bool = False  # stdout went past MAX_GIT_OUTPUT, and git was stopped there


def git_process(argv: list[str], env: dict[str, str], repo: Path, jailed: bool,
          home: Path | None = None) -> _Done:
    """One git process, jailed with only ``repo`` writable (unless in the unsafe mode);
    in the jail the world's ``home`` is at ``jail.JAIL_HOME``, the repository under it.
    Its stdout and stderr are pipes read as git writes them, each kept to
    ``MAX_GIT_OUTPUT`` bytes: past that the pipe is closed, and git's next write ends it
    (SIGPIPE). Nothing of its output reaches the host's disk."""
    capture = _Capture()
    try:
        with deadline.shielded():  # a call past its clock starts no further git process
            outcome = jail.run(argv, writable=repo, env=env,
                               timeout=deadline.remaining(GIT_TIMEOUT),
                               stdout=capture.out_w, stderr=capture.err_w, jailed=jailed,
                               preexec=process_limits, interpreter=False, home=home)
    except OSError as exc:
        raise SandboxBroken(f"cannot start git: {exc}") from exc
    finally:
        out, err = capture.finish()
    if outcome.timed_out:
        budget = deadline.clock(GIT_TIMEOUT)
        raise ProviderError(deadline.too_slow("git", budget, budget < GIT_TIMEOUT))
    return _Done(outcome.returncode, out.decode("utf-8", "replace"),
                 err.decode("utf-8", "replace"), capture.cut)


class _Capture:
    """git's stdout and stderr, read by one thread as they arrive, at most
    ``MAX_GIT_OUTPUT`` bytes of each (``cut`` says whether stdout went past it)."""

    def __init__(self) -> None:
        out_r, self.out_w = os.pipe()
        err_r, self.err_w = os.pipe()
        self.data = {out_r: bytearray(), err_r: bytearray()}
        self.out_r = out_r
        self.cut = False
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, name="tooleval-git-output",
                                       daemon=True)
        self.thread.start()

    def _read(self) -> None:
        reading = set(self.data)
        try:
            while reading:
                ready, _, _ = select.select(list(reading), [], [], 0.1)
                if not ready and self.done.is_set():
                    break  # the writers are gone (or a leftover holds a pipe): stop
                for fd in ready:
                    chunk = os.read(fd, 65536)
                    kept = self.data[fd]
                    room = MAX_GIT_OUTPUT - len(kept)
                    kept += chunk[:room]
                    if chunk and len(chunk) <= room:
                        continue
                    if chunk and fd == self.out_r:
                        self.cut = True
                    reading.discard(fd)
                    os.close(fd)  # end of output, or past the cap: git's next write fails
        finally:
            for fd in reading:
                os.close(fd)

    def finish(self) -> tuple[bytes, bytes]:
        """Once git is gone: the bytes kept of its stdout and stderr."""
        os.close(self.out_w)
        os.close(self.err_w)
        self.done.set()
        self.thread.join()
        out, err = self.data.values()
        return bytes(out), bytes(err)


def _identity(entries: list[tuple[str, str]]) -> tuple[str, str]:
    """user.name and user.email from the checked config's keys and values (the last one
    wins)."""
    values = {key.lower(): value for key, value in entries}
    return (values.get("user.name", "").strip() or DEFAULT_NAME,
            values.get("user.email", "").strip() or DEFAULT_EMAIL)


def check_ref(ref: str) -> str:
    ref = ref.strip()
    if not _REF.match(ref) or ref.startswith("-"):
        raise ToolError(f"{ref!r} is not a valid git revision (a branch, tag, commit id, "
                        "HEAD~2 or A..B)")
    return ref


def repo_path(ctx: Context, raw: str) -> str:
    """A path for git, relative to the repository (home-relative paths are accepted too)."""
    repo = _repo(ctx)
    text = raw.strip().replace("\\", "/")
    if text == "~" or text.startswith(("~/", "/")):  # the home's names ("~/", "/home/user/")
        real = ctx.home.resolve(text, must_exist=False)
        if not is_within(real, repo):
            raise ToolError(f"{raw!r} is not inside the repository ({REPO_DIR})")
    else:
        if text.startswith(REPO_DIR + "/") or text == REPO_DIR:
            text = text[len(REPO_DIR):].lstrip("/") or "."
        real = Sandbox(repo, "repository").resolve(text, must_exist=False)
    if any(part.lower() == ".git" for part in real.relative_to(repo).parts):
        raise ToolError("paths inside .git are not allowed")
    return real.relative_to(repo).as_posix() or "."


def _git_status(ctx: Context, args: dict[str, Any]) -> str:
    out = run_git(ctx, "status", "--short", "--branch", "--untracked-files=all")
    return clip(out.strip() or "nothing to report")


def _ref_and_path(ctx: Context, args: dict[str, Any]) -> list[str]:
    """The revision (HEAD by default) and optional path arguments of git_log and git_diff."""
    ref = get_str(args, "ref", limit=200)
    argv = ["--end-of-options", check_ref(ref) if ref else "HEAD"]
    path = get_str(args, "path", limit=1024)
    return [*argv, "--", repo_path(ctx, path)] if path else argv


def _git_log(ctx: Context, args: dict[str, Any]) -> str:
    limit = get_int(args, "limit", low=1, high=200) or 10
    out = run_git(ctx, "log", f"--max-count={limit}", "--date=iso-strict",
                  "--format=%H %ad %an <%ae>%d%n    %s", *_ref_and_path(ctx, args))
    return clip(out.strip() or "no commits found")


def _git_diff(ctx: Context, args: dict[str, Any]) -> str:
    out = run_git(ctx, "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--stat",
                  "--patch", *_ref_and_path(ctx, args)).strip()
    return clip(out) if out else "no differences"


def _git_show(ctx: Context, args: dict[str, Any]) -> str:
    ref = check_ref(need_str(args, "ref", limit=200))
    out = run_git(ctx, "show", "--no-ext-diff", "--no-textconv", "--no-color", "--stat",
                  "--patch", "--date=iso-strict", "--end-of-options", ref)
    return clip(out.strip())


def _git_branches(ctx: Context, args: dict[str, Any]) -> str:
    branches = run_git(ctx, "branch", "--all", "--verbose", "--no-abbrev", "--no-color")
    tags = run_git(ctx, "tag", "--list", "-n1")
    text = "branches (* = current):\n" + branches.rstrip()
    if tags.strip():
        text += "\ntags:\n" + tags.rstrip()
    return clip(text)


def _git_commit(ctx: Context, args: dict[str, Any]) -> str:
    message = need_str(args, "message", limit=5000).strip()
    if not message:
        raise ToolError("the commit message is empty")
    paths = args.get("paths")
    if paths:
        if isinstance(paths, str):
            paths = [paths]
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise ToolError("paths must be a list of file paths")
        run_git(ctx, "add", "--", *[repo_path(ctx, p) for p in paths[:200]])
    else:
        run_git(ctx, "add", "--all")
    staged = run_git(ctx, "diff", "--cached", "--name-only", "--no-ext-diff")
    if not staged.strip():
        raise ToolError("nothing to commit: no changes in the given paths")
    run_git(ctx, "commit", "--no-verify", "--quiet", "-m", message,
            commit=True)
    return clip(run_git(ctx, "log", "-1", "--stat", "--format=committed %H%n%s").strip())


def _grep_code(ctx: Context, args: dict[str, Any]) -> str:
    pattern = need_str(args, "pattern", limit=500)
    if not pattern:
        raise ToolError("the pattern is empty")
    flags = regex.IGNORECASE if args.get("ignore_case") else 0
    try:
        compiled = regex.compile(pattern, flags | regex.V0)
    except regex.error:
        compiled = regex.compile(regex.escape(pattern), flags)
    repo = _repo(ctx)
    base_raw = get_str(args, "path", limit=1024) or "."
    base = repo / repo_path(ctx, base_raw)
    if not base.exists():
        raise ToolError(f"{base_raw!r} does not exist in the repository")
    hits: list[str] = []
    candidates = [base] if base.is_file() else walk(base)
    for path in candidates:
        rel = path.relative_to(repo)
        if ".git" in rel.parts or path.is_symlink() or not path.is_file():
            continue
        st = path.stat()
        if st.st_size > 1024 * 1024 or st.st_nlink > 1:
            continue
        data = path.read_bytes()
        if b"\x00" in data[:4096]:
            continue
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            try:
                found = compiled.search(line, timeout=0.5)
            except TimeoutError:
                raise ToolError("the pattern is too slow (catastrophic backtracking)") from None
            if found:
                hits.append(f"{rel.as_posix()}:{number}: {line.strip()[:200]}")
                if len(hits) >= 200:
                    return clip("\n".join(hits)) + "\n[stopped at 200 matches]"
    return clip("\n".join(hits)) if hits else f"no matches for {pattern!r}"


_REF_DESC = "A branch, tag, commit id, HEAD~1 or a range A..B."

TOOLS = [
    Tool("git_status", "Show the project repository's current branch and uncommitted "
         "changes (modified, staged and untracked files).", {}, (), _git_status, "git",
         jailed=True),
    Tool("git_log", "List commits of the project repository, newest first: full id, date, "
         "author and message; optionally only those touching a path.",
         {"limit": prop("integer", "How many commits (default 10).", minimum=1, maximum=200),
          "path": prop("string", "Only commits touching this file or folder (repo-relative)."),
          "ref": prop("string", "Branch, tag or range to list instead of HEAD.")},
         (), _git_log, "git", jailed=True),
    Tool("git_diff", "Show changes as a patch: by default the uncommitted changes against "
         "HEAD; with ref, the working tree against that revision, or a range A..B.",
         {"ref": prop("string", _REF_DESC),
          "path": prop("string", "Limit the diff to this file or folder (repo-relative).")},
         (), _git_diff, "git", jailed=True),
    Tool("git_show", "Show one commit (message, author, date, changed files and patch), or "
         "a file at a revision with REF:path.",
         {"ref": prop("string", "A commit id, branch, tag, HEAD~2, or REV:path/to/file.")},
         ("ref",), _git_show, "git", jailed=True),
    Tool("git_branches", "List the repository's branches (marking the current one) and tags.",
         {}, (), _git_branches, "git", jailed=True),
    Tool("git_commit", "Commit changes in the project repository: the given paths, or every "
         "change (including new files) when no paths are given.",
         {"message": prop("string", "The commit message."),
          "paths": {"type": "array", "items": {"type": "string"},
                    "description": "Files to commit (repo-relative); default all changes."}},
         ("message",), _git_commit, "git", jailed=True),
    Tool("grep_code", "Search the project repository's files for a regular expression (or "
         "plain text) and return file:line: matches. For documents use search_documents.",
         {"pattern": prop("string", "A regular expression or plain text."),
          "path": prop("string", "Optional file or folder inside the repository."),
          "ignore_case": prop("boolean", "Match case-insensitively.")},
         ("pattern",), _grep_code),
]
