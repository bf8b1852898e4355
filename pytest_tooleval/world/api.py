"""The contract between the fixture world and the built-in tools.

A case's world is one directory (the sandbox root) laid out as:

    <root>/home/                 the user's home folder; file tools take paths relative to it
    <root>/home/Projects/<repo>/ the git repository the code-git tools act on
    <root>/state/clock.json      {"now": ISO-8601 with offset, "timezone": IANA name}
    <root>/state/calendar.json   [{"id", "title", "start", "end", "location", "notes"}]
    <root>/state/memories.json   [{"key", "text", "saved_at"}]
    <root>/state/contacts.json   [{"name", "phone", "email", "address", "notes"}]
    <root>/state/reminders.json  [{"id", "text", "at"}]
    <root>/state/outbox.json     [{"to", "text", "sent_at"}]
    <root>/web/pages.json        [{"url", "title", "language", "published", "text"}]

State files are JSON so that writes (calendar_add, memory_save) land in the case's own
copy and vanish with it. The documents folder is ``home/Documents``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_tooleval.atomic import write_atomic

DEFAULT_NOW = "2026-03-12T10:47:00+03:00"  # a Thursday
DEFAULT_TIMEZONE = "Europe/Istanbul"
REPO_DIR = "Projects/kestrel"


@dataclass
class World:
    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def documents(self) -> Path:
        return self.home / "Documents"

    @property
    def repo(self) -> Path:
        return self.home / REPO_DIR

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def web_dir(self) -> Path:
        return self.root / "web"

    def load_state(self, name: str) -> Any:
        return json.loads((self.state_dir / f"{name}.json").read_text(encoding="utf-8"))

    def records(self, name: str) -> list[dict[str, Any]]:
        """The objects of a state file's list; a missing file holds none (an unreadable one
        raises ``OSError`` or ``ValueError``)."""
        if not (self.state_dir / f"{name}.json").exists():
            return []
        data = self.load_state(name)
        return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []

    def save_state(self, name: str, data: Any) -> None:
        text = json.dumps(data, ensure_ascii=False, indent=1)
        write_atomic(self.state_dir / f"{name}.json", text)

    def now(self) -> datetime:
        clock = self.load_state("clock")
        return datetime.fromisoformat(clock["now"])

    @property
    def timezone(self) -> str:
        return str(self.load_state("clock").get("timezone", DEFAULT_TIMEZONE))
