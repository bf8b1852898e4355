"""Builders and helpers for the tool tests: a mini world per pytest_tooleval/world/api.py."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

from pytest_tooleval.tools.base import ToolResult
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.world.api import World

NOW = "2026-03-12T10:47:00+03:00"


def make_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page (ASCII only)."""
    objects: list[bytes] = []
    n_pages = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources "
            f"<< /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"\
        .encode()
    return bytes(out)


def make_docx(paragraphs: list[str]) -> bytes:
    ns = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
    xml = f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{ns}"><w:body>' \
          f"{body}</w:body></w:document>"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", xml)
    return buffer.getvalue()


def git(repo: Path, *args: str, date: str = "2026-02-01T09:00:00+03:00") -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo.parent),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "Elif Aydın", "GIT_AUTHOR_EMAIL": "elif@example.org",
           "GIT_COMMITTER_NAME": "Elif Aydın", "GIT_COMMITTER_EMAIL": "elif@example.org",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout


def build_world(root: Path) -> World:
    home = root / "home"
    docs = home / "Documents"
    (docs / "Faturalar").mkdir(parents=True)
    (docs / "notes.txt").write_text("Kestrel meeting moved to Friday.\nBudget: 4.817 TL\n",
                                    encoding="utf-8")
    (docs / "lease.pdf").write_bytes(make_pdf([
        "Residential Lease Agreement between Elif Aydin and Harbor Homes",
        "Monthly rent is 23,450 TRY due on the 5th. Deposit 46,900 TRY.",
    ]))
    (docs / "kira_sozlesmesi.docx").write_bytes(make_docx([
        "Kira Sözleşmesi", "Aylık kira bedeli 23.450 TL, depozito 46.900 TL.",
        "Kiracı: Elif Aydın"]))
    (docs / "taksit.csv").write_text("ay;tutar\nOcak;1.873,40\nŞubat;1.873,40\n",
                                     encoding="utf-8")
    (docs / "report.html").write_text(
        "<html><head><style>p{color:red}</style><script>var secret=1</script></head>"
        "<body><h1>Quarterly Report</h1><p>Revenue grew 17.3 percent.</p></body></html>",
        encoding="utf-8")
    (docs / "Faturalar" / "elektrik-faturası-mart.md").write_text(
        "# Elektrik faturası\nTutar: 1.284,65 TL\nSon ödeme: 2026-03-21\n", encoding="utf-8")
    (docs / "data.json").write_text(json.dumps({"iban": "TR33 0006 1005 1978 6457 8413 26"}),
                                    encoding="utf-8")
    downloads = home / "Downloads"
    downloads.mkdir()
    with zipfile.ZipFile(downloads / "photos.zip", "w") as archive:
        archive.writestr("photos/beach.txt", "a beach")
        archive.writestr("photos/city.txt", "a city")
    shutil.make_archive(str(downloads / "backup"), "gztar", root_dir=docs, base_dir="Faturalar")
    repo = home / "Projects" / "kestrel"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main", "--template=")
    (repo / "src" / "app.py").write_text("def greet(name):\n    return f'hi {name}'\n")
    (repo / "README.md").write_text("# Kestrel\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Initial commit", date="2026-02-01T09:00:00+03:00")
    (repo / "src" / "app.py").write_text(
        "TIMEOUT = 37\n\ndef greet(name):\n    return f'hello {name}'\n")
    git(repo, "commit", "-qam", "Raise timeout to 37 seconds", date="2026-02-03T14:20:00+03:00")
    git(repo, "tag", "v0.1")
    git(repo, "checkout", "-q", "-b", "feature/export")
    (repo / "src" / "export.py").write_text("def export():\n    return 'csv'\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Add CSV export", date="2026-02-05T11:00:00+03:00")
    git(repo, "checkout", "-q", "main")
    git(repo, "repack", "-adq")
    git(repo, "prune-packed")
    (repo / "README.md").write_text("# Kestrel\n\nUncommitted line.\n")
    state = root / "state"
    state.mkdir()
    web = root / "web"
    web.mkdir()
    files = {
        state / "clock.json": {"now": NOW, "timezone": "Europe/Istanbul"},
        state / "calendar.json": [
            {"id": "evt-1", "title": "Dentist", "start": "2026-03-12T15:30:00+03:00",
             "end": "2026-03-12T16:15:00+03:00", "location": "Kadıköy", "notes": ""},
            {"id": "evt-2", "title": "Veli toplantısı", "start": "2026-03-16T18:00:00+03:00",
             "end": "2026-03-16T19:00:00+03:00", "location": "Okul", "notes": ""}],
        state / "memories.json": [
            {"key": "door-code", "text": "Apartment door code is 4719#", "saved_at": NOW},
            {"key": "shoe-size", "text": "Ayakkabı numaram 43", "saved_at": NOW}],
        state / "contacts.json": [
            {"name": "Mehmet Öztürk", "phone": "+90 532 418 27 61", "email": "mehmet@ex.org",
             "address": "Moda Cd. 17, İstanbul", "notes": "plumber"}],
        state / "reminders.json": [],
        state / "outbox.json": [],
        web / "pages.json": [
            {"url": "https://kur.example.com.tr/doviz", "title": "Döviz kurları",
             "language": "tr", "published": "2026-03-12",
             "text": "Bugün dolar kuru 36,8214 TL, euro 39,9127 TL."},
            {"url": "https://weather.example.com/istanbul", "title": "Istanbul weather",
             "language": "en", "published": "2026-03-12",
             "text": "Istanbul weather today: 14 degrees, light rain in the afternoon."},
            {"url": "https://news.example.com/kestrel", "title": "Kestrel release news",
             "language": "en", "published": "2026-03-10",
             "text": "Kestrel 2.3 released with faster exports."}],
    }
    for path, data in files.items():
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return World(root)


class Tools:
    """Call tools by name: ``tools.read_file(path="x")`` returns the ToolResult."""

    def __init__(self, provider: BuiltinToolProvider) -> None:
        self.provider = provider

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return lambda **arguments: self.provider.call(name, arguments)

    def ok(self, tool: str, /, **arguments: object) -> str:
        result = self.provider.call(tool, dict(arguments))
        assert not result.is_error, result.text
        return result.text

    def err(self, tool: str, /, **arguments: object) -> str:
        result = self.provider.call(tool, dict(arguments))
        assert result.is_error, result.text
        return result.text


def snapshot(root: Path, skip: Path | None = None) -> dict[str, str]:
    """Every path under ``root`` (except ``skip``) with a digest of its content or kind."""
    result: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        if skip is not None and (base == skip or skip in base.parents):
            dirnames.clear()
            continue
        for name in dirnames + filenames:
            path = base / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                result[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                result[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                result[rel] = "dir"
    return result


def result_json(result: ToolResult) -> object:
    assert not result.is_error, result.text
    return json.loads(result.text)
