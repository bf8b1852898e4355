"""Copy-on-write worlds: a case pays for its own world only where it changes it, and no
case ever sees another's writes or changes the template (serially and under ``-n 2``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_tooleval.tools.base import CaseContext
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.wiring import CaseWorlds
from tests.conftest import scenario
from tests.support.fake_openai import Rule, answer, call
from tests.world.helpers import snapshot


def _context(name: str, world: dict | None = None) -> CaseContext:
    return CaseContext(file_path="scenarios/x.yaml", file_name="x", case_name=name,
                       language="en", world=world or {})


def test_reading_cases_never_copy_and_writers_get_their_own(tmp_path: Path) -> None:
    worlds = CaseWorlds(lambda: tmp_path)

    def copies() -> int:  # the open case's own world, while the case runs
        folder = tmp_path / "case-worlds"
        return len(list(folder.iterdir())) if folder.exists() else 0

    provider = BuiltinToolProvider(worlds.world_for_case, worlds.discard,
                                   shared_world=worlds.shared)
    provider.begin_case(_context("pure"))  # a pure tool builds no world, not even the template
    assert provider.call("calculator", {"expression": "6*7"}).text == "42"
    assert provider.call("convert_units", {"value": 1, "from_unit": "km",
                                           "to_unit": "m"}).is_error is False
    assert list(tmp_path.iterdir()) == []
    provider.end_case()
    template_root = Path(worlds.shared(_context("probe")).root)
    before = snapshot(template_root)

    provider.begin_case(_context("reads"))
    listing = provider.call("list_directory", {})
    assert not listing.is_error and copies() == 0
    assert provider.world is not None and Path(provider.world.root) == template_root
    provider.end_case()

    provider.begin_case(_context("writes"))
    wrote = provider.call("write_file", {"path": "cow-note.txt", "content": "COW-SECRET"})
    assert not wrote.is_error and copies() == 1
    read_back = provider.call("read_file", {"path": "cow-note.txt"})  # its own copy now
    assert "COW-SECRET" in read_back.text
    assert Path(provider.world.root) != template_root
    provider.end_case()

    provider.begin_case(_context("reads-after"))
    assert provider.call("read_file", {"path": "cow-note.txt"}).is_error
    provider.end_case()

    provider.begin_case(_context("inline-only"))  # calls no built-in at all
    provider.end_case()
    provider.begin_case(_context("overrides", {"files": {"extra.txt": "hello"}}))
    assert "hello" in provider.call("read_file", {"path": "extra.txt"}).text
    assert copies() == 1  # a case with overrides needs its own copy
    provider.end_case()
    assert snapshot(template_root) == before
    assert not any((tmp_path / "case-worlds").iterdir())  # every copy discarded


SECRET = "COW-SECRET-4471"


@pytest.mark.parametrize("workers", [0, 2])
def test_no_case_sees_another_cases_writes_and_the_template_never_changes(
        project, fake_model, workers, tmp_path_factory) -> None:
    server = fake_model([
        Rule("write the secret", [call("write_file", {"path": "cow.txt", "content": SECRET}),
                                  answer("written")]),
        Rule("read it back", [call("read_file", {"path": "cow.txt"}), answer("read")]),
        Rule("read the secret", [call("read_file", {"path": "cow.txt"}), answer("read")]),
    ])
    project.profile(server)
    readers = [{"name": f"reader{i}", "category": "tool", "steps": [
        {"message": f"read the secret file {i}", "expect": "read_file"}]} for i in range(6)]
    writers = [{"name": f"writer{i}", "category": "chain", "steps": [
        {"message": f"write the secret file {i}", "expect": "write_file"},
        {"message": "read it back", "expect": "read_file"}]} for i in range(2)]
    project.write("scenarios/cow.yaml", scenario(
        [writers[0], *readers[:3], writers[1], *readers[3:]], tools=[],
        requires=["read_file", "write_file"]))
    project.write("conftest.py", """
import hashlib, json, pathlib
def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput"):
        return
    from pytest_tooleval.run import runtime_of
    base = runtime_of(session.config).world_base()
    template = next(p for p in base.iterdir() if p.is_dir() and p.name.startswith("tooleval-world-")
                    and ".building" not in p.name)
    files = {p.relative_to(template).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in sorted(template.rglob("*")) if p.is_file()}
    pathlib.Path("template.json").write_text(json.dumps(files))
""")
    project.run("--tooleval-router", "all", "--tooleval-min-cases", "1", workers=workers,
                builtin=True)
    cases = project.cases()
    for i in range(6):
        attempt = cases[f"reader{i}"].transcripts[0].attempts[0]
        assert attempt.name == "read_file" and attempt.result_is_error, attempt
        assert SECRET not in (attempt.result or "")
    for i in range(2):
        own = cases[f"writer{i}"].transcripts[1].attempts[0]
        assert SECRET in (own.result or ""), own  # a writer reads its own write
    from pytest_tooleval.world.factory import WorldFactory

    fresh = WorldFactory(tmp_path_factory.mktemp("fresh")).template().root
    expected = {p.relative_to(fresh).as_posix(): __import__("hashlib").sha256(
        p.read_bytes()).hexdigest() for p in sorted(Path(fresh).rglob("*")) if p.is_file()}
    after = json.loads((project.path / "template.json").read_text())
    volatile = {"home/Projects/kestrel/.git/index"}
    assert {k: v for k, v in after.items() if k not in volatile} == \
        {k: v for k, v in expected.items() if k not in volatile}
