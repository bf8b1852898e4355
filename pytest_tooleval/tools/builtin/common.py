"""Shared pieces of the built-in tools: the tool record, the per-case context, arguments."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pytest_tooleval.text.normalize import fold
from pytest_tooleval.tools.builtin.sandbox import Sandbox, ToolError
from pytest_tooleval.world.api import World


@dataclass
class Context:
    """One case's world plus the sandboxes and caches the tools share."""

    world: World
    home: Sandbox
    cache: dict[str, Any] = field(default_factory=dict)
    unsafe_no_jail: bool = False  # the named unsafe mode: run jailed tools without the jail


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...]
    run: Callable[[Context, dict[str, Any]], Any]
    needs: str | None = None  # a binary that must be on PATH
    jailed: bool = False  # executes code: offered only where the jail works (tools/jail.py)
    #: False for a pure function of its arguments (calculator, units): no world is built
    #: or read for it (copy on write; tools/builtin/provider.py).
    uses_world: bool = True

    @property
    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": self.properties,
            "required": list(self.required),
            "additionalProperties": False,
        }


def prop(kind: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": description, **extra}


def get_str(args: dict[str, Any], key: str, *, limit: int = 100_000) -> str | None:
    """The argument as text (a number reads as its digits); None when it is absent."""
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ToolError(f"argument {key!r} must be a string")
    text = str(value)
    if len(text) > limit:
        raise ToolError(f"argument {key!r} is longer than {limit} characters")
    return text


def need_str(args: dict[str, Any], key: str, *, limit: int = 100_000) -> str:
    value = get_str(args, key, limit=limit)
    if value is None:
        raise ToolError(f"missing required argument {key!r}")
    return value


def get_int(args: dict[str, Any], key: str, *,
            low: int = -1_000_000, high: int = 1_000_000) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ToolError(f"argument {key!r} must be an integer")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ToolError(f"argument {key!r} must be an integer") from None
    if not low <= number <= high:
        raise ToolError(f"argument {key!r} must be between {low} and {high}")
    return number


_TRUE = ("true", "yes", "1")
_FALSE = ("false", "no", "0", "")


def get_bool(args: dict[str, Any], key: str, default: bool = False) -> bool:
    """A boolean; the strings models send for one ("false", "true") read as what they say."""
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, str | int) else None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ToolError(f"argument {key!r} must be true or false")


_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The words of ``text``, folded (case and accents ignored)."""
    return _WORD.findall(fold(text))


def token_hit(query: str, token: str) -> bool:
    """Prefix matching both ways absorbs Turkish suffixes (faturamı ~ fatura)."""
    return token.startswith(query) or (len(token) >= 4 and query.startswith(token))


# --- time zones and dates ---------------------------------------------------------------

CITY_ZONES = {
    "istanbul": "Europe/Istanbul", "ankara": "Europe/Istanbul", "izmir": "Europe/Istanbul",
    "turkey": "Europe/Istanbul", "turkiye": "Europe/Istanbul", "trt": "Europe/Istanbul",
    "berlin": "Europe/Berlin", "munich": "Europe/Berlin", "munchen": "Europe/Berlin",
    "frankfurt": "Europe/Berlin", "hamburg": "Europe/Berlin", "germany": "Europe/Berlin",
    "almanya": "Europe/Berlin", "london": "Europe/London", "londra": "Europe/London",
    "uk": "Europe/London", "paris": "Europe/Paris", "amsterdam": "Europe/Amsterdam",
    "rome": "Europe/Rome", "roma": "Europe/Rome", "madrid": "Europe/Madrid",
    "vienna": "Europe/Vienna", "viyana": "Europe/Vienna", "zurich": "Europe/Zurich",
    "moscow": "Europe/Moscow", "moskova": "Europe/Moscow", "athens": "Europe/Athens",
    "atina": "Europe/Athens", "new york": "America/New_York", "nyc": "America/New_York",
    "washington": "America/New_York", "boston": "America/New_York",
    "chicago": "America/Chicago", "denver": "America/Denver",
    "los angeles": "America/Los_Angeles", "la": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles", "seattle": "America/Los_Angeles",
    "toronto": "America/Toronto", "mexico city": "America/Mexico_City",
    "sao paulo": "America/Sao_Paulo", "tokyo": "Asia/Tokyo", "seoul": "Asia/Seoul",
    "beijing": "Asia/Shanghai", "shanghai": "Asia/Shanghai", "hong kong": "Asia/Hong_Kong",
    "singapore": "Asia/Singapore", "dubai": "Asia/Dubai", "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "india": "Asia/Kolkata",
    "baku": "Asia/Baku", "bakü": "Asia/Baku", "tehran": "Asia/Tehran",
    "sydney": "Australia/Sydney", "melbourne": "Australia/Melbourne",
    "auckland": "Pacific/Auckland", "cairo": "Africa/Cairo", "kahire": "Africa/Cairo",
    "utc": "UTC", "gmt": "UTC", "z": "UTC", "cet": "Europe/Berlin", "cest": "Europe/Berlin",
    "est": "America/New_York", "edt": "America/New_York", "pst": "America/Los_Angeles",
    "pdt": "America/Los_Angeles", "jst": "Asia/Tokyo", "bst": "Europe/London",
}
_OFFSET = re.compile(r"^(?:utc|gmt)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$")


def resolve_zone(name: str) -> tzinfo:
    """An IANA zone, a city or country users type, an abbreviation, or UTC+3."""
    key = fold(name).replace("_", " ")
    if not key:
        raise ToolError("empty time zone")
    if key in CITY_ZONES:
        return ZoneInfo(CITY_ZONES[key])
    match = _OFFSET.match(key.replace(" ", ""))
    if match:
        sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
        if hours > 14 or minutes > 59:
            raise ToolError(f"offset {name!r} is out of range")
        delta = timedelta(hours=hours, minutes=minutes)
        return timezone(delta if sign == "+" else -delta)
    zones = _zone_index()
    if key in zones:
        return ZoneInfo(zones[key])
    raise ToolError(
        f"unknown time zone {name!r}; use an IANA name such as Europe/Berlin or a city name"
    )


def _zone_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        if zone.startswith(("posix/", "right/")):
            continue
        index.setdefault(fold(zone).replace("_", " "), zone)
        index.setdefault(fold(zone.rsplit("/", 1)[-1]).replace("_", " "), zone)
    return index


def zone_label(tz: tzinfo) -> str:
    return getattr(tz, "key", None) or str(tz)


def zone_of_world(world: World) -> tzinfo:
    try:
        return ZoneInfo(world.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


_RELATIVE = {"today": 0, "bugun": 0, "now": 0, "simdi": 0, "tomorrow": 1, "yarin": 1,
             "yesterday": -1, "dun": -1}


def parse_datetime(text: str, world: World, *, tz: tzinfo | None = None) -> tuple[datetime, bool]:
    """Parse a date or date-time; naive values take ``tz`` (or the world's zone).

    Returns the aware datetime and whether a time of day was given.
    """
    zone = tz or zone_of_world(world)
    raw = text.strip()
    key = fold(raw)
    if key in _RELATIVE:
        now = world.now().astimezone(zone)
        if key in ("now", "simdi"):
            return now, True
        day = now.date() + timedelta(days=_RELATIVE[key])
        return datetime.combine(day, time(0), zone), False
    candidate = re.sub(r"Z$", "+00:00", raw)  # fromisoformat takes a space for the "T"
    parsed: datetime | None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", candidate):
            return datetime.combine(date.fromisoformat(candidate), time(0), zone), False
        parsed = datetime.fromisoformat(candidate)
    except ValueError:
        parsed = _parse_dotted(raw)
        if parsed is None:
            raise ToolError(
                f"cannot read {text!r} as a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM"
            ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone)
    return parsed, True


def _parse_dotted(raw: str) -> datetime | None:
    """Day-first dates as Turkish and German users write them: 12.03.2026 14:30."""
    match = re.fullmatch(r"(\d{1,2})[./](\d{1,2})[./](\d{4})(?:[ T](\d{1,2}):(\d{2}))?", raw)
    if not match:
        return None
    d, m, y, hh, mm = match.groups()
    try:
        return datetime(int(y), int(m), int(d), int(hh or 0), int(mm or 0))
    except ValueError:
        return None


def describe_dt(moment: datetime) -> str:
    """'Thursday, 2026-03-12 10:47 (UTC+03:00)' — the form every time tool answers in."""
    offset = moment.strftime("%z")
    offset = f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC"
    return f"{moment.strftime('%A')}, {moment.strftime('%Y-%m-%d %H:%M')} ({offset})"
