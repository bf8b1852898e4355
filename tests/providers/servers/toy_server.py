"""A small MCP server for the provider tests, built with the SDK's MCPServer.

Run as ``python toy_server.py`` (stdio) or ``python toy_server.py --http PORT``
(streamable HTTP on 127.0.0.1:PORT/mcp). ``--crash-on-start`` and ``--hang-on-start``
simulate broken servers; ``--banner`` prints a line on stdout first, as careless servers do.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel

server = MCPServer("toy", version="1.0", log_level="WARNING")


class Sum(BaseModel):
    total: int
    terms: list[int]


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> Sum:
    """Add two integers; the result is structured."""
    return Sum(total=a + b, terms=[a, b])


@server.tool()
def fail(reason: str = "broken on purpose") -> str:
    """Always fails with a tool error."""
    raise ToolError(reason)


@server.tool()
def slow(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def crash() -> str:
    """Exit the server process without answering."""
    print("toy server: crashing on request", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


NOTES: list[str] = []


@server.tool()
def remember(text: str) -> str:
    """Keep a note in the server's memory (state that lives as long as the process)."""
    NOTES.append(text)
    return f"{len(NOTES)} note(s)"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def recall() -> str:
    """The notes kept so far, comma-separated."""
    return "notes: " + ",".join(NOTES)


@server.tool()
def env(name: str) -> str:
    """One variable of the server's environment ('<unset>' when absent)."""
    return os.environ.get(name, "<unset>")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=0)
    parser.add_argument("--crash-on-start", action="store_true")
    parser.add_argument("--hang-on-start", action="store_true")
    parser.add_argument("--banner", action="store_true")
    parser.add_argument("--tag", default="", help="ignored; lets tests find this process")
    options = parser.parse_args()
    if options.crash_on_start:
        print("toy server: missing configuration TOY_TOKEN", file=sys.stderr, flush=True)
        sys.exit(2)
    if options.hang_on_start:
        print("toy server: waiting forever", file=sys.stderr, flush=True)
        while True:
            time.sleep(1)
    if options.banner:
        print("toy server 1.0 ready on stdio", flush=True)
    if options.http:
        server.run("streamable-http", host="127.0.0.1", port=options.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
