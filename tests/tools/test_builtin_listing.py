"""The built-in tools as ``tooleval check`` lists them: what the provider itself lists, on
this machine, with and without the jail."""

from __future__ import annotations

import pytest

from pytest_tooleval.router import catalogue
from pytest_tooleval.tools import jail, offered
from pytest_tooleval.tools.builtin import ALL_TOOLS, BuiltinToolProvider


def _provider_list(unsafe_no_jail: bool) -> list:
    return BuiltinToolProvider(lambda context: None, unsafe_no_jail=unsafe_no_jail).list_tools()


@pytest.mark.parametrize("unsafe_no_jail", [False, True])
def test_listing_equals_the_providers_own(unsafe_no_jail: bool) -> None:
    assert catalogue.listed_builtin_specs(unsafe_no_jail) == _provider_list(unsafe_no_jail)
    assert [spec.name for spec in catalogue.builtin_specs()] == list(catalogue.BUILTIN_ORDER)
    assert {s.name: s.parameters for s in catalogue.builtin_specs()} == {
        name: tool.parameters for name, tool in ALL_TOOLS.items()}


def test_a_missing_binary_or_jail_is_decided_now_not_kept(
    monkeypatch: pytest.MonkeyPatch,
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
