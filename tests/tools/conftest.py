"""Fixtures: a mini world built once per session and copied for every test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from minienv import Tools, build_world

from pytest_tooleval.tools.base import CaseContext
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.world.api import World


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template") / "world"
    build_world(root)
    return root


@pytest.fixture
def world(world_template: Path, tmp_path: Path) -> World:
    root = tmp_path / "world"
    shutil.copytree(world_template, root, symlinks=True)
    return World(root)


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A folder outside the sandbox holding a secret and an empty target folder."""
    folder = tmp_path / "canary"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP SECRET canary\n")
    return folder


@pytest.fixture
def provider(world: World) -> Iterator[BuiltinToolProvider]:
    provider = BuiltinToolProvider(lambda context: world)
    provider.begin_case(CaseContext("f.yaml", "f.yaml", "case", "en"))
    yield provider
    provider.close()


@pytest.fixture
def tools(provider: BuiltinToolProvider) -> Tools:
    return Tools(provider)


