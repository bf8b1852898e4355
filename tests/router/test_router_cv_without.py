"""scripts/router_cv.py --without: a mechanism switched off really is off (in a child
process, since switching off patches modules)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import runpy, sys
cv = runpy.run_path("scripts/router_cv.py", run_name="probe")
if sys.argv[1] != "-":
    cv["switch_off"](sys.argv[1])
from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.trigger_router import TriggerRouter
r = TriggerRouter(9, lexical=False)
print(r.route("kestreldeki son işimi kalıcı olarak kaydediver", "tr", list(builtin_specs())).tools)
"""


def _probe(name: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", PROBE, name], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_switching_the_repository_frame_off_changes_the_routing() -> None:
    on, off = _probe("-"), _probe("repository")
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    assert "git_commit" in on.stdout
    assert "git_commit" not in off.stdout


def test_an_unknown_mechanism_is_named_in_the_error() -> None:
    bad = _probe("nonsense")
    assert bad.returncode != 0
    assert "unknown mechanism 'nonsense'" in bad.stderr


def test_every_mechanism_switches_off_where_it_lives() -> None:
    """Each --without replaces a name that exists (a refactor that moves one fails here,
    instead of leaving the mechanism on while the figures say it is off)."""
    runs = {name: _probe(name) for name in ("confirmed", "iver", "glued", "voiced",
                                            "repository", "courtesy")}
    for name, run in runs.items():
        assert run.returncode == 0 and "is gone" not in run.stderr, (name, run.stderr)


def test_a_moved_name_is_an_error(tmp_path: Path) -> None:
    script = (ROOT / "scripts" / "router_cv.py").read_text(encoding="utf-8")
    moved = script.replace('replace(trigger_router, "confirmed"',
                           'replace(trigger_router, "_confirmed"')
    assert moved != script
    (tmp_path / "router_cv.py").write_text(moved, encoding="utf-8")
    probe = PROBE.replace('"scripts/router_cv.py"', repr(str(tmp_path / "router_cv.py")))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe, "confirmed"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0 and "trigger_router._confirmed is gone" in done.stderr
