"""A run interrupted mid-call: prints the server's pid, then blocks in a slow call.

The test sends SIGINT; the KeyboardInterrupt is not handled here and ``close()`` is never
called, so only the provider's exit-time finalizer can stop the server.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pytest_tooleval.tools.mcp import McpServerConfig, McpToolProvider

toy = str(Path(__file__).with_name("toy_server.py"))
provider = McpToolProvider(
    "toy", McpServerConfig(command=sys.executable, args=[toy, "--tag", sys.argv[1]])
)
provider.start()
print(provider.call("pid", {}).text, flush=True)
provider.call("slow", {"seconds": 60})
