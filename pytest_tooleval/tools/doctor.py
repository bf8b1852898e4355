"""``tooleval doctor``: the isolation in force on this machine, and a short escape battery.

The battery runs the real built-in tools on a throwaway world, with the audit hook inside
``run_python`` switched off first, so that only the jail stands between each attempt and
the host: read and write a canary outside the world, reach a loopback listener, leave a
process behind, see the host's files and network name, fill the disk. Exit status 0 when
the jail is in force and held every time, 1 otherwise.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
import subprocess
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_tooleval.tools import jail
from pytest_tooleval.tools.builtin import BuiltinToolProvider, gittools, runner
from pytest_tooleval.world.api import DEFAULT_NOW, DEFAULT_TIMEZONE, World

HOOK_OFF = "import __main__\n__main__._check = lambda *a: None\n__main__.DENY = set()\n"


# The uid the jail runs as, as the host sees it (through the user namespace's map, if any).
HOST_UID = """import os
uid = os.getuid()
for line in open('/proc/self/uid_map'):
    inside, outside, count = map(int, line.split())
    if inside <= uid < inside + count:
        print('host uid', outside + uid - inside)
"""
# Whether the kernel's settings could be opened for writing; nothing is ever written.
SYSCTL_PROBE = """import os
opened = []
for path in ('/proc/sys/kernel/core_pattern', '/proc/sys/kernel/modprobe',
             '/proc/sysrq-trigger'):
    try:
        os.close(os.open(path, os.O_WRONLY))
        opened.append(path)
    except OSError:
        pass
print('kernel settings:', ', '.join(opened) or 'refused')
"""
# Every filesystem the jail can write to, and its free bytes.
FREE_SPACE = """import os
for path in ('/', '/dev', '/dev/shm', '/tmp', '.'):
    st = os.statvfs(path)
    room = 0 if st.f_flag & os.ST_RDONLY else st.f_bavail * st.f_frsize
    print(path, 'free', 'writable', room)
"""
# Up to 100 sleeping children: how many got started.
FORK_BOMB = """import os, time
started = 0
for _ in range(100):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        started += 1
    except OSError:
        break
print('started', started)
"""


def plant_blob(repo: Path, size: int) -> str:
    """A loose git object of ``size`` bytes of "A" (64 KiB on disk for 64 MiB), as a
    snippet could write one into the repository."""
    header = b"blob %d\0" % size
    digest, packer = hashlib.sha1(header), zlib.compressobj(9)
    packed = [packer.compress(header)]
    chunk = b"A" * 2**20
    for _ in range(size // len(chunk)):
        digest.update(chunk)
        packed.append(packer.compress(chunk))
    packed.append(packer.flush())
    sha = digest.hexdigest()
    target = repo / ".git" / "objects" / sha[:2] / sha[2:]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"".join(packed))
    return sha


@dataclass
class Attempt:
    name: str
    held: bool
    detail: str = ""


def _namespaces(binary: str) -> dict[str, bool]:
    """Each namespace alone, so a failure says which one this kernel refuses."""
    found = {}
    true = shutil.which("true") or "/bin/true"
    for name in jail.NAMESPACES:
        alone = [] if name == "user" else [f"--unshare-{name}"]
        argv = [binary, "--unshare-user", *alone, "--ro-bind", "/", "/", true]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=jail.PROBE_TIMEOUT)
            found[name] = done.returncode == 0
        except (OSError, subprocess.SubprocessError):
            found[name] = False
    return found


def describe_machine() -> dict[str, object]:
    probe = jail.probe()
    return {
        "jail": probe.available,
        "detail": probe.detail,
        "bwrap": probe.bwrap,
        "bwrap_version": probe.version,
        "namespaces": _namespaces(probe.bwrap) if probe.bwrap else {},
        "git": shutil.which("git"),
        "interpreter": jail.interpreter(),
        "limits": {
            "run_python_wall_s": runner.WALL_SECONDS,
            "run_python_cpu_s": runner.CPU_SECONDS,
            "run_python_memory_bytes": runner.MEMORY_BYTES,
            "run_python_file_bytes": runner.FILE_BYTES,
            "run_python_write_quota_bytes": runner.WRITE_QUOTA,
            "git_wall_s": gittools.GIT_TIMEOUT,
            "tmp_bytes": jail.TMP_BYTES,
            "shm_bytes": jail.SHM_BYTES,
            "processes_per_call": jail.MAX_PROCESSES,
            "process_memory_bytes": jail.PROCESS_MEMORY,
        },
    }


def _make_world(base: Path) -> World:
    world = World(base / "world")
    world.repo.mkdir(parents=True)
    world.save_state("clock", {"now": DEFAULT_NOW, "timezone": DEFAULT_TIMEZONE})
    (world.repo / "README.md").write_text("# doctor\n", encoding="utf-8")
    git = shutil.which("git")
    if git:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(base), "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": "/dev/null"}
        subprocess.run([git, "init", "-q", "--template=", str(world.repo)], env=env,
                       check=True, capture_output=True, timeout=30)
    return world


def run_battery() -> list[Attempt]:
    """Each attempt through the real tools; ``held`` is False where something got out."""
    base = Path(tempfile.mkdtemp(prefix="tooleval-doctor-"))
    listener = socket.socket()
    try:
        outside = base / "outside"
        outside.mkdir()
        canary = outside / "canary.txt"
        canary.write_text("doctor canary 5d1\n", encoding="utf-8")
        world = _make_world(base)
        provider = BuiltinToolProvider(lambda context: world)
        provider.use_world(world)
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        listener.setblocking(False)
        port = listener.getsockname()[1]

        def python(code: str) -> str:
            return provider.call("run_python", {"code": HOOK_OFF + code}).text

        def read_canary() -> tuple[bool, str]:
            out = python(f"print(open({str(canary)!r}).read())")
            return "doctor canary" not in out, out

        def write_outside() -> tuple[bool, str]:
            python(f"open({str(outside / 'planted')!r}, 'w').write('x')")
            untouched = sorted(p.name for p in outside.iterdir()) == ["canary.txt"]
            return untouched, "a file appeared next to the canary"

        def loopback() -> tuple[bool, str]:
            python(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)")
            try:
                listener.accept()[0].close()
            except BlockingIOError:
                return True, ""
            return False, "the host's loopback listener was reached"

        def names() -> tuple[bool, str]:
            out = python("import os, socket\nprint(socket.gethostname(), os.getpid())")
            return "tooleval-jail 2" in out, out

        def host_files() -> tuple[bool, str]:
            # /home holds only the jail's own home (jail.JAIL_HOME)
            out = python("import os\nseen = [p for p in ('/etc/passwd', '/etc/shadow', "
                         "'/root/.bashrc') if os.path.exists(p)]\n"
                         "seen += [n for n in os.listdir('/home') if n != 'user']\n"
                         "print('host files seen:', seen)")
            return "host files seen: []" in out, out

        def survivor() -> tuple[bool, str]:
            mark = world.home / "late-mark"
            out = python("import os, time\nif os.fork() == 0:\n    os.setsid()\n"
                         "    time.sleep(1)\n    open('late-mark', 'w').write('alive')\n"
                         "    os._exit(0)\nprint('forked')\n")
            time.sleep(1.5)
            return "forked" in out and not mark.exists(), out

        def quota() -> tuple[bool, str]:
            out = python("chunk = b'x' * (1 << 20)\nfor n in range(6):\n"
                         "    with open(f'fill{n}', 'wb') as f:\n"
                         "        for _ in range(8):\n            f.write(chunk)\n")
            kept = sum(p.stat().st_size for p in world.home.glob("fill*"))
            # The tmpfs is the home's files, the quota and 16 pages: nothing more fits.
            held = kept <= runner.WRITE_QUOTA + 2**20
            return "MB in one call" in out and held, f"{kept} bytes kept; {out}"

        def not_root() -> tuple[bool, str]:
            out = python(HOST_UID)
            host = re.search(r"host uid (\d+)", out)
            return host is not None and host.group(1) != "0", out

        def sysctl() -> tuple[bool, str]:
            out = python(SYSCTL_PROBE)
            return "kernel settings: refused" in out, out

        def filesystems() -> tuple[bool, str]:
            out = python(FREE_SPACE)
            room = sum(int(n) for n in re.findall(r"writable (\d+)", out))
            cap = runner.WRITE_QUOTA + jail.TMP_BYTES + jail.SHM_BYTES + 2**20
            return "free" in out and room <= cap, f"{room} bytes writable; {out}"

        def processes() -> tuple[bool, str]:
            out = python(FORK_BOMB)
            after = python("print('next call works')")
            started = re.search(r"started (\d+)", out)
            return started is not None and int(started.group(1)) < jail.MAX_PROCESSES \
                and "next call works" in after, out

        def hostile_document() -> tuple[bool, str]:
            (world.home / "hostile.html").write_text("</" * 2**18, encoding="utf-8")
            started = time.monotonic()
            out = provider.call("read_document", {"path": "hostile.html"}).text
            took = time.monotonic() - started
            return took < 10, f"512 KiB of '</' took {took:.1f} s: {out[:100]}"

        def git_bomb() -> tuple[bool, str]:
            repo = world.repo
            sha = plant_blob(repo, 64 * 2**20)
            env = {"PATH": "/usr/bin:/bin", "GIT_DIR": str(repo / ".git"),
                   "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
            done = gittools.git_process([str(shutil.which("git")), "cat-file", "-p", sha],
                                        env, repo, jailed=True)
            got = len(done.stdout.encode("utf-8"))
            return got <= gittools.MAX_GIT_OUTPUT, f"git wrote {got} bytes of a 64 MiB blob"

        def git_status() -> tuple[bool, str]:
            out = provider.call("git_status", {}).text
            return "##" in out or "No commits yet" in out, out

        checks: list[tuple[str, Callable[[], tuple[bool, str]]]] = [
            ("run_python cannot read a file outside the world", read_canary),
            ("run_python cannot write outside the world", write_outside),
            ("run_python cannot reach the host's loopback network", loopback),
            ("run_python has its own host name and PID namespace", names),
            ("run_python sees no host /etc/passwd, /etc/shadow, /root or /home", host_files),
            ("a process started by run_python does not outlive the call", survivor),
            ("one run_python call cannot write past the quota", quota),
            ("run_python does not run as the host's root", not_root),
            ("run_python cannot write the kernel's settings (/proc/sys)", sysctl),
            ("no filesystem in the jail holds more than the documented caps", filesystems),
            ("a fork bomb in run_python stops at the process cap", processes),
            ("a 512 KiB hostile HTML document is read in bounded time", hostile_document),
        ]
        if shutil.which("git"):
            checks += [("git runs inside the jail", git_status),
                       ("git's output of a 64 MiB object is capped", git_bomb)]
        results = []
        for name, check in checks:
            try:
                held, detail = check()
            except Exception as exc:  # an error in the battery is not a pass
                held, detail = False, f"{type(exc).__name__}: {exc}"
            results.append(Attempt(name, held, "" if held else detail[:300]))
        provider.close()
        return results
    finally:
        listener.close()
        shutil.rmtree(base, ignore_errors=True)
