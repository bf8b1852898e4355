"""The world is the same bytes, commit ids and dates on every build and machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pytest_tooleval.world import World
from pytest_tooleval.world.build import build_template
from tests.world.helpers import snapshot


def _commit_ids(world: World) -> list[str]:
    out = subprocess.run(
        ["git", "log", "--all", "--format=%H %an %ad %s", "--date=iso-strict"],
        cwd=world.repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()


def test_two_builds_are_identical(template: World, tmp_path: Path) -> None:
    again = build_template(tmp_path / "again")
    assert snapshot(again.root) == snapshot(template.root)
    assert _commit_ids(again) == _commit_ids(template)


def test_build_in_subprocess_with_other_home_and_tz(template: World, tmp_path: Path) -> None:
    fake_home = tmp_path / "fakehome"
    fake_home.mkdir()
    # A user config that would change commits if it leaked into the build.
    (fake_home / ".gitconfig").write_text(
        "[user]\n\tname = Leaky User\n\temail = leak@example.invalid\n"
        "[commit]\n\tgpgsign = true\n[init]\n\tdefaultBranch = trunk\n"
    )
    env = {
        **os.environ,
        "HOME": str(fake_home),
        "TZ": "America/Los_Angeles",
        "LANG": "tr_TR.UTF-8",
        "GIT_AUTHOR_NAME": "Leaky",
        "GIT_COMMITTER_DATE": "2001-01-01",
    }
    dest = tmp_path / "sub"
    code = (
        f"from pathlib import Path; from pytest_tooleval.world.build import build_template; "
        f"build_template(Path({str(dest)!r}))"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=tmp_path)
    assert snapshot(dest) == snapshot(template.root)
    assert _commit_ids(World(dest)) == _commit_ids(template)


def test_commit_ids_match_build_record(template: World) -> None:
    meta = json.loads((template.root / "meta" / "build.json").read_text(encoding="utf-8"))
    logged = {line.split()[0] for line in _commit_ids(template)}
    recorded = {c["sha"] for c in meta["repo"]["commits"]}
    assert logged == recorded
