"""Co-occurrence triggers: words that name an operation only together, anywhere in the
message (data key ``together`` under a tool, docs/router.md "How it works" 15).

A zip with photos *put into* it is an archive to make (*resimleri bi zipe koy*, *okul
fotoğraflarını tek bir zip dosyasında toplar mısınız*, *stick the scans in a zip*), but
neither word says so alone: *zip* is on all three archive tools and *koy*, *topla*, *stick*
mean many things. Phrases cannot say it either: the words stand apart, in any order. A rule
is written ``"zip*|arşiv* & koy*|topla*"``: parts joined by ``&`` must all match, on
different words; a part is one or more alternatives joined by ``|``, each a trigger as in
the trigger syntax (a stem, a whole word, a phrase, ``-exception``). A word that matches no
alternative may match through its dialect variant (Anatolian *goy* → koy).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Elements = tuple[tuple[str, bool], ...]
Parser = Callable[[str], tuple[Elements, tuple[str, ...]]]


@dataclass(frozen=True)
class Alternative:
    elements: Elements
    exceptions: tuple[str, ...]

    def spans(self, words: Sequence[str], variants: Sequence[str]) -> list[range]:
        """Where the alternative matches (each word, or its variant, in turn)."""
        size = len(self.elements)
        found = []
        for start in range(len(words) - size + 1):
            if all(
                self._word(words[start + i], word, is_stem)
                or (variants and self._word(variants[start + i], word, is_stem))
                for i, (word, is_stem) in enumerate(self.elements)
            ):
                found.append(range(start, start + size))
        return found

    def _word(self, token: str, word: str, is_stem: bool) -> bool:
        if not token:
            return False
        if not is_stem:
            return token == word
        return token.startswith(word) and not token.startswith(self.exceptions or ("\0",))


@dataclass(frozen=True)
class Together:
    """One rule: every part matches, on words no other part used."""

    tool: str
    weight: float
    label: str  # the rule as written
    parts: tuple[tuple[Alternative, ...], ...]
    # Each part's alternatives' first words: a message word (or variant) must start with one
    # of them, a cheap test that rejects almost every rule before spans are looked for.
    heads: tuple[tuple[str, ...], ...] = ()
    # The same test as one search per part in the words joined by spaces: a head at the
    # start of the text or after a space.
    head_patterns: tuple[re.Pattern[str], ...] = ()

    def matches(
        self, words: Sequence[str], variants: Sequence[str] = (), joined: str | None = None
    ) -> bool:
        """``joined``: the words joined by single spaces, when the caller has it."""
        text = " ".join(words) if joined is None else joined
        others = None
        for pattern in self.head_patterns:
            if pattern.search(text) is None:
                if not variants:
                    return False
                if others is None:
                    others = " ".join(v for v in variants if v)
                if pattern.search(others) is None:
                    return False
        used: set[int] = set()
        for part in self.parts:
            span = next(
                (s for alt in part for s in alt.spans(words, variants) if used.isdisjoint(s)),
                None,
            )
            if span is None:
                return False
            used.update(span)
        return True


def parse_together(tool: str, text: str, weight: float, parse: Parser) -> Together:
    """``"zip*|arşiv* & koy*"`` → a rule; ``parse`` is the trigger parser of the language."""
    parts = []
    for part in text.split("&"):
        alternatives = []
        for alt in part.split("|"):
            elements, exceptions = parse(alt.strip())
            if elements:
                alternatives.append(Alternative(elements, exceptions))
        if not alternatives:
            raise ValueError(f"tool {tool!r}: together rule {text!r} has an empty part")
        parts.append(tuple(alternatives))
    if len(parts) < 2:
        raise ValueError(f"tool {tool!r}: together rule {text!r} needs two parts joined by &")
    heads = tuple(tuple(dict.fromkeys(alt.elements[0][0] for alt in part)) for part in parts)
    patterns = tuple(re.compile("(?<![^ ])(?:" + "|".join(map(re.escape, h)) + ")") for h in heads)
    return Together(tool, weight, text, tuple(parts), heads, patterns)


def _selectivity(heads: tuple[str, ...]) -> tuple[int, int]:
    """Longer shortest first word, then fewer alternatives: the rarer part."""
    return min(map(len, heads)), -len(heads)


def gate(rules: Sequence[Together]) -> re.Pattern[str] | None:
    """One search that every rule's match needs: for each rule its most selective part's
    heads (the part whose shortest first word is longest: *koy* rather than *at*), all in
    one alternation. A message it finds nothing in matches no rule."""
    heads: set[str] = set()
    for rule in rules:
        rarest: tuple[str, ...] = max(rule.heads, key=_selectivity)
        heads.update(rarest)
    if not heads:
        return None
    return re.compile("(?<![^ ])(?:" + "|".join(map(re.escape, sorted(heads))) + ")")

