"""Which files are case files, decided here and nowhere else: a benchmark is a ``.json``
file, a scenario a ``.yaml``/``.yml`` file. A folder with such a suffix is refused
wherever a case file would be read (``FOLDER_PROBLEM``).
"""

from __future__ import annotations

from pathlib import PurePath

SCENARIO_SUFFIXES = (".yaml", ".yml")
CASE_SUFFIXES = (".json", *SCENARIO_SUFFIXES)

#: (message, fix) for a folder named like a case file: refused, never walked silently.
FOLDER_PROBLEM = ("a folder named like a case file (.json, .yaml or .yml)",
                  "rename the folder: only case files may end in those suffixes")


def is_case_path(path: str | PurePath) -> bool:
    """A benchmark or scenario file, by its suffix."""
    return PurePath(path).suffix in CASE_SUFFIXES


def is_scenario_path(path: str | PurePath) -> bool:
    return PurePath(path).suffix in SCENARIO_SUFFIXES


def is_case_nodeid(nodeid: str) -> bool:
    """A pytest node id of one case: ``FILE::CASE`` with FILE a case file."""
    path, _, name = nodeid.partition("::")
    return bool(name) and is_case_path(path)
