"""The deterministic bilingual fixture world the built-in tools act on.

Only the contract (``world.api``) is imported here: the built-in tools import it, and
listing them imports neither the factory nor the builder.
"""

from __future__ import annotations

from pytest_tooleval.world.api import DEFAULT_NOW, DEFAULT_TIMEZONE, REPO_DIR, World

__all__ = ["DEFAULT_NOW", "DEFAULT_TIMEZONE", "REPO_DIR", "World"]
