"""Emoji as hint words: a user who types 💵 or ☔ is asking about money or rain.

Each emoji maps to a Turkish and an English hint; the router's triggers then see a word.
Anything pictographic that is not listed here is stripped by ``normalize``.
"""

from __future__ import annotations

# emoji → (Turkish hint, English hint)
EMOJI_HINTS: dict[str, tuple[str, str]] = {
    "💵": ("dolar", "dollar"),
    "💲": ("dolar", "dollar"),
    "💶": ("euro", "euro"),
    "💷": ("sterlin", "pound"),
    "💰": ("para", "money"),
    "🪙": ("altın", "gold"),
    "🥇": ("altın", "gold"),
    "📈": ("borsa", "stock"),
    "📉": ("borsa", "stock"),
    "⚽": ("maç", "match"),
    "🏀": ("maç", "match"),
    "🏆": ("maç", "match"),
    "💊": ("eczane", "pharmacy"),
    "🏥": ("eczane", "pharmacy"),
    "🧾": ("fatura", "bill"),
    "⏰": ("hatırlat", "remind"),
    "⏲": ("hatırlat", "remind"),
    "🔔": ("hatırlat", "remind"),
    "☔": ("yağmur", "rain"),
    "☂": ("yağmur", "rain"),
    "🌧": ("yağmur", "rain"),
    "🌦": ("yağmur", "rain"),
    "⛈": ("yağmur", "rain"),
    "❄": ("kar", "snow"),
    "🌨": ("kar", "snow"),
    "☃": ("kar", "snow"),
    "⛄": ("kar", "snow"),
    "☀": ("hava durumu", "weather"),
    "🌤": ("hava durumu", "weather"),
    "🌡": ("hava durumu", "weather"),
    "📅": ("takvim", "calendar"),
    "📆": ("takvim", "calendar"),
    "🗓": ("takvim", "calendar"),
    "📧": ("eposta", "email"),
    "✉": ("eposta", "email"),
    "📨": ("eposta", "email"),
    "📞": ("telefon", "phone"),
    "☎": ("telefon", "phone"),
    "📱": ("telefon", "phone"),
    "📁": ("klasör", "folder"),
    "📂": ("klasör", "folder"),
    "🗂": ("klasör", "folder"),
    "📄": ("belge", "document"),
    "📃": ("belge", "document"),
    "📑": ("belge", "document"),
    "🗑": ("sil", "delete"),
    "🔍": ("ara", "search"),
    "🔎": ("ara", "search"),
    "🧮": ("hesapla", "calculate"),
    "➕": ("artı", "plus"),
    "➖": ("eksi", "minus"),
    "✖": ("çarpı", "times"),
    "➗": ("bölü", "divided"),
    "📰": ("haber", "news"),
    "⛽": ("benzin", "fuel"),
    "🐍": ("python", "python"),
    "🗜": ("zip", "zip"),
    "💬": ("mesaj", "message"),
    "🌐": ("internet", "web"),
    "🏫": ("okul", "school"),
    "🌋": ("deprem", "earthquake"),
    "📝": ("not", "note"),
    "🕐": ("saat", "time"),
    "⌚": ("saat", "time"),
    "🕒": ("saat", "time"),
}

OPERATOR_EMOJI = frozenset("➕➖✖➗")


def hint_table(language: str | None) -> dict[int, str]:
    """A ``str.translate`` table replacing each listed emoji by its hint word(s)."""
    table: dict[int, str] = {}
    for emoji, (turkish, english) in EMOJI_HINTS.items():
        if language == "tr":
            words = turkish
        elif language == "en":
            words = english
        else:
            words = turkish if turkish == english else f"{turkish} {english}"
        table[ord(emoji)] = f" {words} "
    return table
