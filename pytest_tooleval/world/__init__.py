"""The deterministic bilingual fixture world the built-in tools act on.

The names below are loaded on first use (PEP 562), so importing ``world.api`` (the
built-in tools' modules do, for their type) does not import the world builder and its
dependencies; listing tools or checking cases builds no world.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_tooleval.world.api import DEFAULT_NOW, DEFAULT_TIMEZONE, REPO_DIR, World
    from pytest_tooleval.world.build import build_template
    from pytest_tooleval.world.factory import (
        WorldFactory,
        WorldOverrideError,
        WorldOverrides,
        copy_world,
        safe_home_path,
        validate_overrides,
    )

_WHERE = {
    "DEFAULT_NOW": "api",
    "DEFAULT_TIMEZONE": "api",
    "REPO_DIR": "api",
    "World": "api",
    "build_template": "build",
    "WorldFactory": "factory",
    "WorldOverrideError": "factory",
    "WorldOverrides": "factory",
    "copy_world": "factory",
    "safe_home_path": "factory",
    "validate_overrides": "factory",
}

__all__ = [
    "DEFAULT_NOW",
    "DEFAULT_TIMEZONE",
    "REPO_DIR",
    "World",
    "WorldFactory",
    "WorldOverrideError",
    "WorldOverrides",
    "build_template",
    "copy_world",
    "safe_home_path",
    "validate_overrides",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
