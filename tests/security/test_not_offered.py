"""Without the jail, run_python and the git tools are not offered (``requires`` stops the
run and says how to install bubblewrap), unless the named unsafe mode is opted into, which
the report's first line records."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import build_world

from pytest_tooleval.tools import jail
from pytest_tooleval.tools.base import ProviderError
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.world.api import World
from tests.support.fake_openai import Rule, answer

JAILED = {"run_python", "git_status", "git_log", "git_diff", "git_show", "git_branches",
          "git_commit"}


@pytest.fixture
def no_jail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jail, "probe", lambda: jail.Probe(
        False, "bwrap cannot make the jail (user namespaces disabled?): test"))


def test_jailed_tools_are_not_offered_without_the_jail(no_jail: None, tmp_path: Path) -> None:
    world = build_world(tmp_path / "world")
    strict = BuiltinToolProvider(lambda context: world)
    offered = {spec.name for spec in strict.list_tools()}
    assert offered.isdisjoint(JAILED) and "read_file" in offered
    strict.use_world(world)
    with pytest.raises(ProviderError, match="apt-get install bubblewrap"):
        strict.call("run_python", {"code": "print(1)"})
    unsafe = BuiltinToolProvider(lambda context: world, unsafe_no_jail=True)
    assert {spec.name for spec in unsafe.list_tools()} >= JAILED
    unsafe.use_world(World(world.root))
    assert "exit code: 0" in unsafe.call("run_python", {"code": "print(1)"}).text
    assert "##" in unsafe.call("git_status", {}).text



def test_the_unsafe_mode_measures_a_home_of_many_files(no_jail: None, tmp_path: Path) -> None:
    # A home of 60,000 files (the jail stages up to 100,000) was past the quota watcher's
    # count of entries, so every call was "killed: wrote more than 32 MB in one call".
    world = build_world(tmp_path / "world")
    many = world.home / "many"
    many.mkdir()
    for index in range(60_000):
        (many / str(index)).touch()
    unsafe = BuiltinToolProvider(lambda context: world, unsafe_no_jail=True)
    unsafe.use_world(world)
    out = unsafe.call("run_python", {"code": "print(1)"}).text
    assert "exit code: 0" in out and "note:" not in out, out

def test_requires_stops_the_run_with_the_install_hint(no_jail: None, project, fake_model
                                                      ) -> None:  # type: ignore[no-untyped-def]
    server = fake_model([Rule("sum", [answer("done")])])
    project.profile(server)
    project.write("benchmarks/code.json", {"name": "code", "requires": ["run_python"],
                                           "cases": [
        {"name": "sum", "category": "tool", "steps": [
            {"message": "sum 1..10 with python", "expect": "run_python"}]}]})
    result = project.run(builtin=True)
    result.stdout.fnmatch_lines(["*requires tools that no provider on this machine offers: "
                                 "run_python*apt-get install bubblewrap*"
                                 "--tooleval-unsafe-no-jail*"])
    assert server.requests == []


def test_the_unsafe_mode_is_the_reports_first_line(no_jail: None, project, fake_model
                                                   ) -> None:  # type: ignore[no-untyped-def]
    server = fake_model([Rule("thanks", [answer("You're welcome!")])])
    project.profile(server)
    project.write("benchmarks/code.json", {"name": "code", "requires": ["run_python"],
                                           "cases": [
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks"}]}]})
    project.run("--tooleval-unsafe-no-jail", builtin=True)
    first = project.markdown().splitlines()[0]
    assert "UNSAFE" in first and "--tooleval-unsafe-no-jail" in first
    assert project.report()["run"]["isolation"]["mode"] == jail.UNSAFE_MODE


@pytest.mark.skipif(not jail.probe().available, reason="bubblewrap jail unavailable")
def test_a_jailed_run_records_the_jail(project, fake_model) -> None:  # type: ignore[no-untyped-def]
    server = fake_model([Rule("thanks", [answer("You're welcome!")])])
    project.profile(server)
    project.write("benchmarks/code.json", {"name": "code", "requires": ["run_python"],
                                           "cases": [
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks"}]}]})
    project.run(builtin=True)
    assert project.report()["run"]["isolation"]["mode"] == "jail"
    assert "UNSAFE" not in project.markdown().splitlines()[0]


def test_tooleval_check_counts_jailed_tools_as_missing(no_jail: None) -> None:
    from pytest_tooleval.router.catalogue import offered_builtin_names

    offered = offered_builtin_names()
    assert offered.isdisjoint(JAILED) and "read_file" in offered


@pytest.mark.skipif(not jail.probe().available, reason="bubblewrap jail unavailable")
def test_a_jail_that_cannot_be_set_up_is_a_machine_error(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    """bwrap failing inside (here: a bind source that is missing) must not reach the model
    as 'exit code: 1': the provider raises, the case becomes an ERROR, never a FAIL."""
    world = build_world(tmp_path / "world")
    provider = BuiltinToolProvider(lambda context: world)
    provider.use_world(world)
    assert "exit code: 0" in provider.call("run_python", {"code": "print(1)"}).text
    monkeypatch.setattr(jail, "world_bind",
                        lambda root, *size: ["--bind", str(tmp_path / "missing"), str(root)])
    for tool, args in (("run_python", {"code": "print(1)"}), ("git_status", {})):
        with pytest.raises(ProviderError, match="could not make the jail"):
            provider.call(tool, args)
