"""The minimums of the catalogue spec (per language where not shared)."""

from __future__ import annotations

import collections
import subprocess
import tarfile
import zipfile
from datetime import datetime, timedelta

from pytest_tooleval.world import DEFAULT_NOW, World
from pytest_tooleval.world.build import documents
from pytest_tooleval.world.data_io import home_folders
from pytest_tooleval.world.web import all_pages


def _home_files(world: World) -> list[str]:
    return [
        p.relative_to(world.home).as_posix()
        for p in world.home.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(world.home).parts
    ]


def test_home_folder(template: World) -> None:
    files = _home_files(template)
    assert len(files) >= 60
    for top in ("Documents", "Downloads", "Photos", "Notes", "Projects"):
        assert any(f.startswith(top + "/") for f in files), top
    assert any(any(ch in f for ch in "ğışçöüİ") for f in files)  # Turkish names
    assert max(f.count("/") for f in files) >= 3  # nested folders
    archives = [f for f in files if f.startswith("Downloads/") and f.endswith((".zip", ".tar.gz"))]
    assert len(archives) >= 6
    assert any(a.endswith(".zip") for a in archives) and any(
        a.endswith(".tar.gz") for a in archives
    )
    for rel in archives:
        path = template.home / rel
        if rel.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                assert z.testzip() is None and z.namelist()
        else:
            with tarfile.open(path) as t:
                assert any(m.isfile() and m.size > 0 for m in t.getmembers())


def test_documents_per_language() -> None:
    by_lang = collections.Counter(lang for lang, _ in documents())
    assert by_lang["en"] >= 30 and by_lang["tr"] >= 30
    kinds = {doc["path"].rsplit(".", 1)[1] for _, doc in documents()}
    assert {"pdf", "docx", "csv", "md", "html", "txt", "json"} <= kinds
    assert sum(doc["path"].endswith(".docx") for _, doc in documents()) >= 2
    assert all(doc["path"].startswith("Documents/") for _, doc in documents())


def test_repository(template: World) -> None:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=template.repo, capture_output=True, text=True, check=True
        ).stdout

    assert len(git("rev-list", "--all").split()) >= 30
    assert len(git("branch", "--format=%(refname:short)").split()) >= 3
    assert git("tag").split()
    status = git("status", "--porcelain")
    assert " M " in status and "?? " in status
    assert len(list(template.repo.rglob("*.py"))) >= 5


def test_calendar_memories_contacts(template: World) -> None:
    events = template.load_state("calendar")
    assert len(events) >= 60 and len({e["id"] for e in events}) == len(events)
    now = datetime.fromisoformat(DEFAULT_NOW)
    starts = [datetime.fromisoformat(e["start"]) for e in events]
    assert all(abs(s - now) <= timedelta(days=31) for s in starts)
    assert min(starts) < now < max(starts)
    assert len(template.load_state("memories")) >= 40
    assert len(template.load_state("contacts")) >= 25
    assert template.load_state("clock") == {"now": DEFAULT_NOW, "timezone": "Europe/Istanbul"}


def test_web(template: World) -> None:
    pages = template.load_state("../web/pages")
    assert {tuple(sorted(p)) for p in pages} == {("language", "published", "text", "title", "url")}
    assert len({p["url"] for p in pages}) == len(pages)
    assert all(".example." in p["url"].split("/")[2] for p in pages)
    for lang in ("en", "tr"):
        mine = [p for p in all_pages() if p["language"] == lang]
        assert len(mine) >= 60
        assert sum(p["kind"] == "current" for p in mine) >= 25
        topics = {p["topic"] for p in mine}
        assert {
            "exchange rates",
            "gold",
            "weather",
            "on-duty pharmacy",
            "match results",
            "news",
            "fuel prices",
            "school holidays",
            "earthquakes",
        } <= topics


def test_the_template_folders_are_read_from_its_data(template: World) -> None:
    """The load-time refusal of a world file naming a folder knows every folder."""
    built = {p.relative_to(template.home).as_posix() for p in template.home.rglob("*")
             if p.is_dir() and ".git" not in p.relative_to(template.home).parts}
    assert home_folders() == built
