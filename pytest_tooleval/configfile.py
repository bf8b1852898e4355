"""Finding the project's configuration file (docs/usage.md, "Which configuration file is
used"): from where the run starts up to the rootdir (outside pytest: the first folder with a
``pyproject.toml`` or ``.git``), the nearest ``tooleval.toml`` or ``[tool.tooleval]``
wins (``tooleval.toml`` within a folder); farther ones are named in a warning, not merged."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

CONFIG_FILE = "tooleval.toml"
PYPROJECT = "pyproject.toml"


class ConfigError(Exception):
    """A configuration that cannot be used; the message names the file or option and key."""


@dataclass(frozen=True)
class FoundConfig:
    path: Path | None
    table: dict[str, Any]
    shadowed: tuple[Path, ...] = ()

    @property
    def section(self) -> str:
        """How the file's tables are written: ``tool.tooleval.`` in pyproject.toml."""
        return "tool.tooleval." if self.path is not None and self.path.name == PYPROJECT else ""


def shadow_message(found: FoundConfig, path: Path) -> str:
    return (f"tooleval: {path} is not used: the configuration comes from {found.path}, "
            "which is nearer to where the run starts (files are not merged; move the "
            "settings into one file)")


def start_dir(config: pytest.Config) -> Path:
    """Where the search for the project file starts: the common folder of the paths given
    on the command line (as pytest's own ini search does), else the invocation folder."""
    invocation = config.invocation_params.dir
    folders = []
    for arg in config.args:
        path = invocation / arg.split("::")[0]  # an absolute path stays as it is
        if path.exists():
            folders.append(str((path if path.is_dir() else path.parent).resolve()))
    return Path(os.path.commonpath(folders)) if folders else invocation.resolve()


def find_project_config(start: Path, stop: Path | None) -> FoundConfig:
    """The nearest configuration from ``start`` up to ``stop`` (pytest's rootdir; when
    ``start`` is outside it, the rootdir alone), and the farther ones it shadows."""
    start = start.resolve()
    if stop is not None:
        stop = stop.resolve()
        if not start.is_relative_to(stop):
            start = stop
    candidates: list[tuple[Path, dict[str, Any]]] = []
    for folder in (start, *start.parents):
        dedicated = folder / CONFIG_FILE
        if dedicated.is_file():
            candidates.append((dedicated, _read_toml(dedicated)))
        pyproject = folder / PYPROJECT
        if pyproject.is_file():
            section = _read_toml(pyproject).get("tool", {}).get("tooleval")
            if section is not None:
                if not isinstance(section, dict):
                    raise ConfigError(f"{pyproject}: [tool.tooleval] must be a table")
                candidates.append((pyproject, section))
        if folder == stop or (stop is None and (pyproject.is_file()
                                                or (folder / ".git").exists())):
            break
    if not candidates:
        return FoundConfig(None, {})
    return FoundConfig(*candidates[0], tuple(path for path, _ in candidates[1:]))


_KEY_PART = re.compile(r'"([^"]*)"|\'([^\']*)\'|([^.\s"\']+)')


def table_line(path: Path, *table: str) -> int:
    """The line of ``path`` that defines the table ``table`` (``"models", NAME``; under
    ``[tool.tooleval]`` in a pyproject.toml): its ``[header]``, or a dotted key or inline
    table within a parent table; 1 when none does, or the file is gone since the run read
    it (a checkout, a clean-up)."""
    wanted = [*(("tool", "tooleval") if path.name == PYPROJECT else ()), *table]
    header: list[str] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for number, text in enumerate(lines, 1):
        text = text.partition("#")[0].strip()
        if text.startswith("["):
            key = header = _key(text.strip("[]"))
        else:
            key = header + _key(text.partition("=")[0])
        if key[:len(wanted)] == wanted:
            return number
    return 1


def _key(text: str) -> list[str]:
    return ["".join(part) for part in _KEY_PART.findall(text)]


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only where a configuration file exists

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
