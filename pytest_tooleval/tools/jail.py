"""The jail: every built-in tool that executes something (``run_python``, every git call)
runs inside a bubblewrap sandbox; the walls it makes, and why each, are in docs/security.md
("The jail").

In short: own PID, network, IPC and UTS namespaces and no capabilities; a root controller
runs each call as a host uid of its own (:func:`call_uid`); the system read-only, every
writable filesystem sized, and only the part of this case's world the tool acts on
writable (:func:`world_bind`; ``run_python``'s home staged on a tmpfs, ``jailhome``); the
call is over when the jail's PID 1 is (:func:`run`). Where the jail cannot be made the
jailed tools are not offered, unless the run opts into the named unsafe mode.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import glob
import itertools
import os
import re
import resource
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pytest_tooleval.tools import fdwalk, jailhome

UNSAFE_FLAG = "--tooleval-unsafe-no-jail"
UNSAFE_MODE = "unsafe-no-jail"
TMP_BYTES = 16 * 1024 * 1024
SHM_BYTES = 1024 * 1024
#: Where the world's home folder is in the jail, whatever its path on the host.
JAIL_HOME = "/home/user"
#: Where an interpreter installed outside /usr (pyenv, a home folder) is in the jail.
JAIL_PYTHON = "/opt/python"
PAGE = 4096
#: Host uids for jailed calls of a root controller: no passwd entry is needed, and each call
#: gets its own (per process and call slot), so ``RLIMIT_NPROC`` counts that call alone.
UID_BASE = 0x40000000
UID_SLOTS = 64
_SLOT = itertools.count()
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
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return Probe(False, "setpriv (util-linux) is not installed: as root the jail needs it "
                     "to run each call as an unprivileged user", binary, version)
    argv = bwrap_argv([true], writable=None, cwd=Path("/"), binary=binary, uid=call_uid())
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


def _relocated(value: str) -> str:
    """The jail's name for a file of an interpreter that lives outside /usr: under
    :data:`JAIL_PYTHON`, so no traceback names a host folder."""
    prefix = os.path.realpath(sys.base_prefix)
    if prefix == "/usr" or prefix.startswith("/usr/"):
        return value
    if value == prefix or value.startswith(prefix + "/"):
        return JAIL_PYTHON + value[len(prefix):]
    return value


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
        args += ["--ro-bind", str(path), _relocated(str(path))]
    return args


def world_bind(root: Path, tmpfs_bytes: int | None = None, target: str | None = None
               ) -> list[str]:
    """The one writable place of this case's world in the jail, at ``target`` (by default
    ``root``'s own path): ``root`` itself bound read-write, or (``tmpfs_bytes``) an empty
    tmpfs of that size that ``jailhome`` fills and copies back. Nothing else of the world
    (nor the shared template) is visible.
    """
    real = os.path.realpath(root)
    if tmpfs_bytes is not None:
        return ["--size", str(tmpfs_bytes), "--tmpfs", target or real]
    return ["--bind", real, target or real]


def inside(home: Path) -> Callable[[str], str]:
    """The jail's name for a host path: the world's ``home`` and everything under it are at
    :data:`JAIL_HOME`, so nothing a jailed program prints or reads names a host folder."""
    real = os.path.realpath(home)

    def name(value: str) -> str:
        if value == real or value.startswith(real + "/"):
            return JAIL_HOME + value[len(real):]
        return _relocated(value)

    return name


def call_uid() -> int | None:
    """The host uid a jailed call runs as when this process is root (never root itself);
    ``None`` for any other user, whose jail maps the user into a new user namespace."""
    if os.geteuid() != 0:
        return None
    return UID_BASE + (os.getpid() % 65536) * UID_SLOTS + next(_SLOT) % UID_SLOTS


def give(root: Path, uid: int) -> None:
    """Make ``root`` and everything under it (links not followed) owned by ``uid``: the
    writable part of the world, before a jailed call of a root controller."""
    os.chown(root, uid, uid, follow_symlinks=False)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            with contextlib.suppress(FileNotFoundError):
                os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def _as_user(argv: Sequence[str], uid: int) -> list[str]:
    """``argv`` started as host uid ``uid``: no groups, no capabilities left in any set,
    no new privileges on exec."""
    setpriv = shutil.which("setpriv") or "setpriv"
    return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--", *argv]


# bwrap's options as this module writes them, with how many arguments each takes; the
# mount options' last argument is the mount point.
_ARITY = {"--bind": 2, "--ro-bind": 2, "--bind-try": 2, "--ro-bind-try": 2, "--symlink": 2,
          "--tmpfs": 1, "--dir": 1, "--perms": 1, "--size": 1}
_MOUNTS = {"--bind", "--ro-bind", "--bind-try", "--ro-bind-try", "--tmpfs"}


def _folders(binds: Sequence[str]) -> list[str]:
    """``--dir`` options making the parents of these mount points traversable (bwrap makes
    a missing parent 0700, root's, which a jail running as another uid cannot enter)."""
    targets, i = [], 0
    while i < len(binds):
        arity = _ARITY[binds[i]]
        if binds[i] in _MOUNTS:
            targets.append(binds[i + arity])
        i += 1 + arity
    parents = {str(parent) for target in targets for parent in Path(target).parents
               if str(parent) not in ("/", "/usr", "/tmp")}
    return [arg for folder in sorted(parents, key=lambda p: (p.count("/"), p))
            for arg in ("--perms", "0755", "--dir", folder)]


def bwrap_argv(argv: Sequence[str], *, writable: Path | None, cwd: Path | str,
               binary: str | None = None,
               read_only: Sequence[tuple[Path, str]] = (),
               interpreter: bool = True, home_tmpfs: int | None = None,
               uid: int | None = None, target: str | None = None) -> list[str]:
    """The full bwrap command line running ``argv`` jailed, ``writable`` bound read-write
    at ``target`` (by default its own path), or, with ``home_tmpfs`` bytes, a tmpfs of
    that size there (see ``jailhome``); ``cwd`` is the jail's working folder.
    With ``uid`` (a root controller, :func:`call_uid`) no user namespace is made and the
    command runs as that host uid; otherwise a new user namespace maps the caller."""
    if uid is None:
        users = ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    else:
        # For a moment only: bwrap enters the working folder, now the uid's own (it may be
        # 0700), and setpriv changes the uid and then drops every capability before the
        # command starts.
        users = ["--cap-drop", "ALL", "--cap-add", "CAP_DAC_OVERRIDE", "--cap-add",
                 "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        argv = _as_user(argv, uid)
    world: list[str] = []
    if writable is not None:
        world += world_bind(writable, home_tmpfs, target)
    for source, target in read_only:
        world += ["--ro-bind", str(source), target]
    system = system_binds(interpreter)
    command = [
        binary or shutil.which("bwrap") or "bwrap", *users,
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--die-with-parent", "--new-session",
        "--hostname", "tooleval-jail",
        *_folders(system), *system,
        # The kernel's settings are not the jail's to read or write.
        "--proc", "/proc", "--size", str(PAGE), "--tmpfs", "/proc/sys",
        "--remount-ro", "/proc/sys",
        "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
        # Every writable filesystem has a size: /tmp, /dev/shm, the home (jailhome).
        "--dev", "/dev", "--perms", "01777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev",
        "--perms", "01777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
        *_folders(world), *world,
    ]
    # bwrap's own root (a tmpfs without a size) read-only, once every mount point is made.
    command += ["--remount-ro", "/", "--chdir", str(cwd), "--", *argv]
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


# Running one command in the jail, and knowing when it is gone.
# The outer bwrap may exit before its PID namespace is empty: it reports the command's exit
# as soon as the jail's PID 1 tells it, and a SIGKILL to the outer bwrap reaches PID 1 only
# through ``--die-with-parent``. So the call is over only when the jail's PID 1 itself has
# exited, which the kernel lets happen only after every other process in its namespace is
# dead. Its host PID comes from bwrap's ``--json-status-fd`` (``child-pid``), and a pidfd
# on it gives both the kill and the wait without any PID reuse race. Nothing reads or writes
# what the jail could touch (the staged home, see ``jailhome``) before that.

#: How long the jail may take to be gone once killed, before the call counts as unsafe.
GONE_WITHIN = 5.0
#: A root controller's jailed call runs as a host uid of its own (``jail.call_uid``), so
#: these bound the call's whole process tree: at most this many processes, each with at
#: most this much address space (a caller's ``preexec`` may set tighter limits).
MAX_PROCESSES = 8
PROCESS_MEMORY = 512 * 2**20
_CHILD_PID = re.compile(rb'"child-pid"\s*:\s*(\d+)')


@dataclass
class Outcome:
    returncode: int
    timed_out: bool = False
    over_quota: bool = False
    applied: jailhome.Applied | None = None
    #: At the wall clock (``timed_out``): the seconds the command had to itself since it was
    #: let go (``own_seconds``).
    own_s: float = 0.0


def cpu_times(pid: int) -> tuple[float, float]:
    """The seconds process ``pid`` and every process under it ran on a CPU, and were
    runnable but waited for one (every thread's /proc/PID/task/TID/schedstat; 0 where the
    kernel does not keep it)."""
    parents: dict[int, int] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError), open(f"/proc/{entry}/stat", "rb") as handle:
            parents[int(entry)] = int(handle.read().rpartition(b")")[2].split()[1])
    tree = [pid]
    for parent in tree:  # grows as children are found
        tree += [child for child, ppid in parents.items() if ppid == parent]
    ran = delay = 0
    for path in (path for p in tree for path in glob.glob(f"/proc/{p}/task/*/schedstat")):
        with contextlib.suppress(OSError, IndexError, ValueError), open(path) as handle:
            fields = handle.read().split()
            ran, delay = ran + int(fields[0]), delay + int(fields[1])
    return ran / 1e9, delay / 1e9


def own_seconds(pid: int, elapsed: float, start: tuple[float, float] = (0.0, 0.0)) -> float:
    """Of the ``elapsed`` seconds since ``start`` (``cpu_times`` then), those the command
    had to itself: running or asleep, not kept from a CPU; or, where its own processes
    kept each other from the CPUs (a fork of spinners), the CPU time they got."""
    ran, waited = cpu_times(pid)
    return max(elapsed - (waited - start[1]), ran - start[0])


class JailBroken(OSError):
    """bwrap started but could not set the jail up (a machine failure, never the model's)."""


class _Status:
    """bwrap's ``--json-status-fd`` pipe, read as it arrives."""

    def __init__(self, fd: int) -> None:
        self.fd, self.data, self.closed = fd, b"", False
        os.set_blocking(fd, False)

    def _drain(self) -> None:
        while not self.closed:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            if not chunk:
                self.closed = True
                return
            self.data += chunk

    def child_pid(self, wait: float) -> int | None:
        """The jail's PID 1 as the host sees it, once bwrap has written it."""
        deadline = time.monotonic() + wait
        while True:
            self._drain()
            found = _CHILD_PID.search(self.data)
            if found or self.closed or time.monotonic() >= deadline:
                return int(found.group(1)) if found else None
            select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))

    def finish(self) -> bytes:
        self._drain()
        os.close(self.fd)
        return self.data


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group ``proc`` leads (started with ``start_new_session``)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


class _Reaper:
    """Kills the jail and says whether its PID namespace is known to be empty."""

    def __init__(self, proc: subprocess.Popen[bytes], pid1: int | None) -> None:
        self.proc, self.pidfd = proc, None
        if pid1 is not None:
            with contextlib.suppress(OSError, AttributeError):
                self.pidfd = os.pidfd_open(pid1)

    def kill(self) -> None:
        if self.pidfd is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        elif self.proc.poll() is None:
            _kill_group(self.proc)

    def finish(self) -> bool:
        """End the jail and wait for it; True when its PID 1 has exited (so has everything
        else in it), False when that is not known (no pidfd, or it outlived the kills).

        PID 1 is killed even after a normal exit: a snippet may have ptraced it and taken
        ``--die-with-parent`` away, and a SIGKILL from outside its namespace cannot be
        refused."""
        gone = False
        if self.pidfd is not None:
            for _ in range(3):
                self.kill()
                if select.select([self.pidfd], [], [], GONE_WITHIN / 3)[0]:
                    gone = True
                    break
            os.close(self.pidfd)
            self.pidfd = None
        if self.proc.poll() is None:  # never signal a reaped (reusable) pid
            _kill_group(self.proc)
        self.proc.wait()
        return gone


def run(
    argv: Sequence[str],
    *,
    writable: Path,
    env: Mapping[str, str],
    timeout: float,
    stdout: IO[bytes] | int,
    stderr: IO[bytes] | int,
    jailed: bool = True,
    preexec: Callable[[], None] | None = None,
    write_quota: int | None = None,
    read_only: Sequence[tuple[Path, str]] = (),
    interpreter: bool = True,
    home: Path | None = None,
) -> Outcome:
    """Run ``argv`` in the folder ``writable`` (jailed unless ``jailed`` is false: the
    unsafe mode), kill it and its whole PID namespace at ``timeout`` seconds. Jailed, the
    world's ``home`` (by default ``writable``) is at :data:`JAIL_HOME`, and every argument,
    environment value and working folder under it is named so. With ``write_quota``, jailed:
    ``writable`` is staged on a tmpfs that holds at most that many bytes more (``jailhome``)
    and copied back once the jail is gone; unjailed: the folder is measured and the call
    killed past the quota. ``read_only``: (host file, path in the jail) pairs;
    ``interpreter``: whether the Python interpreter is needed inside. Raises ``OSError``
    when it cannot start or the jail cannot be set up; :class:`jailhome.HomeTooLarge` when
    the home cannot be staged."""
    if not jailed:
        return _run_unjailed(argv, writable=writable, env=env, timeout=timeout,
                             stdout=stdout, stderr=stderr, preexec=preexec,
                             write_quota=write_quota)
    started = since = time.monotonic()
    start = (0.0, 0.0)
    staged = write_quota is not None
    files = jailhome.snapshot(writable) if staged else {}
    uid = call_uid()
    if uid is not None and not staged:
        give(writable, uid)
    preexec = _before_bwrap(preexec, bounded=uid is not None)
    name = inside(home or writable)
    argv = [name(arg) for arg in argv]
    env = {key: name(value) for key, value in env.items()}
    target = name(os.path.realpath(writable))
    ours, theirs = socket.socketpair() if staged else (None, None)
    if staged:
        assert write_quota is not None and theirs is not None and interpreter
        argv = jailhome.stager_argv(name(os.path.realpath(sys.executable)), theirs.fileno(),
                                    target, argv)
    libdir = os.path.realpath(sysconfig.get_config_var("LIBDIR") or "/usr/lib")
    if interpreter and _relocated(libdir) != libdir:  # the shared library moved with it
        env.setdefault("LD_LIBRARY_PATH", _relocated(libdir))
    command = bwrap_argv(argv, writable=writable, cwd=target,
                         read_only=read_only, interpreter=interpreter, uid=uid,
                         target=target,
                         home_tmpfs=jailhome.tmpfs_bytes(files, write_quota or 0)
                         if staged else None)
    status_read, status_write = os.pipe()
    # bwrap reports {"child-pid": N} first, and {"exit-code": N} only when the command
    # really ran: without it (and without our own kill) the jail itself failed.
    command[1:1] = ["--json-status-fd", str(status_write)]
    passed = (status_write,) + ((theirs.fileno(),) if theirs is not None else ())
    try:
        proc = subprocess.Popen(command, cwd=writable, env=dict(env), stdin=subprocess.DEVNULL,
                                stdout=stdout, stderr=stderr, start_new_session=True,
                                preexec_fn=preexec, close_fds=True, pass_fds=passed)
    except BaseException as exc:
        os.close(status_read)
        if ours is not None:
            ours.close()
        if isinstance(exc, subprocess.SubprocessError):  # the preexec failed: no bwrap ran
            raise JailBroken(
                "the jail could not be set up before bwrap started: its own session keyring "
                "(keyctl refused it; this user's key quota, /proc/key-users, may be full) or "
                "its limits; check this machine with `tooleval doctor`") from exc
        raise
    finally:
        os.close(status_write)
        if theirs is not None:
            theirs.close()
    status = _Status(status_read)
    outcome = Outcome(returncode=0)
    tmpfs = -1
    reaper: _Reaper | None = None
    if ours is not None:
        try:
            tmpfs = jailhome.receive(ours, timeout)
            # PID 1 is alive while the stager, its child, waits: open its pidfd now.
            reaper = _Reaper(proc, status.child_pid(timeout))
            jailhome.copy_in(writable, files, tmpfs, uid)
            ours.sendall(b"g")
            since, start = time.monotonic(), cpu_times(proc.pid)  # its own time starts
        except OSError as exc:
            reaper = reaper or _Reaper(proc, status.child_pid(0.0))
            reaper.finish()
            status.finish()
            if tmpfs >= 0:
                os.close(tmpfs)
            raise JailBroken(f"bwrap could not make the jail ({exc}); check this machine "
                             "with `tooleval doctor`") from exc
        finally:
            ours.close()
    if reaper is None:
        reaper = _Reaper(proc, status.child_pid(max(0.0, timeout - (time.monotonic() - started))))
    try:
        proc.wait(timeout=max(0.0, timeout - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        outcome.timed_out = True
        outcome.own_s = own_seconds(proc.pid, time.monotonic() - since, start)
        reaper.kill()
    finally:
        gone = reaper.finish()
    try:
        if tmpfs >= 0:
            if gone:
                outcome.applied = jailhome.copy_out(
                    tmpfs, writable, files,
                    budget=jailhome.tmpfs_bytes(files, write_quota or 0))
            else:
                outcome.applied = jailhome.Applied(discarded=True, dropped=[
                    "the jail could not be shown to be gone, so nothing it wrote is trusted"])
            outcome.over_quota = outcome.applied.full
    finally:
        if tmpfs >= 0:
            os.close(tmpfs)
        data = status.finish()
    outcome.returncode = proc.returncode
    if b'"exit-code"' not in data and not outcome.timed_out:
        raise JailBroken(f"bwrap could not make the jail (exit status {proc.returncode}); "
                         "check this machine with `tooleval doctor`")
    if 128 < proc.returncode < 128 + 65:
        # bwrap reports a child killed by signal N as 128 + N; give it the usual -N.
        outcome.returncode = 128 - proc.returncode
    return outcome


#: keyctl(2)'s number where it is known (Python has no wrapper), and its operation that
#: gives the caller a new, empty session keyring.
_KEYCTL = {"x86_64": 250, "aarch64": 219}
KEYCTL_JOIN_SESSION_KEYRING = 1


def _before_bwrap(preexec: Callable[[], None] | None, bounded: bool) -> Callable[[], None]:
    """The caller's ``preexec`` after giving bwrap (and so the jail) a new, empty session
    keyring and, when ``bounded``, the per-call process and memory bounds.

    Without its own keyring the jail inherits the controller's (a root controller's is the
    machine-wide ``_uid_ses.0``), and whatever its uid it possesses that keyring: it reads
    every key in it and adds keys that outlive the call. Where keyctl is refused (a
    container's seccomp profile) the jail cannot use it either. The bounds bind once the
    jail's command runs as its own uid (root itself is exempt from the first)."""
    number = _KEYCTL.get(os.uname().machine, -1)
    syscall = ctypes.CDLL(None, use_errno=True).syscall if number >= 0 else None

    def first() -> None:
        if syscall is not None and syscall(ctypes.c_long(number),
                                           ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING),
                                           ctypes.c_void_p(None)) < 0:
            code = ctypes.get_errno()
            if code not in (errno.ENOSYS, errno.EPERM):
                raise OSError(code, f"no session keyring of its own: {os.strerror(code)}")
        if bounded:
            resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))
            resource.setrlimit(resource.RLIMIT_AS, (PROCESS_MEMORY, PROCESS_MEMORY))
        if preexec is not None:
            preexec()

    return first


def _run_unjailed(argv: Sequence[str], *, writable: Path, env: Mapping[str, str],
                  timeout: float, stdout: IO[bytes] | int, stderr: IO[bytes] | int,
                  preexec: Callable[[], None] | None, write_quota: int | None) -> Outcome:
    """The unsafe mode: no jail, the quota measured every 50 ms (a fast writer overshoots).
    As in the jail, the home may hold ``jailhome.HOME_ENTRIES`` entries, and one call may
    add ``fdwalk.MAX_ENTRIES`` more."""
    limit = jailhome.HOME_ENTRIES + fdwalk.MAX_ENTRIES
    before = disk_usage(writable, limit) if write_quota is not None else 0
    if before < 0:
        raise jailhome.HomeTooLarge(
            f"the home folder has more than {limit} files and folders; run_python works on "
            f"homes of at most {jailhome.HOME_ENTRIES} entries: delete or move files first")
    proc = subprocess.Popen(list(argv), cwd=writable, env=dict(env), stdin=subprocess.DEVNULL,
                            stdout=stdout, stderr=stderr, start_new_session=True,
                            preexec_fn=preexec, close_fds=True)
    started = time.monotonic()
    outcome = Outcome(returncode=0)
    stop = threading.Event()

    def watch() -> None:
        assert write_quota is not None
        while not stop.wait(0.05):
            used = disk_usage(writable, limit)
            if used < 0 or used - before > write_quota:
                outcome.over_quota = True
                _kill_group(proc)
                return

    watcher = threading.Thread(target=watch, daemon=True) if write_quota is not None else None
    if watcher is not None:
        watcher.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        outcome.timed_out = True
        outcome.own_s = own_seconds(proc.pid, time.monotonic() - started)
    finally:
        stop.set()
        _kill_group(proc)
        proc.wait()
        if watcher is not None:
            watcher.join()
    if write_quota is not None and not outcome.over_quota:
        used = disk_usage(writable, limit)
        outcome.over_quota = used < 0 or used - before > write_quota
    outcome.returncode = proc.returncode
    return outcome


def disk_usage(root: Path, limit_entries: int) -> int:
    """Bytes allocated under ``root`` (not following links); ``-1`` past ``limit_entries``."""
    total, seen = 0, 0
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > limit_entries:
                        return -1
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
        except OSError:
            continue
    return total

