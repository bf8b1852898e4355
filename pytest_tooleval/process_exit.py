"""The interpreter's exit after a run: its garbage collected once, then not again.

After the last exit handler, CPython's finalization runs full garbage collections over
every object still alive, several times (after removing the modules, after clearing
them), on a heap that a run makes large (pytest's, the imports', the cases' results,
the router's tables). Measured (scripts/bench_concurrency.py --trace; docs/usage.md,
"Concurrency") that was most of the time between the last exit handler and the process's
end: 0.26–0.41 s of CPU for 300 cases, against 0.03 s after this.

So the last exit handler (registered when this module is imported, with the plugin,
before any handler registered later: those run first) collects the garbage there is,
as the first of those collections would (finalizers and weak-reference callbacks run,
an unclosed file in a cycle is closed), and then freezes every object still alive
(``gc.freeze``): the finalization's collections skip them. Everything else of the exit
is as before: every exit handler runs, the standard streams are flushed, the modules
are cleared (an object that is not in a reference cycle is still freed, and its
``__del__`` runs, as the modules are cleared). What is given up: an object that becomes
garbage *during* finalization inside a reference cycle is left to the operating system
instead of being collected, which Python does not promise either ("It is not
guaranteed that ``__del__()`` methods are called for objects that still exist when the
interpreter exits", the language reference).

Only in a process that ran a tooleval run (``arm``, from ``pytest_sessionfinish``); a
plain pytest run with the plugin installed exits as it always did.
``TOOLEVAL_EXIT_GC=full`` keeps the interpreter's own collections in a run too.
"""

from __future__ import annotations

import atexit
import gc
import os

# Imported first, so that its own last exit handler (a mark) runs after this one's.
from pytest_tooleval import trace

ENV = "TOOLEVAL_EXIT_GC"

_armed = False


def arm() -> None:
    """This process ran a tooleval run: its exit collects once, then freezes."""
    global _armed
    _armed = True


def wanted() -> bool:
    return _armed and os.environ.get(ENV, "").strip().lower() != "full"


def _collect_then_freeze() -> None:
    if not wanted():
        return
    gc.collect()
    gc.freeze()
    trace.mark("exit: garbage collected, the rest frozen")


atexit.register(_collect_then_freeze)
