"""Interrupting a pytester run from inside, as a user's Ctrl-C would."""

from __future__ import annotations

from typing import Any


def stop_after(project: Any, count: int) -> None:
    """Write a conftest that raises KeyboardInterrupt (Ctrl-C) after ``count`` cases, on
    whichever process runs them."""
    project.write("conftest.py", f"""
done = []
def pytest_runtest_teardown(item):
    done.append(item.nodeid)
    if len(done) == {count}:
        raise KeyboardInterrupt
""")
