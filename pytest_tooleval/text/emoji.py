"""Emoji as hint words: a user who types 💵 or ☔ is asking about money or rain.

Each emoji maps to a Turkish and an English hint; the router's triggers then see a word.
Anything pictographic that is not listed here is stripped by ``normalize``.
"""

from __future__ import annotations

from functools import lru_cache

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

# Currency signs read as their currency word, like the money emoji (💶 → euro): "180€ kaç
# ₺", "£300 → ₺". The dollar sign only beside a number (``normalize``): "$HOME" is no money.
CURRENCY_SIGNS: dict[str, tuple[str, str]] = {
    "€": ("euro", "euro"),
    "£": ("sterlin", "pound"),
    "₺": ("lira", "lira"),
    "¥": ("yen", "yen"),
    "₿": ("bitcoin", "bitcoin"),
}
DOLLAR_HINT: tuple[str, str] = ("dolar", "dollar")


def hint_word(hint: tuple[str, str], language: str | None) -> str:
    """The hint in the message's language (both words when the language is unknown)."""
    turkish, english = hint
    if language == "tr":
        return turkish
    if language == "en":
        return english
    return turkish if turkish == english else f"{turkish} {english}"


@lru_cache(maxsize=8)
def hint_table(language: str | None) -> dict[int, str]:
    """A ``str.translate`` table replacing each listed emoji or currency sign by its hint
    word(s)."""
    return {
        ord(sign): f" {hint_word(hint, language)} "
        for sign, hint in (EMOJI_HINTS | CURRENCY_SIGNS).items()
    }
