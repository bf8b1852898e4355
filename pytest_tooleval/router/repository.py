"""The repository frame: a message about the user's code repository lifts the git tools.

Turkish git requests are often worded as *saving* the work (``kestrelde işim kayıtta mı``,
``kayda geçiriver``), where a short ``yaz*`` or ``kaydet*`` trigger of write_file or
memory_save would win. The repository named (its name as the fixture world has it,
``repo``/``repository``/``reposu``, ``codebase``) frames the message: every git tool is
lifted a little, and a saving or committing verb inside that frame lifts git_status and
git_commit as much as a real trigger would. Without the repository named nothing fires, so
"save this to notes.txt" keeps its file tools.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from pytest_tooleval.world.api import REPO_DIR

#: The repository as the world names it (``Projects/kestrel`` → ``kestrel``).
REPO_NAME = PurePosixPath(REPO_DIR).name.lower()
GIT_TOOLS = ("git_status", "git_log", "git_diff", "git_show", "git_branches", "git_commit")
SAVE_TOOLS = ("git_status", "git_commit")
FRAME_WEIGHT = 0.5  # each git tool, when the repository is named (below a real trigger)
SAVE_WEIGHT = 2.0  # git_status and git_commit, a saving verb inside the frame

# The words are ASCII-folded (text.normalize): "kayıtta" is "kayitta".
_REPO_WORD = re.compile(
    r"repo(s|sitory|sitories|su|sun|sunda|sundaki|da|daki|ya|nun|yu|m|mda|muz|muzda)?"
    r"|codebase|codebases"
)
# The name with a Turkish case ending glued on ("kestrelde", "kestreldeki", "kestrelin").
_NAME_ENDINGS = ("", "de", "da", "deki", "daki", "e", "a", "i", "in", "le", "la", "den", "dan")
_SAVE = {
    "tr": re.compile(
        r"(kaydet|kayded|gaydet|gayded|kaydol|kayit|kayda|kaydi|sakla|kalici|islen|isle[mn]"
        r"|commit|girme)\w*"
    ),
    "en": re.compile(r"(sav(e|ed|ing)|commit\w*|stored|saved|checked|pushed|keep|kept)$"),
}


def repository_word(words: tuple[str, ...]) -> str:
    """The first word naming the repository ("" for none)."""
    name = REPO_NAME
    for word in words:
        if _REPO_WORD.fullmatch(word):
            return word
        if name and word.startswith(name) and word[len(name):] in _NAME_ENDINGS:
            return word
    return ""


def _name_as_place(raw: str) -> bool:
    """The name only inside a path or a file name ("Projects/kestrel",
    "kestrel-0.4.0-checksums.txt"): a destination or a file, not the repository talked of."""
    # Matched in ``raw`` itself: ``raw.lower()`` can be longer ("İ" lowers to two
    # characters), and its positions would then be read at the wrong places of ``raw``.
    found = list(re.finditer(re.escape(REPO_NAME), raw, re.IGNORECASE)) if REPO_NAME else []
    return bool(found) and all(
        raw[m.start() - 1: m.start()] in ("/", "-", "_", ".")
        or raw[m.end(): m.end() + 1] in ("/", "-", "_")
        for m in found
    )


def repository_frame(
    words: tuple[str, ...], language: str, names: set[str], raw: str = ""
) -> list[tuple[str, float, str]]:
    """(tool, weight, reason) lifts for the git tools when the repository is named."""
    where = repository_word(words)
    if where and not _REPO_WORD.fullmatch(where) and _name_as_place(raw):
        where = ""
    if not where:
        return []
    lifts = [(tool, FRAME_WEIGHT, f"repository frame ← {where!r}")
             for tool in GIT_TOOLS if tool in names]
    pattern = _SAVE.get(language)
    verb = next((w for w in words if pattern.match(w)), "") if pattern else ""
    if verb:
        lifts += [(tool, SAVE_WEIGHT, f"saving in the repository ← {where!r} + {verb!r}")
                  for tool in SAVE_TOOLS if tool in names]
    return lifts
