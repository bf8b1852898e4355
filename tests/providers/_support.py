"""Helpers for the provider tests: the toy server, free ports, finding live processes."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from pytest_tooleval.tools.mcp import McpServerConfig

SERVERS = Path(__file__).parent / "servers"
TOY = SERVERS / "toy_server.py"


def new_tag() -> str:
    return f"tooleval-test-{uuid.uuid4().hex[:12]}"


def toy_config(tag: str, *extra: str, **fields: object) -> McpServerConfig:
    """A stdio config for the toy server, marked with ``tag`` on its command line."""
    return McpServerConfig(command=sys.executable, args=[str(TOY), "--tag", tag, *extra], **fields)


def pid_alive(pid: int) -> bool:
    """Running, and not a zombie (psutil when installed, else /proc)."""
    try:
        import psutil  # type: ignore[import-not-found]
    except ImportError:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker`` (this process excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def wait_gone(marker: str, timeout: float = 10.0) -> list[int]:
    """Wait until no process carries ``marker``; returns the ones still there."""
    deadline = time.monotonic() + timeout
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_toy_server() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The toy server over streamable HTTP on a free loopback port: (url, process)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(TOY), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the toy HTTP server did not come up") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
