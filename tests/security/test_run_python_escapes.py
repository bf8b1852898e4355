"""Issue 12, item 1 and 5: run_python's audit hook switched off or sidestepped from the
snippet. Each snippet tries to read the canary, write next to it and into the shared
template, reach the loopback listener and leave a process behind; the jail must hold."""

from __future__ import annotations

import os
import platform
import time

import pytest
from harness import CANARY_TEXT, Hostile, needs_jail

from pytest_tooleval.tools.doctor import HOOK_OFF

pytestmark = needs_jail

# Runs in a fresh interpreter started through the smuggled fork_exec: no audit hook there.
PAYLOAD = r"""
import os, socket, sys, time
canary, outside, template, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
try:
    print("STOLEN:" + open(canary).read().strip())
except OSError as exc:
    print("no canary:", exc)
for target in (outside + "/planted.txt", template + "/home/planted.txt"):
    try:
        open(target, "w").write("pwned")
        print("WROTE:" + target)
    except OSError as exc:
        print("no write:", exc)
try:
    socket.create_connection(("127.0.0.1", port), timeout=1).close()
    print("CONNECTED")
except OSError as exc:
    print("no connection:", exc)
try:
    print("SHADOW:" + open("/etc/shadow").read()[:20])
except OSError as exc:
    print("no shadow:", exc)
if os.fork() == 0:
    os.setsid()
    time.sleep(1.5)
    open(outside + "/late.txt", "w").write("still alive")
    os._exit(0)
"""


def _fork_exec_snippet(h: Hostile) -> str:
    argv = [str(h.canary), str(h.outside), str(h.template), str(h.port)]
    return f"""
import glob, importlib.util, os, sys
so = [p for d in sys.path for p in glob.glob(os.path.join(d, '_posixsubprocess*.so'))][0]
spec = importlib.util.spec_from_file_location('x._posixsubprocess', so)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
exe = os.fsencode(sys.executable)
args = [exe, b'-c', {PAYLOAD!r}.encode()] + [os.fsencode(str(a)) for a in {argv!r}]
r, w = os.pipe()
pid = mod.fork_exec(args, [exe], True, (), None, None, -1, -1, -1, -1, -1, -1, r, w,
                    True, True, -1, None, None, None, -1, None, False)
os.close(w)
print('started', pid)
os.waitpid(pid, 0)
"""


def _no_leak(out: str) -> None:
    assert CANARY_TEXT.strip() not in out
    for marker in ("STOLEN:", "WROTE:", "CONNECTED", "SHADOW:"):
        assert marker not in out, out


def test_rebinding_the_hook_globals_reads_nothing_outside(hostile: Hostile) -> None:
    code = (
        "import __main__\n"
        "__main__._check = lambda *a: None\n"
        f"for p in ({str(hostile.canary)!r}, '/etc/passwd'):\n"
        "    try:\n"
        "        print('STOLEN:' + open(p).read())\n"
        "    except OSError as exc:\n"
        "        print('refused', exc)\n"
        f"for p in ({str(hostile.outside / 'planted.txt')!r}, "
        f"{str(hostile.template / 'home' / 'planted.txt')!r}):\n"
        "    try:\n"
        "        open(p, 'w').write('pwned'); print('WROTE:' + p)\n"
        "    except OSError as exc:\n"
        "        print('refused', exc)\n"
    )
    out = hostile.tools.ok("run_python", code=code)
    _no_leak(out)
    assert "root:" not in out
    hostile.assert_contained()


def test_dir_fd_relative_path_reads_and_writes_nothing_outside(hostile: Hostile) -> None:
    """The hook resolves against the working directory, the kernel against ``dir_fd``."""
    up = "../" * 40
    code = (
        "import os\n"
        "home = os.open('.', os.O_RDONLY)\n"
        "for i in range(40):\n"
        "    os.mkdir('d'); os.chdir('d')\n"
        "def grab(rel, flags=os.O_RDONLY):\n"
        "    try:\n"
        "        return os.open(rel, flags, 0o644, dir_fd=home)\n"
        "    except OSError as exc:\n"
        "        print('refused', exc)\n"
        f"fd = grab({up + str(hostile.canary).lstrip('/')!r})\n"
        "if fd is not None: print('STOLEN:' + os.read(fd, 100).decode())\n"
        f"fd = grab({up + 'etc/passwd'!r})\n"
        "if fd is not None: print('STOLEN:' + os.read(fd, 100).decode())\n"
        f"fd = grab({up + 'proc/' !r} + str(os.getppid()) + '/environ')\n"
        "if fd is not None: print('ENVIRON:' + os.read(fd, 4000).decode(errors='replace')"
        ".replace(chr(0), ' '))\n"
        f"fd = grab({up + str(hostile.outside / 'planted.txt').lstrip('/')!r}, "
        "os.O_WRONLY | os.O_CREAT)\n"
        "if fd is not None: os.write(fd, b'pwned'); print('WROTE:outside')\n"
        f"fd = grab({up + str(hostile.template / 'home' / 'p.txt').lstrip('/')!r}, "
        "os.O_WRONLY | os.O_CREAT)\n"
        "if fd is not None: os.write(fd, b'pwned'); print('WROTE:template')\n"
    )
    out = hostile.tools.ok("run_python", code=code)
    _no_leak(out)
    # The parent's environment is the jail's own PID 1, started with the scrubbed one.
    assert "PYTEST_CURRENT_TEST" not in out and "root:" not in out
    hostile.assert_contained()


def test_smuggled_fork_exec_runs_nothing_that_gets_out(hostile: Hostile) -> None:
    """``_posixsubprocess`` loaded from its file, then a shell-free child with no hook:
    it may run, but only inside the jail, and it must not outlive the call."""
    out = hostile.tools.ok("run_python", code=_fork_exec_snippet(hostile))
    assert "started" in out and "no canary" in out, out  # the child did run, jailed
    _no_leak(out)
    hostile.assert_contained()
    time.sleep(1.8)  # the orphan's delayed write would land now
    hostile.assert_contained(settle=0)


def test_stat_exists_readlink_see_nothing_of_the_host(hostile: Hostile) -> None:
    code = (
        "import __main__, os\n"
        "__main__._check = lambda *a: None  # the hook off: the jail alone must hold\n"
        f"print('EXISTS' if os.path.exists({str(hostile.canary)!r}) else 'absent')\n"
        f"print('EXISTS' if os.path.exists({str(hostile.template)!r}) else 'absent')\n"
        "for p in ('/etc/passwd', '/etc/hostname', '/etc/shadow', '/var', '/srv'):\n"
        "    print(p, 'EXISTS' if os.path.exists(p) else 'absent')\n"
        "seen = []\n"
        "for top in ('/root', '/home', '/work'):\n"
        "    for dirpath, dirs, files in os.walk(top):\n"
        "        seen += [os.path.join(dirpath, f) for f in files]\n"
        "        dirs[:] = [d for d in dirs if not d.startswith('python3')]\n"
        "print('HOSTFILES:', seen)\n"
        "try:\n"
        "    print('LINK:' + os.readlink('/proc/1/exe'))\n"
        "except OSError as exc:\n"
        "    print('no link', exc)\n"
        "import socket; print('host:', socket.gethostname())\n"
    )
    out = hostile.tools.ok("run_python", code=code)
    assert "EXISTS" not in out, out
    # Of the host's home folders only the interpreter's own files show (read-only).
    listed = out.split("HOSTFILES:", 1)[1].split("\n", 1)[0]
    assert "secret" not in listed and ".bashrc" not in listed and "site-packages" not in listed
    assert "host: tooleval-jail" in out
    assert "LINK:" not in out or "bwrap" in out  # the jail's own PID 1, never the host's
    hostile.assert_contained()


def test_one_call_cannot_fill_the_disk(hostile: Hostile) -> None:
    """160 MiB in one call: the home is a tmpfs of its files + the 32 MiB quota, so the
    kernel refuses the write past it, however fast the snippet writes."""
    from pytest_tooleval.tools.builtin import runner

    code = (
        "chunk = b'x' * (1 << 20)\n"
        "for n in range(20):\n"
        "    with open(f'fill{n}.bin', 'wb') as out:\n"
        "        for _ in range(8):\n"
        "            out.write(chunk)\n"
        "print('done')\n"
    )
    started = time.perf_counter()
    out = hostile.tools.ok("run_python", code=code)
    home = hostile.world.home
    written = sum(p.stat().st_size for p in home.glob("fill*.bin"))
    # What fits: the quota and the 16 pages of slack beside the home's own files.
    assert runner.WRITE_QUOTA - 2**20 < written <= runner.WRITE_QUOTA + 16 * 4096, (written, out)
    assert "done" not in out.split("--- stdout ---", 1)[1]
    assert "No space left on device" in out
    assert "write quota (32 MB in one call) was reached" in out
    assert time.perf_counter() - started < 15
    hostile.assert_contained()


def test_the_quota_holds_with_the_hook_off(hostile: Hostile) -> None:
    """Raw os.write into many files, the audit hook switched off: the kernel stops it."""
    from pytest_tooleval.tools.builtin import runner

    code = HOOK_OFF + (
        "import os\nn = 0\ntry:\n    for k in range(100):\n"
        "        fd = os.open(f'raw{k}.bin', os.O_WRONLY | os.O_CREAT)\n"
        "        for _ in range(64):\n            n += os.write(fd, b'y' * (1 << 16))\n"
        "        os.close(fd)\n"
        "except OSError as exc:\n    print('stopped at', n, 'errno', exc.errno)\n"
    )
    out = hostile.tools.ok("run_python", code=code)
    assert "errno 28" in out, out  # ENOSPC, the tmpfs full: not a kill, not a file limit
    written = sum(p.stat().st_size for p in hostile.world.home.glob("raw*.bin"))
    assert written <= runner.WRITE_QUOTA + 16 * 4096, (written, out)
    hostile.assert_contained()


def test_what_a_call_writes_reaches_the_home_and_the_other_tools(hostile: Hostile) -> None:
    home = hostile.world.home
    first = sorted(p.name for p in (home / "Documents").iterdir() if p.is_file())[0]
    code = (
        "import os, shutil\n"
        "os.makedirs('Reports/q3', exist_ok=True)\n"
        "open('Reports/q3/total.txt', 'w').write('total 42\\n')\n"
        f"os.remove('Documents/{first}')\n"
        "print('ok')\n"
    )
    out = hostile.tools.ok("run_python", code=code)
    assert "exit code: 0" in out, out
    assert (home / "Reports" / "q3" / "total.txt").read_text() == "total 42\n"
    assert not (home / "Documents" / first).exists()
    read = hostile.tools.ok("read_file", path="Reports/q3/total.txt")
    assert "total 42" in read
    again = hostile.tools.ok("run_python", code="print(open('Reports/q3/total.txt').read())")
    assert "total 42" in again


def test_a_link_made_inside_is_not_kept(hostile: Hostile) -> None:
    code = HOOK_OFF + f"import os\nos.symlink({str(hostile.canary)!r}, 'loot')\nprint('made')\n"
    out = hostile.tools.ok("run_python", code=code)
    assert "made" in out
    assert not os.path.lexists(hostile.world.home / "loot")
    assert "not kept in the home folder (1): loot" in out
    hostile.assert_contained()


def test_the_wall_clock_keeps_what_was_written_before_it(hostile: Hostile,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_tooleval.tools.builtin import runner

    monkeypatch.setattr(runner, "WALL_SECONDS", 2)
    code = "import time\nopen('before.txt', 'w').write('written')\ntime.sleep(30)\n"
    out = hostile.tools.ok("run_python", code=code)
    assert "wall-clock time limit" in out
    assert (hostile.world.home / "before.txt").read_text() == "written"


def test_the_wall_clock_kills_the_whole_pid_namespace(hostile: Hostile,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A smuggled grandchild in its own session, and the snippet sleeping past the wall
    clock: when the call returns, neither is alive, and the grandchild never writes."""
    from pytest_tooleval.tools.builtin import runner

    monkeypatch.setattr(runner, "WALL_SECONDS", 2)
    mark = "late-mark"
    # fork_exec's call_setsid already puts the grandchild in its own session.
    payload = ("import os, time\nprint('grandchild', os.getsid(0) == os.getpid(), flush=True)\n"
               f"time.sleep(3)\nopen({mark!r}, 'w').write('alive')\n")
    code = f"""
import glob, importlib.util, os, sys, time
so = [p for d in sys.path for p in glob.glob(os.path.join(d, '_posixsubprocess*.so'))][0]
spec = importlib.util.spec_from_file_location('x._posixsubprocess', so)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
exe = os.fsencode(sys.executable)
r, w = os.pipe()
pid = mod.fork_exec([exe, b'-c', {payload!r}.encode()], [exe], True, (), None, None,
                    -1, -1, -1, -1, -1, -1, r, w, True, True, -1, None, None, None, -1,
                    None, False)
print('started', pid, flush=True)
time.sleep(30)
"""
    started = time.perf_counter()
    out = hostile.tools.ok("run_python", code=code)
    assert time.perf_counter() - started < 6
    assert "started" in out and "grandchild True" in out and "wall-clock" in out, out
    hostile.assert_contained()
    time.sleep(2)
    assert not (hostile.world.home / mark).exists()
    hostile.assert_contained(settle=0)


def test_nothing_left_running_can_reshape_the_home_while_it_is_copied_back(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to 30 processes wait for the copy back to start (a file's mode changes) and then swap a
    folder for a link to the canary's folder. The copy back starts only once the jail's
    PID 1 is gone, and with it every process inside, and it opens nothing through a link:
    the canary never lands in the home."""
    from pytest_tooleval.tools.builtin import runner

    monkeypatch.setattr(runner, "WALL_SECONDS", 3)
    code = HOOK_OFF + f"""
import os, time
os.mkdir('b'); open('b/placeholder', 'w').close()
os.close(os.open('c', os.O_WRONLY | os.O_CREAT, 0o200))
for i in range(20):
    os.mkdir(f'd{{i:02d}}')
    for j in range(100):
        open(f'd{{i:02d}}/f{{j}}', 'w').close()
os.symlink({str(hostile.outside)!r}, 'blink')
for i in range(30):  # as many as the process cap lets through
    try:
        if os.fork() == 0:
            break
    except BlockingIOError:
        break
while True:
    try:
        if os.stat('c').st_mode & 0o400:
            os.rename('b', 'bx'); os.rename('blink', 'b')
    except OSError:
        pass
"""
    out = hostile.tools.ok("run_python", code=code)
    assert "wall-clock time limit" in out
    home = hostile.world.home
    assert not (home / "b" / "secret.txt").exists()
    assert not any(CANARY_TEXT.strip() in p.read_text(errors="replace")
                   for p in home.rglob("*") if p.is_file() and not p.is_symlink())
    hostile.assert_contained()


PDEATHSIG_OFF = r"""
import os, __main__, time
__main__.NO_IMPORT=set()
import ctypes
libc=ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype=ctypes.c_long
libc.ptrace.argtypes=[ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
class R(ctypes.Structure):
    _fields_=[(n, ctypes.c_ulonglong) for n in ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax "
              "rcx rdx rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs").split()]
if libc.ptrace(16, 1, None, None) != 0:
    print('ptrace refused'); raise SystemExit(0)
os.waitpid(1, 0x40000000)
regs=R(); libc.ptrace(12, 1, None, ctypes.byref(regs)); saved=R.from_buffer_copy(regs)
word=libc.ptrace(1, 1, ctypes.c_void_p(regs.rip-2), None) & 0xffff
print('insn', hex(word), 'rax', ctypes.c_longlong(regs.rax).value, 'orig', regs.orig_rax)
regs.rip-=2; regs.rax=157; regs.orig_rax=2**64-1; regs.rdi=1; regs.rsi=0
libc.ptrace(13, 1, None, ctypes.byref(regs))
libc.ptrace(9, 1, None, None); os.waitpid(1, 0x40000000)
libc.ptrace(12, 1, None, ctypes.byref(regs)); print('prctl ->', ctypes.c_longlong(regs.rax).value)
saved.rip-=2; saved.rax=saved.orig_rax; saved.orig_rax=2**64-1
libc.ptrace(13, 1, None, ctypes.byref(saved)); libc.ptrace(17, 1, None, None)
if os.fork()==0:
    os.setsid()
    for i in range(120):
        open('late.txt','w').write(str(i)); time.sleep(0.5)
    os._exit(0)
open('mine.txt','w').write('written before exit')
print('main exits')
"""


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the ptrace payload is x86-64 code")
def test_a_pid_1_that_lost_die_with_parent_is_still_ended(hostile: Hostile) -> None:
    """The snippet ptraces the jail's PID 1 (bwrap's init), makes it call
    prctl(PR_SET_PDEATHSIG, 0), leaves a sleeper behind and exits. The outer bwrap's death
    no longer reaches PID 1, so the call kills PID 1 itself, from outside its namespace:
    nothing survives, the wall clock is not bypassed, and what was written is kept.
    Under a root controller the jail runs as another uid than its PID 1, and the ptrace is
    refused outright."""
    started = time.perf_counter()
    out = hostile.tools.ok("run_python", code=HOOK_OFF + PDEATHSIG_OFF)
    if os.geteuid() == 0:
        assert "ptrace refused" in out, out
        hostile.assert_contained()
        return
    assert "main exits" in out, out
    assert time.perf_counter() - started < 5, "the call waited for a jail it could not end"
    assert (hostile.world.home / "mine.txt").read_text() == "written before exit"
    hostile.assert_contained()


def test_a_call_that_fills_its_room_after_deleting_the_home_keeps_its_writes(
        hostile: Hostile) -> None:
    """The room the copy back allows is the tmpfs's (files in pages + the quota), so
    real data up to "No space left on device" is kept, not discarded as a multiplied
    quota."""
    code = (
        "import os, shutil\n"
        "for name in os.listdir('.'):\n"
        "    shutil.rmtree(name) if os.path.isdir(name) else os.remove(name)\n"
        "n = 0\ntry:\n    while True:\n"
        "        with open(f'part{n:03d}.bin', 'wb') as out:\n"
        "            out.write(os.urandom(1 << 20))\n"
        "        n += 1\n"
        "except OSError as exc:\n    print('stopped', exc.errno)\n"
    )
    out = hostile.tools.ok("run_python", code=code)
    assert "stopped 28" in out, out
    assert "nothing this call wrote was kept" not in out, out
    assert len(list(hostile.world.home.glob("part*.bin"))) >= 30

