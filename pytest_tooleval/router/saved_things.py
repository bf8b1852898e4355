"""A possessive noun that names a saved thing: "read my shopping list", "alışveriş listemi oku".

People name a note, a list or a plan by what it holds and never say "file"; the word itself
often fires the wrong tool (*list* is the verb of list_directory). The class reads the noun
where it is used as a possession and votes for the look-ups that find and read a saved text
(data key ``saved_things``, docs/router.md): in Turkish the noun must carry an ending
(*listemi, planında*; ``exceptions`` keep out verbs and false friends: *listele, noter*); in
English it must follow a possessive or determiner at most ``window`` words before it (*my
shopping list*), so *make a note* and *list the files* do not count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_tooleval.router.trigger_syntax import tool_weights
from pytest_tooleval.text.normalize import normalize

DEFAULT_WINDOW = 2


@dataclass
class SavedThings:
    """One language's saved-thing nouns and the tools they vote for."""

    nouns: tuple[str, ...] = ()
    exceptions: tuple[str, ...] = ()
    determiners: frozenset[str] = frozenset()
    inflected: bool = False
    window: int = DEFAULT_WINDOW
    tools: dict[str, float] = field(default_factory=dict)

    def load(self, data: Mapping[str, Any] | None, language: str) -> None:
        """Merge a data file's ``saved_things`` section."""
        if not data:
            return

        def words(key: str) -> list[str]:
            items = data.get(key) or []
            if isinstance(items, str):
                items = [items]
            return [w for item in items if (w := "".join(normalize(str(item), language).words))]

        self.nouns = tuple(dict.fromkeys((*self.nouns, *words("nouns"))))
        self.exceptions = tuple(dict.fromkeys((*self.exceptions, *words("exceptions"))))
        self.determiners = self.determiners | frozenset(words("determiners"))
        self.inflected = bool(data.get("inflected", self.inflected))
        self.window = int(data.get("window", self.window))
        self.tools.update(tool_weights("saved_things", data))

    def match(self, words: tuple[str, ...]) -> str:
        """The first message word that names a saved thing as a possession ("" for none)."""
        if not self.tools:
            return ""
        for index, word in enumerate(words):
            for noun in self.nouns:
                if not word.startswith(noun) or word.startswith(self.exceptions):
                    continue
                if self.inflected:
                    if len(word) > len(noun):
                        return word
                # A possessive or determiner before the noun, at most ``window`` words between.
                elif word == noun and not self.determiners.isdisjoint(
                        words[max(0, index - self.window - 1):index]):
                    return word
        return ""
