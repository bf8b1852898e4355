"""A possessive noun that names a saved thing: "read my shopping list", "alışveriş listemi oku".

People name a note, a list or a plan by what it holds (the shopping list, the packing
list, the holiday plan, the recipe) and never say "file" or "document": no file or
document trigger fires, and the word itself often fires the wrong tool (*list* is the verb
of list_directory). The class reads the noun where it is used as a possession, and votes for
the look-ups that find and read a saved text (data key ``saved_things``, docs/router.md):

- in Turkish the noun must carry an ending (*listemi, listesinde, notuma, planında,
  tarifini*): the possessive of a compound (*alışveriş listesi*) or a case; the bare word
  is most often the verb's object or a request (*liste ver*), and the data's ``exceptions``
  keep the verbs and false friends out (*listele, noter, planla*);
- in English the noun must follow a possessive or a determiner with at most ``window``
  words between them (*my shopping list*, *the book club list*, *our holiday plan*), so
  *make a note* and *list the files* do not count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
    _starts: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def load(self, data: Mapping[str, Any] | None, language: str) -> None:
        """Merge a data file's ``saved_things`` section."""
        if not data:
            return
        self._starts = {}

        def words(key: str) -> list[str]:
            items = data.get(key) or []
            if isinstance(items, str):
                items = [items]
            return ["".join(normalize(str(item), language).words) for item in items]

        self.nouns = tuple(dict.fromkeys((*self.nouns, *(w for w in words("nouns") if w))))
        self.exceptions = tuple(
            dict.fromkeys((*self.exceptions, *(w for w in words("exceptions") if w)))
        )
        self.determiners = self.determiners | frozenset(words("determiners"))
        self.inflected = bool(data.get("inflected", self.inflected))
        self.window = int(data.get("window", self.window))
        for tool, weight in (data.get("tools") or {}).items():
            if not isinstance(weight, int | float) or isinstance(weight, bool) or weight <= 0:
                raise ValueError(
                    f"saved_things: tool {tool!r} needs a positive weight, got {weight!r}"
                )
            self.tools[str(tool)] = float(weight)

    def match(self, words: tuple[str, ...]) -> str:
        """The first message word that names a saved thing as a possession ("" for none)."""
        if not self.nouns or not self.tools:
            return ""
        starts = self._starts
        if not starts:  # the nouns by their first two letters, built on first use
            for noun in self.nouns:
                starts.setdefault(noun[:2], []).append(noun)
        for index, word in enumerate(words):
            for noun in starts.get(word[:2], ()):
                if not word.startswith(noun) or word.startswith(self.exceptions):
                    continue
                if self.inflected:
                    if len(word) > len(noun):
                        return word
                elif word == noun and self._owned(words, index):
                    return word
        return ""

    def _owned(self, words: tuple[str, ...], index: int) -> bool:
        """A possessive or determiner before the noun, at most ``window`` words between."""
        start = max(0, index - self.window - 1)
        return any(word in self.determiners for word in words[start:index])
