"""Companion tools: a tool whose results are only useful through another.

A document search returns paths and snippets, and the fact is read with ``read_document``;
an extracted archive's files are read with ``read_file``. Showing one without the other
makes the natural route (search, then read) impossible for the model, so the router shows
the companion in the place of the least useful tool shown.
"""

from __future__ import annotations

from collections.abc import Callable

COMPANIONS: dict[str, str] = {"search_documents": "read_document",
                              "extract_archive": "read_file"}


def with_companions(
    chosen: list[str], kept: list[str], names: set[str], usefulness: Callable[[str], int]
) -> tuple[list[str], dict[str, str]]:
    """``chosen`` with the companion of each shown tool added, and which tool brought each.
    It takes the place of the lowest-ranked of the least useful tools shown; never a kept
    tool or one of a companion pair."""
    added: dict[str, str] = {}
    protected = {*kept, *COMPANIONS, *COMPANIONS.values()}
    for source, companion in COMPANIONS.items():
        if source not in chosen or companion in chosen or companion not in names:
            continue
        candidates = [name for name in reversed(chosen) if name not in protected]
        if not candidates:
            continue
        victim = min(candidates, key=usefulness)  # min keeps the first: the lowest-ranked
        chosen = [companion if name == victim else name for name in chosen]
        added[companion] = source
    return chosen, added
