"""The trigger router's ranking: score first; among the tools nobody scored for, the
user's own tools, then the learned cue's confident votes, then the look-up tools of
``LOOKUP_FALLBACK``, then the siblings of a family that scored, then the fixed priority of
``catalogue.priority``. Also what a shown tool is worth when a companion needs its place,
and why a filler was shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pytest_tooleval.router.catalogue import priority
from pytest_tooleval.router.companions import KEEP_PLACE

# A question no trigger understood is most often a look-up: the web, the user's documents,
# their saved facts, their calendar. Places no tool scored for go to these first (after the
# user's own tools), instead of to whatever comes first in the catalogue.
LOOKUP_FALLBACK = ("web_search", "search_documents", "memory_search", "calendar_list")
FALLBACK_RANK = {name: index for index, name in enumerate(LOOKUP_FALLBACK)}
# Families of tools people confuse with each other: when one scored, its unscored siblings
# take the filler places first (a question about the repository that fired git_diff may
# well want git_status).
FAMILIES: dict[str, tuple[str, ...]] = {
    "git": ("git_status", "git_log", "git_diff", "git_show", "git_branches", "git_commit",
            "grep_code"),
    "archives": ("create_archive", "list_archive", "extract_archive"),
    "files": ("list_directory", "read_file", "write_file", "find_files", "file_info",
              "move_file", "delete_file"),
    "documents": ("search_documents", "read_document"),
    "memory": ("memory_save", "memory_search"),
    "calendar": ("calendar_list", "calendar_add", "calendar_delete", "reminder_add"),
    "people": ("contacts_lookup", "send_message"),
    "numbers": ("calculator", "convert_units", "run_python"),
    "dates": ("current_datetime", "date_add", "date_diff", "convert_timezone"),
    "web": ("web_search", "web_fetch"),
}
FAMILY_OF = {tool: family for family, tools in FAMILIES.items() for tool in tools}
FAMILY_MIN_SCORE = 2.0  # a real trigger, not a stray cue


def family_best(scores: dict[str, float]) -> dict[str, float]:
    """Each tool family's best score: the family of a message's best-scored tools."""
    best: dict[str, float] = {}
    for tool, score in scores.items():
        family = FAMILY_OF.get(tool)
        if family is not None and score > best.get(family, 0.0):
            best[family] = score
    return best


def usefulness_of(
    scores: dict[str, float], families: dict[str, float], learned: dict[str, float]
) -> Callable[[str], int]:
    """How much a shown tool is worth keeping when a companion needs its place."""

    def usefulness(name: str) -> int:
        if name not in FAMILY_OF:
            return KEEP_PLACE  # the user's own tool keeps its place
        if scores.get(name, 0.0) > 0.0 or name in learned:
            return 3  # it scored
        if families.get(FAMILY_OF.get(name, ""), 0.0) >= FAMILY_MIN_SCORE:
            return 2  # a sibling of a family that scored
        return 1 if name in FALLBACK_RANK else 0  # a look-up filler, or fixed priority

    return usefulness


def filler_why(name: str, families: dict[str, float]) -> str:
    """Why a tool no rule scored was shown all the same."""
    if name in FALLBACK_RANK:
        return "filler: look-up tool first"
    if families.get(FAMILY_OF.get(name, ""), 0.0) >= FAMILY_MIN_SCORE:
        return f"filler: a sibling of the {FAMILY_OF[name]} tools that scored"
    return "filler: fixed priority"


_PRIORITY: dict[str, tuple[int, int, str]] = {}


def _priority(name: str) -> tuple[int, int, str]:
    """``catalogue.priority``, remembered per name (every route ranks every tool)."""
    if len(_PRIORITY) >= 4096:
        _PRIORITY.clear()
    order = _PRIORITY[name] = priority(name)
    return order


def ranks(
    names: Iterable[str],
    scores: dict[str, float],
    families: dict[str, float],
    learned: dict[str, float],
) -> dict[str, tuple[float, int, float, tuple[int, int, str], int]]:
    """``rank`` of every name, computed in one pass (the same keys)."""
    score_of, vote_of, fallback_of = scores.get, learned.get, FALLBACK_RANK.get
    best_of, family_of, known = families.get, FAMILY_OF.get, _PRIORITY.get
    keys = {}
    for name in names:
        score = round(score_of(name, 0.0), 6)
        order = known(name) or _priority(name)
        if score > 0 or order[0] == 0:
            keys[name] = (-score, 0, 0.0, order, 0)
        elif (vote := vote_of(name)) is not None:
            keys[name] = (0.0, 1, -vote, order, 0)
        elif (fallback := fallback_of(name)) is not None:
            keys[name] = (0.0, 2, float(fallback), order, 0)
        elif (family := best_of(family_of(name, ""), 0.0)) >= FAMILY_MIN_SCORE:
            keys[name] = (0.0, 3, -family, order, 0)
        else:
            keys[name] = (0.0, 4, 0.0, order, 0)
    return keys


def rank(
    name: str,
    scores: dict[str, float],
    families: dict[str, float] | None = None,
    learned: dict[str, float] | None = None,
) -> tuple[float, int, float, tuple[int, int, str], int]:
    """Score first; among tools nobody scored for, the user's tools, then the lexical
    model's confident votes, then the look-up tools of ``LOOKUP_FALLBACK``, then the
    siblings of a family that scored (git_status beside git_diff, list_archive beside
    extract_archive), then the rest in the fixed priority."""
    score = round(scores.get(name, 0.0), 6)
    order = _PRIORITY.get(name) or _priority(name)
    if score > 0 or order[0] == 0:
        return (-score, 0, 0.0, order, 0)
    vote = (learned or {}).get(name)
    if vote is not None:
        return (0.0, 1, -vote, order, 0)
    fallback = FALLBACK_RANK.get(name)
    if fallback is not None:
        return (0.0, 2, float(fallback), order, 0)
    family = (families or {}).get(FAMILY_OF.get(name, ""), 0.0)
    if family >= FAMILY_MIN_SCORE:
        return (0.0, 3, -family, order, 0)
    return (0.0, 4, 0.0, order, 0)
