"""Deterministic writers for the world's binary files: PDF, DOCX, ZIP, tar.gz and PNG.

No third-party writer is used, so the bytes depend only on the input. PDF text uses the
standard Helvetica font re-encoded to Windows-1254 (the Turkish code page) through a
``/Differences`` array, plus a ToUnicode CMap so that text extraction returns ğ, ı, İ, ş
correctly.
"""

from __future__ import annotations

import gzip
import io
import struct
import tarfile
import textwrap
import zipfile
import zlib
from collections.abc import Mapping
from datetime import datetime
from pathlib import PurePosixPath
from xml.sax.saxutils import escape

PDF_CODEC = "cp1254"
# cp1254 differs from WinAnsi (cp1252) in six slots: Turkish letters replace Icelandic ones.
_DIFFERENCES = "208 /Gbreve 221 /Idotaccent 222 /Scedilla 240 /gbreve 253 /dotlessi 254 /scedilla"
_PAGE_W, _PAGE_H = 595, 842
_LINES_PER_PAGE = 52
_WRAP = 92


def _pdf_string(text: str) -> bytes:
    """A PDF literal string in cp1254, with every non-printable byte octal-escaped."""
    escaped = (b"\\" + bytes([byte]) if byte in b"()\\" else bytes([byte])
               if 0x20 <= byte < 0x7F else b"\\%03o" % byte for byte in text.encode(PDF_CODEC))
    return b"(" + b"".join(escaped) + b")"


def _to_unicode_cmap() -> bytes:
    chars = ((code, bytes([code]).decode(PDF_CODEC, "ignore")) for code in range(0x20, 0x100))
    entries = [f"<{code:02X}> <{ord(char):04X}>" for code, char in chars if char]
    blocks = []
    for start in range(0, len(entries), 100):
        chunk = entries[start : start + 100]
        blocks.append(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar")
    return (
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Tooleval-cp1254 def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<00> <FF>\nendcodespacerange\n"
        + "\n".join(blocks)
        + "\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    ).encode("ascii")


def layout_lines(body: str) -> list[tuple[bool, str]]:
    """Split marked-up text into (bold, line) pairs, wrapped for an A4 page."""
    lines: list[tuple[bool, str]] = []
    for para in body.strip().split("\n\n"):
        for raw in para.split("\n"):
            raw = raw.rstrip()
            if raw.startswith("# "):
                lines.append((True, raw[2:]))
                continue
            indent = "   " if raw.startswith("- ") else ""
            wrapped = textwrap.wrap(
                raw, _WRAP, subsequent_indent=indent, break_on_hyphens=False
            ) or [""]
            lines.extend((False, w) for w in wrapped)
        lines.append((False, ""))
    return lines


def make_pdf(title: str, body: str, when: datetime) -> bytes:
    """A small, valid, deterministic PDF whose text pypdf can extract."""
    all_lines = [(True, title), (False, "")] + layout_lines(body)
    pages = [all_lines[i : i + _LINES_PER_PAGE] for i in range(0, len(all_lines), _LINES_PER_PAGE)]
    objects: list[bytes] = []

    def add(obj: bytes) -> int:
        objects.append(obj)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_id = add(b"")
    encoding = add(
        b"<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences ["
        + _DIFFERENCES.encode()
        + b"] >>"
    )
    cmap = _to_unicode_cmap()
    cmap_id = add(b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream")
    fonts = [
        add(
            f"<< /Type /Font /Subtype /Type1 /BaseFont /{name} /Encoding {encoding} 0 R "
            f"/ToUnicode {cmap_id} 0 R >>".encode()
        )
        for name in ("Helvetica", "Helvetica-Bold")
    ]
    kids = []
    for number, page in enumerate(pages, start=1):
        ops = [b"BT", b"/F1 10 Tf", b"14 TL", b"56 790 Td"]
        for bold, line in page:
            ops.append(b"/F2 11 Tf" if bold else b"/F1 10 Tf")
            ops.append(_pdf_string(line) + b" Tj T*")
        footer = _pdf_string(f"{number}/{len(pages)}")
        ops += [b"ET", b"BT /F1 8 Tf 290 30 Td " + footer + b" Tj ET"]
        stream = zlib.compress(b"\n".join(ops), 9)
        content = add(
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream)
            + stream
            + b"\nendstream"
        )
        kids.append(
            add(
                f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {_PAGE_W} {_PAGE_H}] "
                f"/Resources << /Font << /F1 {fonts[0]} 0 R /F2 {fonts[1]} 0 R >> >> "
                f"/Contents {content} 0 R >>".encode()
            )
        )
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages_id} 0 R >>".encode()
    kid_refs = " ".join(f"{k} 0 R" for k in kids)
    objects[pages_id - 1] = f"<< /Type /Pages /Kids [{kid_refs}] /Count {len(kids)} >>".encode()
    stamp = when.strftime("D:%Y%m%d%H%M%S") + _pdf_offset(when)
    title_hex = ("\ufeff" + title).encode("utf-16-be").hex().upper()
    info = add(
        f"<< /Title <{title_hex}> /Producer (pytest-tooleval world) "
        f"/CreationDate ({stamp}) /ModDate ({stamp}) >>".encode()
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for index, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % index + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    size = len(objects) + 1
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\n" % (size, catalog, info)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def _pdf_offset(when: datetime) -> str:
    """The PDF date's offset: ``+03'00'``, or ``Z`` for a naive time."""
    offset = when.strftime("%z")
    return f"{offset[:3]}'{offset[3:5]}'" if offset else "Z"


# --- DOCX -----------------------------------------------------------------------------

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    '<Override PartName="/docProps/core.xml" '
    'ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/'
    'relationships/metadata/core-properties" Target="docProps/core.xml"/>'
    "</Relationships>"
)


def _docx_paragraph(text: str, bold: bool = False, size: int | None = None) -> str:
    props = ("<w:b/>" if bold else "") + (f'<w:sz w:val="{size}"/>' if size else "")
    props = f"<w:rPr>{props}</w:rPr>" if props else ""
    return f'<w:p><w:r>{props}<w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def _docx_table(rows: list[list[str]]) -> str:
    cells = "".join("<w:tr>" + "".join(f"<w:tc>{_docx_paragraph(c)}</w:tc>" for c in row)
                    + "</w:tr>" for row in rows)
    borders = '<w:tblBorders><w:insideH w:val="single" w:sz="4"/></w:tblBorders>'
    return f"<w:tbl><w:tblPr>{borders}</w:tblPr>{cells}</w:tbl>"


def make_docx(title: str, body: str, when: datetime, author: str) -> bytes:
    """A minimal WordprocessingML package; lines of ``| a | b |`` become a table."""
    parts = [_docx_paragraph(title, bold=True, size=32)]
    for para in body.strip().split("\n\n"):
        lines = para.split("\n")
        if all(line.startswith("|") for line in lines):
            rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
            parts.append(_docx_table(rows))
            continue
        for line in lines:
            if line.startswith("# "):
                parts.append(_docx_paragraph(line[2:], bold=True, size=26))
            else:
                parts.append(_docx_paragraph(line))
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        f'<w:document xmlns:w="{_W}"><w:body>{"".join(parts)}</w:body></w:document>'
    )
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ") if when.utcoffset() is None else when.isoformat()
    core = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/'
        'core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" '
        'xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"<dc:title>{escape(title)}</dc:title><dc:creator>{escape(author)}</dc:creator>"
        f'<dcterms:created xsi:type="dcterms:W3CDTF">{stamp}</dcterms:created>'
        "</cp:coreProperties>"
    )
    return make_zip(
        {
            "[Content_Types].xml": _CONTENT_TYPES.encode(),
            "_rels/.rels": _RELS.encode(),
            "word/document.xml": document.encode(),
            "docProps/core.xml": core.encode(),
        },
        when,
    )


# --- archives and images ---------------------------------------------------------------


def make_zip(members: Mapping[str, bytes], when: datetime) -> bytes:
    """A zip with fixed entry dates, permissions and order."""
    buffer = io.BytesIO()
    stamp = when.timetuple()[:6]
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def make_targz(members: Mapping[str, bytes], when: datetime) -> bytes:
    """A tar.gz with fixed mtimes, owners and gzip header."""
    raw = io.BytesIO()
    epoch = int(when.timestamp())
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        parents = {str(p) for name in members for p in PurePosixPath(name).parents}
        for directory in sorted(parents - {"."}):
            info = tarfile.TarInfo(directory)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, epoch
            archive.addfile(info)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, epoch
            archive.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", fileobj=out, mode="wb", compresslevel=9, mtime=epoch) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def make_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A tiny valid PNG: a vertical gradient from ``rgb`` (a placeholder photo)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    rows = bytearray()
    for y in range(height):
        shade = y * 96 // max(height - 1, 1)
        pixel = bytes(min(255, c + shade) for c in rgb)
        rows += b"\x00" + pixel * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )
