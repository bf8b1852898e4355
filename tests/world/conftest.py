"""One template world per test session; tests that write take a private copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tooleval.world import World
from pytest_tooleval.world.factory import WorldFactory


@pytest.fixture(scope="session")
def factory(tmp_path_factory: pytest.TempPathFactory) -> WorldFactory:
    return WorldFactory(tmp_path_factory.mktemp("world-base"))


@pytest.fixture(scope="session")
def template(factory: WorldFactory) -> World:
    return factory.template()


@pytest.fixture
def case_world(factory: WorldFactory, tmp_path: Path) -> World:
    return factory.new_case_world(tmp_path / "case")
