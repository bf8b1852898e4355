"""The compiled trigger sets kept between processes (router/compiled.py): the same routing
as a fresh build, and an edited trigger file (or damaged entry) is built again."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from pytest_tooleval.localcache import cache_root
from pytest_tooleval.router import trigger_router
from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.trigger_router import TriggerRouter

MESSAGES = [
    ("what is 1234 * 5678?", "en"),
    ("unzip the archive backup.zip into Downloads", "en"),
    ("dolar kuru bugün ne kadar", "tr"),
    ("yarın saat 9'da Ayşe'yi aramayı bana hatırlat", "tr"),
    ("please frobnicate my spreadsheet", "en"),
]


@pytest.fixture(autouse=True)
def _fresh_process_cache() -> Iterator[None]:
    trigger_router._compiled.cache_clear()
    yield
    trigger_router._compiled.cache_clear()


def _entries() -> list[Path]:
    root = cache_root()
    assert root is not None
    return sorted((root / "router").glob("*.pickle"))


def _routes(router: TriggerRouter) -> list[tuple[list[str], dict[str, list[str]]]]:
    specs = list(builtin_specs())
    return [(list(r.tools), r.reasons) for r in (router.route(m, lang, specs)
                                                 for m, lang in MESSAGES)]


def test_a_cached_build_routes_as_a_fresh_one(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _entries() == []
    first = _routes(TriggerRouter())
    [entry] = _entries()
    trigger_router._compiled.cache_clear()
    loaded = TriggerRouter()
    assert _routes(loaded) == first
    assert _entries() == [entry]
    monkeypatch.setenv("TOOLEVAL_CACHE_DIR", "off")
    trigger_router._compiled.cache_clear()
    assert _routes(TriggerRouter()) == first


def test_an_edited_trigger_file_is_compiled_again(tmp_path: Path) -> None:
    extra = tmp_path / "en.yaml"
    extra.write_text("language: en\ntools:\n  calculator: [zorblax]\n", encoding="utf-8")
    specs = list(builtin_specs())
    before = TriggerRouter(trigger_files=[extra]).route("zorblax it", "en", specs)
    assert any("zorblax" in reason for reason in before.reasons.get("calculator", []))
    extra.write_text("language: en\ntools:\n  calculator: [quuxify]\n", encoding="utf-8")
    trigger_router._compiled.cache_clear()
    after = TriggerRouter(trigger_files=[extra]).route("zorblax it", "en", specs)
    assert not any("zorblax" in reason for reason in after.reasons.get("calculator", []))
    assert len(_entries()) == 2


def test_a_damaged_entry_is_rebuilt() -> None:
    first = _routes(TriggerRouter())
    [entry] = _entries()
    entry.write_bytes(b"not a pickle")
    trigger_router._compiled.cache_clear()
    assert _routes(TriggerRouter()) == first
    assert entry.read_bytes() != b"not a pickle"


def test_a_file_changed_during_its_build_is_not_stored(tmp_path: Path) -> None:
    """The key is read before the build: a file rewritten meanwhile (a rebuilt model, a
    checkout) would store the new bytes' build under the old bytes' key, served after the
    old bytes come back. It is returned, not stored; an unchanged build is stored."""
    from pytest_tooleval.router.compiled import cached_build

    data = tmp_path / "data.txt"
    data.write_text("old", encoding="utf-8")

    def build_while_edited(paths: Sequence[Path]) -> str:
        data.write_text("new", encoding="utf-8")
        return paths[0].read_text(encoding="utf-8")

    def build(paths: Sequence[Path]) -> str:
        return paths[0].read_text(encoding="utf-8")

    def valid(value: object) -> bool:
        return isinstance(value, str)

    root = cache_root()
    assert root is not None
    assert cached_build([data], build_while_edited, valid, kind="race") == "new"
    assert not list((root / "race").glob("*.pickle"))
    data.write_text("old", encoding="utf-8")
    assert cached_build([data], build, valid, kind="race") == "old"
    assert len(list((root / "race").glob("*.pickle"))) == 1
