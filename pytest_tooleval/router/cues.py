"""Cues derived from a tool's name and description, so any tool is routable.

A user's ``gh_search_issues`` ("Search the repository's issues by label") needs no
hand-written triggers: its name parts and the description's content words become cues.
A cue shared by several tools of the catalogue weighs less (divided by the number of
tools carrying it), so "file" on ten file tools is a weak vote and "issue" a strong one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.tools.base import ToolSpec

NAME_WEIGHT = 1.5
DESCRIPTION_WEIGHT = 0.5
MAX_DESCRIPTION_WORDS = 40
CUE_PREFIX = 6  # a language-blind stem: the first six letters (durumunu → durumu)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SUFFIXES = ("ies", "ing", "ed", "es", "s")


def light_stem(word: str) -> str:
    """Strip one English plural or verb ending, keeping at least four letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def cue_of(word: str) -> str:
    return light_stem(word)[:CUE_PREFIX]


def name_parts(name: str) -> list[str]:
    """``gh_searchIssues`` → ["gh", "search", "issues"]."""
    return list(normalize(_CAMEL.sub(" ", name).replace("_", " ")).words)


@dataclass(frozen=True)
class Cue:
    tool: str
    weight: float
    label: str  # "name:issue" or "description:label"


class CueIndex:
    """Cues of one catalogue, looked up word by word like stems."""

    def __init__(
        self,
        catalogue: Iterable[ToolSpec],
        stop_words: set[str],
        false_friends: tuple[str, ...] = (),
        description_stop_words: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        # Words starting with a known false friend (noter, kiraz, havale) get no cue votes:
        # the description cue "note" must not fire on "noter".
        self.false_friends = false_friends
        per_tool: dict[str, dict[str, tuple[float, str]]] = {}
        for spec in catalogue:
            cues: dict[str, tuple[float, str]] = {}
            description = [
                w
                for w in normalize(spec.description or "").words
                if len(w) >= 3
                and w not in stop_words
                and w not in description_stop_words
                and not w.isdigit()
            ][:MAX_DESCRIPTION_WORDS]
            for word in description:
                cues.setdefault(cue_of(word), (DESCRIPTION_WEIGHT, f"description:{word}"))
            for part in name_parts(spec.name):
                if len(part) >= 3 and part not in stop_words and not part.isdigit():
                    cues[cue_of(part)] = (NAME_WEIGHT, f"name:{part}")
            per_tool[spec.name] = cues
        frequency: dict[str, int] = defaultdict(int)
        for cues in per_tool.values():
            for cue in cues:
                frequency[cue] += 1
        self._exact: dict[str, list[Cue]] = defaultdict(list)
        self._stem: dict[str, list[Cue]] = defaultdict(list)
        for tool, cues in per_tool.items():
            for cue, (weight, label) in cues.items():
                entry = Cue(tool, weight / frequency[cue], label)
                (self._stem if len(cue) >= 4 else self._exact)[cue].append(entry)

    def match(self, words: Iterable[str]) -> list[tuple[Cue, str]]:
        """Each (cue, message word) that fired; one vote per cue per tool."""
        seen: set[tuple[str, str]] = set()
        found: list[tuple[Cue, str]] = []
        for word in words:
            if self.false_friends and word.startswith(self.false_friends):
                continue
            hits = list(self._exact.get(word, ()))
            for size in range(4, min(len(word), CUE_PREFIX) + 1):
                hits.extend(self._stem.get(word[:size], ()))
            for cue in hits:
                if (cue.tool, cue.label) not in seen:
                    seen.add((cue.tool, cue.label))
                    found.append((cue, word))
        return found
