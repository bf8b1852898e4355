"""``tooleval doctor``: reports the jail and exits 0 only when the escape battery held."""

from __future__ import annotations

import json
import os

import pytest
from harness import needs_jail

from pytest_tooleval.cli import main
from pytest_tooleval.tools import jail


@needs_jail
def test_doctor_reports_the_jail_and_the_battery_holds(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("jail: yes")
    assert "namespaces: user yes, pid yes, net yes, ipc yes, uts yes" in out
    assert "GOT OUT" not in out and out.count("  held  ") >= 14
    assert out.rstrip().endswith("the wall holds")


@needs_jail
def test_doctor_fails_when_the_wall_is_missing(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The same battery against the unjailed tools (as in the unsafe mode): it must see
    what gets out, or it proves nothing."""
    monkeypatch.setattr(jail, "use_jail", lambda unsafe: False)
    assert main(["doctor", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    escaped = [a["name"] for a in report["battery"] if not a["held"]]
    assert "run_python cannot read a file outside the world" in escaped
    assert "run_python cannot reach the host's loopback network" in escaped
    assert "no filesystem in the jail holds more than the documented caps" in escaped
    if os.geteuid() == 0:
        assert "run_python does not run as the host's root" in escaped
        assert "run_python cannot write the kernel's settings (/proc/sys)" in escaped
        assert "a fork bomb in run_python stops at the process cap" in escaped
    assert report["ok"] is False


def test_doctor_without_bubblewrap_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(jail, "probe", lambda: jail.Probe(False, "bubblewrap (bwrap) is not "
                                                          "installed"))
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("jail: NO") and "apt-get install bubblewrap" in out
