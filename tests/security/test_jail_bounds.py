"""The jail when the run is root (as on this project's machines and most CI containers): never
the host's root inside, the kernel's settings out of reach, every writable filesystem sized,
and a call's processes and memory bounded as a whole. Each test failed on the code before
(run as root there, a snippet was host uid 0 and could rewrite ``kernel.core_pattern``)."""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

import pytest
from harness import Hostile, needs_jail

from pytest_tooleval.tools import jail

pytestmark = needs_jail

HOOK_OFF = "import __main__\n__main__._check = lambda *a: None\n__main__.DENY = set()\n"
MiB = 2**20


def _python(hostile: Hostile, code: str) -> str:
    return hostile.tools.ok("run_python", code=HOOK_OFF + code)


def test_the_jail_never_runs_as_the_hosts_root(hostile: Hostile) -> None:
    out = _python(hostile, """import os
uid = os.getuid()
for line in open('/proc/self/uid_map'):
    inside, outside, count = map(int, line.split())
    if inside <= uid < inside + count:
        print('host uid', outside + uid - inside)
""")
    host = re.search(r"host uid (\d+)", out)
    assert host, out
    assert int(host.group(1)) != 0


def test_git_runs_as_another_uid_than_root_too(tmp_path: Path) -> None:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        done = jail.run(["/usr/bin/id", "-u"], writable=tmp_path,
                        env={"PATH": "/usr/bin"}, timeout=10, stdout=out, stderr=err,
                        interpreter=False)
        out.seek(0)
        err.seek(0)
        uid, why = out.read().decode().strip(), err.read().decode()
    assert done.returncode == 0 and uid.isdigit(), why
    assert int(uid) != 0
    if os.geteuid() == 0:  # the writable folder was given to that uid, and only it
        assert tmp_path.stat().st_uid == int(uid)


def test_the_kernels_settings_cannot_be_opened_for_writing(hostile: Hostile) -> None:
    """Only opened, never written: the probe changes nothing even where it would succeed."""
    out = _python(hostile, """import os
for path in ('/proc/sys/kernel/core_pattern', '/proc/sys/kernel/modprobe',
             '/proc/sys/vm/drop_caches', '/proc/sysrq-trigger'):
    try:
        os.close(os.open(path, os.O_WRONLY))
        print('OPENED', path)
    except OSError as exc:
        print('refused', path, exc.strerror)
""")
    assert "OPENED" not in out, out
    assert out.count("refused") == 4


def test_no_writable_filesystem_offers_more_than_its_cap(hostile: Hostile) -> None:
    out = _python(hostile, """import os
for path in ('/', '/dev', '/dev/shm', '/tmp', '.'):
    st = os.statvfs(path)
    room = 0 if st.f_flag & os.ST_RDONLY else st.f_bavail * st.f_frsize
    print('room', path, room)
for path in ('/big', '/dev/big', '/dev/shm/big', '/tmp/big'):
    try:
        with open(path, 'wb') as f:
            for _ in range(64):
                f.write(b'x' * (1 << 20))
        print('WROTE 64 MiB', path)
    except OSError as exc:
        print('stopped', path, exc.strerror)
""")
    room = {path: int(n) for path, n in re.findall(r"room (\S+) (\d+)", out)}
    assert room["/"] == 0 and room["/dev"] == 0, out
    assert room["/dev/shm"] <= jail.SHM_BYTES and room["/tmp"] <= jail.TMP_BYTES, out
    assert room["."] <= 33 * MiB, out
    assert "WROTE" not in out and out.count("stopped") == 4, out


def test_a_fork_bomb_stops_at_the_cap_and_the_next_call_works(hostile: Hostile) -> None:
    started = time.monotonic()
    out = _python(hostile, """import os, time
started = 0
for _ in range(3000):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        started += 1
    except OSError:
        break
print('started', started)
""")
    count = re.search(r"started (\d+)", out)
    assert count, out
    assert int(count.group(1)) < jail.MAX_PROCESSES
    assert time.monotonic() - started < 15
    assert "next" in _python(hostile, "print('next')")


def test_the_memory_of_a_calls_whole_tree_is_bounded(hostile: Hostile) -> None:
    """Six processes of 200 MiB each took 1.3 GB before: the address space is per process,
    so the process cap is what bounds the tree."""
    out = _python(hostile, """import os
held = []
try:
    held.append(bytearray(200 << 20))
    print('parent holds 200 MiB')
except MemoryError:
    print('parent refused')
children = 0
for _ in range(6):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        try:
            b = bytearray(200 << 20)
            os._exit(7)
        except MemoryError:
            os._exit(3)
    children += 1
got = sum(os.waitstatus_to_exitcode(os.waitpid(-1, 0)[1]) == 7 for _ in range(children))
print('children with 200 MiB', got)
""")
    found = re.search(r"children with 200 MiB (\d+)", out)
    assert found, out
    held = int(found.group(1)) + ("parent holds" in out)
    assert held * 200 <= jail.MAX_PROCESSES * jail.PROCESS_MEMORY // MiB
    assert held <= 2, out  # run_python: its own process and one child


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid of a jailed call is root's choice")
def test_each_call_gets_a_uid_of_its_own() -> None:
    first, second = jail.call_uid(), jail.call_uid()
    assert first and second and first != second
    assert first >= jail.UID_BASE and second >= jail.UID_BASE


_KEYS = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
k = libc.syscall({nr}, 10, -3, b"user", b"tooleval-test-secret", 0)  # KEYCTL_SEARCH in @s
buf = ctypes.create_string_buffer(100)
n = libc.syscall({nr}, 11, k, buf, 100) if k > 0 else -1  # KEYCTL_READ
print("read", buf.raw[:max(n, 0)])
print("added", libc.syscall({add}, b"user", b"tooleval-test-planted", b"junk", 4, -3))
"""


def test_the_controllers_session_keyring_is_out_of_reach(hostile: Hostile) -> None:
    """The jail inherited the controller's session keyring (a root controller's is the
    machine-wide ``_uid_ses.0``) and, possessing it, read a secret kept there and added a
    key to it that outlived the call, whatever its uid. Now it has one of its own."""
    import ctypes

    machine = os.uname().machine
    numbers = {"x86_64": (250, 248), "aarch64": (219, 217)}  # keyctl, add_key
    if machine not in numbers:
        pytest.skip(f"keyctl's number on {machine} is not known here")
    nr, add = numbers[machine]
    libc = ctypes.CDLL(None, use_errno=True)
    # A session keyring of this test's own (KEYCTL_JOIN_SESSION_KEYRING), so that nothing
    # of the machine's is touched.
    if libc.syscall(nr, 1, b"tooleval-test") < 0:
        pytest.skip(f"keyctl is refused here (errno {ctypes.get_errno()})")
    assert libc.syscall(add, b"user", b"tooleval-test-secret", b"TOOLEVAL_SECRET=xyz", 19,
                        -3) > 0
    out = hostile.tools.ok("run_python", code=HOOK_OFF + "__main__.NO_IMPORT = set()\n"
                           + _KEYS.format(nr=nr, add=add))
    assert "read b''" in out, out
    assert "xyz" not in out, out
    assert libc.syscall(nr, 10, -3, b"user", b"tooleval-test-planted", 0) < 0, \
        "a key the jail added is in the controller's session keyring"
    hostile.assert_contained()


def test_a_keyring_the_jail_cannot_get_is_named(hostile: Hostile,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A keyctl error in the preexec (EDQUOT where the controller's own key quota is full,
    as it is for a user that is not root at 200 keys; EACCES from a security module) is
    lost by subprocess: every jailed call answered the model 'run_python failed:
    SubprocessError: Exception occurred in preexec_fn.', the run going on as if the tool
    had failed. It now stops the call as a broken jail, naming the keyring."""
    from pytest_tooleval.tools.base import ProviderError

    if os.uname().machine not in jail._KEYCTL:
        pytest.skip("keyctl's number is not known here")
    monkeypatch.setattr(jail, "KEYCTL_JOIN_SESSION_KEYRING", 11)  # KEYCTL_READ of key 0
    with pytest.raises(ProviderError, match="session keyring"):
        hostile.tools.run_python(code="print(1)")


def test_no_host_path_reaches_the_model(hostile: Hostile) -> None:
    """The home is at the jail's own name: what a snippet prints (its folder, HOME, a
    traceback) and what git says name no host folder, and the file tools take that name."""
    host = str(hostile.world.home.resolve())
    out = _python(hostile, """import os
print('cwd', os.getcwd(), 'home', os.environ['HOME'])
open('made-inside.txt', 'w').write('x')
print('made', os.path.abspath('made-inside.txt'))
open('missing/nothing.txt')
""")
    assert f"cwd {jail.JAIL_HOME} home {jail.JAIL_HOME}" in out, out
    assert host not in out and "/tmp/" not in out, out
    assert hostile.tools.ok("read_file", path=f"{jail.JAIL_HOME}/made-inside.txt").endswith("x")
    said = hostile.tools.provider.call("git_show", {"ref": "no-such-ref"}).text
    assert host not in said and "/tmp/" not in said, said


def test_a_traceback_names_no_host_folder_of_the_interpreter(hostile: Hostile) -> None:
    """An interpreter installed outside /usr (pyenv, a home folder) is at /opt/python in the
    jail: the standard library's frames in a traceback name no host folder."""
    import sys

    out = hostile.tools.ok("run_python", code="import json\njson.loads('{')")
    assert "json/decoder.py" in out, out
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith("/usr"):
        assert prefix not in out and f"{jail.JAIL_PYTHON}/lib/" in out, out


@pytest.mark.parametrize("folder", ["rebind", "x/--tmpfs", "ro-bind-try/a"])
def test_a_world_whose_path_reads_like_an_option_is_still_jailed(tmp_path: Path,
                                                                  folder: str) -> None:
    """The mount points are read from bwrap's arguments by position, not by a word in a
    path: a world under ``.../rebind`` once crashed ``tooleval doctor`` (IndexError)."""
    world = tmp_path / folder
    world.mkdir(parents=True)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        done = jail.run(["/usr/bin/pwd"], writable=world,
                        env={"PATH": "/usr/bin"}, timeout=10, stdout=out, stderr=err,
                        interpreter=False)
        out.seek(0)
        err.seek(0)
        where, why = out.read().decode().strip(), err.read().decode()
    assert done.returncode == 0, why
    assert where == jail.JAIL_HOME  # the world, under its name in the jail
