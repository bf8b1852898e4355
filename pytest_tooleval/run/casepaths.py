"""Where cases are collected from when no path is given (ini ``tooleval_paths``)."""

from __future__ import annotations

import pytest

DEFAULT_CASE_PATHS = ("benchmarks", "scenarios")


def case_paths_instead_of_testpaths(config: pytest.Config) -> list[str] | None:
    """With no path given, a run about cases (``--model``, ``--tooleval-check``) collects
    the case paths (ini ``tooleval_paths``) instead of ``testpaths`` (a project's own
    tests); ``--collect-only`` lists both. None leaves pytest's choice alone."""
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
