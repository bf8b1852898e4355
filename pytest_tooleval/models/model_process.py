"""A model library run in a child process, so that its native crashes are survivable.

llama.cpp can die in native code (a segfault in a CPU kernel, an abort on a failed
assertion, the kernel's out-of-memory killer). In-process that ends the whole pytest run
with no report. Here the ``Llama`` object lives in a worker process that speaks length-
prefixed pickle frames over its stdin/stdout; when it dies, the request raises
``ModelProcessDied`` (a ``BackendUnavailable``: the case is an ERROR naming the signal and
the fix), and the next request starts a fresh process.

The frames carry only small builtins (a prompt, token counts, the generated text), so the
boundary costs well under a millisecond next to a model call (measured by
``scripts/bench_embedded.py``).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from pytest_tooleval.models.base import BackendUnavailable

_HEADER = struct.Struct(">I")
#: Seconds the worker may send nothing while it owes a reply (a reply comes whole when
#: the generation ends) before it is taken to be stalled and killed.
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
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


class ModelProcessStalled(ModelProcessDied):
    """The worker sent nothing for ``timeout_s`` while it owed a reply, and was killed."""

    kind = "stall"


class ModelRequestFailed(BackendUnavailable):
    """The worker is alive but could not serve the request (it says why)."""

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind


# -- framing ------------------------------------------------------------------------------------
def write_frame(stream: IO[bytes], message: Any) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def _read_exact(stream: IO[bytes], size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(stream: IO[bytes]) -> Any:
    """The next message, or None at end of stream."""
    header = _read_exact(stream, _HEADER.size)
    if header is None:
        return None
    payload = _read_exact(stream, _HEADER.unpack(header)[0])
    return None if payload is None else pickle.loads(payload)


def die_with_parent() -> None:
    """End this process as soon as the process that started it is gone.

    A closed stdin ends an idle worker, but one busy in a long request would run on for
    minutes after a SIGKILL of pytest. A thread compares ``getppid()`` with the pid of the
    process that started the worker (``PARENT_ENV``; so a parent that died before this
    thread started counts too): when that process dies, the worker is reparented (to init
    or a subreaper) and the two differ. Not ``PR_SET_PDEATHSIG``: that fires when the
    *thread* that forked the worker ends, and ``ModelProcess`` starts a worker on whichever
    thread asks first. llama.cpp runs through ctypes, which releases the GIL, so the check
    runs during a generation too.
    """
    parent = int(os.environ.get(PARENT_ENV) or os.getppid())

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="tooleval-parent-watch", daemon=True).start()


def serve(handle: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The worker's loop: one reply per request until stdin closes (or the parent dies:
    ``die_with_parent``).

    The protocol keeps a private copy of fd 1; fd 1 itself is pointed at stderr so that
    anything a native library prints cannot corrupt a frame.
    """
    die_with_parent()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    while True:
        message = read_frame(stdin)
        if message is None or message.get("op") == "exit":
            return
        try:
            reply = handle(message)
        except WorkerRefusal as refusal:
            reply = {"ok": False, "error": str(refusal), "kind": refusal.kind}
        except Exception as error:  # reported to the controller, which makes it an ERROR
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}", "kind": "internal"}
        else:
            reply.setdefault("ok", True)
        write_frame(out, reply)


class WorkerRefusal(Exception):
    """Raised in the worker for a request it will not serve (the reply says why)."""

    def __init__(self, message: str, kind: str = "refused") -> None:
        super().__init__(message)
        self.kind = kind


# -- the controller's side ------------------------------------------------------------------------
def _fix_for(name: str | None) -> str:
    if name == "SIGKILL":
        return ("A SIGKILL usually means the kernel's out-of-memory killer: lower n_ctx in the "
                "profile, run fewer xdist workers, or lower TOOLEVAL_LLAMA_STATE_CACHE.")
    if name in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGABRT", "SIGFPE"):
        return ("A native crash inside llama.cpp. If this CPU has AMX (lscpu: amx_int8), try "
                "TOOLEVAL_LLAMA_EXTRA_BUFFERS=off; otherwise run the case alone with -k to "
                "reproduce it and report it with the case id and the llama.cpp output above.")
    return "Run the case alone with -k to reproduce it."


class ModelProcess:
    """One worker process at a time, started on first use and again after it dies.

    ``hello``: the first request every fresh process gets (loading the model); its reply is
    kept in ``hello_reply``.
    """

    def __init__(self, module: str, hello: dict[str, Any], *, label: str = "model process",
                 timeout_s: float = DEFAULT_TIMEOUT_S, env: dict[str, str] | None = None) -> None:
        self.module = module
        self.hello = hello
        self.label = label
        self.timeout_s = timeout_s
        self.env = env
        self.hello_reply: dict[str, Any] = {}
        self.starts = 0
        self.deaths: list[str] = []  # signal or exit status of each process that died
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ if self.env is None else self.env)
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
        self._proc = subprocess.Popen(
            [sys.executable, "-m", self.module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._stderr, env=self._environment(), close_fds=True,
        )
        self.starts += 1
        self.hello_reply = self._exchange(self.hello, "loading the model")
        return self.hello_reply

    def request(self, message: dict[str, Any], doing: str = "answering") -> dict[str, Any]:
        """One reply. A process found dead (it died between requests) is reported once, as
        if it had died serving this request; the request after that gets a fresh one."""
        if self._proc is None:
            self.start()
        elif self._proc.poll() is not None:
            raise self._died(f"idle, before {doing}")
        return self._exchange(message, doing)

    def _exchange(self, message: dict[str, Any], doing: str) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            write_frame(proc.stdin, message)
            reply = self._read_reply(proc, doing)
        except (BrokenPipeError, ConnectionResetError, EOFError):
            reply = None
        except BaseException:
            # Interrupted mid-exchange (Ctrl-C, a timeout in the caller): the reply still
            # owed would answer the next request, so this process cannot be used again.
            self._abandon()
            raise
        if reply is None:
            raise self._died(doing)
        if not reply.get("ok"):
            raise ModelRequestFailed(str(reply.get("error")), str(reply.get("kind", "")))
        return reply

    def _read_reply(self, proc: subprocess.Popen[bytes], doing: str) -> Any:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], self.timeout_s)
        if not ready:
            proc.kill()
            proc.wait()
            self.deaths.append("stall")
            tail = self._stderr_tail()
            self._discard()
            raise ModelProcessStalled(
                f"the {self.label} (pid {proc.pid}) sent nothing for {self.timeout_s:g} s while "
                f"{doing} (a stall: a reply comes whole when its generation ends, so the "
                "generation did not end in time, or the model library is stuck) and was killed; "
                "this case is not scored and the next case starts a fresh process. Lower "
                "max_tokens, or run fewer xdist workers or other jobs beside it."
                + (f" Its last output: {tail}" if tail else ""), None)
        return read_frame(proc.stdout)

    def _stderr_tail(self, limit: int = 1200) -> str:
        if self._stderr is None:
            return ""
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        data = os.pread(fd, limit, max(0, size - limit))
        return " ".join(data.decode("utf-8", errors="replace").split())[-limit:]

    def _died(self, doing: str) -> ModelProcessDied:
        proc = self._proc
        assert proc is not None
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        died = ModelProcessDied("", code)
        name = died.signal_name
        status = f"was killed by {name} (signal {-code})" if name else f"exited with status {code}"
        self.deaths.append(name or f"exit {code}")
        tail = self._stderr_tail()
        message = (
            f"the {self.label} (pid {proc.pid}) {status} while {doing}: a failure of the model "
            f"library, not of the model; this case is not scored and the next case starts a "
            f"fresh process. {_fix_for(name)}"
        )
        if tail:
            message += f" Its last output: {tail}"
        self._discard()
        return ModelProcessDied(message, code)

    def _abandon(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        self._discard()

    def _discard(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                write_frame(proc.stdin, {"op": "exit"})
                proc.stdin.close()
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                proc.kill()
                proc.wait()
        self._discard()
