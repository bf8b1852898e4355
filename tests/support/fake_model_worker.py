"""A stand-in model process speaking the real frames (``model_process.serve``), for tests
of crashes and restarts on any machine, without llama.cpp.

Requests: ``load`` (answers its pid), ``complete`` (answers ``{"answer": ...}``), and on
purpose: ``segfault`` (a real native SIGSEGV through ctypes), ``abort``, ``hang``,
``refuse``, ``noise`` (prints to stdout, which must not corrupt the frames). With
``TOOLEVAL_FAKE_CRASH_FILE`` set, the first ``complete`` that finds that file deletes it
and segfaults: one crash across restarts. With ``TOOLEVAL_FAKE_HANG_PID_FILE`` set, every
``complete`` writes the process's pid there and sleeps for two minutes: a busy worker.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from typing import Any

from pytest_tooleval.models.base import Backend
from pytest_tooleval.models.model_process import ModelRequestFailed, serve

CRASH_FILE_ENV = "TOOLEVAL_FAKE_CRASH_FILE"
HANG_PID_FILE_ENV = "TOOLEVAL_FAKE_HANG_PID_FILE"


def segfault() -> None:
    ctypes.string_at(0)  # reads address 0: SIGSEGV in native code


def handle(message: dict[str, Any]) -> dict[str, Any]:
    op = message.get("op")
    if op == "load":
        print("fake model loaded", file=sys.stderr, flush=True)
        return {"pid": os.getpid()}
    if op == "complete":
        crash_file = os.environ.get(CRASH_FILE_ENV)
        if crash_file and os.path.exists(crash_file):
            os.unlink(crash_file)
            print("fake model: about to crash", file=sys.stderr, flush=True)
            segfault()
        hang_pid_file = os.environ.get(HANG_PID_FILE_ENV)
        if hang_pid_file:
            with open(hang_pid_file + ".part", "w") as stream:
                stream.write(str(os.getpid()))
            os.replace(hang_pid_file + ".part", hang_pid_file)
            time.sleep(120)
        return {"text": '{"answer": "You are welcome."}', "pid": os.getpid()}
    if op == "segfault":
        print("fake model: about to crash", file=sys.stderr, flush=True)
        segfault()
    if op == "abort":
        os.abort()
    if op == "hang":
        time.sleep(60)
    if op == "refuse":
        raise ModelRequestFailed("too long for the context", "context")
    if op == "noise":
        print("native chatter on stdout", flush=True)
        os.write(1, b"more chatter from C\n")
        return {"echo": message.get("text")}
    raise ModelRequestFailed(f"unknown request {op!r}", "internal")


if __name__ == "__main__":
    serve(handle)


class FakeProcessBackend(Backend):
    """A backend whose model runs in the stand-in worker: what ``LlamaBackend`` does with
    its process, without llama.cpp (for plugin-level crash tests on any machine)."""

    mode = "on"

    def __init__(self) -> None:
        from pytest_tooleval.models.model_process import ModelProcess

        self.process = ModelProcess("tests.support.fake_model_worker", {"op": "load"},
                                    label="fake model process")

    def complete(self, messages: list[Any], tools: list[Any]) -> Any:
        from pytest_tooleval.models.base import ModelTurn

        if os.environ.get("TOOLEVAL_FAKE_CRASH_ALWAYS"):
            self.process.request({"op": "segfault"}, "answering a model call")
        reply = self.process.request({"op": "complete"}, "answering a model call")
        return ModelTurn(content=reply["text"], finish_reason="stop")

    def describe(self) -> dict[str, Any]:
        return {"backend": "fake model process", "grammar": self.mode}

    def close(self) -> None:
        self.process.close()
