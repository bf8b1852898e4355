"""Builds the template world from package data: files, archives, repository, state and web.

Everything is derived from ``world/data`` and fixed dates, so two builds on any two
machines give the same bytes (except ``.git/index``, which records inode numbers).
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_tooleval.world import formats
from pytest_tooleval.world.api import DEFAULT_NOW, DEFAULT_TIMEZONE, REPO_DIR, World
from pytest_tooleval.world.data_io import fingerprint, load_yaml
from pytest_tooleval.world.repo import build_repo
from pytest_tooleval.world.web import all_pages, public_record

DEFAULT_AUTHOR = "Deniz Aksoy"
META_FILE = "meta/build.json"


def _stamp(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def _write(path: Path, data: bytes | str, when: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    epoch = _stamp(when).timestamp()
    os.utime(path, (epoch, epoch))


def _html_page(title: str, body: str, lang: str) -> str:
    parts = [f"<h1>{html.escape(title)}</h1>"]
    for para in body.strip().split("\n\n"):
        items: list[str] = []
        for line in para.split("\n"):
            if line.startswith("- "):
                items.append(f"<li>{html.escape(line[2:])}</li>")
                continue
            if items:
                parts.append("<ul>" + "".join(items) + "</ul>")
                items = []
            if line.startswith("# "):
                parts.append(f"<h2>{html.escape(line[2:])}</h2>")
            elif line.strip():
                parts.append(f"<p>{html.escape(line)}</p>")
        if items:
            parts.append("<ul>" + "".join(items) + "</ul>")
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n</head>\n<body>\n"
        + "\n".join(parts)
        + "\n</body>\n</html>\n"
    )


def render_document(doc: dict[str, Any], lang: str) -> bytes:
    """One document spec (see documents_*.yaml) to the bytes of its file."""
    suffix = Path(doc["path"]).suffix.lower()
    when = _stamp(doc["date"])
    if suffix == ".pdf":
        return formats.make_pdf(doc["title"], doc["body"], when)
    if suffix == ".docx":
        return formats.make_docx(doc["title"], doc["body"], when, doc.get("author", DEFAULT_AUTHOR))
    if suffix == ".csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(doc["rows"])
        return out.getvalue().encode("utf-8")
    if suffix == ".json":
        return (json.dumps(doc["data"], ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    if suffix == ".html":
        return _html_page(doc["title"], doc["body"], lang).encode("utf-8")
    if suffix in (".md", ".txt"):
        return doc["body"].encode("utf-8")
    raise ValueError(f"unknown document kind: {doc['path']}")


def documents() -> list[tuple[str, dict[str, Any]]]:
    """(language, spec) for every document, English first."""
    return [(lang, doc) for lang in ("en", "tr") for doc in load_yaml(f"documents_{lang}.yaml")]


def _build_home(home: Path) -> None:
    for lang, doc in documents():
        _write(home / doc["path"], render_document(doc, lang), doc["date"])
    spec = load_yaml("home.yaml")
    default = spec["default_mtime"]
    for rel, text in {**spec["notes"], **spec["downloads"]}.items():
        _write(home / rel, text, default)
    for rel, (w, h, r, g, b, when) in spec["photos"].items():
        _write(home / rel, formats.make_png(w, h, (r, g, b)), when)
    for rel, archive in spec["archives"].items():
        members = {name: text.encode("utf-8") for name, text in archive["members"].items()}
        when = _stamp(archive["mtime"])
        maker = formats.make_zip if rel.endswith(".zip") else formats.make_targz
        _write(home / rel, maker(members, when), archive["mtime"])


def _build_state(state: Path) -> None:
    people = load_yaml("people.yaml")
    calendar = [
        dict(zip(("id", "title", "start", "end", "location", "notes"), row, strict=True))
        for row in load_yaml("calendar.yaml")
    ]
    calendar.sort(key=lambda e: (_stamp(e["start"]), e["id"]))
    tables: dict[str, Any] = {
        "clock": {"now": DEFAULT_NOW, "timezone": DEFAULT_TIMEZONE},
        "calendar": calendar,
        "memories": [
            dict(zip(("key", "text", "saved_at"), m, strict=True)) for m in people["memories"]
        ],
        "contacts": [
            dict(zip(("name", "phone", "email", "address", "notes"), c, strict=True))
            for c in people["contacts"]
        ],
        "reminders": [dict(zip(("id", "text", "at"), r, strict=True)) for r in people["reminders"]],
        "outbox": [],
    }
    for name, data in tables.items():
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        _write(state / f"{name}.json", text, DEFAULT_NOW)


def _fix_mtimes(root: Path, when: str) -> None:
    """Directories outside the repository (which keeps the times its history gives,
    world/repo.py) get one fixed mtime, deepest first."""
    epoch = _stamp(when).timestamp()
    repo = root / "home" / REPO_DIR
    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and path != repo and repo not in path.parents:
            os.utime(path, (epoch, epoch))
    os.utime(root, (epoch, epoch))


def build_template(dest: Path) -> World:
    """Build the whole world into ``dest`` (created; must be absent or empty)."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    world = World(dest)
    _build_home(world.home)
    repo_info = build_repo(world.repo)
    _build_state(world.state_dir)
    pages = all_pages()
    web_text = json.dumps([public_record(p) for p in pages], ensure_ascii=False, indent=1) + "\n"
    _write(world.web_dir / "pages.json", web_text, DEFAULT_NOW)
    meta = {"fingerprint": fingerprint(), "repo": repo_info}
    _write(dest / META_FILE, json.dumps(meta, ensure_ascii=False, indent=1) + "\n", DEFAULT_NOW)
    _fix_mtimes(dest, load_yaml("home.yaml")["default_mtime"])
    return world
