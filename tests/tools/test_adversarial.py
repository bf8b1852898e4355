"""The model is the adversary: every path argument of every file tool gets hostile input,
archives try to slip out, and run_python tries to escape. Afterwards the file system
outside the sandbox must be unchanged."""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from minienv import Tools, snapshot

from pytest_tooleval.tools.builtin import runner
from pytest_tooleval.world.api import World

# (tool, argument, valid arguments for the rest)
PATH_ARGUMENTS: list[tuple[str, str, dict[str, Any]]] = [
    ("list_directory", "path", {}),
    ("read_file", "path", {}),
    ("write_file", "path", {"content": "pwned"}),
    ("find_files", "path", {"pattern": "*"}),
    ("file_info", "path", {}),
    ("move_file", "source", {"destination": "Moved"}),
    ("move_file", "destination", {"source": "Documents/notes.txt"}),
    ("delete_file", "path", {"recursive": True}),
    ("read_document", "path", {}),
    ("create_archive", "paths", {"archive_path": "Out/a.zip"}),
    ("create_archive", "archive_path", {"paths": ["Documents/notes.txt"]}),
    ("list_archive", "archive_path", {}),
    ("extract_archive", "archive_path", {}),
    ("extract_archive", "destination", {"archive_path": "Downloads/photos.zip"}),
    ("git_log", "path", {}),
    ("git_diff", "path", {}),
    ("grep_code", "path", {"pattern": "."}),
    ("git_commit", "paths", {"message": "pwned"}),
]

PAYLOADS = {
    "dotdot": "../x",
    "absolute": "/etc/passwd",
    "nested-dotdot": "a/../../x",
    "state-file": "Documents/../../state/clock.json",
    "canary-abs": "{canary}/secret.txt",
    "symlink-dir-out": "out_link/secret.txt",
    "symlink-dir-out-itself": "out_link",
    "symlink-file-out": "secret_link",
    "symlink-dev-zero": "zero",
    "hard-link": "hard.txt",
    "fifo": "fifo",
    "nul": "Documents/notes.txt\x00.pdf",
    "long-name": "b" * 300,
    "very-long": "a/" * 3000,
    "backslash": "..\\..\\x",
}
LINK_ITSELF = {"symlink-dir-out-itself", "symlink-file-out", "symlink-dev-zero"}


def plant(world: World, canary: Path) -> None:
    """Hostile objects inside the home folder and inside the repository."""
    for base in (world.home, world.repo):
        (base / "out_link").symlink_to(canary)
        (base / "secret_link").symlink_to(canary / "secret.txt")
        (base / "zero").symlink_to("/dev/zero")
        os.link(canary / "secret.txt", base / "hard.txt")
        os.mkfifo(base / "fifo")


@pytest.fixture
def hostile(world: World, canary: Path, tools: Tools) -> Any:
    plant(world, canary)
    before_canary = snapshot(canary)
    before_outside = snapshot(world.root, skip=world.home)
    yield tools
    assert snapshot(canary) == before_canary
    assert snapshot(world.root, skip=world.home) == before_outside
    assert not (world.root.parent / "x").exists() and not (world.root / "x").exists()


@pytest.mark.parametrize("payload", list(PAYLOADS), ids=list(PAYLOADS))
@pytest.mark.parametrize(("tool", "argument", "rest"), PATH_ARGUMENTS,
                         ids=[f"{t}.{a}" for t, a, _ in PATH_ARGUMENTS])
def test_traversal_is_refused(hostile: Tools, canary: Path, tool: str, argument: str,
                              rest: dict[str, Any], payload: str) -> None:
    value: Any = PAYLOADS[payload].format(canary=canary)
    if argument == "paths":
        value = [value]
    result = hostile.provider.call(tool, {**rest, argument: value})
    if tool == "delete_file" and payload in LINK_ITSELF:
        # removing a link that lives inside is allowed; its target stays (checked by fixture)
        assert result.text.startswith("deleted link"), result.text
        return
    assert result.is_error, f"{tool}({argument}={value!r}) was not refused: {result.text}"
    assert "TOP SECRET" not in result.text


def test_delete_of_symlink_removes_only_the_link(tools: Tools, world: World,
                                                 canary: Path) -> None:
    (world.home / "link").symlink_to(canary)
    assert "deleted link" in tools.ok("delete_file", path="link", recursive=True)
    assert (canary / "secret.txt").exists()


def test_links_created_inside_are_not_followed(tools: Tools, world: World,
                                               canary: Path) -> None:
    """A link planted between calls (say by another tool) is checked on every call."""
    tools.ok("write_file", path="Docs2/a.txt", content="a")
    shutil.rmtree(world.home / "Docs2")
    (world.home / "Docs2").symlink_to(canary)
    assert tools.err("write_file", path="Docs2/a.txt", content="b")
    assert not (canary / "a.txt").exists()


def _zip(entries: list[tuple[str, bytes, int | None]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.external_attr = mode << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def _tar(members: list[tarfile.TarInfo], data: bytes = b"evil") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member in members:
            if member.isreg():
                member.size = len(data)
                tar.addfile(member, io.BytesIO(data))
            else:
                tar.addfile(member)
    return buffer.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


SLIPS: dict[str, tuple[str, Any]] = {
    "zip-dotdot": ("zip", [("ok.txt", b"ok", None), ("../evil.txt", b"evil", None)]),
    "zip-deep-dotdot": ("zip", [("a/../../../evil.txt", b"evil", None)]),
    "zip-absolute": ("zip", [("/tmp/evil.txt", b"evil", None)]),
    "zip-backslash": ("zip", [("..\\..\\evil.txt", b"evil", None)]),
    "zip-drive": ("zip", [("C:/evil.txt", b"evil", None)]),
    "zip-symlink": ("zip", [("link", b"{canary}", stat.S_IFLNK | 0o777),
                            ("link/evil.txt", b"evil", None)]),
    "tar-dotdot": ("tar", [_member("ok.txt"), _member("../evil.txt")]),
    "tar-absolute": ("tar", [_member("{canary}/evil.txt")]),
    "tar-symlink": ("tar", [_member("link", tarfile.SYMTYPE, "{canary}"),
                            _member("link/evil.txt")]),
    "tar-hardlink": ("tar", [_member("hl", tarfile.LNKTYPE, "{canary}/secret.txt")]),
    "tar-device": ("tar", [_member("dev", tarfile.CHRTYPE)]),
    "tar-fifo": ("tar", [_member("fifo", tarfile.FIFOTYPE)]),
}


@pytest.mark.parametrize("case", list(SLIPS))
def test_archive_slips_are_refused(hostile: Tools, world: World, canary: Path,
                                   case: str) -> None:
    kind, spec = SLIPS[case]
    if kind == "zip":
        entries = [(n.format(canary=canary), d.replace(b"{canary}", str(canary).encode()), m)
                   for n, d, m in spec]
        data, name = _zip(entries), "Downloads/slip.zip"
    else:
        for member in spec:
            member.name = member.name.format(canary=canary)
            member.linkname = member.linkname.format(canary=canary)
        data, name = _tar(spec), "Downloads/slip.tar.gz"
    (world.home / name).write_bytes(data)
    result = hostile.provider.call("extract_archive", {"archive_path": name,
                                                      "destination": "Unpacked"})
    assert result.is_error, result.text
    assert not (world.home / "Unpacked").exists()
    assert not list(world.root.parent.rglob("evil.txt"))
    listing = hostile.provider.call("list_archive", {"archive_path": name})
    assert "TOP SECRET" not in listing.text


def test_zip_bomb_is_capped(tools: Tools, world: World) -> None:
    path = world.home / "Downloads/bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, \
            archive.open("zeros.bin", "w", force_zip64=True) as handle:
        chunk = bytes(1024 * 1024)
        for _ in range(70):
            handle.write(chunk)
    assert path.stat().st_size < 1024 * 1024
    assert "more than" in tools.err("extract_archive", archive_path="Downloads/bomb.zip")
    assert not (world.home / "Downloads/bomb").exists()


@pytest.fixture
def fast_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "CPU_SECONDS", 1)
    monkeypatch.setattr(runner, "WALL_SECONDS", 3)


ESCAPES = {
    "read-etc-passwd": "print(open('/etc/passwd').read())",
    "read-canary": "print(open('{canary}/secret.txt').read())",
    "read-via-symlink": "print(open('out_link/secret.txt').read())",
    "read-via-hardlink": "print(open('hard.txt').read())",
    "read-dotdot": "print(open('../state/clock.json').read())",
    "list-outside": "import os; print(os.listdir('{canary}'))",
    "write-outside": "open('{canary}/evil.txt', 'w').write('x')",
    "write-dotdot": "open('../evil.txt', 'w').write('x')",
    "delete-outside": "import os; os.remove('{canary}/secret.txt')",
    "rename-outside": "import os; os.rename('{canary}/secret.txt', 'stolen.txt')",
    "symlink-out": "import os; os.symlink('{canary}', 'new_link')",
    "hardlink-out": "import os; os.link('{canary}/secret.txt', 'new_hard')",
    "chdir-out": "import os; os.chdir('{canary}'); print(open('secret.txt').read())",
    "shell": "import os; os.system('cat {canary}/secret.txt')",
    "subprocess": "import subprocess; subprocess.run(['cat', '{canary}/secret.txt'])",
    "fork-bomb": "import os\nwhile True:\n    os.fork()",
    "kill-parent": "import os, signal; os.kill(os.getppid(), signal.SIGKILL)",
    "ctypes": "import ctypes; ctypes.CDLL(None)",
    "socket": "import socket; socket.create_connection(('1.1.1.1', 53), timeout=1)",
    "mkfifo": "import os; os.mkfifo('f2')",
}


@pytest.mark.parametrize("name", list(ESCAPES))
def test_run_python_cannot_escape(hostile: Tools, world: World, canary: Path,
                                  fast_limits: None, name: str) -> None:
    out = hostile.ok("run_python", code=ESCAPES[name].format(canary=canary))
    assert "exit code: 0" not in out, out
    assert "TOP SECRET" not in out.split("--- stderr ---")[0]
    assert "run_python sandbox" in out or "Error" in out
    assert not (world.home / "new_link").exists() and not (world.home / "stolen.txt").exists()


def test_run_python_resource_limits(tools: Tools, fast_limits: None) -> None:
    loop = tools.ok("run_python", code="while True:\n    pass")
    assert "exit code: 0" not in loop and "limit" in loop
    hog = tools.ok("run_python", code="x = bytearray(2 * 1024 ** 3)\nprint(len(x))")
    assert "MemoryError" in hog
    chatter = tools.ok("run_python", code="while True:\n    print('spam' * 50)")
    assert "truncated" in chatter and len(chatter) < 50_000
    sleeper = tools.ok("run_python", code="import time\ntime.sleep(30)")
    assert "wall-clock" in sleeper
    big = tools.ok("run_python", code="open('big.bin','wb').write(b'x' * (20 * 1024 * 1024))")
    assert "File too large" in big or "exit code: 0" not in big
