"""Loading the plugin, and collecting cases, import nothing heavy: the modules below are
imported where they are used (a run's end for numpy, a model call for httpx, a server for
the MCP SDK, ...). Each check runs in a fresh interpreter, where ``sys.modules`` shows what
was really imported. (``tooleval check`` has its own test in test_check_cache.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Never imported by loading the plugin or collecting cases.
HEAVY = [
    "numpy", "httpx", "httpcore", "mcp", "llama_cpp", "pypdf", "rapidfuzz", "filelock",
    "pytest_tooleval.scoring.statistics", "pytest_tooleval.world.build",
    "pytest_tooleval.models.openai", "pytest_tooleval.models.llama",
    "pytest_tooleval.tools.mcp.connection",
]
#: Not imported by loading the plugin either (collecting loads case files, which needs them).
AT_LOAD = [*HEAVY, "jsonschema", "yaml", "pytest_tooleval.cases.model",
           "pytest_tooleval.router.trigger_router", "pytest_tooleval.engine.loop"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    script = (
        "import json, sys\n"
        "import pytest\n"
        "before = set(sys.modules)\n"
        "import pytest_tooleval.plugin\n"
        f"print(json.dumps([m for m in {AT_LOAD!r} if m in sys.modules and m not in before]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=_env(), cwd=ROOT, timeout=120, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_collecting_cases_imports_nothing_heavy(tmp_path: Path) -> None:
    (tmp_path / "probe_modules.py").write_text(
        "import json, sys\n"
        "def pytest_collection_finish(session):\n"
        f"    loaded = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "    print('LOADED ' + json.dumps(loaded))\n",
        encoding="utf-8")
    (tmp_path / "cases.json").write_text(json.dumps({
        "name": "c", "language": "en", "requires": ["calculator"],
        "cases": [{"name": "sum", "category": "tool", "steps": [
            {"message": "what is 1234 * 5678?", "expect": "calculator",
             "evidence": ["7006652"]}]}],
    }), encoding="utf-8")
    env = {**_env(), "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pytest_tooleval.plugin", "-p", "probe_modules",
         "-p", "no:cacheprovider", "--collect-only", "-q", "cases.json"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 test collected" in done.stdout
    [line] = [line for line in done.stdout.splitlines() if line.startswith("LOADED ")]
    assert json.loads(line.removeprefix("LOADED ")) == []
