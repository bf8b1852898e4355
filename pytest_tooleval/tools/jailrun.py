"""Running one command in the jail (``jail.bwrap_argv``), and knowing when it is gone.

The outer bwrap may exit before its PID namespace is empty: it reports the command's exit
as soon as the jail's PID 1 tells it, and a SIGKILL to the outer bwrap reaches PID 1 only
through ``--die-with-parent``. So the call is over only when the jail's PID 1 itself has
exited, which the kernel lets happen only after every other process in its namespace is
dead. Its host PID comes from bwrap's ``--json-status-fd`` (``child-pid``), and a pidfd
on it gives both the kill and the wait without any PID reuse race. Nothing reads or writes
what the jail could touch (the staged home, see ``jailhome``) before that.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pytest_tooleval.tools import jailhome

#: How long the jail may take to be gone once killed, before the call counts as unsafe.
GONE_WITHIN = 5.0
_CHILD_PID = re.compile(rb'"child-pid"\s*:\s*(\d+)')


@dataclass
class Outcome:
    returncode: int
    timed_out: bool = False
    over_quota: bool = False
    applied: jailhome.Applied | None = None


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
        else:
            self.kill_outer()

    def kill_outer(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def finish(self) -> bool:
        """Wait for the jail to be gone; True when its PID 1 has exited (so has everything
        else in it), False when that is not known (no pidfd, or it outlived the grace)."""
        gone = False
        if self.pidfd is not None:
            gone = bool(select.select([self.pidfd], [], [], GONE_WITHIN)[0])
            os.close(self.pidfd)
            self.pidfd = None
        self.kill_outer()
        self.proc.wait()
        return gone


def run(
    argv: Sequence[str],
    *,
    writable: Path,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stdout: IO[bytes] | int,
    stderr: IO[bytes] | int,
    jailed: bool = True,
    preexec: Callable[[], None] | None = None,
    write_quota: int | None = None,
    read_only: Sequence[tuple[Path, str]] = (),
    interpreter: bool = True,
) -> Outcome:
    """Run ``argv`` (jailed unless ``jailed`` is false: the unsafe mode), kill it and its
    whole PID namespace at ``timeout`` seconds. With ``write_quota``, jailed: ``writable``
    is staged on a tmpfs that holds at most that many bytes more (``jailhome``) and copied
    back once the jail is gone; unjailed: the folder is measured and the call killed past
    the quota. ``read_only``: (host file, path in the jail) pairs; ``interpreter``: whether
    the Python interpreter is needed inside. Raises ``OSError`` when it cannot start or
    the jail cannot be set up; :class:`jailhome.HomeTooLarge` when the home cannot be
    staged."""
    if not jailed:
        return _run_unjailed(argv, writable=writable, cwd=cwd, env=env, timeout=timeout,
                             stdout=stdout, stderr=stderr, preexec=preexec,
                             write_quota=write_quota)
    started = time.monotonic()
    staged = write_quota is not None
    files: dict[str, jailhome.Entry] = {}
    ours, theirs = socket.socketpair() if staged else (None, None)
    if staged:
        assert write_quota is not None and theirs is not None and interpreter
        files = jailhome.snapshot(writable)
        argv = jailhome.stager_argv(os.path.realpath(sys.executable), theirs.fileno(),
                                    os.path.realpath(writable), list(argv))
    from pytest_tooleval.tools import jail  # imports this module at its end

    command = jail.bwrap_argv(argv, writable=writable, cwd=cwd, read_only=read_only,
                              interpreter=interpreter,
                              home_tmpfs=jailhome.tmpfs_bytes(files, write_quota or 0)
                              if staged else None)
    status_read, status_write = os.pipe()
    # bwrap reports {"child-pid": N} first, and {"exit-code": N} only when the command
    # really ran: without it (and without our own kill) the jail itself failed.
    command[1:1] = ["--json-status-fd", str(status_write)]
    passed = (status_write,) + ((theirs.fileno(),) if theirs is not None else ())
    try:
        proc = subprocess.Popen(command, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                                stdout=stdout, stderr=stderr, start_new_session=True,
                                preexec_fn=preexec, close_fds=True, pass_fds=passed)
    except BaseException:
        os.close(status_read)
        if ours is not None:
            ours.close()
        raise
    finally:
        os.close(status_write)
        if theirs is not None:
            theirs.close()
    status = _Status(status_read)
    outcome = Outcome(returncode=0)
    tmpfs = -1
    if ours is not None:
        try:
            tmpfs = jailhome.receive(ours, timeout)
            jailhome.copy_in(writable, files, tmpfs)
            ours.sendall(b"g")
        except OSError as exc:
            reaper = _Reaper(proc, status.child_pid(0.0))
            reaper.kill()
            reaper.finish()
            status.finish()
            if tmpfs >= 0:
                os.close(tmpfs)
            raise JailBroken(f"bwrap could not make the jail ({exc}); check this machine "
                             "with `tooleval doctor`") from exc
        finally:
            ours.close()
    reaper = _Reaper(proc, status.child_pid(max(0.0, timeout - (time.monotonic() - started))))
    try:
        proc.wait(timeout=max(0.0, timeout - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        outcome.timed_out = True
        reaper.kill()
    finally:
        gone = reaper.finish()
    try:
        if tmpfs >= 0:
            if gone:
                outcome.applied = jailhome.copy_out(tmpfs, writable, files,
                                                    budget=jailhome.held_bytes(files)
                                                    + (write_quota or 0))
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


def _run_unjailed(argv: Sequence[str], *, writable: Path, cwd: Path, env: Mapping[str, str],
                  timeout: float, stdout: IO[bytes] | int, stderr: IO[bytes] | int,
                  preexec: Callable[[], None] | None, write_quota: int | None) -> Outcome:
    """The unsafe mode: no jail, the quota measured every 50 ms (a fast writer overshoots)."""
    before = disk_usage(writable) if write_quota is not None else 0
    proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                            stdout=stdout, stderr=stderr, start_new_session=True,
                            preexec_fn=preexec, close_fds=True)
    outcome = Outcome(returncode=0)
    stop = threading.Event()

    def kill() -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def watch() -> None:
        assert write_quota is not None
        while not stop.wait(0.05):
            used = disk_usage(writable)
            if used < 0 or used - before > write_quota:
                outcome.over_quota = True
                kill()
                return

    watcher = threading.Thread(target=watch, daemon=True) if write_quota is not None else None
    if watcher is not None:
        watcher.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        outcome.timed_out = True
    finally:
        stop.set()
        kill()
        proc.wait()
        if watcher is not None:
            watcher.join()
    if write_quota is not None and not outcome.over_quota:
        used = disk_usage(writable)
        outcome.over_quota = used < 0 or used - before > write_quota
    outcome.returncode = proc.returncode
    return outcome


def disk_usage(root: Path, limit_entries: int = 50_000) -> int:
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
