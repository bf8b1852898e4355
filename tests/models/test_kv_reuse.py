"""Order-independent prefix reuse (pure planning) and the choice of
weight buffers for the CPU, without llama.cpp."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pytest_tooleval.models import llama_cpu
from pytest_tooleval.models.kv_reuse import aligned_boundaries, plan

# Prompts as token lists: a shared preamble, tool lines, then the case's own tail.
PRE = list(range(100, 140))  # 40 tokens
T1, T2, T3 = list(range(200, 250)), list(range(300, 350)), list(range(400, 450))
A = PRE + T1 + T2 + [7, 8, 9]
B = PRE + T1 + T3 + [7, 8, 9]


def bounds(*parts: list[int]) -> list[int]:
    out, total = [], 0
    for part in parts:
        total += len(part)
        out.append(total)
    return out


def test_reuse_stops_at_the_last_boundary_both_prompts_share() -> None:
    first = plan([], (), A, bounds(PRE, T1, T2), continues=False)
    assert first.keep == 0 and first.segments == (40, 90, 140, len(A))
    assert first.canonical == (40, 90, 140)
    second = plan(A, first.canonical, B, bounds(PRE, T1, T3), continues=False)
    assert second.keep == 90  # PRE + T1: the shared, canonical part
    assert second.segments == (140, len(B)) and second.canonical == (40, 90, 140)


def test_a_longer_token_match_beyond_a_boundary_is_not_reused_across_cases() -> None:
    # The same head and the same first tail tokens: the match runs past the head, but the
    # part after the head was batched by the other case, so it is evaluated again.
    other = A[:-1] + [99]
    step = plan(A, (40, 90, 140), other, [40, 90, 140], continues=False)
    assert step.keep == 140 and step.segments == (len(other),)


def test_the_next_round_of_the_same_conversation_reuses_everything_it_shares() -> None:
    context = A + [11, 12, 13]  # the prompt and what the model generated
    longer = context[:-1] + [21, 22, 23, 24]
    step = plan(context, (40, 90, 140), longer, [40, 90, 140], continues=True)
    assert step.keep == len(context) - 1 and step.segments == (len(longer),)
    assert step.canonical == (40, 90, 140)


def test_boundaries_must_agree_not_only_the_tokens() -> None:
    # The context was split differently (no boundary at 90): its KV past 40 is not the
    # canonical one for the new prompt.
    step = plan(A, (40, 140), A[:-1] + [5], [40, 90, 140], continues=False)
    assert step.keep == 40 and step.segments == (90, 140, len(A))


def test_the_last_token_is_always_evaluated_and_reuse_can_be_off() -> None:
    step = plan(A, (40, 90, 140), A, [40, 90, 140], continues=True)
    assert step.keep == len(A) - 1
    assert plan(A, (40, 90, 140), A, [40, 90, 140], continues=True, reuse=False).keep == 0


def test_aligned_boundaries_drop_cuts_inside_a_token_and_short_segments() -> None:
    prompt = [1, 2, 3, 4, 5, 6, 7, 8]
    prefixes = [[1, 2], [1, 2, 9], [1, 2, 3], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, 7, 8]]
    assert aligned_boundaries(prompt, prefixes) == [2, 3, 6]
    assert aligned_boundaries(prompt, prefixes, min_segment=3) == [3, 6]


@pytest.mark.parametrize(("flags", "info", "expected"), [
    ({"avx2", "amx_int8", "amx_tile"}, "AVX2 = 1 |", False),
    ({"avx2"}, "CPU : AVX2 = 1 | AMX_INT8 = 1 | REPACK = 1", False),
    ({"avx2", "avx512f"}, "CPU : AVX2 = 1 | AVX512 = 1 | REPACK = 1", True),
])
def test_extra_buffers_are_off_exactly_where_amx_is_in_play(flags, info, expected) -> None:
    choice = llama_cpu.decide_extra_buffers(None, flags, info)
    assert choice.use_extra_bufts is expected
    assert ("AMX detected" in choice.reason) is not expected
    assert choice.describe().startswith("plain CPU" if not expected else "repacked")


def test_the_environment_and_the_caller_override_the_detection() -> None:
    amx = {"amx_int8"}
    assert llama_cpu.decide_extra_buffers(None, amx, "", env="on").use_extra_bufts is True
    assert llama_cpu.decide_extra_buffers(True, set(), "", env="off").use_extra_bufts is False
    assert llama_cpu.decide_extra_buffers(False, set(), "").reason == "set by the caller"
    with pytest.raises(ValueError, match="TOOLEVAL_LLAMA_EXTRA_BUFFERS"):
        llama_cpu.decide_extra_buffers(None, set(), "", env="maybe")


def test_cpu_flags_are_read_from_cpuinfo(tmp_path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 amx_tile amx_int8\n\n")
    assert {"amx_tile", "amx_int8"} <= llama_cpu.cpu_flags(cpuinfo)
    assert llama_cpu.cpu_flags(tmp_path / "missing") == set()


def test_default_threads_split_the_usable_cpus_among_xdist_workers(monkeypatch):
    monkeypatch.setattr(llama_cpu.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert llama_cpu.default_threads(busy=0) == 4
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    assert llama_cpu.default_threads(busy=0) == 2
    assert llama_cpu.default_threads(workers=3, busy=0) == 1  # never below one
    assert llama_cpu.default_threads(workers=8, busy=0) == 1
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "junk")
    assert llama_cpu.default_threads(busy=0) == 4


def test_default_threads_leave_the_cores_other_work_takes(monkeypatch):
    """Measured on 2 cores: beside one busy process two threads took 10.0 s, one 7.7 s."""
    monkeypatch.setattr(llama_cpu.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert llama_cpu.default_threads(busy=0.1) == 2
    assert llama_cpu.default_threads(busy=1.0) == 1
    assert llama_cpu.default_threads(busy=2.0) == 1  # never below one
    assert llama_cpu.default_threads(workers=2, busy=0) == 1


def test_busy_cpus_read_from_proc_stat() -> None:
    before = "cpu  0 0 0 0 0 0 0 0\ncpu0 100 0 0 900 0 0 0 0\ncpu1 100 0 0 900 0 0 0 0\n"
    after = "cpu  0 0 0 0 0 0 0 0\ncpu0 200 0 0 900 0 0 0 0\ncpu1 100 0 0 1000 0 0 0 0\n"
    assert llama_cpu.busy_between(before, after, {0, 1}) == 1.0  # cpu0 busy, cpu1 idle
    assert llama_cpu.busy_between(before, after, {1}) == 0.0  # only the usable CPUs count
    assert llama_cpu.busy_cpus({0}, stat=Path("/nonexistent")) == 0.0


def test_a_busy_process_is_seen() -> None:
    """The real /proc/stat with a busy loop on one of this process's CPUs."""
    import subprocess
    import sys

    try:
        cpu = min(os.sched_getaffinity(0))
    except AttributeError:
        pytest.skip("no CPU affinity on this platform")
    hog = subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, "
                            f"{{{cpu}}})\nwhile True: pass"])
    try:
        time.sleep(0.3)
        assert llama_cpu.busy_cpus({cpu}, seconds=0.5) > 0.7
    finally:
        hog.kill()
        hog.wait()


def test_the_embedded_profile_threads_are_the_usable_cpus_per_worker(monkeypatch):
    from pytest_tooleval.models import registry
    from pytest_tooleval.models.profiles import Profile

    monkeypatch.setattr(llama_cpu.os, "sched_getaffinity", lambda pid: set(range(6)), raising=False)
    monkeypatch.setattr(llama_cpu, "busy_cpus", lambda cpus: 0.0)  # a quiet machine
    import pytest_tooleval.models.llama as llama_module
    captured = {}

    def fake_init(self, *args, **kwargs):
        captured.update(kwargs)
        raise RuntimeError("stop here")

    monkeypatch.setattr(llama_module.LlamaBackend, "__init__", fake_init)
    profile = Profile(name="smollm2-135m", kind="llama", gguf="default")
    with pytest.raises(RuntimeError, match="stop here"):
        registry.make_backend(profile, "on", workers=2)
    assert captured["n_threads"] == 3  # six usable CPUs, two workers
