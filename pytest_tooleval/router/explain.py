"""An explanation question around a term: "how does Ramer–Douglas–Peucker work", "what does
WAL mode in sqlite actually do".

The term is what no trigger knows; the frame around it is known: an opening phrase and a
closing word with one to ``window`` words between them, none of them the user's own (*my,
our, i, we*: "what does my lease say … mean" asks the user's documents). A match is a weak
vote for ``web_search`` (data key ``explain``, docs/router.md). Turkish puts the frame after
the term and needs no window: plain weak triggers in ``tr.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_tooleval.router.trigger_syntax import tool_weights
from pytest_tooleval.text.normalize import normalize

DEFAULT_WINDOW = 6


@dataclass
class Explain:
    """One language's explanation frames and the tools they vote for."""

    frames: list[tuple[tuple[str, ...], frozenset[str]]] = field(default_factory=list)
    own: frozenset[str] = frozenset()  # words of the user's own things: no term
    window: int = DEFAULT_WINDOW
    tools: dict[str, float] = field(default_factory=dict)

    def load(self, data: Mapping[str, Any] | None, language: str) -> None:
        """Merge a data file's ``explain`` section: ``frames`` (``["how does", "work"]``,
        the closing part may list several words), ``own``, ``window``, ``tools``."""
        if not data:
            return

        def words(text: object) -> tuple[str, ...]:
            return normalize(str(text), language).words

        for frame in data.get("frames") or []:
            if not isinstance(frame, list | tuple) or len(frame) != 2:
                raise ValueError(f"explain: a frame is [opening, closing], got {frame!r}")
            opening, closing = frame
            closers = [closing] if isinstance(closing, str) else list(closing)
            ends = frozenset(w for c in closers for w in words(c))
            if not words(opening) or not ends:
                raise ValueError(f"explain: frame {frame!r} has an empty part")
            self.frames.append((words(opening), ends))
        self.own = self.own | frozenset(w for item in data.get("own") or [] for w in words(item))
        self.window = int(data.get("window", self.window))
        self.tools.update(tool_weights("explain", data))

    def match(self, words: tuple[str, ...]) -> str:
        """The frame found around a term, as "opening … closing" ("" for none)."""
        if not self.tools:
            return ""
        for opening, ends in self.frames:
            size = len(opening)
            for start in range(len(words) - size):
                if words[start] != opening[0] or words[start:start + size] != opening:
                    continue
                gap_start = start + size
                for end in range(gap_start + 1, min(len(words), gap_start + self.window + 1)):
                    if words[end - 1] in self.own:
                        break
                    if words[end] in ends:
                        return f"{' '.join(opening)} … {words[end]}"
        return ""
