"""One built-in world template per test session for the state and oracle tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tooleval.world import World
from pytest_tooleval.world.factory import WorldFactory


@pytest.fixture(scope="session")
def world_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("validity-worlds")
    WorldFactory(base).template()
    return base


@pytest.fixture
def world(world_base: Path, tmp_path: Path) -> World:
    return WorldFactory(world_base).new_case_world(tmp_path / "world")
