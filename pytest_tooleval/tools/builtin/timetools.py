"""Clock, calendar arithmetic and time-zone conversion on the world's frozen clock."""

from __future__ import annotations

import calendar
from datetime import date, datetime
from typing import Any

from pytest_tooleval.text.normalize import fold
from pytest_tooleval.tools.builtin.common import (
    Context,
    Tool,
    describe_dt,
    get_int,
    get_str,
    need_str,
    parse_datetime,
    prop,
    resolve_zone,
    zone_label,
    zone_of_world,
)
from pytest_tooleval.tools.builtin.sandbox import ToolError


def _current_datetime(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    name = get_str(args, "timezone", limit=100)
    zone = resolve_zone(name) if name else zone_of_world(ctx.world)
    now = ctx.world.now().astimezone(zone)
    return {
        "now": now.isoformat(timespec="seconds"),
        "weekday": now.strftime("%A"),
        "timezone": zone_label(zone),
        "text": describe_dt(now),
    }


def add_months(day: date, months: int) -> date:
    """Calendar months, clamping to the month's last day (Jan 31 + 1 month = Feb 28/29)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise ToolError("the resulting date is out of range")
    last = calendar.monthrange(year, month + 1)[1]
    return day.replace(year=year, month=month + 1, day=min(day.day, last))


def _date_add(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    start, has_time = parse_datetime(need_str(args, "date", limit=100), ctx.world)
    days = get_int(args, "days") or 0
    weeks = get_int(args, "weeks") or 0
    months = get_int(args, "months", low=-12_000, high=12_000) or 0
    years = get_int(args, "years", low=-1000, high=1000) or 0
    try:
        day = add_months(start.date(), months + 12 * years)
        day = date.fromordinal(day.toordinal() + days + 7 * weeks)
    except (ValueError, OverflowError):
        raise ToolError("the resulting date is out of range") from None
    result = datetime.combine(day, start.timetz())
    out: dict[str, Any] = {"date": day.isoformat(), "weekday": day.strftime("%A")}
    if has_time:
        out["datetime"] = result.isoformat(timespec="minutes")
    return out


def _date_diff(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    start, _ = parse_datetime(need_str(args, "start", limit=100), ctx.world)
    end, _ = parse_datetime(need_str(args, "end", limit=100), ctx.world)
    unit = fold(get_str(args, "unit", limit=20) or "days").rstrip("s")  # gün, yıl
    days = (end.date() - start.date()).days
    out: dict[str, Any] = {"start": start.date().isoformat(), "end": end.date().isoformat(),
                           "days": days}
    if unit in ("day", "gun"):
        out["result"] = f"{days} days"
    elif unit in ("week", "hafta"):
        weeks, rest = divmod(abs(days), 7)
        sign = "-" if days < 0 else ""
        out["weeks"] = round(days / 7, 4)
        out["result"] = f"{sign}{weeks} weeks and {rest} days"
    elif unit in ("month", "ay"):
        out["months"] = _whole_months(start.date(), end.date())
        out["result"] = f"{out['months']} full months"
    elif unit in ("year", "yil"):
        out["years"] = int(_whole_months(start.date(), end.date()) / 12)
        out["result"] = f"{out['years']} full years"
    elif unit in ("hour", "minute"):
        seconds = (end - start).total_seconds()
        value = seconds / 3600 if unit == "hour" else seconds / 60
        out["result"] = f"{value:g} {unit}s"
    else:
        raise ToolError("unit must be one of days, weeks, months, years, hours, minutes")
    return out


def _whole_months(start: date, end: date) -> int:
    sign = 1
    if end < start:
        start, end, sign = end, start, -1
    months = (end.year - start.year) * 12 + end.month - start.month
    if add_months(start, months) > end:
        months -= 1
    return sign * months


def _convert_timezone(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    source = resolve_zone(need_str(args, "from_tz", limit=100))
    target = resolve_zone(need_str(args, "to_tz", limit=100))
    moment, _ = parse_datetime(need_str(args, "datetime", limit=100), ctx.world, tz=source)
    converted = moment.astimezone(target)
    return {
        "from": f"{describe_dt(moment)} {zone_label(source)}",
        "to": f"{describe_dt(converted)} {zone_label(target)}",
        "datetime": converted.isoformat(timespec="minutes"),
    }


_DATE_DESC = "A date (YYYY-MM-DD), a date-time (YYYY-MM-DDTHH:MM), or 'today'/'tomorrow'."

TOOLS = [
    Tool(
        "current_datetime",
        "Return the current date, time and weekday from the user's clock, optionally in "
        "another time zone. Use it before any question about 'today' or 'now'.",
        {"timezone": prop("string", "Optional IANA zone or city, e.g. Europe/Berlin or Tokyo. "
                          "Defaults to the user's own zone.")},
        (),
        _current_datetime,
    ),
    Tool(
        "date_add",
        "Add (or with negative numbers subtract) days, weeks, months or years to a date and "
        "return the resulting date with its weekday. Not for time zones.",
        {
            "date": prop("string", _DATE_DESC),
            "days": prop("integer", "Days to add (negative to go back)."),
            "weeks": prop("integer", "Weeks to add."),
            "months": prop("integer", "Calendar months to add (end of month is clamped)."),
            "years": prop("integer", "Years to add."),
        },
        ("date",),
        _date_add,
    ),
    Tool(
        "date_diff",
        "Count the time between two dates in days, weeks, full months or full years.",
        {
            "start": prop("string", _DATE_DESC),
            "end": prop("string", _DATE_DESC),
            "unit": prop("string", "days (default), weeks, months, years, hours or minutes.",
                         enum=["days", "weeks", "months", "years", "hours", "minutes"]),
        },
        ("start", "end"),
        _date_diff,
    ),
    Tool(
        "convert_timezone",
        "Convert a date-time from one time zone to another. Accepts IANA names (Europe/Berlin) "
        "and city names people type (Berlin, New York, Istanbul, Tokyo) or UTC+3.",
        {
            "datetime": prop("string", "The wall-clock time in from_tz, e.g. 2026-03-12T15:00."),
            "from_tz": prop("string", "Source zone or city."),
            "to_tz": prop("string", "Target zone or city."),
        },
        ("datetime", "from_tz", "to_tz"),
        _convert_timezone,
    ),
]
