"""Issue 12, items 2 to 4: the file tools alone make git run a command or read a repository
outside the world; worktreeConfig reads an unchecked config; move_file moves the
repository. Each attack is tried through the tools; the harness checks the walls."""

from __future__ import annotations

import bz2
import io
import os
import re
import subprocess
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest
from harness import Hostile, needs_jail

from pytest_tooleval.tools.builtin import gittools
from pytest_tooleval.tools.builtin.sandbox import ToolError

pytestmark = needs_jail

REPO = "Projects/kestrel"


def _tar(members: dict[str, str | None]) -> bytes:
    """A plain tar: a name mapped to text (a file) or None (a folder)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.mtime = 1_700_000_000
            if text is None:
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                data = text.encode()
                info.size = len(data)
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _plant_tar_with_write_file(h: Hostile, name: str, members: dict[str, str | None]) -> None:
    """A plain tar is ASCII, so the model can make one with write_file."""
    data = _tar(members)
    assert all(byte < 128 for byte in data)
    h.tools.ok("write_file", path=name, content=data.decode("ascii"))


def _filter_config(h: Hostile) -> str:
    command = f"cat {h.canary} > {h.outside}/filtered; cat"
    # Quoted: an unquoted ';' would start a comment in a git config file.
    return f'[filter "x"]\n\tclean = "{command}"\n\tsmudge = "{command}"\n'


def _git_attempts(h: Hostile) -> list[str]:
    """Run the git tools that hash files (and so would run a clean filter)."""
    (h.world.repo / "src" / "app.py").write_text("TIMEOUT = 38\n")
    outputs = []
    for tool, args in (("git_status", {}), ("git_diff", {}), ("git_commit", {"message": "x"})):
        outputs.append(h.tools.provider.call(tool, args).text)
    return outputs


def test_commondir_member_is_refused_and_its_filter_never_runs(hostile: Hostile) -> None:
    members: dict[str, str | None] = {
        "evil/": None, "evil/objects/": None, "evil/refs/": None,
        "evil/config": "[core]\n\trepositoryformatversion = 0\n" + _filter_config(hostile),
        f"{REPO}/.git/commondir": "../../../evil\n",
        f"{REPO}/.gitattributes": "* filter=x\n",
    }
    _plant_tar_with_write_file(hostile, "Downloads/update.tar", members)
    refused = hostile.tools.err("extract_archive", archive_path="Downloads/update.tar",
                                destination=".")
    assert ".git" in refused
    assert not (hostile.world.repo / ".git" / "commondir").exists()
    _git_attempts(hostile)
    hostile.assert_contained()


def test_a_planted_commondir_is_refused_by_every_git_tool(hostile: Hostile) -> None:
    (hostile.world.home / "evil").mkdir()
    (hostile.world.home / "evil" / "config").write_text(_filter_config(hostile))
    (hostile.world.repo / ".git" / "commondir").write_text("../../../evil\n")
    (hostile.world.repo / ".gitattributes").write_text("* filter=x\n")
    for out in _git_attempts(hostile):
        assert "commondir" in out
    hostile.assert_contained()


def _outside_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "elsewhere"
    repo.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x",
           "GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "x@x"}
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True,  # noqa: E731
                                    capture_output=True, text=True).stdout
    run("init", "-q")
    (repo / "secret.txt").write_text("OUTSIDE SECRET 91c\n")
    run("add", "-A")
    run("commit", "-qm", "outside commit")
    return repo, run("rev-parse", "HEAD").strip()


def test_alternates_member_is_refused_and_outside_objects_stay_unseen(
        hostile: Hostile, tmp_path: Path) -> None:
    outside_repo, sha = _outside_repo(tmp_path)
    alternates = f"{outside_repo}/.git/objects\n"
    _plant_tar_with_write_file(hostile, "Downloads/objs.tar",
                               {f"{REPO}/.git/objects/info/alternates": alternates})
    assert ".git" in hostile.tools.err("extract_archive", archive_path="Downloads/objs.tar",
                                       destination=".")
    assert "OUTSIDE SECRET" not in hostile.tools.provider.call("git_show", {"ref": sha}).text
    # Planted directly (as a case file's world.files could): refused by name.
    (hostile.world.repo / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (hostile.world.repo / ".git" / "objects" / "info" / "alternates").write_text(alternates)
    shown = hostile.tools.err("git_show", ref=sha)
    assert "alternates" in shown and "OUTSIDE SECRET" not in shown
    hostile.assert_contained()


def test_the_jail_alone_keeps_outside_objects_out(hostile: Hostile, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """With the name check switched off, git in the jail still cannot see the outside."""
    outside_repo, sha = _outside_repo(tmp_path)
    monkeypatch.setattr(gittools, "_UNCHECKED", ())
    info = hostile.world.repo / ".git" / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_text(f"{outside_repo}/.git/objects\n")
    assert "OUTSIDE SECRET" not in hostile.tools.provider.call("git_show", {"ref": sha}).text
    hostile.assert_contained()


def test_the_jail_alone_contains_a_filter_that_runs(hostile: Hostile,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """With the config allowlist switched off the filter does run: inside the jail, where
    the canary and the listener do not exist."""
    monkeypatch.setattr(gittools, "_SAFE_CONFIG", __import__("re").compile(".*"))
    marker = hostile.world.repo / "ran-inside.txt"
    command = (f"echo ran >> ran-inside.txt; cat {hostile.canary} > "
               f"{hostile.outside}/filtered; cat")
    with (hostile.world.repo / ".git" / "config").open("a") as config:
        config.write(f'[filter "x"]\n\tclean = "{command}"\n')
    (hostile.world.repo / ".gitattributes").write_text("* filter=x\n")
    _git_attempts(hostile)
    assert marker.exists(), "the filter never ran: this test would prove nothing"
    hostile.assert_contained()


def test_what_runs_in_the_git_jail_has_run_pythons_file_and_cpu_limits(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git call had no CPU, file-size or open-file limit (only the 20 s clock), with the
    repository bound read-write on the host's disk: a shell run as a git call wrote 64 MiB
    to one file there, and this filter (the allowlist switched off) 16 MiB. Now
    run_python's limits hold."""
    monkeypatch.setattr(gittools, "_SAFE_CONFIG", __import__("re").compile(".*"))
    command = "cat /proc/$$/limits > limits.txt; head -c 16M /dev/zero > big.bin; cat"
    with (hostile.world.repo / ".git" / "config").open("a") as config:
        config.write(f'[filter "x"]\n\tclean = "{command}"\n')
    (hostile.world.repo / ".gitattributes").write_text("* filter=x\n")
    _git_attempts(hostile)
    limits = (hostile.world.repo / "limits.txt").read_text()
    assert re.search(r"Max cpu time +5 +6 ", limits), limits
    assert re.search(r"Max file size +8388608 +8388608 ", limits), limits
    assert re.search(r"Max open files +64 +64 ", limits), limits
    assert re.search(r"Max core file size +0 +0 ", limits), limits
    assert (hostile.world.repo / "big.bin").stat().st_size <= 8 * 2**20
    hostile.assert_contained()


def _nested_repository(h: Hostile, folder: str) -> Path:
    """A repository at ``folder`` inside the world's one, committed there as a gitlink (what
    run_python can do with the git it finds in the jail), its own config then given a clean
    filter that writes a marker: git runs ``git status`` in a gitlink's folder, and that
    reads the folder's config, which no allowlist checks."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(h.world.root), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x",
           "GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "x@x"}
    nested = h.world.repo / folder
    nested.mkdir(parents=True)
    (nested / "data.txt").write_text("hello\n")
    (nested / ".gitattributes").write_text("* filter=x\n")
    for cwd, args in ((nested, ("init", "-q")), (nested, ("add", "-A")),
                      (nested, ("commit", "-qm", "vendored")),
                      (h.world.repo, ("add", "--", folder))):
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)
    marker = nested / "ran-inside.txt"
    with (nested / ".git" / "config").open("a") as config:
        config.write(f'[filter "x"]\n\tclean = "echo ran >> {marker.name}; '
                     f'cat {h.canary} > {h.outside}/filtered; cat"\n')
    # A .gitmodules entry would override diff.ignoreSubmodules: none of that may matter.
    (h.world.repo / ".gitmodules").write_text(
        f'[submodule "v"]\n\tpath = {folder}\n\tignore = none\n')
    os.utime(nested / "data.txt", ns=(0, 0))
    return marker


@pytest.mark.parametrize("folder", ["vendor", "src/deep/lib"])
def test_a_nested_repositorys_config_never_runs(hostile: Hostile, folder: str) -> None:
    """A repository inside the world's repository (run_python can make one with git, and
    git_commit adds it as a gitlink): git status, git diff and git add run ``git status``
    in it, which ran its config's clean filter as the jail's uid, with the repository bound
    read-write on the host (100 MiB written to the host's disk in one call, a FIFO and a
    link left in the home). Every git tool now refuses such a repository, naming it."""
    marker = _nested_repository(hostile, folder)
    outputs = _git_attempts(hostile)
    assert not marker.exists(), "the nested repository's filter ran"
    for out in outputs:
        assert f"{folder}/.git" in out, out
    hostile.assert_contained()


def test_a_folder_that_cannot_be_listed_is_refused(hostile: Hostile,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk for a nested repository skipped a folder it could not list: under a
    controller that is not root, the jail's files are the controller's, so a snippet can
    chmod 0o111 the folder above a nested repository; the walk then saw no ``.git``, and
    git, which reaches ``d/sub/.git`` by its path (the search bit is enough), ran its
    config's filter. Such a folder is refused. (Listing is refused to this test, run as
    root, as the mode refuses it to any other controller.)"""
    _nested_repository(hostile, "src/deep/lib")
    hidden = hostile.world.repo / "src" / "deep"
    scandir = os.scandir

    def unlistable(path: str | os.PathLike[str] = ".") -> Any:
        if Path(path) == hidden:
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", unlistable)
    with pytest.raises(ToolError, match="src/deep cannot be listed"):
        gittools.refuse_nested(hostile.world.repo)


def test_worktree_config_is_not_read(hostile: Hostile) -> None:
    git_dir = hostile.world.repo / ".git"
    config = git_dir / "config"
    config.write_text(config.read_text().replace("repositoryformatversion = 0",
                                                 "repositoryformatversion = 1")
                      + "[extensions]\n\tworktreeConfig = true\n")
    (git_dir / "config.worktree").write_text(_filter_config(hostile))
    hostile.tools.ok("write_file", path=f"{REPO}/.gitattributes", content="* filter=x\n")
    outputs = _git_attempts(hostile)
    assert all("worktreeconfig" in out.lower() or "config.worktree" in out for out in outputs)
    hostile.assert_contained()


def test_worktree_config_through_a_case_files_world_files(hostile: Hostile,
                                                           tmp_path: Path) -> None:
    from pytest_tooleval.world.api import World
    from pytest_tooleval.world.factory import copy_world

    target = tmp_path / "override-world"
    world = copy_world(World(hostile.template), target, {"files": {
        f"{REPO}/.git/config.worktree": _filter_config(hostile),
        f"{REPO}/.gitattributes": "* filter=x\n"}})
    hostile.tools.provider.use_world(world)
    for out in _git_attempts(hostile):
        assert "config.worktree" in out
    hostile.assert_contained()


@pytest.mark.parametrize("name", [".git/info/attributes", ".GIT/hooks/post-checkout", "a/.Git/HEAD",
                                  "sub/.git/objects/info/alternates"])
def test_members_under_any_git_folder_are_refused(hostile: Hostile, name: str) -> None:
    _plant_tar_with_write_file(hostile, "Downloads/g.tar", {name: "x\n", "ok.txt": "fine\n"})
    assert ".git" in hostile.tools.err("extract_archive", archive_path="Downloads/g.tar",
                                       destination=REPO)
    assert not (hostile.world.repo / "ok.txt").exists()  # nothing extracted at all
    hostile.assert_contained()


@pytest.mark.parametrize("name", [".gitattributes", "src/.gitattributes", ".gitmodules",
                                  ".GITATTRIBUTES"])
def test_repository_control_files_are_refused_inside_the_repository(hostile: Hostile,
                                                                    name: str) -> None:
    _plant_tar_with_write_file(hostile, "Downloads/a.tar", {name: "* filter=x\n"})
    assert "repository" in hostile.tools.err("extract_archive", archive_path="Downloads/a.tar",
                                             destination=REPO)
    # Outside any repository the same member is only a file.
    assert "extracted 1" in hostile.tools.ok("extract_archive",
                                             archive_path="Downloads/a.tar",
                                             destination="Documents/unpacked")
    hostile.assert_contained()


def test_move_file_cannot_move_the_repository_or_in_and_out_of_git(hostile: Hostile) -> None:
    tools = hostile.tools
    assert "repository" in tools.err("move_file", source=REPO, destination="Moved")
    assert "repository" in tools.err("move_file", source="Projects", destination="Documents")
    assert ".git" in tools.err("move_file", source=f"{REPO}/.git", destination="Documents")
    assert ".git" in tools.err("move_file", source="Documents/notes.txt",
                               destination=f"{REPO}/.git/hooks/pre-commit")
    assert ".git" in tools.err("move_file", source="Documents/notes.txt",
                               destination=f"{REPO}/.git")
    assert (hostile.world.repo / ".git" / "HEAD").exists()
    tools.ok("write_file", path="Nest/inner/readme.txt", content="x")
    os.makedirs(hostile.world.home / "Nest" / "inner" / ".git")
    assert "git repository" in tools.err("move_file", source="Nest", destination="Documents")
    hostile.assert_contained()


def _bzip_tar_declaring(size: int) -> bytes:
    """A small .tar.bz2 whose one member really holds ``size`` zero bytes (bz2 streams
    concatenated, so it is built in well under a second)."""
    header = tarfile.TarInfo("big.bin")
    header.size = size
    chunk = 32 << 20
    assert size % chunk == 0
    zeros = bz2.compress(bytes(chunk))
    return (bz2.compress(header.tobuf(format=tarfile.GNU_FORMAT)) + zeros * (size // chunk)
            + bz2.compress(bytes(1024)))


def test_listing_a_bzip_bomb_is_time_capped(hostile: Hostile) -> None:
    data = _bzip_tar_declaring(1 << 30)
    assert len(data) < 8000
    path = hostile.world.home / "Downloads" / "small.tar.bz2"
    path.write_bytes(data)
    started = time.perf_counter()
    listing = hostile.tools.ok("list_archive", archive_path="Downloads/small.tar.bz2")
    assert time.perf_counter() - started < 3
    assert "big.bin" in listing and "listing stopped" in listing
    started = time.perf_counter()
    hostile.tools.err("extract_archive", archive_path="Downloads/small.tar.bz2")
    assert time.perf_counter() - started < 3
    hostile.assert_contained()
