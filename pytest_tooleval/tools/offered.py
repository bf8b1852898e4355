"""Which built-in tools this machine can offer, decided from what each needs (a binary on
PATH, the jail): shared by the built-in provider and by the listing that ``tooleval check``
and ``route`` read without importing the tools themselves (router/catalogue.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterable

from pytest_tooleval.tools import jail


def missing_tools(
    tools: Iterable[tuple[str, str | None, bool]], unsafe_no_jail: bool = False
) -> dict[str, str]:
    """(name, needed binary, runs code jailed) rows → the tools this machine cannot offer,
    each with why and how to fix it."""
    missing: dict[str, str] = {}
    found = jail.probe()
    for name, needs, jailed in tools:
        if needs is not None and shutil.which(needs) is None:
            missing[name] = f"{needs} is not installed"
        elif jailed and not found.available and not unsafe_no_jail:
            missing[name] = f"the jail is unavailable ({found.detail}); {jail.INSTALL_HINT}"
    return missing
