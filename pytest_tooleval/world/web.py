"""The offline web: hand-written pages plus current-information pages rendered from one table.

Rendering the current pages of both languages from ``web_current.yaml`` keeps the English
and Turkish webs in agreement on every rate, temperature and score.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_tooleval.world.data_io import load_yaml

CURRENCY_NAMES = {
    "USD": ("US dollar", "Amerikan doları"),
    "EUR": ("euro", "Euro"),
    "GBP": ("British pound", "İngiliz sterlini"),
}
PAGE_FIELDS = ("url", "title", "language", "published", "text", "kind", "topic")
# Current pages rendered once per row: (section of web_current.yaml, template, topic).
ROW_PAGES = (("weather", "weather", "weather"), ("pharmacies", "pharmacy", "on-duty pharmacy"),
             ("matches", "match", "match results"), ("fuel", "fuel", "fuel prices"))

_TR_NUMBER = re.compile(r"^([+-]?)(\d{1,3}(?:\.\d{3})*|\d+),(\d+)$")


def english_number(value: Any) -> Any:
    """'3.947,62' -> '3,947.62' and '-4,6' -> '-4.6'; anything else unchanged."""
    if isinstance(value, list):
        return [english_number(v) for v in value]
    if isinstance(value, dict):
        return {k: english_number(v) for k, v in value.items()}
    if isinstance(value, str) and (match := _TR_NUMBER.match(value)):
        sign, whole, frac = match.groups()
        return f"{sign}{whole.replace('.', ',')}.{frac}"
    return value


def current_pages(lang: str) -> list[dict[str, Any]]:
    """Rates, gold, weather, pharmacies, matches, fuel, holidays and earthquakes."""
    facts = load_yaml("web_current.yaml")
    templates = load_yaml(f"web_{lang}.yaml")["templates"]

    def render(key: str, topic: str, **fields: Any) -> dict[str, Any]:
        if lang == "en":
            fields = english_number(fields)
        url, title, text = (templates[key][part].format(**fields)
                            for part in ("url", "title", "text"))
        values = (url, title, lang, facts["published"], text, "current", topic)
        return dict(zip(PAGE_FIELDS, values, strict=True))

    pages = [render("rates_all", "exchange rates", **facts["rates"])]
    for code, row in facts["rates"].items():
        name_en, name_tr = CURRENCY_NAMES[code]
        pages.append(render("rate", "exchange rates", code=code, code_lower=code.lower(),
                            name_en=name_en, name_tr=name_tr, row=row))
    pages.append(render("gold", "gold", **facts["gold"]))
    for section, key, topic in ROW_PAGES:
        pages += [render(key, topic, slug=slug, row=row) for slug, row in facts[section].items()]
    pages.append(render("holidays", "school holidays"))
    quakes = facts["quakes"]
    lines_tr = "; ".join(f"{q[0]} {q[1]}, büyüklük {q[3]}, derinlik {q[4]} km" for q in quakes)
    lines_en = "; ".join(
        f"{q[0]} {q[2]}, magnitude {english_number(q[3])}, depth {english_number(q[4])} km"
        for q in quakes
    )
    pages.append(render("quakes", "earthquakes", q0=quakes[0], quake_lines_tr=lines_tr,
                        quake_lines_en=lines_en))
    return pages


def all_pages() -> list[dict[str, Any]]:
    """Every page of both languages, in a stable order (current first, then by language)."""
    pages: list[dict[str, Any]] = []
    for lang in ("en", "tr"):
        pages += current_pages(lang)
        for url, title, published, text, kind in load_yaml(f"web_{lang}.yaml")["pages"]:
            topic = "news" if kind == "current" else "reference"
            values = (url, title, lang, published, text, kind, topic)
            pages.append(dict(zip(PAGE_FIELDS, values, strict=True)))
    urls = [p["url"] for p in pages]
    duplicates = {u for u in urls if urls.count(u) > 1}
    if duplicates:
        raise ValueError(f"duplicate page urls: {sorted(duplicates)}")
    return pages


def public_record(page: dict[str, Any]) -> dict[str, Any]:
    """The fields of the contract (api.py); ``kind`` and ``topic`` stay in docs only."""
    return {k: page[k] for k in PAGE_FIELDS[:5]}
