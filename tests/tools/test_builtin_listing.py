"""The built-in tools as ``tooleval check`` lists them without importing them: the rows kept
between processes give what the provider itself lists, on this machine, with and without
the jail, from a fresh build or from the kept entry; a damaged entry is rebuilt."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tooleval.router import catalogue
from pytest_tooleval.tools import jail, offered
from pytest_tooleval.tools.builtin import ALL_TOOLS, BuiltinToolProvider


def _provider_list(unsafe_no_jail: bool) -> list:
    return BuiltinToolProvider(lambda context: None, unsafe_no_jail=unsafe_no_jail).list_tools()


@pytest.fixture
def fresh_rows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", str(tmp_path / "cache"))
    catalogue.builtin_rows.cache_clear()
    catalogue.builtin_specs.cache_clear()
    yield tmp_path / "cache" / "builtin"
    catalogue.builtin_rows.cache_clear()
    catalogue.builtin_specs.cache_clear()


@pytest.mark.parametrize("unsafe_no_jail", [False, True])
def test_listing_equals_the_providers_own(fresh_rows: Path, unsafe_no_jail: bool) -> None:
    built = catalogue.listed_builtin_specs(unsafe_no_jail)  # builds and keeps the rows
    assert list(fresh_rows.glob("*.pickle"))
    catalogue.builtin_rows.cache_clear()
    kept = catalogue.listed_builtin_specs(unsafe_no_jail)  # from the kept entry
    assert built == kept == _provider_list(unsafe_no_jail)
    assert [spec.name for spec in catalogue.builtin_specs()] == list(catalogue.BUILTIN_ORDER)
    assert {s.name: s.parameters for s in catalogue.builtin_specs()} == {
        name: tool.parameters for name, tool in ALL_TOOLS.items()}


def test_a_missing_binary_or_jail_is_decided_now_not_kept(
    fresh_rows: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue.listed_builtin_specs()
    real_which = offered.shutil.which
    monkeypatch.setattr(offered.shutil, "which",
                        lambda name: None if name == "git" else real_which(name))
    monkeypatch.setattr(jail, "probe", lambda: jail.Probe(False, "no namespaces"))
    names = {spec.name for spec in catalogue.listed_builtin_specs()}
    assert names == {spec.name for spec in _provider_list(False)}
    assert not any(name.startswith("git_") for name in names) and "run_python" not in names
    assert "run_python" in {spec.name for spec in catalogue.listed_builtin_specs(True)}


def test_a_damaged_entry_is_rebuilt(fresh_rows: Path) -> None:
    expected = catalogue.listed_builtin_specs()
    [entry] = fresh_rows.glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    catalogue.builtin_rows.cache_clear()
    assert catalogue.listed_builtin_specs() == expected
    assert entry.read_bytes() != b"not a pickle"


def test_the_probe_in_the_background_is_the_one_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import functools
    import threading

    calls = []
    started = threading.Event()
    release = threading.Event()

    def slow() -> jail.Probe:
        calls.append(1)
        started.set()
        release.wait(10)
        return jail.Probe(True, "probed once")

    monkeypatch.setattr(jail, "_probe_once", functools.cache(slow))
    jail.probe_in_background()
    assert started.wait(10)
    answer: list[jail.Probe] = []
    waiter = threading.Thread(target=lambda: answer.append(jail.probe()))
    waiter.start()  # waits for the background probe rather than probing again
    release.set()
    waiter.join(10)
    assert answer == [jail.Probe(True, "probed once")] and calls == [1]
