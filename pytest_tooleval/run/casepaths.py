"""Where cases are collected from when no path is given (ini ``tooleval_paths``)."""

from __future__ import annotations

import pytest

DEFAULT_CASE_PATHS = ("benchmarks", "scenarios")


def case_paths_instead_of_testpaths(config: pytest.Config) -> list[str] | None:
    """The case paths to collect when no path was given and pytest fell back to
    ``testpaths``; None to leave pytest's choice alone.

    A project's ``testpaths`` usually names its own test suite, so ``pytest --model M``
    would collect no case. When a run is clearly about cases (``--model``,
    ``--tooleval-check``) the case paths (ini ``tooleval_paths``; default ``benchmarks``
    and ``scenarios``, those that exist) replace ``testpaths``; ``--collect-only`` lists
    both. Plain ``pytest`` keeps running the test suite.
    """
    if config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return None
    wanted = config.getini("tooleval_paths") or list(DEFAULT_CASE_PATHS)
    paths = [p for p in wanted if (config.rootpath / p).exists()]
    if not paths:
        return None
    if config.getoption("tooleval_model", default=None) or config.getoption(
        "tooleval_check", default=None
    ):
        return [str(config.rootpath / p) for p in paths]
    if config.getoption("collectonly", default=False):
        return [*config.args, *(str(config.rootpath / p) for p in paths)]
    return None
