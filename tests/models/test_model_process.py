"""The model process boundary on any machine (a stand-in worker, no llama.cpp): a native
crash becomes one error naming the signal and the fix, the next request gets a fresh
process, and a refusal or a hang is reported as such."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_tooleval.engine.session import classify_error
from pytest_tooleval.models.base import BackendUnavailable
from pytest_tooleval.models.model_process import (
    ModelProcess,
    ModelProcessDied,
    ModelProcessStalled,
    ModelRequestFailed,
)

FAKE = "tests.support.fake_model_worker"


@pytest.fixture
def process() -> Iterator[ModelProcess]:
    proc = ModelProcess(FAKE, {"op": "load"}, label="fake model process")
    yield proc
    proc.close()


def test_requests_are_answered_by_one_process(process: ModelProcess) -> None:
    first = process.request({"op": "complete"})
    second = process.request({"op": "complete"})
    assert first["text"] == '{"answer": "You are welcome."}'
    assert first["pid"] == second["pid"] == process.pid


def test_a_segfault_names_the_signal_and_the_next_request_gets_a_fresh_process(
    process: ModelProcess,
) -> None:
    old_pid = process.request({"op": "complete"})["pid"]
    with pytest.raises(ModelProcessDied) as caught:
        process.request({"op": "segfault"}, "answering a model call")
    error = caught.value
    assert isinstance(error, BackendUnavailable)  # the engine makes it an ERROR, not a FAIL
    assert error.signal_name == "SIGSEGV" and error.returncode == -11
    message = str(error)
    assert f"(pid {old_pid}) was killed by SIGSEGV (signal 11) while answering a model call" \
        in message
    assert "not of the model" in message and "TOOLEVAL_LLAMA_EXTRA_BUFFERS=off" in message
    assert "fake model: about to crash" in message  # the process's last words
    fresh = process.request({"op": "complete"})
    assert fresh["pid"] != old_pid


def test_an_abort_and_a_kill_are_named_with_their_own_fix(process: ModelProcess) -> None:
    with pytest.raises(ModelProcessDied, match="SIGABRT"):
        process.request({"op": "abort"})
    import os
    import signal

    process.request({"op": "complete"})
    assert process.pid is not None
    os.kill(process.pid, signal.SIGKILL)
    with pytest.raises(ModelProcessDied) as caught:
        for _ in range(200):  # until the kernel has delivered the kill
            process.request({"op": "complete"})
    assert caught.value.signal_name == "SIGKILL" and "out-of-memory" in str(caught.value)
    assert process.request({"op": "complete"})["pid"] == process.pid


def test_a_refusal_is_not_a_death(process: ModelProcess) -> None:
    with pytest.raises(ModelRequestFailed) as caught:
        process.request({"op": "refuse"})
    assert caught.value.kind == "context" and "too long" in str(caught.value)
    pid = process.pid
    assert process.request({"op": "complete"})["pid"] == pid


def test_native_output_on_stdout_does_not_corrupt_the_frames(process: ModelProcess) -> None:
    assert process.request({"op": "noise", "text": "ünïcode ✓"})["echo"] == "ünïcode ✓"
    assert process.request({"op": "complete"})["text"]


def test_a_process_that_sends_nothing_is_a_stall_and_is_killed() -> None:
    # 2 s: a fresh process must start and load within it on a loaded 2-core machine
    proc = ModelProcess(FAKE, {"op": "load"}, timeout_s=2.0)
    try:
        with pytest.raises(ModelProcessStalled, match=r"sent nothing for 2 s while answering"
                           ) as caught:
            proc.request({"op": "hang"})
        assert proc.pid is None  # killed; the next request starts a fresh process
        error = classify_error(caught.value)  # as the case result records it
        assert error.kind == "backend" and error.detail == "stall"  # the machine's, not a FAIL
        assert proc.request({"op": "complete"})["text"]
    finally:
        proc.close()


def test_close_ends_the_process(process: ModelProcess) -> None:
    import os

    pid = process.request({"op": "complete"})["pid"]
    process.close()
    assert process.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


class Interrupted(Exception):
    pass


def test_an_exchange_interrupted_midway_never_answers_the_next_request(
    process: ModelProcess,
) -> None:
    import signal

    def interrupt(signum, frame):
        raise Interrupted

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        first = process.request({"op": "complete"})["pid"]
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Interrupted):
            process.request({"op": "hang"})  # the reply it owes must not reach anyone
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    reply = process.request({"op": "noise", "text": "mine"})
    assert reply["echo"] == "mine" and process.pid != first
