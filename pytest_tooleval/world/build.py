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
from itertools import groupby
from pathlib import Path
from typing import Any

from pytest_tooleval.world import formats
from pytest_tooleval.world.api import DEFAULT_NOW, DEFAULT_TIMEZONE, REPO_DIR, World
from pytest_tooleval.world.data_io import fingerprint, load_yaml
from pytest_tooleval.world.repo import build_repo
from pytest_tooleval.world.web import all_pages, public_record

DEFAULT_AUTHOR = "Deniz Aksoy"
META_FILE = "meta/build.json"


def _write(path: Path, data: bytes | str, when: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    epoch = datetime.fromisoformat(when).timestamp()
    os.utime(path, (epoch, epoch))


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def _html_page(title: str, body: str, lang: str) -> str:
    parts = [f"<h1>{html.escape(title)}</h1>"]
    for para in body.strip().split("\n\n"):
        for listed, lines in groupby(para.split("\n"), key=lambda line: line.startswith("- ")):
            if listed:
                items = "".join(f"<li>{html.escape(line[2:])}</li>" for line in lines)
                parts.append(f"<ul>{items}</ul>")
                continue
            for line in lines:
                if line.startswith("# "):
                    parts.append(f"<h2>{html.escape(line[2:])}</h2>")
                elif line.strip():
                    parts.append(f"<p>{html.escape(line)}</p>")
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n</head>\n<body>\n"
        + "\n".join(parts)
        + "\n</body>\n</html>\n"
    )


def render_document(doc: dict[str, Any], lang: str) -> bytes:
    """One document spec (see documents_*.yaml) to the bytes of its file."""
    suffix = Path(doc["path"]).suffix.lower()
    when = datetime.fromisoformat(doc["date"])
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
        when = datetime.fromisoformat(archive["mtime"])
        maker = formats.make_zip if rel.endswith(".zip") else formats.make_targz
        _write(home / rel, maker(members, when), archive["mtime"])


def _records(fields: str, rows: list[list[Any]]) -> list[dict[str, Any]]:
    return [dict(zip(fields.split(), row, strict=True)) for row in rows]


def _build_state(state: Path) -> None:
    people = load_yaml("people.yaml")
    calendar = _records("id title start end location notes", load_yaml("calendar.yaml"))
    calendar.sort(key=lambda e: (datetime.fromisoformat(e["start"]), e["id"]))
    tables: dict[str, Any] = {
        "clock": {"now": DEFAULT_NOW, "timezone": DEFAULT_TIMEZONE},
        "calendar": calendar,
        "memories": _records("key text saved_at", people["memories"]),
        "contacts": _records("name phone email address notes", people["contacts"]),
        "reminders": _records("id text at", people["reminders"]),
        "outbox": [],
    }
    for name, data in tables.items():
        _write(state / f"{name}.json", _json(data), DEFAULT_NOW)


def _fix_mtimes(root: Path, when: str) -> None:
    """Directories outside the repository (which keeps the times its history gives,
    world/repo.py) get one fixed mtime, deepest first."""
    epoch = datetime.fromisoformat(when).timestamp()
    repo = root / "home" / REPO_DIR
    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and path != repo and repo not in path.parents:
            os.utime(path, (epoch, epoch))
    os.utime(root, (epoch, epoch))


def build_template(dest: Path) -> World:
    """Build the whole world into ``dest`` (created; must be absent or empty)."""
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    world = World(dest)
    _build_home(world.home)
    repo_info = build_repo(world.repo)
    _build_state(world.state_dir)
    _write(world.web_dir / "pages.json", _json([public_record(p) for p in all_pages()]),
           DEFAULT_NOW)
    meta = {"fingerprint": fingerprint(), "repo": repo_info}
    _write(dest / META_FILE, _json(meta), DEFAULT_NOW)
    _fix_mtimes(dest, load_yaml("home.yaml")["default_mtime"])
    return world
