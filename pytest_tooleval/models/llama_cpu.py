"""The embedded model's use of the CPU: weight buffers and threads.

On CPUs with AMX, llama-cpp-python 0.3.36 repacks weights into the AMX buffer and segfaults
in the first batched decode (llama.cpp #20824), so llama.cpp's "extra buffer types" are off
wherever AMX is in play and left as llama.cpp chooses elsewhere.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

#: Overrides the automatic choice: "on" (llama.cpp's default) or "off".
ENV_OVERRIDE = "TOOLEVAL_LLAMA_EXTRA_BUFFERS"
AMX_FLAGS = ("amx_int8", "amx_tile", "amx_bf16")


@dataclass(frozen=True)
class BufferChoice:
    use_extra_bufts: bool
    reason: str

    def describe(self) -> str:
        path = "repacked (llama.cpp extra buffer types)" if self.use_extra_bufts else (
            "plain CPU buffers (extra buffer types off)")
        return f"{path}: {self.reason}"


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The CPU feature flags the kernel reports (empty where there is no /proc/cpuinfo)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()


def amx_in_system_info(system_info: str) -> bool:
    """llama.cpp's own view: its system info prints ``AMX_INT8 = 1`` when it built the AMX
    path and the CPU has it."""
    compact = system_info.replace(" ", "")
    return "AMX_INT8=1" in compact or "AMX=1" in compact


def decide_extra_buffers(
    requested: bool | None, flags: set[str], system_info: str, env: str | None = None
) -> BufferChoice:
    """``requested``: the caller's choice (None: automatic). ``env``: the value of
    ``TOOLEVAL_LLAMA_EXTRA_BUFFERS``, which wins."""
    if env:
        value = env.strip().lower()
        if value in ("0", "off", "false", "no"):
            return BufferChoice(False, f"{ENV_OVERRIDE}={env}")
        if value in ("1", "on", "true", "yes"):
            return BufferChoice(True, f"{ENV_OVERRIDE}={env}")
        raise ValueError(f"{ENV_OVERRIDE} must be on or off, not {env!r}")
    if requested is not None:
        return BufferChoice(requested, "set by the caller")
    amx_cpu = sorted(flag for flag in AMX_FLAGS if flag in flags)
    if amx_cpu or amx_in_system_info(system_info):
        seen = f"CPU flags {' '.join(amx_cpu)}" if amx_cpu else "llama.cpp reports AMX_INT8 = 1"
        return BufferChoice(False, f"AMX detected ({seen}); llama.cpp's AMX repack crashes "
                                   "in the first batched decode (llama.cpp #20824)")
    return BufferChoice(True, "no AMX on this CPU")


def choose(requested: bool | None, system_info: str) -> BufferChoice:
    return decide_extra_buffers(requested, cpu_flags(), system_info, os.environ.get(ENV_OVERRIDE))


def default_threads(workers: int | None = None, busy: float | None = None) -> int:
    """Threads for one embedded model: the usable CPUs that other work (``busy``) leaves
    free, shared among the xdist workers, never fewer than one. llama.cpp's threads wait for
    each other, so a thread on a taken core holds up all (docs/dev/threads.md)."""
    try:
        usable = set(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        usable = set(range(os.cpu_count() or 1))
    if workers is None:
        try:
            workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
        except ValueError:
            workers = 1
    workers = max(1, workers)
    if busy is None:
        busy = busy_cpus(usable)
    share = max(1, len(usable) // workers)
    return max(1, min(share, round((len(usable) - busy) / workers)))


def busy_cpus(cpus: set[int], seconds: float = 0.25, stat: Path = Path("/proc/stat")) -> float:
    """How many of ``cpus`` other work kept busy over ``seconds`` (``/proc/stat``; 0 where
    it cannot be read)."""
    try:
        before = stat.read_text()
        time.sleep(seconds)
        return busy_between(before, stat.read_text(), cpus)
    except (OSError, ValueError, IndexError):
        return 0.0


def busy_between(before: str, after: str, cpus: set[int]) -> float:
    """The busy CPUs (0 to ``len(cpus)``) between two readings of ``/proc/stat``."""

    def ticks(text: str) -> dict[str, tuple[int, int]]:
        found = {}
        for line in text.splitlines():
            name, *fields = line.split()
            if name[:3] == "cpu" and name[3:].isdigit() and int(name[3:]) in cpus:
                values = [int(value) for value in fields[:8]]
                found[name] = (sum(values), values[3] + values[4])  # all, idle + iowait
        return found

    first, busy = ticks(before), 0.0
    for name, (total, idle) in ticks(after).items():
        total0, idle0 = first.get(name, (total, idle))
        if total > total0:
            busy += 1 - (idle - idle0) / (total - total0)
    return busy
