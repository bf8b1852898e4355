"""One template per session and machine, one private copy per case.

Under xdist every worker calls ``WorldFactory(shared_dir).template()``; a file lock makes
exactly one of them build, into a temporary folder that is renamed into place when done,
so nobody ever sees a half-built template. The template's folder name carries a hash of the
data and builder code, so a changed world never reuses a stale template.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ValidationError

from pytest_tooleval.cases.model import WorldOverrides
from pytest_tooleval.world.api import World
from pytest_tooleval.world.data_io import fingerprint


class WorldOverrideError(ValueError):
    """An override that cannot apply: bad clock, unknown zone, or a path leaving home."""


def safe_home_path(home: Path, rel: str) -> Path:
    """Resolve ``rel`` inside ``home`` or refuse: absolute, ``..``, drive or symlink escapes."""
    if not rel or "\x00" in rel:
        raise WorldOverrideError(f"empty or invalid override path: {rel!r}")
    posix, windows = PurePosixPath(rel), PureWindowsPath(rel)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or rel.startswith("\\"):
        raise WorldOverrideError(f"override path must be relative to home: {rel!r}")
    if ".." in posix.parts or ".." in windows.parts:
        raise WorldOverrideError(f"override path escapes home: {rel!r}")
    base = home.resolve()
    target = (base / posix).resolve()
    if target == base or base not in target.parents:
        raise WorldOverrideError(f"override path escapes home: {rel!r}")
    return target


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise WorldOverrideError(f"unknown timezone: {name!r}") from exc


def _clock(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise WorldOverrideError(f"clock is not an ISO datetime: {text!r}") from exc


def validate_overrides(overrides: WorldOverrides | Mapping[str, Any] | None) -> WorldOverrides:
    """The one override model (``cases.model.WorldOverrides``), from itself or a mapping,
    checked without a world (load time): paths, clock and zone."""
    try:
        parsed = WorldOverrides.model_validate(overrides or {})  # a model: returned as is
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'world'}: {err['msg']}"
            for err in exc.errors(include_url=False))
        raise WorldOverrideError(f"invalid world override(s): {problems}") from None
    for rel in parsed.files:
        safe_home_path(Path("/nonexistent-tooleval-home"), rel)
    if parsed.timezone is not None:
        _zone(parsed.timezone)
    if parsed.clock is not None:
        _clock(parsed.clock)
    return parsed


def copy_world(
    template: World, dest: Path, overrides: WorldOverrides | Mapping[str, Any] | None = None
) -> World:
    """A private, writable copy of ``template`` at ``dest`` with overrides applied."""
    parsed = validate_overrides(overrides)
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    shutil.copytree(template.root, dest, symlinks=True, dirs_exist_ok=True)
    world = World(dest)
    clock = world.load_state("clock")
    if parsed.clock is not None or parsed.timezone is not None:
        if parsed.timezone is not None:
            clock["timezone"] = parsed.timezone
        zone = _zone(clock["timezone"])
        now = _clock(parsed.clock if parsed.clock is not None else clock["now"])
        # A naive clock is read in the world's zone; an aware one keeps its instant.
        now = now.replace(tzinfo=zone) if now.tzinfo is None else now
        clock["now"] = now.astimezone(zone).isoformat()
        world.save_state("clock", clock)
    epoch = datetime.fromisoformat(clock["now"]).timestamp()
    for rel, text in parsed.files.items():
        target = safe_home_path(world.home, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        safe_home_path(world.home, rel)  # re-check: a parent may have been a symlink
        target.write_text(text, encoding="utf-8")
        os.utime(target, (epoch, epoch))
    return world


class WorldFactory:
    """Builds the template once under ``base_dir`` (shared by xdist workers) and copies it."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self.key = fingerprint()
        self.template_dir = self.base_dir / f"tooleval-world-{self.key}"
        self.lock_path = self.base_dir / f"tooleval-world-{self.key}.lock"
        self._template: World | None = None

    def template(self) -> World:
        """The shared template, building it if no process has yet."""
        if self._template is not None:
            return self._template
        # Imported here: loading case files validates overrides through this module and
        # must not import the builder or the lock.
        from filelock import FileLock

        from pytest_tooleval.world.build import META_FILE, build_template

        self.base_dir.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.lock_path)):
            if not (self.template_dir / META_FILE).exists():
                staging = self.base_dir / f"{self.template_dir.name}.building-{os.getpid()}"
                shutil.rmtree(staging, ignore_errors=True)
                build_template(staging)
                staging.rename(self.template_dir)
        self._template = World(self.template_dir)
        return self._template

    def new_case_world(
        self, dest: Path, overrides: WorldOverrides | Mapping[str, Any] | None = None
    ) -> World:
        """A fresh world for one case: writes there never reach the template or other cases."""
        return copy_world(self.template(), dest, overrides)

