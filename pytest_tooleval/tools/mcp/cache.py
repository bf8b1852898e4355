"""The last tool list each MCP server gave, kept so ``tooleval check`` can work offline.

Written whenever a server has been started and listed (by a run or by ``tooleval check``),
to ``.tooleval-cache/mcp/NAME.json`` beside the configuration file; read by
``tooleval check --mcp cached``. An entry listed for another command, URL or prefix is
stale and refused, never used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_tooleval.atomic import write_atomic
from pytest_tooleval.tools.base import ToolSpec
from pytest_tooleval.tools.mcp.config import McpServerConfig, shadowed_by, stands_for

CACHE_DIR = Path(".tooleval-cache") / "mcp"
_VERSION = 1


class CacheMiss(Exception):
    """No usable cached tool list; the message says why and how to make one."""


@dataclass(frozen=True)
class CachedTools:
    specs: list[ToolSpec]
    server_info: str | None
    listed_at: str
    #: The built-ins this server replaces (``shadow_builtins``), as the live server would.
    shadows: set[str]


def cache_path(base_dir: Path, name: str) -> Path:
    return base_dir / CACHE_DIR / f"{name}.json"


def _key(config: McpServerConfig) -> dict[str, Any]:
    return {"transport": config.transport, "target": config.target(), "prefix": config.prefix}


def write_cache(base_dir: Path, name: str, config: McpServerConfig, specs: list[ToolSpec],
                server_info: str | None) -> None:
    """Atomically replace the cached list; errors are the caller's to ignore."""
    path = cache_path(base_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = path.parent.parent / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# written by pytest-tooleval\n*\n", encoding="utf-8")
    data = {
        "version": _VERSION,
        "server": name,
        **_key(config),
        "server_info": server_info,
        "listed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "tools": [{"name": s.name, "description": s.description, "parameters": s.parameters,
                   "read_only": s.read_only} for s in specs],
    }
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1))


def read_cache(base_dir: Path, name: str, config: McpServerConfig) -> CachedTools:
    path = cache_path(base_dir, name)
    how = ("start it once (`tooleval check` without --mcp cached, or a pytest run) to "
           "record its tools")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CacheMiss(f"no cached tool list for mcp:{name} at {path}; {how}") from None
    except (OSError, ValueError) as exc:
        raise CacheMiss(f"the cached tool list {path} cannot be read ({exc}); {how}") from None
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        raise CacheMiss(f"the cached tool list {path} has an unknown format; {how}")
    stale = [f"{key} {data.get(key)!r} (configured: {value!r})"
             for key, value in _key(config).items() if data.get(key) != value]
    if stale:
        raise CacheMiss(f"the cached tool list {path} was listed for another set-up: "
                        + ", ".join(stale) + f"; {how}")
    source = f"mcp:{name}"
    tools = [t for t in data.get("tools", []) if isinstance(t, dict) and "name" in t]
    # The server's own names: the entry's prefix is the configured one (checked above).
    own = [str(t["name"]).removeprefix(config.prefix) for t in tools]
    specs = [ToolSpec(str(t["name"]), str(t.get("description", "")),
                      dict(t.get("parameters") or {}), source, t.get("read_only"),
                      stands_for=stands_for(n, config))
             for t, n in zip(tools, own, strict=True)]
    return CachedTools(specs, data.get("server_info"), str(data.get("listed_at", "?")),
                       shadowed_by(own, config))
