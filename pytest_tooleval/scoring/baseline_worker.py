"""The second process that scores a run's baselines (scoring/baseline_process.py starts
it): ``python -m pytest_tooleval.scoring.baseline_worker``.

It speaks JSON lines. On stdin, first ``{"init": {"k", "builtin", "world_base",
"rootdir"}}``, then any number of ``{"cases": [[nodeid, file, case], ...]}`` (scored in
the background, in order, each once) and one ``{"table": [[nodeid, file, case], ...]}``:
the policies' table over exactly those cases, in that order (scoring first whatever it
has not). On stdout: ``{"scored": N}`` at most every ``PROGRESS_S`` while it works,
then ``{"table": ...}`` or ``{"error": "..."}``, and it exits. It exits too when stdin
closes (the run's process is gone), and ignores Ctrl-C: the terminal sends SIGINT to the
whole process group, and the run that was interrupted still wants its baselines.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import IO, Any

#: The least time between two progress lines.
PROGRESS_S = 0.5


def _read(stream: IO[bytes], inbox: queue.SimpleQueue[dict[str, Any] | None]) -> None:
    """Every line from the run, so that a request never waits for a case in hand."""
    try:
        for line in stream:
            if line.strip():
                inbox.put(json.loads(line))
    finally:
        inbox.put(None)


def serve(stdin: IO[bytes], out: IO[bytes]) -> int:
    from pytest_tooleval.scoring.baselines import BaselineScorer, refs_for_specs

    def say(message: dict[str, Any]) -> None:
        out.write(json.dumps(message).encode("utf-8") + b"\n")
        out.flush()

    inbox: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
    threading.Thread(target=_read, args=(stdin, inbox), daemon=True,
                     name="tooleval-baselines-inbox").start()
    first = inbox.get()
    if first is None:
        return 0
    init = first["init"]
    rootdir = Path(init["rootdir"])
    scorer = BaselineScorer(k=init["k"], builtin=init["builtin"],
                            world_base=Path(init["world_base"]) if init["world_base"] else None)
    pending: deque[tuple[str, str, str]] = deque()
    scored = 0
    said = time.monotonic()

    def score(spec: tuple[str, str, str]) -> None:
        nonlocal scored, said
        for ref in refs_for_specs([spec], rootdir, scorer.files):
            scorer.score(ref)
        scored += 1
        if time.monotonic() - said >= PROGRESS_S:
            said = time.monotonic()
            say({"scored": scored})

    warm = False
    try:
        while True:
            if pending and inbox.empty():
                score(pending.popleft())
                continue
            if not warm:  # idle: what the table needs (numpy), imported before it is asked
                warm = True
                importlib.import_module("pytest_tooleval.scoring.aggregate")
                continue
            message = inbox.get()
            if message is None:
                return 0
            if "cases" in message:
                pending.extend(tuple(spec) for spec in message["cases"])
            elif "table" in message:
                specs = [tuple(spec) for spec in message["table"]]
                for spec in specs:
                    score(spec)  # each case once: what was scored already costs nothing
                table = scorer.table(refs_for_specs(specs, rootdir, scorer.files))
                scorer.close()
                say({"table": table})
                return 0
    except Exception as exc:  # the run scores afresh, and says why if it fails too
        say({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    finally:
        scorer.close()


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Replies go to a private copy of stdout; anything else printing (a warning, a
    # library's print) goes to stderr, never into the replies.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    code = serve(sys.stdin.buffer, out)
    out.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
