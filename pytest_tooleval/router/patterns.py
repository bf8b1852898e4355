"""One language's compiled triggers (``TriggerSet``): the sections of its trigger data
files indexed by first word and stem, and the candidates a message's words match, with
the dialect variants, the Snowball stems and the typo tolerance (router/fuzzy.py). The
syntax of one trigger and the longest-match rule: router/trigger_syntax.py."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import cached_property
from typing import Any

from pytest_tooleval.router.explain import Explain
from pytest_tooleval.router.fuzzy import (
    FUZZY_MIN_TRIGGER,
    FUZZY_MIN_WORD,
    FUZZY_SAME_START,
    FuzzyIndex,
    respell,
)
from pytest_tooleval.router.saved_things import SavedThings
from pytest_tooleval.router.trigger_syntax import (
    MIN_STEM,
    Match,
    Pattern,
    Target,
    flatten,
    parse_trigger,
    trigger_key,
)
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.text.stem import has_snowball, snowball_stem

SHORT_STEM = 4  # stems shorter than this need a second cue
WEIGHTS = {"strong": 3.0, "triggers": 2.0, "weak": 1.0}
CLASS_KEYS = ("topics", "weak_topics", "time", "currency", "how_much", "exchange")
FORM_KEYS = ("personal", "question")  # the question-form class (section question_form)
MIN_ENDING_WORD = 6  # a word must be at least this long for an ending to count
SYNONYM_PREFIX = "@syn:"  # a synonym class: the phrase also counts as this cue word
REGEX_SIGNS = frozenset("|()[]\\^")  # a trigger is no regular expression
MAX_PHRASE = 4  # the longest phrase a respelt word is looked up in


class TriggerSet:
    """The compiled triggers of one language: patterns indexed by their first word."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.exceptions: dict[str, tuple[str, ...]] = {}
        self.alternations: dict[str, str] = {}
        self.stop_words: set[str] = set()
        self.description_stop_words: set[str] = set()
        self.endings: dict[str, tuple[str, ...]] = {}
        self.how_to_words: set[str] = set()
        self.saved = SavedThings()  # "alışveriş listemi oku": a saved thing by its name
        self.explain = Explain()  # "how does … work": an explanation question around a term
        self._patterns: dict[tuple[Any, ...], Pattern] = {}
        self._exact: dict[str, list[Pattern]] = {}
        self._stem: dict[str, list[Pattern]] = {}
        self._stem_sizes: tuple[int, ...] = ()

    # -- building -------------------------------------------------------------------
    def load(self, data: Mapping[str, Any]) -> None:
        """Merge one data file's content (see docs/router.md for the format)."""

        def norm(text: str) -> str:
            return trigger_key(text, self.language)

        def add_endings(key: str, items: Any) -> None:
            found = (*self.endings.get(key, ()), *(norm(e) for e in flatten(items)))
            self.endings[key] = tuple(dict.fromkeys(e for e in found if e))

        for stem, excs in (data.get("exceptions") or {}).items():
            merged = (*self.exceptions.get(norm(stem), ()), *(norm(e) for e in flatten(excs)))
            self.exceptions[norm(stem)] = tuple(dict.fromkeys(merged))
        for source, target in (data.get("alternations") or {}).items():
            self.alternations[norm(source)] = norm(target)
        self.stop_words.update(norm(w) for w in flatten(data.get("stop_words")))
        # Noise in a description ("Returns the …") but content in a tool's name
        # (get_return_policy): never a description cue, still a name cue.
        self.description_stop_words.update(
            norm(w) for w in flatten(data.get("description_only_stop_words"))
        )
        for word, phrases in (data.get("cue_synonyms") or {}).items():
            for text in flatten(phrases):
                self.add(f"{SYNONYM_PREFIX}{norm(str(word))}", str(text), 1.0)
        for tool, spec in (data.get("tools") or {}).items():
            groups = spec if isinstance(spec, dict) else {"triggers": spec}
            if not any(groups.values()):
                raise ValueError(f"tool {tool!r} has no triggers: list them, or remove it")
            for level, items in groups.items():
                if level == "endings":
                    # Word endings as a weak vote: Turkish past-tense recollections
                    # ("gitmiştik", "neresiydi") name no memory or calendar word.
                    add_endings(f"tool:{tool}", items)
                    continue
                if level not in WEIGHTS:
                    raise ValueError(
                        f"tool {tool!r}: unknown key {level!r} "
                        "(use strong, triggers, weak or endings)"
                    )
                for text in flatten(items):
                    self.add(str(tool), str(text), WEIGHTS[level])
        current = data.get("current_info") or {}
        form = data.get("question_form") or {}
        for section, keys in ((current, CLASS_KEYS), (form, FORM_KEYS)):
            for key in keys:
                for text in flatten(section.get(key)):
                    self.add(f"@{key}", str(text), 1.0)
        # Word endings, not stems (Turkish reported past -mış: "kapanmış").
        add_endings("weak_topic_endings", current.get("weak_topic_endings"))
        # A how-to question: a question word and a passive form ("nasıl pişirilir").
        how_to = data.get("how_to") or {}
        self.how_to_words.update(norm(w) for w in flatten(how_to.get("words")))
        add_endings("how_to", how_to.get("endings"))
        self.saved.load(data.get("saved_things"), self.language)
        self.explain.load(data.get("explain"), self.language)

    def _element_stems(self, text: str, size: int) -> tuple[str, ...]:
        if not has_snowball(self.language):
            return ()
        lower = [
            word
            for part in text.split()
            if not (part.startswith("-") and len(part) > 1)
            for word in normalize(part.rstrip("*"), self.language).lower_words
        ]
        if len(lower) != size:
            return ()
        return tuple(snowball_stem(word, self.language) for word in lower)

    @cached_property
    def _by_stem(self) -> dict[str, list[Pattern]]:
        """Whole-word first elements by Snowball stem, every pattern given its ``stems`` on the
        way: built the first time stems are matched (the light stemmer never pays for them)."""
        by_stem: dict[str, list[Pattern]] = {}
        for pattern in self._patterns.values():
            pattern.stems = self._element_stems(pattern.text, len(pattern.elements))
            first_is_stem = pattern.elements[0][1]
            if pattern.stems and not first_is_stem and len(pattern.stems[0]) >= MIN_STEM:
                by_stem.setdefault(pattern.stems[0], []).append(pattern)
        return by_stem

    def add(self, tool: str, text: str, weight: float) -> None:
        elements, exceptions = parse_trigger(text, self.exceptions, self.language)
        if not elements or REGEX_SIGNS & set(text):
            raise ValueError(
                f"{tool}: trigger {text!r} " + ("has no word to match" if not elements else
                "looks like a regular expression") + ": a trigger is words as users type "
                "them, `stok*` for a word start, one trigger per alternative")
        for variant in self._variants(elements):
            short = len(variant) == 1 and variant[0][1] and len(variant[0][0]) < SHORT_STEM
            phrase_bonus = 0.5 * (len(variant) - 1)
            target = Target(tool, weight + phrase_bonus, short, text)
            key = (variant, exceptions)
            pattern = self._patterns.get(key)
            if pattern is None:
                pattern = self._patterns[key] = Pattern(variant, exceptions, text=text)
                first, is_stem = variant[0]
                (self._stem if is_stem else self._exact).setdefault(first, []).append(pattern)
                for lazy in ("_by_stem", "_fuzzy_index", "_elements"):
                    self.__dict__.pop(lazy, None)  # built again on first use
                if is_stem and len(first) not in self._stem_sizes:
                    self._stem_sizes = tuple(sorted({*self._stem_sizes, len(first)}))
            if all(t.tool != tool for t in pattern.targets):  # once per tool, as written first
                pattern.targets.append(target)

    def _variants(
        self, elements: tuple[tuple[str, bool], ...]
    ) -> Iterable[tuple[tuple[str, bool], ...]]:
        """The pattern plus its consonant-alternation forms (hesap* → hesab*)."""
        yield elements
        for index, (word, is_stem) in enumerate(elements):
            if not is_stem:
                continue
            for source, target in self.alternations.items():
                if word.endswith(source):
                    changed = (word[: len(word) - len(source)] + target, True)
                    yield (*elements[:index], changed, *elements[index + 1 :])

    # -- matching -------------------------------------------------------------------
    def tool_ending_matches(self, words: tuple[str, ...]) -> dict[str, str]:
        """Tool → the first message word ending with one of the tool's endings."""
        hits = {key[5:]: self.ending_matches(key, words)
                for key in self.endings if key.startswith("tool:")}
        return {tool: found[0] for tool, found in hits.items() if found}

    def how_to_matches(self, words: tuple[str, ...]) -> list[str]:
        """The passive forms of a how-to question ("nasıl pişirilir"): none without one of
        the section's question words."""
        if not self.how_to_words.intersection(words):
            return []
        return self.ending_matches("how_to", words)

    def ending_matches(self, key: str, words: tuple[str, ...]) -> list[str]:
        """Words of the message that end with one of the class's endings."""
        endings = self.endings.get(key, ())
        return [w for w in words if len(w) >= MIN_ENDING_WORD and w.endswith(endings)]

    def candidates(
        self,
        words: tuple[str, ...],
        stems: tuple[str, ...] | None = None,
        variants: tuple[str, ...] | None = None,
        fuzzy: bool = False,
        known: frozenset[str] | set[str] = frozenset(),
    ) -> list[Match]:
        """Every pattern matching somewhere; ``stems`` (aligned with ``words``) adds the
        matches by Snowball stem; ``variants`` (aligned, "" for none) are other spellings
        of a word, tried where the word itself starts no match (Anatolian gadar → kadar);
        ``fuzzy`` adds, for a long word still in no match and not in ``known``, the trigger
        one edit away."""
        found = self._candidates(words, stems)
        covered = {i for match in found for i in range(match.start, match.end)}
        typos: set[int] = set()
        if fuzzy:
            respelt = self.fuzzy_variants(words, covered, known)
            base = variants or ("",) * len(words)
            typos = {i for i, (v, r) in enumerate(zip(base, respelt, strict=True)) if r and not v}
            if typos:
                variants = tuple(v or r for v, r in zip(base, respelt, strict=True))
        if variants and any(variants):
            for index, variant in enumerate(variants):
                if not variant or index in covered or not self._in_some_pattern(variant):
                    continue
                respelt = (*words[:index], variant, *words[index + 1 :])
                starts = range(max(0, index - MAX_PHRASE + 1), index + 1)
                found += [
                    replace(m, typo=words[index]) if index in typos else m
                    for m in self._candidates(respelt, None, starts)
                    if m.start <= index < m.end
                ]
        return found

    def _in_some_pattern(self, word: str) -> bool:
        """Whether ``word`` can be an element of some pattern: a whole-word element, or one
        starting with a stem element (a cheap test before a respelt word is matched)."""
        whole_words, stems, sizes = self._elements
        if word in whole_words:
            return True
        return any(word[:size] in stems for size in sizes if size <= len(word))

    @cached_property
    def _elements(self) -> tuple[frozenset[str], frozenset[str], tuple[int, ...]]:
        """Every pattern's whole-word and stem elements, and the stem elements' lengths
        (built on first use)."""
        whole = frozenset(w for elements, _ in self._patterns for w, stem in elements if not stem)
        stem_words = frozenset(
            w for elements, _ in self._patterns for w, stem in elements if stem and w)
        return whole, stem_words, tuple(sorted({len(w) for w in stem_words}))

    @cached_property
    def _fuzzy_index(self) -> FuzzyIndex:
        """Trigger words and stems of FUZZY_MIN_TRIGGER letters or more for typo tolerance, by
        their first letters and their length (stems longest first), built on first use."""
        words: dict[str, dict[int, set[str]]] = {}
        stems: dict[str, dict[int, set[str]]] = {}
        for elements, _ in self._patterns:
            for word, is_stem in elements:
                if len(word) >= FUZZY_MIN_TRIGGER:
                    table = (stems if is_stem else words).setdefault(word[:FUZZY_SAME_START], {})
                    table.setdefault(len(word), set()).add(word)

        def frozen(table: dict[str, dict[int, set[str]]]) -> dict[str, dict[int, list[str]]]:
            return {
                start: {size: sorted(found) for size, found in sorted(by_size.items(),
                                                                       reverse=True)}
                for start, by_size in table.items()
            }

        return frozen(words), frozen(stems)

    def fuzzy_variants(
        self, words: tuple[str, ...], skip: set[int], known: frozenset[str] | set[str]
    ) -> tuple[str, ...]:
        """Aligned with ``words``: the respelling of a long word one edit from a trigger word
        or stem ("" for none, and for the indices in ``skip``). A whole trigger word is
        compared with the whole word; a stem with the word's start (one letter shorter, as
        long, or one longer), and the rest of the word is kept (faturmı → fatura + mı).
        ``known``: real words (the corpus's vocabulary), never respelt, nor is a word
        starting with a false friend of ``exceptions`` ("hatıra" is no "hatırla")."""
        index = self._fuzzy_index
        friends = tuple(word for words in self.exceptions.values() for word in words)
        return tuple(
            respell(word, *index)
            if position not in skip and len(word) >= FUZZY_MIN_WORD and word not in known
            and not word.startswith(friends)
            else ""
            for position, word in enumerate(words)
        )

    def _prefixed(self, word: str) -> list[Pattern]:
        """The stem patterns ``word`` starts with, shortest stems first."""
        return [pattern for size in self._stem_sizes if size <= len(word)
                for pattern in self._stem.get(word[:size], ())]

    def _candidates(
        self,
        words: tuple[str, ...],
        stems: tuple[str, ...] | None,
        starts: range | None = None,
    ) -> list[Match]:
        by_stem = self._by_stem if stems else {}  # gives the patterns their stems
        found: list[Match] = []
        for start, token in enumerate(words):
            if starts is not None and start not in starts:
                continue
            patterns = [*self._exact.get(token, ()), *self._prefixed(token)]
            if stems:
                patterns += [*by_stem.get(stems[start], ()), *self._prefixed(stems[start])]
                patterns = list({id(p): p for p in patterns}.values())
            for pattern in patterns:
                end = pattern.match_at(words, start, stems)
                if end:
                    found.append(Match(pattern, start, end, " ".join(words[start:end])))
        return found
