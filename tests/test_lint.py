"""ruff and mypy as part of the test suite, so the README's test command (and CI) keeps
the package clean."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(module: str) -> list[str]:
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"{module} is not installed: pip install -e '.[test]'")
    return [sys.executable, "-m", module]


def test_ruff_is_clean() -> None:
    done = subprocess.run([*_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean_on_the_package() -> None:
    done = subprocess.run([*_tool("mypy"), "pytest_tooleval"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
