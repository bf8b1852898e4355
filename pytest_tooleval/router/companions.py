"""Companion tools: a tool whose results are only useful through another brings it
(docs/router.md, "Companions"), so that the natural route (search, then read) is possible:
a document search gives paths read with ``read_document``, an extracted archive's files are
read with ``read_file``, an event is deleted by the id ``calendar_list`` gives, a reminder
is set at a time counted from ``current_datetime``'s. A reader
chosen for a message that names no file brings its finder (``FINDERS``)."""

from __future__ import annotations

from collections.abc import Callable

#: A ``usefulness`` this high (the user's own tools) is never given up to a companion.
KEEP_PLACE = 4

COMPANIONS: dict[str, str] = {"search_documents": "read_document",
                              "extract_archive": "read_file",
                              "calendar_delete": "calendar_list",
                              "reminder_add": "current_datetime"}
#: A reader → the tool that finds what it reads, when the message names no file.
FINDERS: dict[str, str] = {"read_document": "search_documents"}
#: Why each companion comes (the reason ``tooleval route`` prints).
WHY: dict[str, str] = {"search_documents": "no file named, the document is found first",
                       "read_document": "what it finds is read with read_document",
                       "read_file": "what it finds is read with read_file",
                       "calendar_list": "an event is deleted by the id calendar_list gives",
                       "current_datetime": "a reminder's time is counted from now"}


def with_companions(
    chosen: list[str],
    kept: list[str],
    names: set[str],
    usefulness: Callable[[str], int],
    has_path: bool = True,
) -> tuple[list[str], dict[str, str]]:
    """``chosen`` with the companion of each shown tool added, and which tool brought each.
    A companion takes the place of the lowest-ranked of the least useful tools shown; never
    a kept tool, a user's own tool (``usefulness`` ``KEEP_PLACE``) or one of a shown pair. A
    companion shown only as a filler beside a source that scored counts as brought too.
    ``has_path`` False (the message names no file): a reader of ``FINDERS`` shown by a
    signal brings its finder the same way."""
    added: dict[str, str] = {}
    pairs = [(source, companion) for source, companion in COMPANIONS.items() if source in chosen]
    if not has_path:  # a reader chosen by a signal brings its finder
        pairs += [(reader, finder) for reader, finder in FINDERS.items()
                  if reader in chosen and usefulness(reader) >= 3]
    protected = {*kept, *(name for pair in pairs for name in pair)}
    for source, companion in pairs:
        if companion not in names:
            continue
        if companion in chosen:
            if usefulness(companion) < 3 <= usefulness(source):  # a filler beside a signal
                added[companion] = source
            continue
        candidates = [
            name for name in reversed(chosen)
            if name not in protected and usefulness(name) < KEEP_PLACE
        ]
        if not candidates:
            continue
        victim = min(candidates, key=usefulness)  # min keeps the first: the lowest-ranked
        chosen = [companion if name == victim else name for name in chosen]
        added[companion] = source
    return chosen, added
