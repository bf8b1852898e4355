"""The run journal ``journal.jsonl``: a ``start`` record (identity, selected cases with
their hashes), one flushed ``case`` record per finished case (a SIGKILL loses at most the
case in flight), and an ``end`` record. No ``end``: the run was killed; ``--tooleval-resume``
picks it up, ``tooleval merge`` refuses it. The case set is checked apart from the
identity, so a shard of a run has its parent's identity.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pytest_tooleval.config import Settings
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.registry import grammar_mode
from pytest_tooleval.report.json_report import package_version, platform_info

JOURNAL_NAME = "journal.jsonl"
#: Held (flock) by the run writing the folder, until its process ends its pytest session.
LOCK_NAME = ".lock"
JOURNAL_VERSION = 1
#: What an earlier run left in a report folder; moved to ``previous/`` by the next run (or
#: dropped, if it scored no case).
REPORT_FILES = ("report.json", "report.md", "report.html", "comparison.json", JOURNAL_NAME)


#: Profile fields that decide only whether and how fast the machine answers.
MACHINE_FIELDS = {"base_url", "concurrency", "retries", "start_hint", "timeout"}


class JournalError(Exception):
    """A journal that cannot be used (missing, unreadable, for another configuration)."""


def run_identity(settings: Settings, profile: Profile) -> dict[str, Any]:
    """What must be equal for results of two runs to be joined (resume, merge)."""
    project = settings.project
    return {
        # How fast and where, not what the model says: a run resumed after the server was
        # moved, or given more time or retries to fix its ERRORs, joins.
        "model": {k: v for k, v in profile.describe().items() if k not in MACHINE_FIELDS},
        "grammar": grammar_mode(settings, profile),
        "router": settings.router,
        "k": settings.k,
        "sample_every": settings.sample,
        "tools": {
            "builtin": not settings.no_builtin,
            "unsafe_no_jail": settings.unsafe_no_jail,
            "python_tools": project.get("python_tools", []),
            "mcp": project.get("mcp", {}),
        },
        "package_version": package_version(),
        "platform": platform_info().model_dump(),
    }


def differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """The keys whose values differ, as dotted paths (for a refusal's message)."""
    found: list[str] = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            found += differences(a, b, f"{prefix}{key}.")
        elif a != b:
            found.append(f"{prefix}{key}: {a!r} then, {b!r} now")
    return found


@dataclass
class Stored:
    start: dict[str, Any]
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    end: dict[str, Any] | None = None

    @property
    def identity_hash(self) -> str:
        return str(self.start.get("identity_hash"))


def read_journal(path: Path) -> Stored:
    """Read a journal; a torn last line (the process died mid-write) is ignored."""
    try:
        # Split on newlines only: str.splitlines also ends a line at U+2028 or NEL, which
        # json.dumps leaves unescaped in a transcript's text. Bytes, so that a torn last
        # line cut inside a character is that line's problem, not the file's.
        lines = path.read_bytes().split(b"\n")
    except FileNotFoundError:
        raise JournalError(f"no journal at {path}") from None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc}") from None
    if lines and not lines[-1]:
        lines.pop()  # what follows the last newline
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            if number == len(lines):
                break  # the write the kill interrupted
            raise JournalError(f"{path}:{number}: not a JSON line; the journal is damaged"
                               + (f"; delete line {number} (its case runs again) and retry"
                                  if number > 1 else "")) from None
        if not isinstance(record, dict):
            raise JournalError(f"{path}:{number}: not a journal record")
        records.append(record)
    if not records or records[0].get("type") != "start":
        raise JournalError(f"{path}: not a tooleval journal (no start record)")
    stored = Stored(records[0])
    for record in records[1:]:
        kind = record.get("type")
        if kind == "case" and isinstance(record.get("result"), dict):
            stored.cases[str(record["result"].get("nodeid"))] = record["result"]
        elif kind == "end":
            stored.end = record
    return stored


def set_aside(report_dir: Path, also: Iterable[Path] = ()) -> None:
    """Move what an earlier run left in the report folder (and ``also``, this run's other
    files there) to a fresh ``previous/``, so a killed run never leaves an older report
    looking like its own."""
    folder = report_dir.resolve()
    names = list(REPORT_FILES) + [path.name for path in also
                                  if path.resolve().parent == folder]
    present = [report_dir / name for name in dict.fromkeys(names)
               if (report_dir / name).exists()]
    if not present:
        return
    if not _scored(report_dir):
        # A run that scored no case (its server was down) is dropped: previous/ keeps the
        # last run that scored one, however many failed starts follow it.
        for path in present:
            path.unlink()
        return
    previous = report_dir / "previous"
    shutil.rmtree(previous, ignore_errors=True)
    previous.mkdir(parents=True, exist_ok=True)
    for path in present:
        os.replace(path, previous / path.name)


def _scored(report_dir: Path) -> bool:
    """Whether the run in ``report_dir`` scored a case, by its report.json (the journal may
    have stopped on a full disk) or else its journal; one it cannot read is kept (True)."""
    try:
        report = json.loads((report_dir / "report.json").read_text("utf-8"))
        return bool(report["summary"]["cases_scored"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        return any(result.get("outcome") != "ERROR"
                   for result in read_journal(report_dir / JOURNAL_NAME).cases.values())
    except JournalError:
        return True


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class FolderBusy(Exception):
    """Another run is writing the report folder."""


class Journal:
    """The controller's open journal; every record is one line, flushed at once. A write
    that fails (a full disk) ends the journal there, so that a line cut short stays its
    last: the run goes on, and ``error`` says why the journal stopped."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stream: IO[str] | None = None
        self._lock: IO[str] | None = None
        #: The start record was written: a resume can pick the run up from this journal.
        self.opened = False
        self.error: str | None = None

    def claim(self) -> None:
        """Hold the report folder for this run (``release`` or the process's end lets go):
        a second run writing it would set this one's journal aside and mix the two runs'
        files. ``FolderBusy`` when another run holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = (self.path.parent / LOCK_NAME).open("a", encoding="utf-8")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise FolderBusy(f"another run is writing {self.path.parent} now; give this one "
                             "a folder of its own: --tooleval-report DIR (tooleval run "
                             "--report DIR)") from None
        self._lock = lock

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def open(self, start: dict[str, Any], carried: Iterable[dict[str, Any]] = ()) -> None:
        """A new file with the start record and a resumed run's carried results, swapped in
        whole, then kept open for appending."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        staging = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        with staging.open("w", encoding="utf-8") as stream:
            stream.write(_line({"type": "start", "version": JOURNAL_VERSION, **start}))
            for data in carried:
                stream.write(_line({"type": "case", "result": data}))
        os.replace(staging, self.path)
        self.opened = True
        self._stream = self.path.open("a", encoding="utf-8")

    def append(self, data: dict[str, Any]) -> None:
        self._write({"type": "case", "result": data})

    def close(self, end: dict[str, Any]) -> None:
        self._write({"type": "end", "finished": now(), **end})
        self._stop()

    def _write(self, record: dict[str, Any]) -> None:
        if self._stream is None:
            return
        try:
            self._stream.write(_line(record))
            self._stream.flush()  # in the kernel's hands: survives the process being killed
        except OSError as exc:
            self.error = f"could not write the journal {self.path}: {exc.strerror or exc}"
            self._stop()

    def _stop(self) -> None:
        if self._stream is not None:
            with contextlib.suppress(OSError):  # what the failed write left in the buffer
                self._stream.close()
            self._stream = None


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
