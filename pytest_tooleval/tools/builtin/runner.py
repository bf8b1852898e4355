"""``run_python``: a snippet in a separate process inside the jail (``tools/jail.py``, with
the home staged on a tmpfs as big as the write quota: ``tools/jailhome.py``).

Inside it: rlimits, a scrubbed environment, the home folder as working directory, and an
audit hook that refuses file access outside the home folder, process creation, signals
and sockets: defence in depth only, since it is Python code in the snippet's own process.
In the opted-into unsafe mode (no jail) the same limits and hook apply.
"""

from __future__ import annotations

import resource
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_tooleval.tools import deadline, jail, jailhome
from pytest_tooleval.tools.base import ProviderError
from pytest_tooleval.tools.builtin.common import Context, Tool, need_str, prop
from pytest_tooleval.tools.builtin.sandbox import SandboxBroken, ToolError

WALL_SECONDS = 10
CPU_SECONDS = 5
MEMORY_BYTES = 256 * 1024 * 1024
FILE_BYTES = 8 * 1024 * 1024
WRITE_QUOTA = 32 * 1024 * 1024
SNIPPET_IN_JAIL = "/tooleval-snippet.py"
OUTPUT_CHARS = 20_000
MAX_CODE = 100_000
#: A snippet past its wall clock is the model's when it had at least this share of the
#: call's clock to itself, running or asleep (a loop beside two CPU hogs on 2 cores: 0.28 to
#: 0.37, where a short snippet needs under 0.03); otherwise the machine was busy.
MODEL_SHARE = 0.25

BOOTSTRAP = r'''
import os, resource, stat, sys
try:
    # In the jail's own user namespace this binds for non-root users (root is exempt).
    resource.setrlimit(resource.RLIMIT_NPROC, (2, 2))
except (ValueError, OSError):
    pass
# Set only for the loader of an interpreter the jail moved (jail.JAIL_PYTHON): not the
# snippet's business.
os.environ.pop("LD_LIBRARY_PATH", None)
ROOT = os.path.realpath(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as _f:
    _code = _f.read()
READ_OK = tuple(os.path.realpath(p) for p in sys.path if p)
DEVICES = ("/dev/null", "/dev/urandom", "/dev/random")
DENY = {"os.system", "os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "os.spawn",
        "subprocess.Popen", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill",
        "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "os.symlink", "os.link",
        "socket.__new__", "socket.connect", "socket.bind", "socket.sendto",
        "socket.getaddrinfo", "sys._current_frames", "os.setxattr", "os.removexattr",
        "os.chown", "os.chflags", "os.lchflags", "os.lchown", "fcntl.ioctl"}
NO_IMPORT = {"_posixsubprocess", "_ctypes"}
PATH_EVENTS = {"os.listdir": 1, "os.scandir": 1, "os.remove": 1, "os.rmdir": 1,
               "os.mkdir": 1, "os.chmod": 1, "os.truncate": 1, "os.utime": 1,
               "os.rename": 2, "os.replace": 2, "os.chdir": 1, "shutil.rmtree": 1,
               "shutil.copyfile": 2, "shutil.copytree": 2, "shutil.move": 2,
               "os.walk": 1, "glob.glob": 1, "os.fwalk": 1}
READ_EVENTS = {"os.listdir", "os.scandir", "os.walk", "glob.glob", "os.fwalk"}

def _inside(path, roots):
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)

def _check(path, write):
    if isinstance(path, int) or path is None:
        return
    try:
        real = os.path.realpath(os.fsdecode(path))
    except Exception:
        raise PermissionError("run_python sandbox: unreadable path") from None
    if real in DEVICES:
        return
    if _inside(real, (ROOT,)):
        try:
            st = os.stat(real)
        except OSError:
            return
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)) or (
                stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
            raise PermissionError(f"run_python sandbox: {path!r} is a special or hard-linked file")
        return
    if not write and _inside(real, READ_OK):
        return
    raise PermissionError(f"run_python sandbox: {path!r} is outside the home folder")

def _hook(event, args):
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        write = bool(mode and any(c in mode for c in "wax+")) or bool(
            flags and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
        _check(path, write)
    elif event in DENY or event.startswith(("os.exec", "os.spawn", "os.posix_spawn")):
        raise PermissionError(f"run_python sandbox: {event} is not allowed")
    elif event == "import" and args and args[0] in NO_IMPORT:
        raise ImportError(f"run_python sandbox: module {args[0]} is not available")
    elif event in PATH_EVENTS:
        for arg in list(args)[:PATH_EVENTS[event]]:
            if isinstance(arg, (str, bytes, os.PathLike)):
                _check(arg, event not in READ_EVENTS)

for _mod in (os, sys.modules.get("posix")):
    for _name in ("mknod", "mkfifo"):
        if _mod is not None and hasattr(_mod, _name):
            delattr(_mod, _name)
sys.addaudithook(_hook)
del _f, _mod, _name
sys.argv = ["<run_python>"]
_globals = {"__name__": "__main__", "__builtins__": __builtins__}
exec(compile(_code, "<run_python>", "exec"), _globals)
'''


def process_limits() -> None:
    """The limits of run_python and of git: CPU seconds, bytes per file (the folder bound
    read-write is on the host's disk), open files, no core dumps. Runs in the child between
    fork and exec (bwrap's, or the program's when unjailed)."""
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_BYTES, FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _limits(nproc: bool) -> None:
    """``process_limits`` and the snippet's memory (git's work on a world's repository stays
    far inside the others, and needs no memory cap)."""
    process_limits()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    if nproc:
        # Not enforced for root, hence the audit hook's process-creation ban as well.
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def _read_capped(path: Path) -> tuple[str, bool]:
    with open(path, "rb") as handle:
        data = handle.read(OUTPUT_CHARS * 4 + 1)
    text = data.decode("utf-8", errors="replace")
    if len(text) > OUTPUT_CHARS or len(data) > OUTPUT_CHARS * 4:
        return text[:OUTPUT_CHARS], True
    return text, False


def run_snippet(code: str, home: Path, *, unsafe: bool = False) -> str:
    """Run ``code`` in the folder ``home`` (a real path), jailed whenever the jail can be made
    (``unsafe`` allows running without it): its exit code, notes, stdout and stderr."""
    jailed = jail.use_jail(unsafe)
    scratch = Path(tempfile.mkdtemp(prefix="tooleval-run-"))
    try:
        script = scratch / "snippet.py"
        script.write_text(code, encoding="utf-8")
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": str(home), "TMPDIR": "/tmp" if jailed else str(home)}
        inside = SNIPPET_IN_JAIL if jailed else str(script)
        argv = [jail.interpreter() if jailed else sys.executable, "-I", "-S", "-X", "utf8",
                "-c", BOOTSTRAP, str(home), inside]
        limit = deadline.remaining(WALL_SECONDS)
        with open(scratch / "out", "wb") as out, open(scratch / "err", "wb") as err:
            try:
                outcome = jail.run(
                    argv, writable=home, env=env, timeout=limit,
                    stdout=out, stderr=err, jailed=jailed,
                    preexec=lambda: _limits(nproc=not jailed), write_quota=WRITE_QUOTA,
                    read_only=[(script, SNIPPET_IN_JAIL)],
                )
            except jailhome.HomeTooLarge as exc:
                raise ToolError(str(exc)) from None
            except OSError as exc:
                raise SandboxBroken(f"cannot start the Python sandbox: {exc}") from exc
        stdout, cut_out = _read_capped(scratch / "out")
        stderr, cut_err = _read_capped(scratch / "err")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    budget = deadline.clock(WALL_SECONDS)
    if outcome.timed_out and outcome.own_s < MODEL_SHARE * budget:
        raise ProviderError(deadline.too_slow("the snippet", budget, budget < WALL_SECONDS)
                            + f" (the snippet had {max(0.0, outcome.own_s):.2g} s to itself)")
    status = outcome.returncode
    notes = []
    if outcome.timed_out:
        notes.append(f"killed after {limit:.2g} s wall-clock time limit")
    elif outcome.over_quota and outcome.applied is None:
        notes.append(f"killed: wrote more than {WRITE_QUOTA // 2**20} MB in one call")
    elif status == -signal.SIGXCPU or status == -signal.SIGKILL:
        notes.append(f"killed: CPU time limit ({CPU_SECONDS} s) exceeded")
    if outcome.over_quota and outcome.applied is not None:
        notes.append(f"the write quota ({WRITE_QUOTA // 2**20} MB in one call) was reached: "
                     "writes past it failed with 'No space left on device'")
    notes += _sync_notes(outcome.applied)
    if cut_out or cut_err:
        notes.append(f"output truncated to {OUTPUT_CHARS} characters")
    parts = [f"exit code: {status}", *(f"note: {note}" for note in notes),
             "--- stdout ---\n" + stdout.rstrip("\n")]
    if stderr.strip():
        parts.append("--- stderr ---\n" + stderr.rstrip("\n"))
    return "\n".join(parts)


def _printable(name: str, limit: int = 200) -> str:
    """A file name as one line a report can hold: undecodable bytes and control characters
    as ``\\xNN``, at most ``limit`` characters."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return text if len(text) <= limit else text[:limit] + "…"


def _sync_notes(applied: jailhome.Applied | None) -> list[str]:
    """What of the call's files did not reach the home folder, and why."""
    if applied is None or not applied.dropped:
        return []
    if applied.discarded:
        return [f"nothing this call wrote was kept: {_printable(applied.dropped[0])}"]
    shown = ", ".join(_printable(name) for name in applied.dropped[:5])
    shown += ", …" if len(applied.dropped) > 5 else ""
    return [f"not kept in the home folder ({len(applied.dropped)}): {shown} (only regular "
            "files and folders are kept; links and special files are not)"]


def _run_python(ctx: Context, args: dict[str, Any]) -> str:
    code = need_str(args, "code", limit=MAX_CODE)
    if not code.strip():
        raise ToolError("the code is empty")
    return run_snippet(code, ctx.home.real_root, unsafe=ctx.unsafe_no_jail)


TOOLS = [
    Tool("run_python", "Run a short Python 3 snippet in a separate sandboxed process (working "
         "directory: the home folder; standard library only; no network, no subprocesses; "
         f"{CPU_SECONDS} s CPU, {MEMORY_BYTES // 2**20} MB memory) and return its exit code, "
         "stdout and stderr. Print what you need to see.",
         {"code": prop("string", "Python source code; use print() for output.")},
         ("code",), _run_python, jailed=True),
]
