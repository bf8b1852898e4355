"""The world's data agrees with itself: facts are whole values, totals add up, derived
facts (yearly totals, the next renewal) are what the documents' rows and data give."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from pytest_tooleval.world.build import documents
from pytest_tooleval.world.web import all_pages
from tests.world.consistency import (
    SPLIT_NUMBER_KEY,
    fact_shape_problems,
    first_number,
    problems,
    total_line_problems,
)

DOCS = documents()


def _doc(path: str) -> dict:
    return next(doc for _, doc in DOCS if doc["path"] == path)


def test_the_world_has_no_inconsistencies() -> None:
    assert problems() == []


@pytest.mark.parametrize(("lang", "doc"), DOCS, ids=[d["path"] for _, d in DOCS])
def test_no_fact_is_none_or_a_split_number(lang: str, doc: dict) -> None:
    for key, value in (doc.get("facts") or {}).items():
        assert value is not None, (doc["path"], key)
        assert isinstance(key, str) and not SPLIT_NUMBER_KEY.match(key), (doc["path"], key)


@pytest.mark.parametrize(
    ("path", "key", "value"),
    [
        ("Documents/Okul/karne_notları_1_dönem.json", "devamsızlık", "3,5 gün"),
        ("Documents/İş/mesai_çizelgesi_şubat_2026.csv", "toplam", "163,5 saat"),
        ("Documents/İş/mesai_çizelgesi_mart_2026.csv", "toplam (2-11 Mart)", "65,5 saat"),
        ("Documents/Mutfak/mercimek_çorbası_tarifi.md", "mercimek",
         "1,5 su bardağı kırmızı mercimek"),
        ("Documents/Faturalar/fatura_özeti_2025.csv", "en yüksek ay",
         "Aralık 2025 doğalgaz 3.628,79 TL"),
    ],
)
def test_decimal_comma_facts_are_whole(path: str, key: str, value: str) -> None:
    assert _doc(path)["facts"][key] == value


def test_decimal_comma_facts_reach_the_generated_doc() -> None:
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "world.md").read_text(encoding="utf-8")
    assert "- devamsızlık: 3,5 gün" in text
    assert ": None\n" not in text
    assert not re.search(r"^- \d+ [^:\n]*: ", text, re.MULTILINE)


def test_split_number_detection() -> None:
    broken = {"path": "x.md", "facts": {"toplam": 162, "5 saat": None, "1. taksit": "a"}}
    found = fact_shape_problems(broken)
    assert len(found) == 2 and all("5 saat" in p for p in found)


def test_yearly_bill_totals_are_the_sum_of_the_rows() -> None:
    doc = _doc("Documents/Faturalar/fatura_özeti_2025.csv")
    header, *rows = doc["rows"]
    for column, fact in (("elektrik_tl", "yıllık elektrik"), ("dogalgaz_tl", "yıllık doğalgaz")):
        i = header.index(column)
        total = sum(Decimal(r[i].replace(".", "").replace(",", ".")) for r in rows)
        assert first_number(doc["facts"][fact], "tr") == total
    assert doc["facts"]["yıllık elektrik"] == "17.916,83 TL"
    assert doc["facts"]["yıllık doğalgaz"] == "19.642,27 TL"


@pytest.mark.parametrize(("lang", "doc"), [(lang, d) for lang, d in DOCS if "rows" in d],
                         ids=[d["path"] for _, d in DOCS if "rows" in d])
def test_every_csv_total_line_adds_up(lang: str, doc: dict) -> None:
    assert total_line_problems(lang, doc) == []


def test_total_line_check_catches_a_wrong_total() -> None:
    rows = [["ay", "tutar"], ["2025-01", "1.512,40"], ["2025-02", "1.486,77"]]
    good = {"path": "a.csv", "rows": [*rows, ["TOPLAM", "2.999,17"]]}
    bad = {"path": "a.csv", "rows": [*rows, ["Toplam", "2.999,71"]]}
    english = {"path": "b.csv", "rows": [["item", "eur"], ["x", "1,000.50"], ["y", "2.25"],
                                         ["Total", "1,002.75"]]}
    assert total_line_problems("tr", good) == []
    assert total_line_problems("en", english) == []
    assert total_line_problems("tr", bad) and "2.999,71" in total_line_problems("tr", bad)[0]


def test_next_renewal_comes_from_the_data() -> None:
    doc = _doc("Documents/Finance/subscriptions.json")
    items = sorted(doc["data"]["items"], key=lambda i: i["renews"])
    assert items[0]["name"] == "Kagi search" and items[0]["renews"] == "2026-03-14"
    assert doc["facts"]["renews next"] == "Kagi search 2026-03-14"


def test_rent_increase_guide_arithmetic() -> None:
    page = next(p for p in all_pages() if p["url"].endswith("/kira-artisi-hesaplama"))
    match = re.search(r"%(\d+,\d+) ise ([\d.]+) TL kira en fazla ([\d.,]+) TL", page["text"])
    assert match, page["text"]
    rate, rent, result = (first_number(g, "tr") for g in match.groups())
    assert rent * (1 + rate / 100) == result == Decimal("42824.40")


def test_generated_doc_matches_the_current_world() -> None:
    """docs/world.md is what corpus authors read: it must describe the data as it is now
    (regenerate with `python scripts/gen_world_doc.py`)."""
    from pathlib import Path

    from pytest_tooleval.world.data_io import fingerprint

    text = (Path(__file__).parents[2] / "docs" / "world.md").read_text(encoding="utf-8")
    assert f"World fingerprint `{fingerprint()}`" in text
