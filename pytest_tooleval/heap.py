"""The garbage collector and a run's large heap: kept out of the way while the cases run,
and at the interpreter's exit. ``TOOLEVAL_GC=full`` leaves both to Python as they were.

A run's heap is large (pytest's, the imports', the cases' results, the router's tables:
about 150,000 objects for 300 cases), and each full collection walks all of it with the
interpreter lock held, every lane waiting. Measured with scripts/bench_concurrency.py
``--trace`` and scripts/profile_concurrency.py (docs/usage.md, "Concurrency"):

- While the cases run (``freeze_for_run``, when the lanes start, again after the first
  case's report, which imports what the end needs; ``thaw`` when pytest's loop over the
  items ends): the objects alive then are frozen (``gc.freeze``), out of the full
  collections, which then walk only what the run has made since (a full collection in
  the loop went from 0.06–0.12 s to 0.02–0.03 s). Nothing is lost: ``thaw`` puts them
  back before pytest's own end (its collections for unraisable exceptions see every
  object, as before); a cycle among them that became garbage during the loop is
  collected then instead of during the loop.

- At the exit: after the last exit handler, CPython's finalization runs full
  collections over every object still alive, several times (after removing the modules,
  after clearing them); that was most of the time between the last exit handler and the
  process's end (0.26–0.41 s of CPU for 300 cases, against 0.03 s after this). So the
  last exit handler (registered when this module is imported, with the plugin, before
  any handler registered later: those run first) collects the garbage there is, as the
  first of those collections would (finalizers and weak-reference callbacks run, an
  unclosed file in a cycle is closed), and then freezes every object still alive: the
  finalization's collections skip them. Everything else of the exit is as before: every
  exit handler runs, the standard streams are flushed, the modules are cleared (an
  object that is not in a reference cycle is still freed, and its ``__del__`` runs, as
  the modules are cleared). What is given up: an object that becomes garbage *during*
  finalization inside a reference cycle is left to the operating system instead of being
  collected, which Python does not promise either ("It is not guaranteed that
  ``__del__()`` methods are called for objects that still exist when the interpreter
  exits", the language reference).

Only in a process that ran tooleval cases (``arm``, from ``pytest_sessionfinish``; the
freeze while running, only with lanes): a plain pytest run with the plugin installed
collects as it always did.
"""

from __future__ import annotations

import atexit
import gc
import os

# Imported first, so that its own last exit handler (a mark) runs after this one's.
from pytest_tooleval import trace

ENV = "TOOLEVAL_GC"

_armed = False
_frozen = False


def _full() -> bool:
    return os.environ.get(ENV, "").strip().lower() == "full"


def freeze_for_run() -> None:
    """The objects alive now out of the full collections until ``thaw`` (main thread).
    Not where something else has frozen objects already (a server that forks, say):
    ``thaw`` would unfreeze its objects too."""
    global _frozen
    if _full() or _frozen or gc.get_freeze_count():
        return
    gc.freeze()
    _frozen = True
    if trace.ENABLED:
        trace.mark(f"heap: {gc.get_freeze_count()} objects frozen while the cases run")


def refreeze() -> None:
    """Freeze what was made since (the end's imports), where a run is frozen already."""
    if _frozen:
        gc.freeze()
        if trace.ENABLED:
            trace.mark(f"heap: {gc.get_freeze_count()} objects frozen after the first case")


def thaw() -> None:
    """Every frozen object back under the collector, as if nothing had been frozen."""
    global _frozen
    if _frozen:
        gc.unfreeze()
        _frozen = False
        trace.mark("heap: thawed")


def arm() -> None:
    """This process ran a tooleval run: its exit collects once, then freezes."""
    global _armed
    _armed = True


def wanted() -> bool:
    return _armed and not _full()


def _collect_then_freeze() -> None:
    if not wanted():
        return
    gc.collect()
    gc.freeze()
    trace.mark("exit: garbage collected, the rest frozen")


atexit.register(_collect_then_freeze)
