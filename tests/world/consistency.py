"""Checks that the world's data agrees with itself.

``facts`` in documents_*.yaml describe a document for corpus authors (they appear in
docs/world.md, not in the document). Facts derived from a document's rows or data (a yearly
total, the next renewal) are recomputed here, and a CSV that carries a total line must add up.
``problems()`` lists every disagreement; tests and ``scripts/gen_world_doc.py`` require none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pytest_tooleval.world.api import DEFAULT_NOW
from pytest_tooleval.world.build import documents

# A key such as "5 saat" or "06 TL" is what YAML makes of "162,5 saat" in a flow mapping.
SPLIT_NUMBER_KEY = re.compile(r"^\d+(?:[.,]\d+)?(?:\s|$)")
TOTAL_LABELS = {"total", "totals", "grand total", "toplam", "genel toplam", "yıllık toplam"}
_NUMBER = re.compile(r"\d[\d.,]*\d|\d")


def number(text: str, lang: str) -> Decimal:
    """'17.916,83' in Turkish ('tr'), '1,146.73' in English."""
    group, point = (".", ",") if lang == "tr" else (",", ".")
    return Decimal(text.strip().replace(group, "").replace(point, "."))


def first_number(text: str, lang: str) -> Decimal:
    match = _NUMBER.search(str(text))
    if not match:
        raise ValueError(f"no number in {text!r}")
    return number(match.group(), lang)


def _is_total(row: list[str]) -> bool:
    return bool(row) and row[0].strip().lower().rstrip(":") in TOTAL_LABELS


def _column(doc: dict[str, Any], name: str, lang: str) -> list[Decimal]:
    header, *rows = doc["rows"]
    index = header.index(name)
    return [number(row[index], lang) for row in rows
            if row[index].strip() and not _is_total(row)]


def fact_shape_problems(doc: dict[str, Any]) -> list[str]:
    """None values and keys that are the tail of a number split at a decimal comma."""
    out = []
    for key, value in (doc.get("facts") or {}).items():
        if value is None:
            out.append(f"{doc['path']}: fact {key!r} has no value (an unquoted comma?)")
        if not isinstance(key, str) or SPLIT_NUMBER_KEY.match(key):
            out.append(f"{doc['path']}: fact key {key!r} looks like a split number")
    return out


def total_line_problems(lang: str, doc: dict[str, Any]) -> list[str]:
    """Every numeric cell of a CSV total line equals the sum of the rows above it."""
    if "rows" not in doc:
        return []
    out = []
    header, *rows = doc["rows"]
    start = 0
    for n, row in enumerate(rows):
        if not _is_total(row):
            continue
        block = rows[start:n]
        for col, cell in enumerate(row[1:], 1):
            if not cell.strip() or not _NUMBER.fullmatch(cell.strip().lstrip("-")):
                continue
            summed = sum((number(r[col], lang) for r in block if r[col].strip()), Decimal(0))
            if number(cell, lang) != summed:
                out.append(f"{doc['path']}: total of {header[col]!r} is {cell}, "
                           f"the rows sum to {summed}")
        start = n + 1
    return out


def _overtime(doc: dict[str, Any], lang: str) -> Decimal:
    return sum((max(h - 8, Decimal(0)) for h in _column(doc, "calisilan_saat", lang)),
               Decimal(0))


def _budget(doc: dict[str, Any], lang: str, income: bool) -> Decimal:
    return sum((number(row[1], lang) for row in doc["rows"][1:]
                if row[0].startswith("income") == income), Decimal(0))


def _next_renewal(doc: dict[str, Any], lang: str) -> str:
    today = datetime.fromisoformat(DEFAULT_NOW).date()
    items = [(date.fromisoformat(i["renews"]), i["name"]) for i in doc["data"]["items"]]
    when, name = min(i for i in items if i[0] >= today)
    return f"{name} {when.isoformat()}"


def _monthly_total(doc: dict[str, Any], lang: str) -> Decimal:
    data = doc["data"]
    items = data.get("items") or data.get("abonelikler")
    key = "monthly" if "items" in data else "aylik_tl"
    return sum((Decimal(str(i[key])) for i in items), Decimal(0))


# (document path, fact key) -> what the fact must say, computed from the document itself:
# a column name stands for the sum of that column. A Decimal is compared with the first
# number in the fact; a string must start the fact.
DERIVED: dict[tuple[str, str], str | Callable[[dict[str, Any], str], Decimal | str]] = {
    ("Documents/Faturalar/fatura_özeti_2025.csv", "yıllık elektrik"): "elektrik_tl",
    ("Documents/Faturalar/fatura_özeti_2025.csv", "yıllık doğalgaz"): "dogalgaz_tl",
    ("Documents/İş/mesai_çizelgesi_şubat_2026.csv", "toplam"): "calisilan_saat",
    ("Documents/İş/mesai_çizelgesi_şubat_2026.csv", "fazla mesai"): _overtime,
    ("Documents/İş/mesai_çizelgesi_mart_2026.csv", "toplam (2-11 Mart)"): "calisilan_saat",
    ("Documents/Finans/taksit_tablosu_buzdolabı.csv", "toplam"): "tutar_tl",
    ("Documents/Travel/travel_expenses_berlin_2025.csv", "total"): "amount_eur",
    ("Documents/Work/timesheet_harrow_february_2026.csv", "total hours"): "hours",
    ("Documents/Work/timesheet_harrow_march_2026.csv", "hours so far"): "hours",
    ("Documents/Finance/budget_2026.csv", "monthly income"):
        lambda d, lang: _budget(d, lang, income=True),
    ("Documents/Finance/budget_2026.csv", "monthly spending plan"):
        lambda d, lang: _budget(d, lang, income=False),
    ("Documents/Finance/subscriptions.json", "monthly total"): _monthly_total,
    ("Documents/Finance/subscriptions.json", "renews next"): _next_renewal,
    ("Documents/Finans/abonelikler.json", "aylık toplam"): _monthly_total,
}


def derived_fact_problems(lang: str, doc: dict[str, Any]) -> list[str]:
    out = []
    facts = doc.get("facts") or {}
    for (path, key), compute in DERIVED.items():
        if path != doc["path"]:
            continue
        if key not in facts:
            out.append(f"{path}: derived fact {key!r} is missing")
            continue
        if isinstance(compute, str):
            expected: Decimal | str = sum(_column(doc, compute, lang), Decimal(0))
        else:
            expected = compute(doc, lang)
        stated = facts[key]
        if isinstance(expected, Decimal):
            text = str(stated)
            if (first_number(text, lang) if _NUMBER.search(text) else None) != expected:
                out.append(f"{path}: fact {key!r} says {stated!r}, the data gives {expected}")
        elif not str(stated).startswith(expected):
            out.append(f"{path}: fact {key!r} says {stated!r}, the data gives {expected!r}")
    if doc["path"] == "Documents/Faturalar/fatura_özeti_2025.csv":
        stated = str(facts.get("en yüksek ay", ""))
        highest = max(_column(doc, "dogalgaz_tl", lang))
        numbers = [number(m, "tr") for m in _NUMBER.findall(stated) if "," in m]
        if numbers != [highest]:
            out.append(f"{doc['path']}: 'en yüksek ay' says {stated!r}, "
                       f"the highest gas bill is {highest}")
    return out


def problems() -> list[str]:
    """Every inconsistency in the documents' data (an empty list when all is well)."""
    out: list[str] = []
    for lang, doc in documents():
        out += fact_shape_problems(doc)
        out += total_line_problems(lang, doc)
        out += derived_fact_problems(lang, doc)
    return out
