"""Cues derived from a tool's name and description, so any tool is routable.

A user's ``gh_search_issues`` ("Search the repository's issues by label") needs no
hand-written triggers: its name parts and the description's content words become cues.
A cue shared by several tools of the catalogue weighs less (divided by the number of
tools carrying it), so "file" on ten file tools is a weak vote and "issue" a strong one.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.text.stem import light_stem, snowball_stem
from pytest_tooleval.tools.base import ToolSpec

NAME_WEIGHT = 1.5
DESCRIPTION_WEIGHT = 0.5
MAX_DESCRIPTION_WORDS = 40
CUE_PREFIX = 6  # a language-blind stem: the first six letters (durumunu → durumu)
MIN_SNOWBALL_CUE = 3
# Languages whose stems a cue carries: tool descriptions are mostly English, user tools
# are sometimes described in Turkish (kargo_takip).
CUE_LANGUAGES = ("en", "tr")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _lower_parts(text: str) -> list[tuple[str, str]]:
    """(folded word, lowercase word with its letters) pairs of a name or description."""
    normalized = normalize(_CAMEL.sub(" ", text).replace("_", " "))
    lower = normalized.lower_words or normalized.words
    return list(zip(normalized.words, lower, strict=True))


def snowball_keys(lower_word: str) -> set[str]:
    keys = {snowball_stem(lower_word, language) for language in CUE_LANGUAGES}
    return {key for key in keys if len(key) >= MIN_SNOWBALL_CUE}


@dataclass(frozen=True)
class Cue:
    tool: str
    weight: float
    label: str  # "name:issue" or "description:label"
    word: str = ""  # the name or description word it comes from, folded ("issue")


class CueIndex:
    """Cues of one catalogue, looked up word by word like stems."""

    def __init__(
        self,
        catalogue: Iterable[ToolSpec],
        stop_words: set[str],
        false_friends: tuple[str, ...] = (),
        description_stop_words: frozenset[str] | set[str] = frozenset(),
        stemmer: str = "light",
    ) -> None:
        # Words starting with a known false friend (noter, kiraz, havale) get no cue votes
        # but from a tool's own word of that kind: the description cue "note" must not fire
        # on "noter", a user's search_articles still fires on "article".
        self.false_friends = false_friends
        self.stemmer = stemmer
        per_tool = {spec.name: self._tool_cues(spec, stop_words, description_stop_words)
                    for spec in catalogue}
        frequency = Counter(cue for cues in per_tool.values() for cue in cues)
        self._exact: dict[str, list[Cue]] = defaultdict(list)
        self._stem: dict[str, list[Cue]] = defaultdict(list)
        for tool, cues in per_tool.items():
            for cue, (weight, label, word) in cues.items():
                entry = Cue(tool, weight / frequency[cue], label, word)
                by_prefix = len(cue) >= 4 and stemmer != "snowball"
                (self._stem if by_prefix else self._exact)[cue].append(entry)

    def _tool_cues(
        self, spec: ToolSpec, stop_words: set[str],
        description_stop_words: frozenset[str] | set[str],
    ) -> dict[str, tuple[float, str, str]]:
        """One tool's cues: key → (weight before sharing, label, word)."""
        cues: dict[str, tuple[float, str, str]] = {}
        description = [
            (w, lw)
            for w, lw in _lower_parts(spec.description or "")
            if len(w) >= 3
            and w not in stop_words
            and w not in description_stop_words
            and not w.isdigit()
        ][:MAX_DESCRIPTION_WORDS]
        for word, lower in description:
            for key in self._keys(word, lower):
                cues.setdefault(key, (DESCRIPTION_WEIGHT, f"description:{word}", word))
        for part, lower in _lower_parts(spec.name):
            if len(part) >= 3 and part not in stop_words and not part.isdigit():
                for key in self._keys(part, lower):
                    cues[key] = (NAME_WEIGHT, f"name:{part}", part)
        return cues

    def _keys(self, word: str, lower: str) -> set[str]:
        if self.stemmer == "snowball":
            return snowball_keys(lower)
        return {light_stem(word)[:CUE_PREFIX]}

    def match(
        self, words: tuple[str, ...], lower_words: tuple[str, ...] = ()
    ) -> list[tuple[Cue, str]]:
        """Each (cue, message word) that fired; one vote per cue per tool.

        ``light``: a word fires a cue it starts with (four to six letters). ``snowball``:
        a word fires a cue equal to one of its stems (``lower_words``: the words with
        their letters, aligned with ``words``, as ``Normalized.lower_words`` is; empty:
        the words themselves).
        """
        seen: set[tuple[str, str]] = set()
        found: list[tuple[Cue, str]] = []
        for word, lower_word in zip(words, lower_words or words, strict=True):
            friends = (tuple(f for f in self.false_friends if word.startswith(f))
                       if self.false_friends and word.startswith(self.false_friends) else ())
            if self.stemmer == "snowball":
                hits = [c for key in sorted(snowball_keys(lower_word))
                        for c in self._exact.get(key, ())]
            else:
                hits = list(self._exact.get(word, ()))
                for size in range(4, min(len(word), CUE_PREFIX) + 1):
                    hits.extend(self._stem.get(word[:size], ()))
            for cue in hits:
                if friends and not cue.word.startswith(friends):
                    continue  # a shorter cue inside a false friend ("note" in "noter")
                if (cue.tool, cue.label) not in seen:
                    seen.add((cue.tool, cue.label))
                    found.append((cue, word))
        return found
