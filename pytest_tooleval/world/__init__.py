"""The deterministic bilingual fixture world the built-in tools act on."""

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
