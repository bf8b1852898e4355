"""Which files are case files, decided here and nowhere else: a benchmark is a ``.json``
file, a scenario a ``.yaml``/``.yml`` file. A folder with such a suffix is refused
wherever a case file would be read (``FOLDER_PROBLEM``). Which of them a run collects from
the folders it walks is ``collected``'s, for the run and for ``tooleval check`` alike.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
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


#: What a run collects from the folders it walks (docs/format.md: benchmarks are JSON under
#: benchmarks/, scenarios YAML under scenarios/). Ini ``tooleval_files`` replaces these,
#: ``tooleval_paths`` adds its folders; a file named on the command line is collected anywhere.
DEFAULT_PATTERNS = ("benchmarks/**/*.json", "scenarios/**/*.yaml", "scenarios/**/*.yml")


def collected(relatives: Iterable[str], patterns: Iterable[str]) -> bool:
    """Whether a run collects a case file found in a folder: one of its paths relative to
    where the run looks from (POSIX) matches a glob pattern (``**/`` also matching none)."""
    patterns = list(patterns)
    return any(fnmatch.fnmatch(relative, pattern)
               or fnmatch.fnmatch(relative, pattern.replace("**/", ""))
               for pattern in patterns for relative in relatives)


def not_collected(patterns: Iterable[str]) -> tuple[str, str]:
    """(why, fix) for case files a run does not collect."""
    return (f"not collected by a run, which takes from folders only {', '.join(patterns)}",
            "move or rename to match (JSON is YAML: a .json may become .yaml), add the folder "
            "to ini tooleval_paths, or name the file on the command line")
