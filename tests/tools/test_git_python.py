from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_git_read_tools(tools) -> None:  # type: ignore[no-untyped-def]
    status = tools.ok("git_status")
    assert "## main" in status and "README.md" in status
    log = tools.ok("git_log")
    assert log.index("Raise timeout to 37 seconds") < log.index("Initial commit")
    assert "Elif Aydın" in log and "2026-02-03T14:20:00+03:00" in log
    assert "Add CSV export" in tools.ok("git_log", ref="feature/export", limit=1)
    assert "Initial commit" in tools.ok("git_log", path="README.md")
    assert "Uncommitted line." in tools.ok("git_diff")
    assert "TIMEOUT = 37" in tools.ok("git_diff", ref="HEAD~1..HEAD", path="src")
    assert "TIMEOUT = 37" in tools.ok("git_show", ref="v0.1")
    assert "def export" in tools.ok("git_show", ref="feature/export:src/export.py")
    branches = tools.ok("git_branches")
    assert "* main" in branches and "feature/export" in branches and "v0.1" in branches
    assert "TIMEOUT = 37" in tools.ok("grep_code", pattern=r"TIMEOUT\s*=")
    assert "src/app.py:3:" in tools.ok("grep_code", pattern="GREET", ignore_case=True)
    assert "no matches" in tools.ok("grep_code", pattern="zzz(")


def test_git_ids_are_stable(tools, world_template) -> None:  # type: ignore[no-untyped-def]
    first = tools.ok("git_log", limit=1).split()[0]
    assert len(first) == 40
    assert first == tools.ok("git_log", limit=1).split()[0]


def test_git_commit_uses_world_clock(tools, world) -> None:  # type: ignore[no-untyped-def]
    out = tools.ok("git_commit", message="Document the uncommitted line", paths=["README.md"])
    assert out.startswith("committed ")
    log = tools.ok("git_log", limit=1)
    assert "2026-03-12T10:47:00+03:00" in log
    assert "Document the uncommitted line" in log
    assert "nothing to commit" in tools.err("git_commit", message="again")
    assert "empty" in tools.err("git_commit", message="   ")


@pytest.mark.parametrize("ref", ["--output=/tmp/pwned", "-p", "HEAD;rm -rf /", "a b", "$(id)"])
def test_git_refuses_option_injection(tools, ref: str) -> None:  # type: ignore[no-untyped-def]
    for tool in ("git_show", "git_diff", "git_log"):
        assert "not a valid git revision" in tools.err(tool, ref=ref)


def test_git_refuses_hostile_repo_config(tools, world) -> None:  # type: ignore[no-untyped-def]
    config = world.repo / ".git" / "config"
    config.write_text(config.read_text() + "[core]\n\tfsmonitor = touch /tmp/x\n")
    assert "core.fsmonitor" in tools.err("git_status")
    # Every git tool goes through the same gate, the commit path (which reads the identity
    # from the listing) included; and a refused key is named whatever its case.
    for tool, args in (("git_log", {}), ("git_diff", {}), ("git_show", {"ref": "HEAD"}),
                       ("git_branches", {}), ("git_commit", {"message": "x"})):
        assert "core.fsmonitor" in tools.err(tool, **args)
    config.write_text(config.read_text() + "[Filter \"x\"]\n\tClean = cat\n")
    assert "filter.x.clean" in tools.err("git_log")


def test_a_subsection_holding_an_allowed_key_slips_nothing_past(tools, world) -> None:  # type: ignore[no-untyped-def]
    """The allowlist read ``git config --list`` lines as "key=value" and matched up to the
    first "=" that followed an allowed name: a subsection "a.url=b" let every key of
    ``[remote "a.url=b"]`` through, and "bare=x" every key of ``[core "bare=x"]``. It now
    reads the keys alone (``--name-only``; ``-z`` where the values are needed)."""
    config = world.repo / ".git" / "config"
    base = config.read_text()
    for extra, key in (('[remote "a.url=b"]\n\tuploadpack = touch /tmp/x\n',
                        "remote.a.url=b.uploadpack"),
                       ('[core "bare=x"]\n\tfsmonitor = touch /tmp/x\n',
                        "core.bare=x.fsmonitor")):
        config.write_text(base + extra)
        for tool, args in (("git_status", {}), ("git_commit", {"message": "x"})):
            assert key in tools.err(tool, **args)
    config.write_text(base + '[user]\n\tname = "Ayşe\\nYılmaz"\n')
    tools.ok("git_commit", message="x")  # a value may hold a newline: read whole
    assert "Ayşe" in tools.ok("git_log", limit=1)


def test_git_with_an_unreadable_config_says_so(tools, world) -> None:  # type: ignore[no-untyped-def]
    (world.repo / ".git" / "config").write_text("[core\n")
    assert "config" in tools.err("git_status")


def test_run_python_basics(tools, world) -> None:  # type: ignore[no-untyped-def]
    out = tools.ok("run_python", code="import os, json\nprint(sorted(os.listdir('Documents'))[0])"
                   "\nopen('made.txt','w').write('ok')")
    assert "exit code: 0" in out and "Faturalar" in out
    assert (world.home / "made.txt").read_text() == "ok"
    failing = tools.ok("run_python", code="raise SystemExit(3)")
    assert "exit code: 3" in failing
    assert "ZeroDivisionError" in tools.ok("run_python", code="1/0")
    env = tools.ok("run_python", code="import os; print(sorted(set(os.environ) - {'PWD'}))")
    assert "['HOME', 'LANG', 'LC_ALL', 'PATH', 'TMPDIR']" in env


def test_git_paths_in_the_homes_own_names(tools) -> None:  # type: ignore[no-untyped-def]
    # The repository as the file tools and run_python name it: "~/Projects/kestrel/..."
    # and "/home/user/Projects/kestrel/..." were taken as folders of those names inside the
    # repository ("no commits found"; "does not exist"), or refused as outside it.
    for path in ("~/Projects/kestrel/README.md", "/home/user/Projects/kestrel/README.md"):
        assert "Initial commit" in tools.ok("git_log", path=path)
        assert "Uncommitted line." in tools.ok("git_diff", path=path)
        assert "README.md:1: # Kestrel" in tools.ok("grep_code", pattern="Kestrel", path=path)
    assert "TIMEOUT = 37" in tools.ok("git_diff", ref="HEAD~1..HEAD", path="~/Projects/kestrel")
    # The home outside the repository is not the repository's.
    assert "repository" in tools.err("git_log", path="~/Documents/notes.txt")
    assert "repository" in tools.err("grep_code", pattern="x", path="/home/user/Documents")


def test_a_file_past_gits_file_limit_is_named(tools, world) -> None:  # type: ignore[no-untyped-def]
    """git runs with run_python's 8 MiB per file: committing a larger file says so."""
    (world.repo / "big.bin").write_bytes(__import__("os").urandom(10 * 2**20))
    assert "limit of 8 MiB per file" in tools.err("git_commit", message="big", paths=["big.bin"])
