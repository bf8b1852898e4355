"""What ``isolation = "per-case"`` costs: the time to restart an MCP server between cases.

Prints, per server, the first start (with listing) and the median and worst of N
restarts, each as ``McpToolProvider.begin_case`` does it after a case that called the
server. A case that did not call the server costs nothing. Usage:

    python scripts/bench_mcp_isolation.py [--restarts 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pytest_tooleval.tools.base import CaseContext
from pytest_tooleval.tools.mcp import McpServerConfig, McpToolProvider

CASE = CaseContext("bench.json", "bench", "case", "en")


def _repository(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "-c", "user.name=b", "-c", "user.email=b@b",
                    "commit", "-q", "--allow-empty", "-m", "base"], check=True)
    return path


def servers(workdir: Path) -> dict[str, tuple[McpServerConfig, str, dict[str, object]]]:
    toy = Path(__file__).parent.parent / "tests" / "providers" / "servers" / "toy_server.py"
    repo = _repository(workdir / "repo")
    return {
        "toy (tests/providers)": (McpServerConfig(command=sys.executable, args=[str(toy)]),
                                  "echo", {"text": "x"}),
        "mcp-server-time": (McpServerConfig(command=sys.executable,
                                            args=["-m", "mcp_server_time",
                                                  "--local-timezone", "UTC"]),
                            "get_current_time", {"timezone": "UTC"}),
        "mcp-server-git": (McpServerConfig(command=sys.executable,
                                           args=["-m", "mcp_server_git", "--repository",
                                                 str(repo)]),
                           "git_status", {"repo_path": str(repo)}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--restarts", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for label, (config, tool, arguments) in servers(Path(tmp)).items():
            provider = McpToolProvider("bench", config)
            try:
                started = time.perf_counter()
                provider.start()
                first = time.perf_counter() - started
                restarts = []
                for _ in range(args.restarts):
                    provider.call(tool, arguments)  # the case used the server
                    started = time.perf_counter()
                    provider.begin_case(CASE)  # the next case: a restart
                    restarts.append(time.perf_counter() - started)
                call_started = time.perf_counter()
                provider.call(tool, arguments)
                call = time.perf_counter() - call_started
            finally:
                provider.close()
            print(f"{label:<24} first start {first:6.2f} s   restart median "
                  f"{statistics.median(restarts):6.2f} s, max {max(restarts):6.2f} s "
                  f"({len(restarts)} restarts)   one call {call * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
