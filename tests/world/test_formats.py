"""PDF and DOCX text is extractable (Turkish letters included) by the readers tools use."""

from __future__ import annotations

import re
import zipfile

import pypdf
import pytest

from pytest_tooleval.world import World
from pytest_tooleval.world.build import documents


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("# ", "")).strip()


def _docx_text(data_path) -> str:
    with zipfile.ZipFile(data_path) as z:
        xml = z.read("word/document.xml").decode("utf-8")
    xml = xml.replace("</w:p>", "\n")
    text = re.sub(r"<[^>]+>", "", xml)
    return text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")


PDFS = [doc for _, doc in documents() if doc["path"].endswith(".pdf")]
DOCXS = [doc for _, doc in documents() if doc["path"].endswith(".docx")]


@pytest.mark.parametrize("doc", PDFS, ids=[d["path"] for d in PDFS])
def test_pdf_text(template: World, doc: dict) -> None:
    reader = pypdf.PdfReader(template.home / doc["path"])
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert _collapse(doc["body"]) in _collapse(text)
    assert doc["title"] in text


def test_pdf_turkish_letters(template: World) -> None:
    reader = pypdf.PdfReader(template.home / "Documents/Ev/kira_sozlesmesi_moda_2025.pdf")
    text = reader.pages[0].extract_text()
    for word in ("KİRA SÖZLEŞMESİ", "Hüseyin Karadağ", "Kiracı", "31.750 TL", "Madde 3 - Depozito"):
        assert word in text


@pytest.mark.parametrize("doc", DOCXS, ids=[d["path"] for d in DOCXS])
def test_docx_text(template: World, doc: dict) -> None:
    text = _docx_text(template.home / doc["path"])
    assert doc["title"] in text
    for line in doc["body"].splitlines():
        for cell in line.strip("|").split("|"):
            assert _collapse(cell) in _collapse(text)
