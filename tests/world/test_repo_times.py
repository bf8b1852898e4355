"""The repository's files carry the times its history gives them (a model comparing
``file_info`` with ``git log`` sees one story)."""

from __future__ import annotations

import subprocess
from datetime import datetime

from pytest_tooleval.world import World
from pytest_tooleval.world.api import DEFAULT_NOW


def _git(world: World, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=world.repo, capture_output=True, text=True,
                          check=True).stdout


def test_each_committed_file_has_the_time_of_its_last_commit(template: World) -> None:
    dirty = {line[3:] for line in _git(template, "status", "--porcelain").splitlines()}
    assert dirty == {"kestrel/cli.py", "NOTES-release-0.5.md"}
    tracked = _git(template, "ls-files").split()
    assert tracked
    for rel in tracked:
        if rel in dirty:
            continue
        last = int(_git(template, "log", "-1", "--format=%ct", "main", "--", rel))
        assert int((template.repo / rel).stat().st_mtime) == last, rel


def test_uncommitted_work_is_newer_than_every_commit_and_older_than_now(template: World) -> None:
    newest_commit = int(_git(template, "log", "-1", "--format=%ct", "--all"))
    now = datetime.fromisoformat(DEFAULT_NOW).timestamp()
    for rel in ("kestrel/cli.py", "NOTES-release-0.5.md"):
        assert newest_commit < (template.repo / rel).stat().st_mtime < now, rel
    # a folder is as new as its newest entry
    assert (template.repo / "kestrel").stat().st_mtime == (
        template.repo / "kestrel/cli.py").stat().st_mtime
