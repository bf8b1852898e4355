"""Fixtures for the hostile tests: see harness.py for the four walls checked."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import (
    CANARY_TEXT,
    Hostile,
    _children,
    _reap,
    _set_subreaper,
    build_world,
    snapshot,
    with_kill,
)
from minienv import Tools

from pytest_tooleval.tools.base import CaseContext
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.world.api import World


@pytest.fixture(scope="session")
def security_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("security-template") / "world"
    build_world(root)
    return root


@pytest.fixture
def hostile(security_template: Path, tmp_path: Path) -> Iterator[Hostile]:
    outside = tmp_path / "outside"
    outside.mkdir()
    canary = outside / "secret.txt"
    canary.write_text(CANARY_TEXT)
    root = tmp_path / "case" / "world"
    shutil.copytree(security_template, root, symlinks=True)
    world = World(root)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.setblocking(False)
    provider = BuiltinToolProvider(lambda context: world)
    provider.begin_case(CaseContext("hostile.yaml", "hostile.yaml", "case", "en"))
    _set_subreaper(True)
    state = Hostile(world, security_template, outside, canary, listener.getsockname()[1],
                    Tools(provider), listener)
    state.before = {"outside": snapshot(outside), "template": snapshot(security_template)}
    state.children = _children(os.getpid())
    try:
        yield state
        state.assert_contained()
    finally:
        provider.close()
        listener.close()
        for pid in _children(os.getpid()) - state.children:
            with_kill(pid)
        _set_subreaper(False)
        _reap()
