"""Private copies per case, overrides, refused escapes and the build lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_tooleval.world import World
from pytest_tooleval.world.factory import WorldFactory, WorldOverrideError
from tests.world.helpers import snapshot


def test_copies_are_independent(factory: WorldFactory, template: World, tmp_path: Path) -> None:
    before = snapshot(template.root)
    a = factory.new_case_world(tmp_path / "a")
    b = factory.new_case_world(tmp_path / "b")
    (a.documents / "Ev" / "kargo_takip.txt").write_text("changed")
    (a.home / "new.txt").write_text("new")
    a.save_state("memories", [])
    subprocess.run(
        ["git", "commit", "-qam", "case commit"],
        cwd=a.repo,
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )
    assert (b.documents / "Ev" / "kargo_takip.txt").read_text(encoding="utf-8") != "changed"
    assert not (b.home / "new.txt").exists()
    assert len(b.load_state("memories")) == 40
    assert snapshot(template.root) == before
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=b.repo, capture_output=True, text=True, check=True
    ).stdout
    assert status.splitlines() == [" M kestrel/cli.py", "?? NOTES-release-0.5.md"]


def test_clock_and_timezone_overrides(factory: WorldFactory, tmp_path: Path) -> None:
    w = factory.new_case_world(tmp_path / "c", {"clock": "2026-07-01T08:15:00+03:00"})
    assert w.now().isoformat() == "2026-07-01T08:15:00+03:00"
    w = factory.new_case_world(tmp_path / "z", {"timezone": "America/New_York"})
    assert w.timezone == "America/New_York"
    assert w.now().isoformat() == "2026-03-12T03:47:00-04:00"  # same instant, other zone
    w = factory.new_case_world(
        tmp_path / "n", {"clock": "2026-12-31T23:59:00", "timezone": "Asia/Tokyo"}
    )
    assert w.now().isoformat() == "2026-12-31T23:59:00+09:00"


def test_extra_files(factory: WorldFactory, template: World, tmp_path: Path) -> None:
    files = {"Documents/Yeni/not_ğüş.txt": "merhaba", "top.md": "# hi"}
    w = factory.new_case_world(tmp_path / "f", {"files": files})
    assert (w.home / "Documents/Yeni/not_ğüş.txt").read_text(encoding="utf-8") == "merhaba"
    assert (w.home / "top.md").read_text(encoding="utf-8") == "# hi"
    assert not (template.home / "top.md").exists()


@pytest.mark.parametrize(
    "rel",
    [
        "../outside.txt",
        "/etc/passwd",
        "a/../../x",
        "..",
        "C:\\x.txt",
        "\\\\server\\share\\x",
        "",
        "Notes/../../x",
    ],
)
def test_escaping_paths_refused(factory: WorldFactory, tmp_path: Path, rel: str) -> None:
    with pytest.raises(WorldOverrideError):
        factory.new_case_world(tmp_path / "e", {"files": {rel: "x"}})
    assert not (tmp_path / "outside.txt").exists()


def test_symlink_escape_refused(factory: WorldFactory, tmp_path: Path) -> None:
    w = factory.new_case_world(tmp_path / "s")
    outside = tmp_path / "outside"
    outside.mkdir()
    (w.home / "link").symlink_to(outside)
    from pytest_tooleval.world.factory import copy_world

    with pytest.raises(WorldOverrideError):
        copy_world(w, tmp_path / "s2", {"files": {"link/evil.txt": "x"}})
    assert not (outside / "evil.txt").exists()


@pytest.mark.parametrize(
    "bad", [{"clock": "yesterday"}, {"timezone": "Mars/Olympus"}, {"weather": "sunny"}]
)
def test_bad_overrides_refused(factory: WorldFactory, tmp_path: Path, bad: dict) -> None:
    with pytest.raises(WorldOverrideError):
        factory.new_case_world(tmp_path / "b", bad)


def test_two_processes_build_one_template(tmp_path: Path) -> None:
    base = tmp_path / "shared"
    code = (
        "import json, sys; from pathlib import Path; "
        "from pytest_tooleval.world import build; "
        "from pytest_tooleval.world.factory import WorldFactory; "
        "built = []; real = build.build_template; "
        "build.build_template = lambda dest: built.append(dest) or real(dest); "
        "w = WorldFactory(Path(sys.argv[1])).template(); "
        "print(json.dumps({'root': str(w.root), 'built': bool(built)}))"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(base)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    results = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert results[0]["root"] == results[1]["root"]
    assert sorted(r["built"] for r in results) == [False, True]
    entries = sorted(p.name for p in base.iterdir() if not p.name.endswith(".lock"))
    assert entries == [Path(results[0]["root"]).name]
