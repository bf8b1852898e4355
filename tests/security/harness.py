"""The harness around every hostile test (the fixtures are in conftest.py).

Each hostile test gets a fresh case world copied from a shared template, and around it:
a canary folder outside the world whose every file must be unchanged, a listener on
127.0.0.1 that must receive no connection, no process of ours left alive after the call
(this process is made a child subreaper, so that even a child that started a new session
and was orphaned comes back to us), and the shared template unchanged.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from minienv import Tools, build_world, snapshot

from pytest_tooleval.world.api import World

__all__ = ["CANARY_TEXT", "Hostile", "build_world", "needs_jail", "snapshot"]

PR_SET_CHILD_SUBREAPER = 36
CANARY_TEXT = "TOP SECRET canary 7f3a\n"


def jail_available() -> bool:
    """On code without the jail module every test runs (and shows what gets out)."""
    try:
        from pytest_tooleval.tools import jail
    except ImportError:
        return True
    return jail.probe().available


needs_jail = pytest.mark.skipif(not jail_available(), reason="bubblewrap jail unavailable")


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


def _set_subreaper(on: bool) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


@dataclass
class Hostile:
    world: World
    template: Path
    outside: Path  # a folder outside the world: nothing in it may change
    canary: Path  # a secret file in it
    port: int  # a loopback listener that must receive no connection
    tools: Tools
    listener: socket.socket
    before: dict[str, dict[str, str]] = field(default_factory=dict)
    children: set[int] = field(default_factory=set)

    def assert_contained(self, settle: float = 0.2) -> None:
        """The four walls: canary, listener, processes, template."""
        time.sleep(settle)
        left = _children(os.getpid()) - self.children
        for pid in left:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    shown = handle.read().replace(b"\0", b" ")[:200]
            except OSError:
                shown = b"?"
            with_kill(pid)
            pytest.fail(f"a process survived the call: pid {pid}: {shown!r}")
        try:
            connection, peer = self.listener.accept()
        except BlockingIOError:
            pass
        else:
            connection.close()
            pytest.fail(f"the loopback listener received a connection from {peer}")
        assert snapshot(self.outside) == self.before["outside"], "the canary folder changed"
        assert snapshot(self.template) == self.before["template"], "the template changed"


def with_kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
