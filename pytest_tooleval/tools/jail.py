"""The jail: every built-in tool that executes something (``run_python``, every git call)
runs inside a bubblewrap sandbox.

Inside: new user, PID, network, IPC and UTS namespaces, no capabilities, no further user
namespaces; the interpreter, its standard library and ``/usr`` (git) read-only; a fresh
``/proc`` of the jail's own PID namespace, a minimal ``/dev``, a size-capped tmpfs for
``/tmp``; and, read-write, only the part of this case's world the tool acts on (see
:func:`world_bind`). No host ``/etc`` beyond the dynamic loader's cache, no host home.
At the end of every call, and at the wall clock, the jail's PID 1 is killed through a
pidfd and waited for; the kernel lets it exit only once everything else in its PID
namespace is dead (``jailrun``). ``run_python``'s home is staged on a size-capped tmpfs
(``jailhome``).

Where bubblewrap is missing or user namespaces are disabled the jailed tools are not
offered, unless the run opts into the named unsafe mode (``--tooleval-unsafe-no-jail``),
which the report records.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

UNSAFE_FLAG = "--tooleval-unsafe-no-jail"
UNSAFE_MODE = "unsafe-no-jail"
TMP_BYTES = 16 * 1024 * 1024
PROBE_TIMEOUT = 10
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap) and make sure user namespaces are enabled (sysctl "
    "user.max_user_namespaces > 0, and kernel.unprivileged_userns_clone=1 where it exists; "
    "on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0); check with "
    f"`tooleval doctor`. To run these tools without the jail anyway, pass {UNSAFE_FLAG} "
    "(recorded in the report)"
)
NAMESPACES = ("user", "pid", "net", "ipc", "uts")


@dataclass(frozen=True)
class Probe:
    """Whether the jail can be made on this machine, and why not."""

    available: bool
    detail: str
    bwrap: str | None = None
    version: str | None = None


_PROBE_LOCK = threading.Lock()


def probe() -> Probe:
    """Try the real thing once per process: a jailed ``true`` with every namespace (a
    caller while the probe runs, on another thread, waits for its answer)."""
    with _PROBE_LOCK:
        return _probe_once()


def probe_in_background() -> None:
    """Start ``probe`` on a thread: its processes run while the caller goes on (the
    ``tooleval check`` catalogue needs the answer only after its imports)."""
    threading.Thread(target=probe, name="tooleval-jail-probe", daemon=True).start()


@functools.cache
def _probe_once() -> Probe:
    binary = shutil.which("bwrap")
    if binary is None:
        return Probe(False, "bubblewrap (bwrap) is not installed")
    version = None
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        version = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                 timeout=PROBE_TIMEOUT).stdout.strip() or None
    true = shutil.which("true") or "/bin/true"
    argv = bwrap_argv([true], writable=None, cwd=Path("/"), binary=binary)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT,
                              env={"PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return Probe(False, f"bwrap cannot start: {exc}", binary, version)
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return Probe(False, f"bwrap cannot make the jail (user namespaces disabled?): "
                     f"{why[0]}", binary, version)
    return Probe(True, "bubblewrap jail available", binary, version)


def _interpreter_paths() -> list[Path]:
    """What the interpreter needs read-only: its executable, stdlib and shared library."""
    paths = {Path(os.path.realpath(sys.executable))}
    # The base interpreter's standard library (with lib-dynload), never a virtual
    # environment's site-packages.
    stdlib = sysconfig.get_paths(vars={"installed_base": sys.base_prefix,
                                       "base": sys.base_prefix}).get("stdlib")
    if stdlib:
        paths.add(Path(os.path.realpath(stdlib)))
    libdir, library = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY")
    if libdir and library and (Path(libdir) / library).exists():
        shared = Path(libdir) / library
        paths.add(Path(os.path.realpath(shared)))
        for sibling in Path(libdir).glob(str(library) + "*"):
            paths.add(Path(os.path.realpath(sibling)))
    usr = Path("/usr")
    return sorted(p for p in paths if p.exists() and usr not in p.parents and p != usr)


def interpreter() -> str:
    """The interpreter the jail runs (the real file, not a virtual environment's link)."""
    return os.path.realpath(sys.executable)


def system_binds(interpreter: bool = True) -> list[str]:
    """Read-only system pieces: /usr (the loader, libc, git), the top-level links into it,
    the loader's cache, and the interpreter's own files when it lives outside /usr."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / top
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    for path in _interpreter_paths() if interpreter else ():
        args += ["--ro-bind", str(path), str(path)]
    return args


def world_bind(root: Path, tmpfs_bytes: int | None = None) -> list[str]:
    """The one writable place of this case's world in the jail, at ``root``'s own path:
    ``root`` itself bound read-write, or (``tmpfs_bytes``) an empty tmpfs of that size that
    ``jailhome`` fills and copies back. Nothing else of the world (nor the shared template)
    is visible.
    """
    real = os.path.realpath(root)
    if tmpfs_bytes is not None:
        return ["--size", str(tmpfs_bytes), "--tmpfs", real]
    return ["--bind", real, real]


def bwrap_argv(argv: Sequence[str], *, writable: Path | None, cwd: Path,
               binary: str | None = None,
               read_only: Sequence[tuple[Path, str]] = (),
               interpreter: bool = True, home_tmpfs: int | None = None) -> list[str]:
    """The full bwrap command line running ``argv`` jailed, ``writable`` bound read-write,
    or, with ``home_tmpfs`` bytes, a tmpfs of that size at its path (see ``jailhome``)."""
    command = [
        binary or shutil.which("bwrap") or "bwrap",
        "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--disable-userns", "--cap-drop", "ALL",
        "--die-with-parent", "--new-session", "--hostname", "tooleval-jail",
        *system_binds(interpreter),
        "--proc", "/proc", "--dev", "/dev",
        "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
    ]
    if writable is not None:
        command += world_bind(writable, home_tmpfs) if home_tmpfs else world_bind(writable)
    for source, target in read_only:
        command += ["--ro-bind", str(source), target]
    command += ["--chdir", str(cwd), "--", *argv]
    return command


def describe(unsafe: bool) -> dict[str, object]:
    """What the report records about isolation."""
    found = probe()
    mode = "jail" if found.available else UNSAFE_MODE if unsafe else "none"
    return {"mode": mode, "bwrap": found.version, "detail": found.detail,
            "namespaces": list(NAMESPACES) if found.available else []}


class JailUnavailable(Exception):
    """A jailed tool was called where the jail cannot be made (infrastructure)."""


def use_jail(unsafe: bool) -> bool:
    """True to jail the call; False only in the opted-into unsafe mode; otherwise raise."""
    found = probe()
    if found.available:
        return True
    if unsafe:
        return False
    raise JailUnavailable(f"{found.detail}; {INSTALL_HINT}")


# Running a command in the jail lives in jailrun (kept apart for size); its names stay
# reachable here, where the jail's callers look for them, but jailrun (and jailhome) are
# imported only on first use: ``tooleval check`` only probes whether the jail works.
if TYPE_CHECKING:
    from pytest_tooleval.tools.jailrun import JailBroken, Outcome, disk_usage, run

_LAZY = ("JailBroken", "Outcome", "disk_usage", "run")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from pytest_tooleval.tools import jailrun

        value = getattr(jailrun, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "UNSAFE_FLAG",
    "UNSAFE_MODE",
    "JailBroken",
    "JailUnavailable",
    "Outcome",
    "Probe",
    "bwrap_argv",
    "describe",
    "disk_usage",
    "interpreter",
    "probe",
    "run",
    "system_binds",
    "use_jail",
    "world_bind",
]
