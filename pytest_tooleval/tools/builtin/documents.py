"""Document text extraction (txt, md, csv, html, json, pdf, docx) and full-text search."""

from __future__ import annotations

import csv
import html
import io
import json
import logging
import os
import re
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from pytest_tooleval.text.normalize import fold
from pytest_tooleval.tools.base import clip
from pytest_tooleval.tools.builtin.common import Context, Tool, get_int, need_str, prop, token_hit
from pytest_tooleval.tools.builtin.sandbox import ToolError, read_bytes, walk

MAX_DOCUMENT_BYTES = 20 * 1024 * 1024
MAX_XML_BYTES = 8 * 1024 * 1024
TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".csv", ".tsv", ".json", ".log", ".ini", ".yaml",
                 ".yml"}
DOCUMENT_SUFFIXES = TEXT_SUFFIXES | {".html", ".htm", ".pdf", ".docx"}
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# Letters and digits; "_", "-" and "." separate words, so travel_expenses_berlin_2025.csv
# is travel, expenses, berlin, 2025, csv (\w alone would keep the underscored name whole).
_WORD = re.compile(r"[^\W_]+")


# An HTML page is read as ``html.parser`` reads it when it is well formed (the same tags,
# text and entities; a construct that does not end is text up to the next ">", as there),
# in time linear in its length (``html.parser`` searches for the end of such a construct
# again at every later "<": quadratic). Here no pattern can backtrack (possessive
# quantifiers), each search starts where the last construct ended, and a search that found
# nothing is never repeated further on: its pattern cannot match there either
# (``_Page.search``). A start tag's quoted values may
# hold ">"; once a tag's quotes ran to the end of the page, later tags end at their first
# ">" (else each "<" could scan to the end again).
_START_TAG = re.compile(
    r"<([a-zA-Z][^\t\n\r\f />\x00]*+)"
    r"(?:=++\s*+(?:'[^']*'|\"[^\"]*\"|[^>\s]*+)|[^>=])*+(>?)")
_START_TAG_PLAIN = re.compile(r"<([a-zA-Z][^\t\n\r\f />\x00]*+)[^>]*+(>?)")
_END_TAG = re.compile(r"</\s*+([a-zA-Z][-.a-zA-Z0-9:_]*+)\s*+>")
_END_TAG_NAME = re.compile(r"</([a-zA-Z][^\t\n\r\f />\x00]*+)")
_GT = re.compile(">")
_OPEN = re.compile(r"<[a-zA-Z/!?]")  # any other "<" is text
_COMMENT_END = re.compile(r"--\s*+>")
_SECTION = re.compile(r"<!\[([a-zA-Z]*+)")
_SECTION_END = re.compile(r"]\s*+]\s*+>")  # <![CDATA[ ... ]]>
_MS_SECTION_END = re.compile(r"]\s*+>")  # <![if ...]> ... <![endif]>
_RAW_TEXT = {name: re.compile(rf"</\s*+{name}\s*+>", re.IGNORECASE)
             for name in ("script", "style")}
# A numeric character reference of thousands of digits makes ``html.unescape`` raise
# (Python's limit on converting long digit strings); past 8 digits it is U+FFFD anyway.
_LONG_CHARREF = re.compile(r"&#[xX]?+[0-9a-fA-F]{9,}+;?")


def _unescape(text: str) -> str:
    try:
        return html.unescape(text)
    except ValueError:
        return html.unescape(_LONG_CHARREF.sub("\ufffd", text))


def _self_closing(tag: str) -> bool:
    """``<br/>``, ``<x a="1"/>``, but not ``<a href=/x/>`` (a bare value keeps its "/")."""
    if not tag.endswith("/>"):
        return False
    words = tag[1:-2].split()
    name, equals, value = words[-1].partition("=") if len(words) > 1 else ("", "", "")
    return not equals or not name or value.lstrip("=")[:1] in ("'", '"')


class _Page:
    """One page's source, read once from the start (see the comment above), into its
    visible text: script and style are dropped, blocks become lines."""

    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table",
              "section", "article", "header", "footer", "ul", "ol", "title"}

    def __init__(self, source: str) -> None:
        self.source = source
        self.not_after: dict[re.Pattern[str], int] = {}
        self.quotes = True
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)

    def search(self, pattern: re.Pattern[str], start: int) -> re.Match[str] | None:
        if start >= self.not_after.get(pattern, len(self.source) + 1):
            return None
        found = pattern.search(self.source, start)
        if found is None:
            self.not_after[pattern] = start
        return found

    def end_of(self, pattern: re.Pattern[str], start: int) -> int:
        found = self.search(pattern, start)
        return found.end() if found else -1

    def construct(self, i: int) -> int:
        """The end of the construct at ``source[i] == "<"``, its tags reported; ``i`` for a
        "<" that starts none (text), -1 for one that does not end."""
        source = self.source
        if source.startswith("<!--", i):
            return self.end_of(_COMMENT_END, i + 4)
        if source.startswith("</", i):
            gt = self.end_of(_GT, i + 2)
            if gt < 0:
                return -1
            closed = _END_TAG.match(source, i, gt)
            named = closed or _END_TAG_NAME.match(source, i, gt)
            if named:
                self.handle_endtag(named.group(1).lower())
            return gt  # "</name junk>", "</>" or a bogus comment: up to the first ">"
        if source.startswith("<![", i):
            keyword = _SECTION.match(source, i)
            name = keyword.group(1).lower() if keyword else ""
            if name in ("temp", "cdata", "ignore", "include", "rcdata"):
                return self.end_of(_SECTION_END, i + 3)
            if name in ("if", "else", "endif"):
                return self.end_of(_MS_SECTION_END, i + 3)
            return self.end_of(_GT, i + 3)
        if source.startswith(("<!", "<?"), i):  # a declaration, a processing instruction
            return self.end_of(_GT, i + 2)
        tag = (_START_TAG if self.quotes else _START_TAG_PLAIN).match(source, i)
        if tag is None:
            return i
        if not tag.group(2):
            if self.quotes:
                self.quotes = False
                return self.construct(i)
            return -1
        name = tag.group(1).lower()
        self.handle_starttag(name)
        if _self_closing(tag.group(0)):
            self.handle_endtag(name)
        elif name in _RAW_TEXT:  # script and style: raw text up to their end tag
            closing = self.search(_RAW_TEXT[name], tag.end())
            if closing is None:
                return len(source)
            self.handle_data(source[tag.end():closing.start()])
            self.handle_endtag(name)
            return closing.end()
        return tag.end()

    def read(self) -> str:
        source = self.source
        text_from = at = 0
        while opening := _OPEN.search(source, at):
            lt = opening.start()
            if text_from < lt:
                self.handle_data(_unescape(source[text_from:lt]))
                text_from = lt
            end = self.construct(lt)
            if end < 0:  # never ends: text up to the next ">" (the rest, without one)
                end = self.end_of(_GT, lt + 1)
                if end < 0:
                    break
                self.handle_data(_unescape(source[lt:end]))
                text_from = at = end
            elif end == lt:  # a plain "<": text
                at = lt + 1
            else:
                text_from = at = end
        if text_from < len(source):
            self.handle_data(_unescape(source[text_from:]))
        lines = (re.sub(r"[ \t]+", " ", line).strip() for line in "".join(self.parts).split("\n"))
        return "\n".join(line for line in lines if line)


def html_text(source: str) -> str:
    return _Page(source).read()


def _docx_text(data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("word/document.xml")
            if info.file_size > MAX_XML_BYTES:
                raise ToolError("the DOCX body is too large")
            with archive.open(info) as handle:
                xml = handle.read(MAX_XML_BYTES + 1)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise ToolError(f"not a readable DOCX file: {exc}") from None
    if len(xml) > MAX_XML_BYTES or b"<!ENTITY" in xml or b"<!DOCTYPE" in xml:
        raise ToolError("the DOCX body is too large or declares entities; refused")
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise ToolError(f"the DOCX body is not valid XML: {exc}") from None
    paragraphs = []
    for para in root.iter(f"{_W}p"):
        chunks = []
        for node in para.iter():
            if node.tag == f"{_W}t" and node.text:
                chunks.append(node.text)
            elif node.tag == f"{_W}tab":
                chunks.append("\t")
            elif node.tag in (f"{_W}br", f"{_W}cr"):
                chunks.append("\n")
        paragraphs.append("".join(chunks))
    return "\n".join(paragraphs).strip()


def _pdf_pages(data: bytes) -> list[str]:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ToolError("the PDF is encrypted")
        return [(page.extract_text() or "").strip() for page in reader.pages[:500]]
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError,
            RecursionError) as exc:
        raise ToolError(f"not a readable PDF: {type(exc).__name__}") from None


def _csv_text(text: str) -> str:
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
        rows = list(csv.reader(io.StringIO(text), dialect))
    except csv.Error:
        return text
    return "\n".join(" | ".join(cell.strip() for cell in row) for row in rows)


def document_pages(real: Path, shown: str) -> list[str]:
    """The text of a document, one string per page (one page for non-PDF formats)."""
    suffix = real.suffix.lower()
    if suffix not in DOCUMENT_SUFFIXES:
        raise ToolError(f"{shown!r}: unsupported document type {suffix or '(none)'}; "
                        "supported: " + " ".join(sorted(DOCUMENT_SUFFIXES)))
    data = read_bytes(real, shown, MAX_DOCUMENT_BYTES)
    if suffix == ".pdf":
        return _pdf_pages(data)
    if suffix == ".docx":
        return [_docx_text(data)]
    text = data.decode("utf-8-sig", errors="replace")
    if suffix in (".html", ".htm"):
        return [html_text(text)]
    if suffix == ".csv":
        return [_csv_text(text)]
    if suffix == ".json":
        try:
            return [json.dumps(json.loads(text), ensure_ascii=False, indent=1)]
        except (ValueError, RecursionError):
            return [text]
    return [text]


def _cached_pages(ctx: Context, real: Path, shown: str) -> list[str]:
    st = os.stat(real)
    key = f"doc:{real}:{st.st_mtime_ns}:{st.st_size}"
    if key not in ctx.cache:
        ctx.cache[key] = document_pages(real, shown)
    pages: list[str] = ctx.cache[key]
    return pages


def _read_document(ctx: Context, args: dict[str, Any]) -> str:
    shown = need_str(args, "path", limit=1024)
    page = get_int(args, "page", low=1, high=100_000)
    try:
        real = ctx.home.resolve(shown)
    except ToolError:
        # "lease.pdf" usually means Documents/lease.pdf
        try:
            real = ctx.home.resolve("Documents/" + shown)
        except ToolError:
            raise ToolError(f"{shown!r} not found; paths are relative to the home folder, "
                            "e.g. Documents/lease.pdf (search_documents finds documents)"
                            ) from None
    if real.is_dir():
        raise ToolError(f"{shown!r} is a folder; use list_directory")
    pages = _cached_pages(ctx, real, shown)
    name = ctx.home.relative(real)
    if page is not None:
        if page > len(pages):
            raise ToolError(f"{name} has {len(pages)} page(s); page {page} does not exist")
        return clip(f"{name} — page {page} of {len(pages)}\n\n{pages[page - 1]}")
    if len(pages) == 1:
        return clip(f"{name}\n\n{pages[0]}")
    body = "\n\n".join(f"--- page {n} ---\n{text}" for n, text in enumerate(pages, 1))
    return clip(f"{name} — {len(pages)} pages\n\n{body}")


def _snippet(text: str, folded_terms: list[str], width: int = 180) -> str:
    flat = re.sub(r"\s+", " ", text)
    folded = fold(flat)
    positions = [at for at in map(folded.find, folded_terms) if at >= 0]
    start = max(0, min(positions) - width // 3) if positions else 0
    # fold() keeps lengths for Latin text; the guard below keeps us in range otherwise
    start = min(start, max(0, len(flat) - width))
    piece = flat[start:start + width].strip()
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(flat) else "")


def _search_documents(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    query = need_str(args, "query", limit=500)
    terms = [t for t in _WORD.findall(fold(query)) if len(t) > 1] or _WORD.findall(fold(query))
    if not terms:
        raise ToolError("the query has no words to search for")
    root = ctx.home.resolve("Documents") if ctx.world.documents.exists() else ctx.home.real_root
    results = []
    for path in walk(root):
        if path.is_symlink() or not path.is_file() or path.suffix.lower() not in \
                DOCUMENT_SUFFIXES:
            continue
        rel = ctx.home.relative(path)
        try:
            pages = _cached_pages(ctx, path, rel)
        except (ToolError, OSError):
            continue
        name_tokens = _WORD.findall(fold(rel))
        for number, text in enumerate(pages, 1):
            tokens = _WORD.findall(fold(text))
            matched, score = 0, 0.0
            for term in terms:
                in_name = any(token_hit(term, tok) for tok in name_tokens)
                count = sum(1 for tok in tokens if token_hit(term, tok))
                if in_name or count:
                    matched += 1
                    score += (3.0 if in_name else 0.0) + min(count, 10) / (1 + len(tokens) / 400)
            if matched:
                results.append((matched, score, rel, number, len(pages), text))
    results.sort(key=lambda r: (-r[0], -r[1], r[2], r[3]))
    best = [r for r in results if r[0] == results[0][0]] if results else []
    hits = [{"path": rel, "page": page, "pages": total, "snippet": _snippet(text, terms)}
            for _, _, rel, page, total, text in best[:10]]
    return {"query": query, "results": hits,
            "note": "no matching documents" if not hits else
            "read a hit with read_document(path, page)"}


TOOLS = [
    Tool("search_documents", "Full-text search over the user's documents folder (PDF, DOCX, "
         "text, CSV, HTML): returns matching documents with page numbers and snippets. "
         "Searches the user's own files, not the internet (that is web_search).",
         {"query": prop("string", "Words to look for, in any language; case and accents "
                        "are ignored.")}, ("query",), _search_documents),
    Tool("read_document", "Read the text of a document (.pdf .docx .txt .md .csv .html "
         ".json) from the home folder, the whole document or one page.",
         {"path": prop("string", "Path relative to the home folder, e.g. "
                       "Documents/lease.pdf."),
          "page": prop("integer", "Optional 1-based page number (PDFs).", minimum=1)},
         ("path",), _read_document),
]
