"""A model library run in a child process, so that its native crashes are survivable.

The worker speaks ``multiprocessing`` connection messages over its stdin/stdout; when it
dies, the request raises ``ModelProcessDied`` (the case is an ERROR naming the signal and the
fix), and the next request starts a fresh process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

from pytest_tooleval.models.base import BackendUnavailable

#: Seconds the worker may send nothing while it owes a reply before it is killed as stalled.
DEFAULT_TIMEOUT_S = 900.0
#: The pid of the process that started the worker (set by ``ModelProcess``).
PARENT_ENV = "TOOLEVAL_MODEL_PARENT"
#: Seconds between the worker's checks that its parent is alive.
PARENT_CHECK_S = 0.5


class ModelProcessDied(BackendUnavailable):
    """The model process ended (a native crash, a kill) while it owed a reply."""

    def __init__(self, message: str, returncode: int | None) -> None:
        super().__init__(message)
        self.returncode = returncode

    @property
    def signal_name(self) -> str | None:
        code = self.returncode
        if code is None or code >= 0:
            return None
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"


class ModelProcessStalled(ModelProcessDied):
    """The worker sent nothing for ``timeout_s`` while it owed a reply, and was killed."""

    kind = "stall"


class ModelRequestFailed(BackendUnavailable):
    """A request the worker will not serve (raised in the worker, and again in the
    controller from its reply; the process stays alive)."""

    def __init__(self, message: str, kind: str = "refused") -> None:
        super().__init__(message)
        self.kind = kind


def die_with_parent() -> None:
    """End this process as soon as the process that started it is gone (a closed stdin
    ends only an idle worker). Not ``PR_SET_PDEATHSIG``: that fires when the *thread* that
    forked the worker ends. ctypes releases the GIL, so this runs during a generation too.
    """
    parent = int(os.environ.get(PARENT_ENV) or os.getppid())

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="tooleval-parent-watch", daemon=True).start()


def serve(handle: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The worker's loop: one reply per request until stdin closes or the parent dies.
    Replies go to a private copy of fd 1; fd 1 itself points at stderr, so that what a native
    library prints cannot corrupt a message."""
    die_with_parent()
    out = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    requests = Connection(0, writable=False)
    while True:
        try:
            message = requests.recv()
        except EOFError:
            return
        if message.get("op") == "exit":
            return
        try:
            reply = handle(message)
        except ModelRequestFailed as refusal:
            reply = {"ok": False, "error": str(refusal), "kind": refusal.kind}
        except Exception as error:  # reported to the controller, which makes it an ERROR
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}", "kind": "internal"}
        else:
            reply.setdefault("ok", True)
        out.send(reply)


def _fix_for(name: str | None) -> str:
    if name == "SIGKILL":
        return ("A SIGKILL usually means the kernel's out-of-memory killer: lower n_ctx in the "
                "profile, or run fewer xdist workers.")
    if name in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGABRT", "SIGFPE"):
        return ("A native crash inside llama.cpp. If this CPU has AMX (lscpu: amx_int8), try "
                "TOOLEVAL_LLAMA_EXTRA_BUFFERS=off; otherwise run the case alone with -k to "
                "reproduce it and report it with the case id and the llama.cpp output above.")
    return "Run the case alone with -k to reproduce it."


class ModelProcess:
    """One worker process at a time, started on first use and again after it dies.
    ``hello``: the first request every fresh process gets (loading the model)."""

    def __init__(self, module: str, hello: dict[str, Any], *, label: str = "model process",
                 timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.module = module
        self.hello = hello
        self.label = label
        self.timeout_s = timeout_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._to: Connection | None = None
        self._from: Connection | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        # The worker imports this package from where the controller found it.
        package_root = str(Path(__file__).resolve().parents[2])
        current = env.get("PYTHONPATH", "")
        env["PYTHONPATH"] = package_root + (os.pathsep + current if current else "")
        env[PARENT_ENV] = str(os.getpid())  # the worker ends when this process is gone
        return env

    def start(self) -> dict[str, Any]:
        """A fresh process with the model loaded; the hello reply."""
        self.close()
        self._stderr = tempfile.TemporaryFile(prefix="tooleval-model-")  # noqa: SIM115
        child_in, self._to = multiprocessing.Pipe(duplex=False)
        self._from, child_out = multiprocessing.Pipe(duplex=False)
        with child_in, child_out:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", self.module], stdin=child_in.fileno(),
                stdout=child_out.fileno(), stderr=self._stderr, env=self._environment(),
                close_fds=True,
            )
        return self._exchange(self.hello, "loading the model")

    def request(self, message: dict[str, Any], doing: str = "answering") -> dict[str, Any]:
        """One reply. A process that died between requests is reported once, as if it
        had died serving this request."""
        if self._proc is None:
            self.start()
        elif self._proc.poll() is not None:
            raise self._died(f"idle, before {doing}")
        return self._exchange(message, doing)

    def _exchange(self, message: dict[str, Any], doing: str) -> dict[str, Any]:
        assert self._to is not None and self._from is not None
        try:
            self._to.send(message)
            if not self._from.poll(self.timeout_s):
                raise self._stalled(doing)
            reply = self._from.recv()
        except (BrokenPipeError, ConnectionResetError, EOFError):
            raise self._died(doing) from None
        except BaseException:
            # Interrupted mid-exchange (Ctrl-C, a timeout in the caller): the reply still
            # owed would answer the next request, so this process cannot be used again.
            self._kill()
            raise
        if not reply.get("ok"):
            raise ModelRequestFailed(str(reply.get("error")), str(reply.get("kind")))
        return reply

    def _stalled(self, doing: str) -> ModelProcessStalled:
        return ModelProcessStalled(
            f"the {self.label} (pid {self.pid}) sent nothing for {self.timeout_s:g} s while "
            f"{doing} (a stall: a reply comes whole when its generation ends, so the "
            "generation did not end in time, or the model library is stuck) and was killed; "
            "this case is not scored and the next case starts a fresh process. Lower "
            "max_tokens, or run fewer xdist workers or other jobs beside it."
            + self._last_output(), None)

    def _last_output(self, limit: int = 1200) -> str:
        """The tail of the worker's stderr, as a sentence to end a message ("" if none)."""
        if self._stderr is None:
            return ""
        fd = self._stderr.fileno()
        data = os.pread(fd, limit, max(0, os.fstat(fd).st_size - limit))
        tail = " ".join(data.decode("utf-8", errors="replace").split())[-limit:]
        return f" Its last output: {tail}" if tail else ""

    def _died(self, doing: str) -> ModelProcessDied:
        proc = self._proc
        assert proc is not None
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        name = ModelProcessDied("", code).signal_name
        status = f"was killed by {name} (signal {-code})" if name else f"exited with status {code}"
        message = (
            f"the {self.label} (pid {proc.pid}) {status} while {doing}: a failure of the model "
            f"library, not of the model; this case is not scored and the next case starts a "
            f"fresh process. {_fix_for(name)}{self._last_output()}")
        self._kill()
        return ModelProcessDied(message, code)

    def _kill(self) -> None:
        """End the process (if it still runs) and let go of its pipes and log."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        for resource in (self._to, self._from, self._stderr):
            if resource is not None:
                with contextlib.suppress(OSError):
                    resource.close()
        self._to = self._from = self._stderr = None

    def close(self) -> None:
        if self.alive and self._to is not None and self._proc is not None:
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                self._to.send({"op": "exit"})
                self._to.close()
                self._proc.wait(timeout=10)
        self._kill()
