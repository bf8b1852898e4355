"""The trigger syntax (docs/router.md, "Trigger syntax"): one trigger parsed into a word
pattern, a pattern matched at a word, the longest matches kept, and a trigger data file
read. At each word the longest pattern wins (``hatırlat*`` over ``hatırl*``); patterns of
equal length all fire. A stem under four letters counts only with a second cue."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from pytest_tooleval.hints import did_you_mean
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.yamlio import safe_load

# A trigger file's keys (docs/router.md) and what each holds.
SECTIONS = {"language": "text", "stop_words": "a list", "description_only_stop_words": "a list",
            **dict.fromkeys(("exceptions", "alternations", "cue_synonyms", "tools",
                             "current_info", "question_form", "how_to", "saved_things",
                             "explain"), "a mapping (name: value)")}
NOT_SOMEONE_ELSE = frozenset({"me", "us", "myself", "ourselves", "beni", "bizi"})
MIN_STEM = 3  # a Snowball stem shorter than this never matches a whole-word trigger


@dataclass(frozen=True)
class Target:
    """What a pattern votes for: a tool, or a class marker such as ``@topics``."""

    tool: str
    weight: float
    needs_cue: bool
    label: str  # the trigger as written in the data file


@dataclass
class Pattern:
    elements: tuple[tuple[str, bool], ...]  # (word, is_stem)
    exceptions: tuple[str, ...]
    targets: list[Target] = field(default_factory=list)
    stems: tuple[str, ...] = ()  # each element's Snowball stem (the ``snowball`` switch)
    text: str = ""  # the trigger as written, for computing ``stems`` on first use

    @cached_property
    def length(self) -> int:
        """Letters matched, plus one per word boundary: the longest-match key."""
        return sum(len(word) for word, _ in self.elements) + len(self.elements) - 1

    def match_at(
        self, words: tuple[str, ...], start: int, stems: tuple[str, ...] | None = None
    ) -> int:
        """The end index when the pattern matches at ``start``, else 0.

        With ``stems`` (the message words' Snowball stems) a word also matches by its stem:
        a whole-word trigger when the stems are equal (saati ~ saat), a stem trigger when
        the word's stem starts with it (kitabı → kitap ~ kitap*).
        """
        end = start + len(self.elements)
        if end > len(words):
            return 0
        for offset, (word, is_stem) in enumerate(self.elements):
            token = words[start + offset]
            stem = stems[start + offset] if stems else ""
            if is_stem:
                if not word and token in NOT_SOMEONE_ELSE:
                    return 0  # "let * know" is about someone else: not "let me know"
                if not (token.startswith(word) or (stem and stem.startswith(word))):
                    return 0
                if any(token.startswith(exc) for exc in self.exceptions):
                    return 0
            elif token != word and not (
                self.stems and len(stem) >= MIN_STEM and stem == self.stems[offset]
            ):
                return 0
        return end


@dataclass(frozen=True)
class Match:
    pattern: Pattern
    start: int
    end: int
    text: str  # the message words that matched
    typo: str = ""  # the message word a fuzzy match respelt ("" for an exact match)


def flatten(items: Any) -> list[str]:
    if items is None:
        return []
    if isinstance(items, str):
        return [items]
    if isinstance(items, Mapping):
        raise ValueError(f"trigger {items!r} is a mapping: a trigger is text; for a weight, "
                         "list it under strong, triggers or weak")
    if isinstance(items, bool | int | float):
        raise ValueError(
            f"trigger {items!r} is not text: quote words YAML reads as booleans or numbers "
            '("on", "no", "yes", "off", "1")'
        )
    out: list[str] = []
    for item in items:
        out.extend(flatten(item))
    return out


def tool_weights(section: str, data: Mapping[str, Any]) -> dict[str, float]:
    """A data file section's ``tools``: each tool's weight, which must be positive."""
    weights = {}
    for tool, weight in (data.get("tools") or {}).items():
        if not isinstance(weight, int | float) or isinstance(weight, bool) or weight <= 0:
            raise ValueError(f"{section}: tool {tool!r} needs a positive weight, got {weight!r}")
        weights[str(tool)] = float(weight)
    return weights


def trigger_key(text: str, language: str | None = None) -> str:
    return "".join(normalize(text, language).words)


def parse_trigger(
    text: str, exceptions: Mapping[str, tuple[str, ...]] = {}, language: str | None = None
) -> tuple[tuple[tuple[str, bool], ...], tuple[str, ...]]:
    """``"hava durum* -havale"`` → ((("hava", False), ("durum", True)), ("havale",))."""
    elements: list[tuple[str, bool]] = []
    excluded: list[str] = []
    for part in text.split():
        if part.startswith("-") and len(part) > 1:
            excluded.append(trigger_key(part[1:], language))
            continue
        if part == "*":
            if elements:  # any one word, inside a phrase: "let * know"
                elements.append(("", True))
            continue
        is_stem = part.endswith("*")
        pieces = normalize(part.rstrip("*"), language).words
        for index, piece in enumerate(pieces):
            elements.append((piece, is_stem and index == len(pieces) - 1))
    while elements and elements[-1] == ("", True):
        elements.pop()  # a phrase ends with a word, not with the wildcard
    for word, is_stem in elements:
        if is_stem and word:
            excluded.extend(exceptions.get(word, ()))
    return tuple(elements), tuple(dict.fromkeys(excluded))


def longest_matches(candidates: list[Match], size: int) -> list[Match]:
    """Keep a match unless a strictly longer one covers any of its words."""
    covered = [0] * size
    accepted: list[Match] = []
    for match in sorted(candidates, key=lambda m: (-m.pattern.length, m.start)):
        length = match.pattern.length
        if any(covered[i] > length for i in range(match.start, match.end)):
            continue
        accepted.append(match)
        for i in range(match.start, match.end):
            covered[i] = max(covered[i], length)
    return accepted


def load_trigger_file(path: Path) -> tuple[str, dict[str, Any]]:
    """Read a data file; its language is the ``language`` key or the file's stem."""
    try:
        data = safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        why = getattr(exc, "problem", None) or getattr(exc, "strerror", None) or exc
        raise ValueError(f"not readable as a UTF-8 YAML file{where}: {why}") from None
    if not isinstance(data, dict):
        raise ValueError("a trigger file holds one mapping (language, tools, …)")
    for key, value in data.items():
        kind = SECTIONS.get(key)
        if kind is None:
            raise ValueError(f"unknown key {key!r}{did_you_mean(str(key), SECTIONS)} "
                             f"(known keys: {', '.join(SECTIONS)})")
        wanted = {"text": str, "a list": list | str}.get(kind, dict)
        if value is not None and not isinstance(value, wanted):
            raise ValueError(f"{key} holds {kind}, got {value!r}")
    language = str(data.get("language") or path.stem)
    if not re.match(r"^[a-z]{2,3}\Z", language):
        raise ValueError(f"language {language!r} is no language tag such as 'en' or 'tr': "
                         "write `language: tr`, or name the file tr.yaml")
    return language, data
