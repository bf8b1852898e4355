"""The offline web: BM25-lite search over ``web/pages.json`` and fetch by URL.

Nothing here opens a socket; an unknown URL is a 404 the model sees.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

from pytest_tooleval.text.normalize import fold
from pytest_tooleval.tools.base import clip
from pytest_tooleval.tools.builtin.common import Context, Tool, get_str, need_str, prop, words
from pytest_tooleval.tools.builtin.sandbox import SandboxBroken, ToolError

TOP = 5
_STOP = {"the", "a", "an", "of", "in", "on", "for", "to", "and", "is", "what", "how", "ve",
         "bir", "ne", "mi", "mu", "nedir", "kac", "icin", "ile", "da", "de", "bu", "today",
         "bugun", "bugunku", "current", "latest", "son", "guncel"}


def _stem(token: str) -> str:
    """A crude shared stem so Turkish suffixes and English plurals still meet."""
    return token[:5] if len(token) > 5 else token


def load_pages(ctx: Context) -> list[dict[str, Any]]:
    path = ctx.world.web_dir / "pages.json"
    if "web:pages" not in ctx.cache:
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
        except (OSError, ValueError) as exc:
            raise SandboxBroken(f"the offline web index is unreadable: {exc}") from exc
        ctx.cache["web:pages"] = [p for p in data if isinstance(p, dict) and p.get("url")]
    pages: list[dict[str, Any]] = ctx.cache["web:pages"]
    return pages


def url_key(url: str) -> str:
    """http/https, www., a trailing slash and the fragment do not tell pages apart."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{path}{query}"


def _index(ctx: Context) -> tuple[list[Counter[str]], dict[str, int], float]:
    if "web:index" not in ctx.cache:
        docs = []
        for page in load_pages(ctx):
            found = words(f"{page.get('title', '')} {page.get('title', '')} "
                          f"{page.get('url', '')} {page.get('text', '')}")
            docs.append(Counter(_stem(w) for w in found))
        df: Counter[str] = Counter()
        for doc in docs:
            df.update(doc.keys())
        avg = sum(sum(d.values()) for d in docs) / max(len(docs), 1)
        ctx.cache["web:index"] = (docs, dict(df), avg)
    index: tuple[list[Counter[str]], dict[str, int], float] = ctx.cache["web:index"]
    return index


def _snippet(text: str, terms: list[str], width: int = 200) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    folded = fold(flat)
    hits = [at for at in map(folded.find, terms) if at >= 0]
    start = max(0, min(hits) - 60) if hits else 0
    start = min(start, max(0, len(flat) - width))
    return ("…" if start else "") + flat[start:start + width] + (
        "…" if start + width < len(flat) else "")


def _web_search(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    query = need_str(args, "query", limit=500)
    language = (get_str(args, "language", limit=10) or "").lower()[:2]
    query_words = words(query)
    terms = [w for w in query_words if w not in _STOP] or query_words
    if not terms:
        raise ToolError("the query has no words to search for")
    pages = load_pages(ctx)
    docs, df, avg = _index(ctx)
    n = len(docs)
    scored = []
    for i, (page, doc) in enumerate(zip(pages, docs, strict=True)):
        if language and str(page.get("language", ""))[:2].lower() != language:
            continue
        length = sum(doc.values())
        score = 0.0
        for term in {_stem(t) for t in terms}:
            tf = doc.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / max(avg, 1)))
        if score > 0:
            scored.append((-round(score, 9), i, page))
    scored.sort(key=lambda item: (item[0], item[1]))
    results = [{"title": page.get("title", ""), "url": page.get("url", ""),
                "published": page.get("published", ""),
                "snippet": _snippet(str(page.get("text", "")), terms)}
               for _, _, page in scored[:TOP]]
    return {"query": query, "results": results,
            "note": "no results" if not results else "open a result with web_fetch(url)"}


def _web_fetch(ctx: Context, args: dict[str, Any]) -> str:
    url = need_str(args, "url", limit=2000).strip()
    scheme = urlsplit(url).scheme.lower()
    if scheme and scheme not in ("http", "https"):
        raise ToolError(f"only http and https URLs can be fetched, not {scheme}:")
    if not scheme:
        url = "https://" + url
    key = url_key(url)
    for page in load_pages(ctx):
        if url_key(str(page["url"])) == key:
            head = f"{page.get('title', '')}\n{page['url']}"
            if page.get("published"):
                head += f"\npublished: {page['published']}"
            return clip(f"{head}\n\n{page.get('text', '')}")
    raise ToolError(f"404 not found: {url} (only pages of the offline web can be fetched; "
                    "find URLs with web_search)")


TOOLS = [
    Tool("web_search", "Search the web for current or general information (news, exchange "
         "rates, weather, prices, results) and get the top 5 results with title, URL and "
         "snippet. Not for the user's own files (use search_documents).",
         {"query": prop("string", "Search words, in English or Turkish."),
          "language": prop("string", "Optional: only pages in this language ('en' or 'tr').")},
         ("query",), _web_search),
    Tool("web_fetch", "Fetch the text of a web page by its URL (typically one found with "
         "web_search).", {"url": prop("string", "The page's full URL.")},
         ("url",), _web_fetch),
]
