"""The tools on the real world from pytest_tooleval.world (built once per session)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_tooleval.tools.base import CaseContext
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.tools.builtin.documents import DOCUMENT_SUFFIXES
from pytest_tooleval.world import build
from pytest_tooleval.world.api import World

CONTEXT = CaseContext("f.yaml", "f.yaml", "case", "tr")


@pytest.fixture(scope="module")
def real_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("real") / "world"
    build.build_template(root)
    return root


@pytest.fixture
def real(real_template: Path, tmp_path: Path) -> BuiltinToolProvider:
    root = tmp_path / "world"
    shutil.copytree(real_template, root, symlinks=True)
    provider = BuiltinToolProvider(lambda context: World(root))
    provider.begin_case(CONTEXT)
    return provider


def _files(home: Path) -> list[str]:
    return sorted(p.relative_to(home).as_posix() for p in home.rglob("*")
                  if p.is_file() and ".git" not in p.parts)


def test_every_document_and_archive_is_readable(real: BuiltinToolProvider) -> None:
    assert real.world is not None
    home = real.world.home
    documents = archives = 0
    for rel in _files(home):
        if Path(rel).suffix.lower() in DOCUMENT_SUFFIXES:
            result = real.call("read_document", {"path": rel})
            assert not result.is_error and result.text.strip(), (rel, result.text)
            documents += 1
        if rel.endswith((".zip", ".tar.gz", ".tgz")):
            listed = real.call("list_archive", {"archive_path": rel})
            assert not listed.is_error, listed.text
            out = real.call("extract_archive", {"archive_path": rel,
                                                "destination": f"Unpacked/{archives}"})
            assert not out.is_error, out.text
            archives += 1
    assert documents >= 10 and archives >= 1


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_tools_on_the_real_repository(real: BuiltinToolProvider) -> None:
    for name, args in [("git_status", {}), ("git_log", {"limit": 5}), ("git_branches", {}),
                       ("git_diff", {}), ("git_show", {"ref": "HEAD"}),
                       ("grep_code", {"pattern": "def "})]:
        result = real.call(name, args)
        assert not result.is_error and result.text.strip(), (name, result.text)


def test_state_tools_on_the_real_world(real: BuiltinToolProvider) -> None:
    today = json.loads(real.call("calendar_list", {"start": "today"}).text)
    added = json.loads(real.call("calendar_add", {"title": "Test", "start": "tomorrow"}).text)
    ids = [e["id"] for e in today["events"]]
    if ids:  # a new id follows the world's own style
        assert len(added["added"]["id"]) == len(ids[0])
    assert not real.call("memory_search", {"query": "IBAN"}).is_error
    assert json.loads(real.call("web_search", {"query": "dolar"}).text)["results"]


def test_results_are_identical_across_builds(real_template: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build.build_template(again)
    outputs = []
    for root in (real_template, again):
        provider = BuiltinToolProvider(lambda context, r=root: World(r))
        provider.begin_case(CONTEXT)
        calls = [("search_documents", {"query": "kira"}), ("web_search", {"query": "hava"}),
                 ("find_files", {"pattern": "*"}), ("list_directory", {"path": "Documents"})]
        if shutil.which("git"):
            calls.append(("git_log", {"limit": 50}))
        outputs.append([provider.call(name, args).text for name, args in calls])
    assert outputs[0] == outputs[1]


def test_search_documents_splits_names_on_underscores(real: BuiltinToolProvider) -> None:
    result = real.call("search_documents", {"query": "travel expenses"})
    top = json.loads(result.text)["results"][0]
    assert top["path"] == "Documents/Travel/travel_expenses_berlin_2025.csv"
    turkish = json.loads(real.call("search_documents", {"query": "fatura özeti"}).text)
    assert turkish["results"][0]["path"] == "Documents/Faturalar/fatura_özeti_2025.csv"


def test_contacts_lookup_finds_a_contact_by_the_label_a_user_types(
    real: BuiltinToolProvider,
) -> None:
    for query in ("dişçi", "DİŞÇİ", "disci", "diş hekimi"):
        result = json.loads(real.call("contacts_lookup", {"name": query}).text)
        assert result["results"][0]["name"] == "Pınar Oral", query
