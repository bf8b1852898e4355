"""The trigger router's ranking (``rank_key``), what a shown tool is worth when a companion
needs its place, and why a filler was shown."""

from __future__ import annotations

from collections.abc import Callable

from pytest_tooleval.router.catalogue import priority
from pytest_tooleval.router.companions import KEEP_PLACE
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS

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


def _sibling_scored(name: str, families: dict[str, float]) -> bool:
    """A read-only sibling of a family that scored (git_status beside git_diff); a tool that
    changes the world takes no place for its family alone ("takvimim dolu")."""
    return (families.get(FAMILY_OF.get(name, ""), 0.0) >= FAMILY_MIN_SCORE
            and name not in SIDE_EFFECTING_BUILTINS)


def usefulness_of(
    scores: dict[str, float], families: dict[str, float], learned: dict[str, float]
) -> Callable[[str], int]:
    """How much a shown tool is worth keeping when a companion needs its place."""

    def usefulness(name: str) -> int:
        if name not in FAMILY_OF:
            return KEEP_PLACE  # the user's own tool keeps its place
        if scores.get(name, 0.0) > 0.0 or name in learned:
            return 3  # it scored
        if _sibling_scored(name, families):
            return 2
        return 1 if name in FALLBACK_RANK else 0  # a look-up filler, or fixed priority

    return usefulness


def filler_why(name: str, families: dict[str, float]) -> str:
    """Why a tool no rule scored was shown all the same."""
    if name in FALLBACK_RANK:
        return "filler: look-up tool first"
    if _sibling_scored(name, families):
        return f"filler: a sibling of the {FAMILY_OF[name]} tools that scored"
    return "filler: fixed priority"


def rank_key(
    scores: dict[str, float], families: dict[str, float]
) -> Callable[[str], tuple[float, int, float, tuple[int, int, str]]]:
    """Score first (``scores`` holds the lexical model's confident votes too, each at its
    score plus ``LEARNED_WEIGHT`` times its posterior); among tools nobody scored for, the
    user's tools, then the look-up tools of ``LOOKUP_FALLBACK``, then the siblings of a
    family that scored (git_status beside git_diff, list_archive beside extract_archive),
    then the rest in the fixed priority, then a tool a negated request ruled out."""

    def key(name: str) -> tuple[float, int, float, tuple[int, int, str]]:
        score = round(scores.get(name, 0.0), 6)
        order = priority(name)
        if score < 0:
            return (0.0, 4, 0.0, order)  # ruled out by a negated request: last of all
        if score > 0 or order[0] == 0:
            return (-score, 0, 0.0, order)
        if name in FALLBACK_RANK:
            return (0.0, 1, float(FALLBACK_RANK[name]), order)
        if _sibling_scored(name, families):
            return (0.0, 2, -families[FAMILY_OF[name]], order)
        return (0.0, 3, 0.0, order)

    return key
