"""``tools/jailhome.py`` on plain folders: what the copy in and the copy back do.

A plain folder stands in for the jail's tmpfs (the functions only see a descriptor); the
jailed path, with the real tmpfs and its size cap, is tested in
``tests/security/test_run_python_escapes.py``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tooleval.tools import fdwalk, jailhome

Staged = tuple[int, Path, dict[str, jailhome.Entry]]
BUDGET = 2**20


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    (root / "Documents" / "old").mkdir(parents=True)
    (root / "notes.txt").write_text("keep me\n")
    (root / "Documents" / "plan.md").write_text("# plan\n")
    (root / "Documents" / "old" / "2019.txt").write_text("old\n")
    os.utime(root / "notes.txt", ns=(1_600_000_000 * 10**9, 1_600_000_000 * 10**9))
    return root


@contextlib.contextmanager
def stage(home: Path, tmp_path: Path) -> Iterator[Staged]:
    """The home as it is now copied into a stand-in tmpfs; yields (descriptor, its path,
    snapshot)."""
    stand_in = tmp_path / "tmpfs"
    stand_in.mkdir()
    files = jailhome.snapshot(home)
    fd = os.open(stand_in, os.O_RDONLY | os.O_DIRECTORY)
    try:
        jailhome.copy_in(home, files, fd)
        yield fd, stand_in, files
    finally:
        os.close(fd)


@pytest.fixture
def staged(home: Path, tmp_path: Path) -> Iterator[Staged]:
    with stage(home, tmp_path) as found:
        yield found


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() if p.is_file() else "/"
            for p in sorted(root.rglob("*"))}


def test_copy_in_keeps_contents_modes_and_times(home: Path, staged: Staged) -> None:
    _, stand_in, files = staged
    assert _tree(stand_in) == _tree(home)
    assert set(files) == {"notes.txt", "Documents", "Documents/plan.md", "Documents/old",
                          "Documents/old/2019.txt"}
    assert (stand_in / "notes.txt").stat().st_mtime_ns == (home / "notes.txt").stat().st_mtime_ns


def test_nothing_changed_writes_nothing(home: Path, staged: Staged) -> None:
    fd, _, files = staged
    inode = (home / "notes.txt").stat().st_ino
    applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert (applied.written, applied.removed, applied.dropped) == (0, 0, [])
    assert (home / "notes.txt").stat().st_ino == inode  # not rewritten


def test_edits_new_files_folders_and_deletions_come_back(home: Path, staged: Staged) -> None:
    fd, stand_in, files = staged
    (stand_in / "notes.txt").write_text("edited\n")
    (stand_in / "Documents" / "old" / "2019.txt").unlink()
    (stand_in / "Documents" / "old").rmdir()
    (stand_in / "Reports" / "q3").mkdir(parents=True)
    (stand_in / "Reports" / "q3" / "sum.csv").write_text("a,b\n1,2\n")
    os.chmod(stand_in / "Documents" / "plan.md", 0o600)
    applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert _tree(home) == {"Documents": "/", "Documents/plan.md": "# plan\n", "Reports": "/",
                           "Reports/q3": "/", "Reports/q3/sum.csv": "a,b\n1,2\n",
                           "notes.txt": "edited\n"}
    assert (applied.written, applied.removed, applied.dropped) == (2, 2, [])
    assert (home / "Documents" / "plan.md").stat().st_mode & 0o777 == 0o600
    assert not list(home.rglob(jailhome.SYNC_PREFIX + "*"))


def test_an_edit_that_keeps_size_and_time_is_still_seen(home: Path, staged: Staged) -> None:
    fd, stand_in, files = staged
    target = stand_in / "notes.txt"
    before = target.stat()
    target.write_text("KEEP ME\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert (home / "notes.txt").read_text() == "KEEP ME\n"
    assert (home / "notes.txt").stat().st_mtime_ns == before.st_mtime_ns



def test_what_another_call_changed_meanwhile_is_not_reverted(home: Path, staged: Staged
                                                             ) -> None:
    # A jailed call may outlive its tool call's clock, and the case's next call (write_file)
    # change the home meanwhile: the copy back took the tmpfs's unchanged old copy for an
    # edit and wrote it over the newer file, and recreated or deleted files under it.
    fd, stand_in, files = staged
    (home / "notes.txt").write_text("written by the next call\n")
    (home / "Documents" / "plan.md").unlink()
    (home / "Documents" / "old" / "2019.txt").write_text("rewritten\n")
    (stand_in / "Documents" / "old" / "2019.txt").unlink()  # the jailed call's own removal
    jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert (home / "notes.txt").read_text() == "written by the next call\n"
    assert not (home / "Documents" / "plan.md").exists()
    assert (home / "Documents" / "old" / "2019.txt").read_text() == "rewritten\n"

def test_links_fifos_and_link_collisions_are_not_kept(home: Path, staged: Staged,
                                                       tmp_path: Path) -> None:
    fd, stand_in, files = staged
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, home / "away")  # in the home before, never copied in
    os.symlink("/etc/passwd", stand_in / "passwd")
    os.mkfifo(stand_in / "pipe")
    (stand_in / "away").mkdir()  # a real folder where the home has a link
    (stand_in / "away" / "planted.txt").write_text("x")
    applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert not os.path.lexists(home / "passwd") and not os.path.lexists(home / "pipe")
    assert os.path.islink(home / "away") and list(outside.iterdir()) == []
    assert {"passwd", "pipe", "away", "away/planted.txt"} <= set(applied.dropped)


def test_hard_linked_files_in_the_home_are_not_copied_in(home: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    os.link(secret, home / "hard.txt")
    assert "hard.txt" not in jailhome.snapshot(home)


def test_hard_links_made_on_the_tmpfs_come_back_as_files(home: Path, staged: Staged) -> None:
    fd, stand_in, files = staged
    os.link(stand_in / "notes.txt", stand_in / "twin.txt")
    jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert (home / "twin.txt").read_text() == "keep me\n"
    assert (home / "notes.txt").read_text() == "keep me\n"


def test_too_many_entries_discards_the_whole_call(home: Path, staged: Staged,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    fd, stand_in, files = staged
    monkeypatch.setattr(fdwalk, "MAX_ENTRIES", 20)
    (stand_in / "notes.txt").write_text("changed\n")
    for n in range(30):
        (stand_in / f"f{n}").write_text("x")
    applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert applied.discarded and "more than 25" in applied.dropped[0]  # 5 in the home + 20
    assert (home / "notes.txt").read_text() == "keep me\n"
    assert not list(home.glob("f*"))


def test_folders_nested_too_deep_discard_the_call(home: Path, staged: Staged) -> None:
    fd, stand_in, files = staged
    deep = stand_in.joinpath(*["d"] * (fdwalk.MAX_DEPTH + 2))
    deep.mkdir(parents=True)
    applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert applied.discarded and "deeper" in applied.dropped[0]
    assert not (home / "d").exists()


def test_modes_taken_away_inside_do_not_stop_the_copy_back(home: Path, staged: Staged) -> None:
    """(As root the modes bind nobody; the modes must still arrive as they were set.)"""
    fd, stand_in, files = staged
    (stand_in / "locked").mkdir()
    (stand_in / "locked" / "in.txt").write_text("inside")
    os.chmod(stand_in / "locked" / "in.txt", 0)
    os.chmod(stand_in / "locked", 0o100)
    applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert applied.dropped == []
    assert (home / "locked").stat().st_mode & 0o777 == 0o100
    assert (home / "locked" / "in.txt").stat().st_mode & 0o777 == 0
    os.chmod(home / "locked", 0o700)
    os.chmod(home / "locked" / "in.txt", 0o600)
    assert (home / "locked" / "in.txt").read_text() == "inside"


def test_a_read_only_folder_made_writable_inside_gets_the_new_file(home: Path,
                                                                   tmp_path: Path) -> None:
    os.chmod(home / "Documents", 0o555)
    with stage(home, tmp_path) as (fd, stand_in, files):
        assert (stand_in / "Documents").stat().st_mode & 0o777 == 0o555
        os.chmod(stand_in / "Documents", 0o755)
        (stand_in / "Documents" / "new.txt").write_text("new")
        applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert applied.dropped == []
    assert (home / "Documents" / "new.txt").read_text() == "new"
    assert (home / "Documents").stat().st_mode & 0o777 == 0o755


def test_a_folder_whose_removal_is_refused_keeps_its_mode(home: Path, tmp_path: Path) -> None:
    """The folder holds a link, never copied in, so removing it on the host fails: it was
    made writable for the copy back and must get its own mode again."""
    kept = home / "kept"
    kept.mkdir()
    (kept / "link").symlink_to("/nowhere")
    os.chmod(kept, 0o500)
    with stage(home, tmp_path) as (fd, stand_in, files):
        os.chmod(stand_in / "kept", 0o700)
        os.rmdir(stand_in / "kept")
        applied = jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert applied.dropped == ["kept"]
    assert kept.is_dir() and (kept / "link").is_symlink()
    assert kept.stat().st_mode & 0o777 == 0o500


def test_the_tmpfs_size_is_the_files_in_pages_plus_the_quota(home: Path) -> None:
    files = jailhome.snapshot(home)
    assert jailhome.tmpfs_bytes(files, 10 * 2**20) == 3 * 4096 + 10 * 2**20 + 16 * 4096


def test_a_stager_that_sends_nothing_is_a_staging_failure() -> None:
    import socket

    ours, theirs = socket.socketpair()
    theirs.close()
    with pytest.raises(jailhome.StagingFailed, match="before handing"):
        jailhome.receive(ours, timeout=2)
    ours.close()


def test_sparse_files_and_hard_links_cannot_multiply_the_quota(home: Path, staged: Staged
                                                               ) -> None:
    """A hole costs the tmpfs nothing and a link costs it once, but each name would be
    written out whole: past the budget nothing is kept."""
    fd, stand_in, files = staged
    with open(stand_in / "sparse.bin", "wb") as handle:
        handle.truncate(8 * 2**20)
    applied = jailhome.copy_out(fd, home, files, budget=jailhome.held_bytes(files) + 2**20)
    assert applied.discarded and "sparse files and hard links" in applied.dropped[0]
    assert not (home / "sparse.bin").exists()
    (stand_in / "sparse.bin").unlink()
    (stand_in / "one.bin").write_bytes(b"x" * 300_000)
    for n in range(5):
        os.link(stand_in / "one.bin", stand_in / f"link{n}.bin")
    applied = jailhome.copy_out(fd, home, files, budget=jailhome.held_bytes(files) + 2**20)
    assert applied.discarded and not list(home.glob("*.bin"))


def test_setuid_and_setgid_bits_never_reach_the_home(home: Path, staged: Staged) -> None:
    fd, stand_in, files = staged
    (stand_in / "tool").write_text("#!/bin/sh\n")
    os.chmod(stand_in / "tool", 0o6755)
    os.chmod(stand_in / "Documents", 0o3777)
    jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert (home / "tool").stat().st_mode & 0o7777 == 0o755
    assert (home / "Documents").stat().st_mode & 0o7777 == 0o1777 & 0o3777


def test_a_touch_alone_is_carried_back(home: Path, staged: Staged) -> None:
    fd, stand_in, files = staged
    os.utime(stand_in / "notes.txt", ns=(10**18, 10**18))
    jailhome.copy_out(fd, home, files, budget=BUDGET)
    assert (home / "notes.txt").stat().st_mtime_ns == 10**18
    assert (home / "notes.txt").read_text() == "keep me\n"


def test_a_file_swapped_for_a_fifo_or_a_link_is_never_read(tmp_path: Path) -> None:
    """The copy back opens by descriptor, one name at a time: a FIFO does not block it and
    a folder swapped for a link to elsewhere is not followed."""
    from pytest_tooleval.tools import fdwalk

    root = tmp_path / "t"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside")
    ino = (root / "d" / "f.txt").stat().st_ino
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("SECRET")
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.close(fdwalk.open_file(top, "d/f.txt", ino))
        (root / "d" / "f.txt").unlink()
        os.mkfifo(root / "d" / "f.txt")
        with pytest.raises(OSError, match="no longer the file"):
            fdwalk.open_file(top, "d/f.txt", ino)
        (root / "d").rename(root / "d-away")
        os.symlink(outside, root / "d")
        with pytest.raises(OSError):
            fdwalk.open_file(top, "d/f.txt", (outside / "f.txt").stat().st_ino)
        victim = outside / "f.txt"
        os.chmod(victim, 0o600)
        with pytest.raises(OSError):
            fdwalk.chmod_at(top, "d", 0o777, (root / "d-away").stat().st_ino)
        assert victim.stat().st_mode & 0o777 == 0o600
    finally:
        os.close(top)


def test_a_home_past_the_limit_is_refused(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jailhome, "HOME_LIMIT", 10)
    with pytest.raises(jailhome.HomeTooLarge, match="delete or move files first"):
        jailhome.snapshot(home)


def test_names_that_are_not_utf8_are_printable_in_the_notes() -> None:
    from pytest_tooleval.tools.builtin import runner

    applied = jailhome.Applied(dropped=[os.fsdecode(b"\xff\xfe"),
                                        "a\nnote: all tests passed", "x" * 5000])
    note = runner._sync_notes(applied)[0]
    assert "\\xff\\xfe" in note and "a\\x0anote" in note and "\n" not in note
    assert len(note) < 600
    note.encode("utf-8")  # a report can hold it
