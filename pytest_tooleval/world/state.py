"""Read-only queries over one case's world, and the state checks built on them.

A write step is only measured if what it wrote is looked at: the calendar event's start, the
reminder's hour, the message's recipient, exactly which paths a commit touched. Nothing
here changes the world; git runs with the same hardened environment as the git tools
(no system or global config, no hooks, no pager).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pytest_tooleval.cases.evidence import evidence_found
from pytest_tooleval.cases.model import moment
from pytest_tooleval.world.api import World

#: Record fields compared as moments in time rather than as text.
TIME_FIELDS = frozenset({"start", "end", "at", "saved_at", "sent_at"})
RECORD_FILES = {"event": "calendar", "reminder": "reminders", "memory": "memories",
                "contact": "contacts", "message": "outbox"}


class StateUnavailable(Exception):
    """The world cannot be read (no git, a missing repository): never the model's fault."""


# -- queries --------------------------------------------------------------------------------
def records(world: World, kind: str) -> list[dict[str, Any]]:
    """The records of one kind (``event``, ``reminder``, ``memory``, ``contact``,
    ``message``) as the tools left them; a missing state file holds none."""
    name = RECORD_FILES[kind]
    try:
        return world.records(name)
    except (OSError, ValueError) as exc:
        raise StateUnavailable(f"state file {name}.json is unreadable: {exc}") from exc


def home_path(world: World, rel: str) -> Path:
    """A path under the world's home folder (never outside it)."""
    home = world.home.resolve()
    target = (home / rel.strip().lstrip("/")).resolve()
    if target != home and home not in target.parents:
        raise ValueError(f"{rel!r} is outside the home folder")
    return target


def file_text(world: World, rel: str) -> str | None:
    """The file's text (undecodable bytes replaced), or None when it does not exist."""
    path = home_path(world, rel)
    if not path.is_file():
        return None
    return path.read_bytes().decode("utf-8", "replace")


def _git(world: World, *args: str) -> str:
    binary = shutil.which("git")
    if binary is None:
        raise StateUnavailable("git is not installed: commit checks cannot run")
    repo = world.repo
    if not (repo / ".git").is_dir():
        raise StateUnavailable(f"no repository at {repo}")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(world.state_dir),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C.UTF-8",
           "GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo),
           "GIT_OPTIONAL_LOCKS": "0"}
    result = subprocess.run(
        [binary, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
         "-c", "core.quotepath=false", *args],
        env=env, cwd=repo, capture_output=True, text=True, errors="replace", timeout=20,
        stdin=subprocess.DEVNULL, check=False,
    )
    if result.returncode != 0:
        raise StateUnavailable(f"git {args[0]} failed: {result.stderr.strip()[:200]}")
    return result.stdout


def last_commit(world: World) -> tuple[str, list[str]]:
    """HEAD's full message and the repository-relative paths it touched, sorted."""
    message = _git(world, "log", "-1", "--format=%B", "HEAD").strip()
    paths = _git(world, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r",
                 "--no-renames", "HEAD").split("\n")
    return message, sorted(p for p in paths if p)


# -- matching -------------------------------------------------------------------------------
def _alternatives(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _zone(world: World) -> ZoneInfo | None:
    try:
        return ZoneInfo(world.timezone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def same_moment(expected: str, actual: str, world: World) -> bool:
    """An ISO date matches any time that day; a date-time matches the same instant (a naive
    one is read in the world's zone)."""
    try:
        want, got = moment(expected), datetime.fromisoformat(actual)
    except ValueError:
        return False
    zone = _zone(world)
    if not isinstance(want, datetime):  # a day
        if got.tzinfo is not None and zone is not None:
            got = got.astimezone(zone)
        return got.date() == want
    if want.tzinfo is None:
        want = want.replace(tzinfo=zone)
    if got.tzinfo is None:
        got = got.replace(tzinfo=zone)
    return want == got


def _field_holds(name: str, expected: str | Sequence[str], actual: Any, world: World,
                 language: str) -> bool:
    if actual is None:
        return False
    if name in TIME_FIELDS:
        return any(same_moment(alt, str(actual), world) for alt in _alternatives(expected))
    return evidence_found(_alternatives(expected), str(actual), language)


def find_record(world: World, kind: str, fields: Mapping[str, str | Sequence[str]],
                language: str = "en") -> dict[str, Any] | None:
    """The first record of ``kind`` whose every named field holds, or None."""
    for record in records(world, kind):
        if all(_field_holds(name, want, record.get(name), world, language)
               for name, want in fields.items()):
            return record
    return None


def evaluate(world: World, kind: str, spec: Any, *, contains: Any = None,
             language: str = "en") -> str | None:
    """None when the check holds, else what the world holds instead (for the report).

    ``kind`` and ``spec`` come from a ``StateCheck`` (``check.kind``, ``getattr(check,
    kind)``); text fields match as evidence does, time fields as moments.
    """
    if kind == "file":
        text = file_text(world, spec)
        if text is None:
            exists = home_path(world, spec).exists()
            return "it is not a file" if exists else "it does not exist"
        if contains is not None and not evidence_found(_alternatives(contains), text, language):
            return f"it does not contain {contains!r} (starts: {text[:120]!r})"
        return None
    if kind == "absent":
        return "it still exists" if home_path(world, spec).exists() else None
    if kind == "commit":
        message, paths = last_commit(world)
        if spec.message is not None and not evidence_found(
                _alternatives(spec.message), message, language):
            return f"the last commit's message is {message[:120]!r}"
        if spec.paths is not None:
            want = sorted(p.strip().removeprefix("./") for p in spec.paths)
            if want != paths:
                return f"the last commit touched {paths}, not exactly {want}"
        return None
    if find_record(world, kind, spec, language) is not None:
        return None
    held = records(world, kind)
    shown = [{k: r.get(k) for k in spec} for r in held[-3:]]
    return f"no {kind} has those fields; the last {len(shown)} of {len(held)}: {shown}"
