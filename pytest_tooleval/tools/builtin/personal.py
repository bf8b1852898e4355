"""Memories, calendar, reminders, contacts and the outbox: JSON state in the case's world."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pytest_tooleval.text.normalize import fold
from pytest_tooleval.tools.builtin.common import (
    Context,
    Tool,
    describe_dt,
    get_str,
    need_str,
    parse_datetime,
    prop,
    token_hit,
    words,
)
from pytest_tooleval.tools.builtin.sandbox import SandboxBroken, ToolError

MAX_ITEMS = 5000


def _load(ctx: Context, name: str) -> list[dict[str, Any]]:
    try:
        return ctx.world.records(name)
    except (OSError, ValueError) as exc:
        raise SandboxBroken(f"state file {name}.json is unreadable: {exc}") from exc


def _save(ctx: Context, name: str, items: list[dict[str, Any]]) -> None:
    if len(items) > MAX_ITEMS:
        raise ToolError(f"too many {name} entries")
    ctx.world.save_state(name, items)


def _matches(query_words: set[str], text: str) -> int:
    found = set(words(text))
    return sum(1 for q in query_words if any(token_hit(q, w) for w in found))


def _best(items: list[dict[str, Any]], score: Callable[[dict[str, Any]], int]
          ) -> list[dict[str, Any]]:
    """The ten items that score highest (ties in their stored order), none that score 0."""
    scored = [(score(item), item) for item in items]
    return [item for points, item in sorted(scored, key=lambda pair: -pair[0]) if points][:10]


def _now_text(ctx: Context) -> str:
    return ctx.world.now().isoformat(timespec="seconds")


def _memory_save(ctx: Context, args: dict[str, Any]) -> str:
    text = need_str(args, "text", limit=5000).strip()
    if not text:
        raise ToolError("nothing to save: text is empty")
    key = (get_str(args, "key", limit=100) or "").strip()
    items = _load(ctx, "memories")
    if not key:
        base = "-".join(words(text)[:4]) or "note"
        key, n = base, 2
        while any(item.get("key") == key for item in items):
            key, n = f"{base}-{n}", n + 1
    replaced = any(item.get("key") == key for item in items)
    items = [item for item in items if item.get("key") != key]
    items.append({"key": key, "text": text, "saved_at": _now_text(ctx)})
    _save(ctx, "memories", items)
    return f"{'updated' if replaced else 'saved'} memory {key!r}"


def _memory_search(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    query = need_str(args, "query", limit=500)
    query_words = set(words(query))
    items = _load(ctx, "memories")
    if not query_words or fold(query) in ("*", "all", "hepsi"):
        return {"results": items[:50], "count": len(items)}
    results = _best(items, lambda item: _matches(
        query_words, f"{item.get('key', '')} {item.get('text', '')}"))
    return {"results": results, "count": len(results),
            "note": "" if results else "no saved memory matches; try other words"}


def _event_times(ctx: Context, event: dict[str, Any]) -> tuple[datetime, datetime] | None:
    try:
        start, _ = parse_datetime(str(event.get("start", "")), ctx.world)
        end = parse_datetime(str(event["end"]), ctx.world)[0] if event.get("end") else \
            start + timedelta(hours=1)
    except ToolError:
        return None
    return start, end


def _calendar_list(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    start, _ = parse_datetime(need_str(args, "start", limit=100), ctx.world)
    end_text = get_str(args, "end", limit=100)
    if end_text:
        end, end_has_time = parse_datetime(end_text, ctx.world)
        if not end_has_time:
            end += timedelta(days=1)  # an end date includes that whole day
    else:  # to the end of start's day (a date alone is at midnight already)
        end = start.replace(hour=0, minute=0) + timedelta(days=1)
    if end <= start:
        raise ToolError("end must be after start")
    if end - start > timedelta(days=400):
        raise ToolError("the range is longer than 400 days; ask for a shorter period")
    found = []
    for event in _load(ctx, "calendar"):
        times = _event_times(ctx, event)
        if times and times[0] < end and times[1] > start:
            found.append((times[0], event))
    found.sort(key=lambda item: (item[0], str(item[1].get("id", ""))))
    events = [{**event, "weekday": when.strftime("%A")} for when, event in found]
    return {"from": start.isoformat(timespec="minutes"), "to": end.isoformat(timespec="minutes"),
            "events": events, "count": len(events)}


def _next_id(items: list[dict[str, Any]], prefix: str) -> str:
    """The next free id, in the style the world already uses (ev-0308 → ev-0309)."""
    used = {str(item.get("id")) for item in items}
    width = 0
    numbers = []
    for ident in used:
        match = re.fullmatch(r"(.*?)(\d+)", ident)
        if match:
            prefix, width = match.group(1).rstrip("-") or prefix, len(match.group(2))
            numbers.append(int(match.group(2)))
    n = max(numbers, default=0) + 1
    while f"{prefix}-{n:0{width}d}" in used:
        n += 1
    return f"{prefix}-{n:0{width}d}"


def _calendar_add(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    title = need_str(args, "title", limit=300).strip()
    if not title:
        raise ToolError("the event needs a title")
    start, has_time = parse_datetime(need_str(args, "start", limit=100), ctx.world)
    end_text = get_str(args, "end", limit=100)
    if end_text:
        end = parse_datetime(end_text, ctx.world)[0]
    else:
        end = start + (timedelta(hours=1) if has_time else timedelta(days=1))
    if end <= start:
        raise ToolError("the end must be after the start")
    items = _load(ctx, "calendar")
    event = {"id": _next_id(items, "evt"), "title": title,
             "start": start.isoformat(timespec="minutes"),
             "end": end.isoformat(timespec="minutes"),
             "location": (get_str(args, "location", limit=300) or "").strip(), "notes": ""}
    items.append(event)
    _save(ctx, "calendar", items)
    return {"added": event, "text": f"added {title!r} on {describe_dt(start)}"}


def _calendar_delete(ctx: Context, args: dict[str, Any]) -> str:
    event_id = need_str(args, "event_id", limit=100).strip()
    items = _load(ctx, "calendar")
    kept = [item for item in items if str(item.get("id")) != event_id]
    if len(kept) == len(items):
        raise ToolError(f"no event with id {event_id!r}; find ids with calendar_list")
    removed = next(item for item in items if str(item.get("id")) == event_id)
    _save(ctx, "calendar", kept)
    return f"deleted event {event_id} ({removed.get('title', '')})"


def _reminder_add(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    text = need_str(args, "text", limit=1000).strip()
    if not text:
        raise ToolError("the reminder needs a text")
    at, has_time = parse_datetime(need_str(args, "at", limit=100), ctx.world)
    if not has_time:
        at = at.replace(hour=9)
    items = _load(ctx, "reminders")
    reminder = {"id": _next_id(items, "rem"), "text": text, "at": at.isoformat(timespec="minutes")}
    items.append(reminder)
    _save(ctx, "reminders", items)
    note = " (that time has already passed)" if at < ctx.world.now() else ""
    return {"added": reminder, "text": f"reminder set for {describe_dt(at)}{note}"}


def _contacts_lookup(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    name = need_str(args, "name", limit=200)
    name_words = set(words(name))
    if not name_words:
        raise ToolError("give a name to look up")
    results = _best(_load(ctx, "contacts"), lambda contact: _matches(
        name_words, str(contact.get("name", ""))) * 2
        + _matches(name_words, str(contact.get("notes", ""))))
    return {"results": results, "count": len(results),
            "note": "" if results else f"no contact matches {name!r}"}


def _send_message(ctx: Context, args: dict[str, Any]) -> str:
    to = need_str(args, "to", limit=300).strip()
    text = need_str(args, "text", limit=5000).strip()
    if not to or not text:
        raise ToolError("a message needs a recipient and a text")
    items = _load(ctx, "outbox")
    items.append({"to": to, "text": text, "sent_at": _now_text(ctx)})
    _save(ctx, "outbox", items)
    return f"message sent to {to}"


_WHEN = "Date-time like 2026-03-14T15:00 (or a date, or 'tomorrow'); user's zone if none."

TOOLS = [
    Tool("memory_save", "Save a note or fact the user wants remembered (a code, a size, a "
         "preference); saving under an existing key replaces it.",
         {"text": prop("string", "What to remember."),
          "key": prop("string", "Optional short name for it, e.g. 'door-code'.")},
         ("text",), _memory_save),
    Tool("memory_search", "Search the user's saved notes and facts (IBAN, door code, sizes, "
         "numbers they asked you to remember). Not for documents or the web.",
         {"query": prop("string", "Words to look for ('*' lists everything).")},
         ("query",), _memory_search),
    Tool("calendar_list", "List the user's calendar events between two dates (one day if "
         "no end is given), with ids, times and locations.",
         {"start": prop("string", "First day or date-time, e.g. 2026-03-12 or 'today'."),
          "end": prop("string", "Optional last day (inclusive) or date-time.")},
         ("start",), _calendar_list),
    Tool("calendar_add", "Add an event to the user's calendar (default length one hour).",
         {"title": prop("string", "What the event is."), "start": prop("string", _WHEN),
          "end": prop("string", "Optional end date-time."),
          "location": prop("string", "Optional place.")},
         ("title", "start"), _calendar_add),
    Tool("calendar_delete", "Delete one calendar event by its id (from calendar_list).",
         {"event_id": prop("string", "The event's id.")}, ("event_id",), _calendar_delete),
    Tool("reminder_add", "Set a reminder that alerts the user at a given time. For "
         "appointments with a duration use calendar_add.",
         {"text": prop("string", "What to remind about."), "at": prop("string", _WHEN)},
         ("text", "at"), _reminder_add),
    Tool("contacts_lookup", "Look up a person in the user's contacts: phone, e-mail, address.",
         {"name": prop("string", "A name or part of it.")}, ("name",), _contacts_lookup),
    Tool("send_message", "Send a text message to a person or number on the user's behalf. "
         "It really sends: only use it when the user asked for a message to be sent.",
         {"to": prop("string", "Recipient: a contact name, phone number or e-mail."),
          "text": prop("string", "The message.")}, ("to", "text"), _send_message),
]
