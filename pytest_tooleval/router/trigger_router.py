"""The trigger router: nine tools per message from data-file triggers, cues and classes.

Scoring, per tool, summed:
- triggers of the case's language (strong 3, normal 2, weak 1; +0.5 per extra phrase
  word), longest match per word; the other languages' triggers at ``cross_language_weight``
  (Turkish users type English tech words, and English text meets Turkish names);
- cues from names and descriptions (name 1.5, description 0.5, divided by how many tools
  share the cue);
- cue synonyms: a phrase of a synonym class ("send back") also counts as its cue word
  ("return"), so a user tool is reached by the words users type, not only its own;
- the current-information class → ``web_search`` (topics, time words, and in Turkish the
  reported-past ending -mış: "kapanmış", "grev varmış"); the "ne kadar"/"kaç"/"how much"
  rules → ``calculator`` (numbers or an operator) and/or ``web_search`` (a currency or
  price word); a web address without a scheme → ``web_fetch``; a release tag (v0.4.0) →
  the git tools.
Ranking: score, then the fixed priority of ``catalogue.priority``; places nobody scored
for go first to the tools the learned lexical cue (``router/lexical.py``) is confident of,
then to the broad look-up tools (``LOOKUP_FALLBACK``). Exactly k tools.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from pytest_tooleval.router.base import Router, Routing
from pytest_tooleval.router.catalogue import priority
from pytest_tooleval.router.companions import KEEP_PLACE, with_companions
from pytest_tooleval.router.companions import WHY as COMPANION_WHY
from pytest_tooleval.router.courtesy import is_courtesy
from pytest_tooleval.router.cues import CueIndex
from pytest_tooleval.router.lexical import LexicalModel, default_model
from pytest_tooleval.router.patterns import TriggerSet, load_trigger_file, longest_matches
from pytest_tooleval.router.repository import repository_frame
from pytest_tooleval.text.dialect import voiceless
from pytest_tooleval.text.normalize import Normalized, normalize
from pytest_tooleval.text.stem import DEFAULT_STEMMER as DEFAULT_STEMMER
from pytest_tooleval.text.stem import check_stemmer, has_snowball, snowball_stem
from pytest_tooleval.tools.base import ToolSpec

TRIGGER_DIR = Path(__file__).parent / "triggers"
WEB_TOOL = "web_search"
FETCH_TOOL = "web_fetch"
CALCULATOR_TOOL = "calculator"
URL_WEIGHT = 3.0
CODE_TOOL = "grep_code"
FORM_KINDS = ("personal", "question")
PERSONAL_TOOLS = ("search_documents", "memory_search", "calendar_list")
QUESTION_WEIGHT = 0.25
IDENTIFIER_WEIGHT = 2.0
# Two currencies (data key current_info.exchange: names, not price words like "ücret")
# with a number ("300 pounds into lira", "180€ kaç ₺"): an exchange needs
# today's rate (web_search) and the arithmetic (calculator).
EXCHANGE_WEIGHT = 3.0
# The class targets collected from every candidate, not only the longest matches.
MONEY_KINDS = {"@currency": "currency", "@exchange": "exchange"}
HOW_TO_WEIGHT = 1.0  # "nasıl pişirilir": general knowledge, a weak vote for web_search
ENDING_WEIGHT = 1.0  # a tool's word ending (tr: "gitmiştik" → calendar_list), weak
VERSION_WEIGHT = 1.5
VERSION_TOOLS = ("git_show", "git_branches", "git_log", "git_diff")
COMMIT_ID_TOOLS = (("git_show", 3.0), ("git_diff", 1.5), ("git_log", 1.5))
# A question no trigger understood is most often a look-up: the web, the user's documents,
# their saved facts, their calendar. Places no tool scored for go to these first (after the
# user's own tools), instead of to whatever comes first in the catalogue.
LOOKUP_FALLBACK = ("web_search", "search_documents", "memory_search", "calendar_list")
_FALLBACK_RANK = {name: index for index, name in enumerate(LOOKUP_FALLBACK)}
_CUE_CACHE_SIZE = 64
_TOOL_CUES_SIZE = 4096
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
FILE_FAMILIES = ("files", "archives")  # a file name confirms their short triggers
FILE_NAME_MIN_WEIGHT = 2.0  # … of normal weight in the message's language (not a weak not*)
FUZZY_WEIGHT = 0.5  # a trigger matched one edit away (patterns.FUZZY_MIN_WORD) counts half
# The learned cue also votes for a tool whose score is below LEARNED_BESIDE (a stray cue, a
# cross-language trigger at 0.3), and a voted tool ranks by its score plus LEARNED_WEIGHT
# times the posterior: a confident vote (p 0.4 → 0.8) passes the stray cues but never a
# real trigger (1 and more). With LEARNED_BESIDE 0 it votes only where nothing scored.
LEARNED_BESIDE = 1.0
LEARNED_WEIGHT = 2.0


def _load_sets(paths: Iterable[Path]) -> dict[str, TriggerSet]:
    sets: dict[str, TriggerSet] = {}
    for path in paths:
        language, data = load_trigger_file(path)
        sets.setdefault(language, TriggerSet(language)).load(data)
    return sets


@lru_cache(maxsize=8)
def _compiled(extra: tuple[Path, ...]) -> dict[str, TriggerSet]:
    from pytest_tooleval.router.compiled import cached_build  # kept between processes

    return cached_build([*sorted(TRIGGER_DIR.glob("*.yaml")), *extra], _load_sets, _are_sets)


def _are_sets(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(s, TriggerSet) for s in value.values())


class TriggerRouter(Router):
    """Stateless: one message in, k tool names out, with the triggers that chose them."""

    name = "triggers"

    def __init__(
        self,
        k: int = 9,
        *,
        trigger_files: Sequence[Path | str] = (),
        cross_language_weight: float = 0.3,
        use_cues: bool = True,
        stemmer: str = DEFAULT_STEMMER,
        lexical: bool | LexicalModel = True,
        fuzzy: bool = True,
    ) -> None:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        check_stemmer(stemmer)
        self.stemmer = stemmer
        self.fuzzy = fuzzy  # typo tolerance for long words (patterns.FUZZY_MIN_WORD)
        self.k = k
        self.cross_language_weight = cross_language_weight
        self.use_cues = use_cues
        self.trigger_files = tuple(Path(p) for p in trigger_files)
        self.sets = _compiled(self.trigger_files)
        self.stop_words = set().union(*(s.stop_words for s in self.sets.values()))
        self.description_stop_words = frozenset(
            set().union(*(s.description_stop_words for s in self.sets.values()))
        )
        self.false_friends = tuple(
            sorted({e for s in self.sets.values() for excs in s.exceptions.values() for e in excs})
        )
        self._cues: dict[tuple[tuple[str, str], ...], CueIndex] = {}
        # Each tool's own cues, shared by the catalogues it is in (CueIndex's tool_cues).
        self._tool_cues: dict[tuple[str, str], dict[str, tuple[float, str]]] = {}
        # The learned lexical cue: votes only for tools no trigger, cue or class scored.
        self.lexical: LexicalModel | None = (
            default_model() if lexical is True else lexical or None
        )
        # Words the corpus uses are real words, never typos to correct (fuzzy matching).
        self._known = self.lexical.words if self.lexical is not None else frozenset()

    def describe(self) -> dict[str, object]:
        return {
            "router": self.name,
            "k": self.k,
            "languages": sorted(self.sets),
            "cross_language_weight": self.cross_language_weight,
            "stemmer": self.stemmer,
            "lexical": self.lexical is not None,
            "fuzzy": self.fuzzy,
            "trigger_files": [str(p) for p in self.trigger_files],
        }

    def _cue_index(self, catalogue: Sequence[ToolSpec]) -> CueIndex:
        key = tuple((spec.name, spec.description) for spec in catalogue)
        index = self._cues.get(key)
        if index is None:
            if len(self._cues) >= _CUE_CACHE_SIZE:
                self._cues.clear()
            if len(self._tool_cues) >= _TOOL_CUES_SIZE:
                self._tool_cues.clear()
            index = self._cues[key] = CueIndex(
                catalogue,
                self.stop_words,
                self.false_friends,
                self.description_stop_words,
                self.stemmer,
                self._tool_cues,
            )
        return index

    def score(
        self, message: str, language: str, catalogue: Sequence[ToolSpec]
    ) -> tuple[dict[str, float], dict[str, list[str]]]:
        """Every catalogue tool's score and the reasons behind it.

        A tool that stands for an absent built-in (``ToolSpec.stands_for``: a prefixed MCP
        ``repo_git_log`` with the built-ins off or shadowed) is scored as that built-in.
        """
        names = {spec.name for spec in catalogue}
        stand_ins: dict[str, str] = {}
        for spec in catalogue:
            role = spec.stands_for
            if role and role not in names and role not in stand_ins.values():
                stand_ins[spec.name] = role
        if not stand_ins:
            return self._score(message, language, catalogue)
        renamed = [replace(spec, name=stand_ins[spec.name]) if spec.name in stand_ins else spec
                   for spec in catalogue]
        scores, reasons = self._score(message, language, renamed)
        back = {role: name for name, role in stand_ins.items()}
        for role in back:
            if role in reasons:
                reasons[role] = [*reasons[role], f"stands for the built-in {role}"]
        return ({back.get(n, n): v for n, v in scores.items()},
                {back.get(n, n): r for n, r in reasons.items()})

    def _score(
        self, message: str, language: str, catalogue: Sequence[ToolSpec]
    ) -> tuple[dict[str, float], dict[str, list[str]]]:
        names = {spec.name for spec in catalogue}
        text = normalize(message, language if language in self.sets else None)
        scores: dict[str, float] = defaultdict(float)
        reasons: dict[str, list[str]] = defaultdict(list)
        classes: dict[str, list[str]] = defaultdict(list)
        deferred: list[tuple[str, float, str, str]] = []
        seen: set[tuple[str, str]] = set()

        # The message's own language first: a trigger written the same in two files
        # ("commit*") counts once per tool, at the full weight, not at the other file's 0.3.
        ordered = sorted(self.sets.items(), key=lambda item: item[0] != language)
        for set_language, trigger_set in ordered:
            primary = set_language == language or language not in self.sets
            factor = 1.0 if primary else self.cross_language_weight
            if factor <= 0:
                continue
            stems = None
            if self.stemmer == "snowball" and text.lower_words and has_snowball(set_language):
                stems = tuple(snowball_stem(w, set_language) for w in text.lower_words)
            variants = None
            if set_language == "tr" and language == "tr":
                variants = tuple(voiceless(word) for word in text.words)
            candidates = trigger_set.candidates(
                text.words, stems, variants, fuzzy=self.fuzzy and primary, known=self._known
            )
            # A currency word counts even inside a longer phrase ("dolar kuru").
            for m in candidates:
                for t in m.pattern.targets:
                    if t.tool in MONEY_KINDS:
                        classes[MONEY_KINDS[t.tool]].append(m.text)
            for match in longest_matches(candidates, len(text.words)):
                # A typo-tolerant match (one edit) counts less than an exact one.
                weight = FUZZY_WEIGHT if match.typo else 1.0
                for target in match.pattern.targets:
                    label = f"{target.label!r} ({set_language}) ← {match.text!r}"
                    if match.typo:
                        label += f" (typo of {match.typo!r})"
                    if target.tool.startswith("@"):
                        kind = target.tool[1:]
                        if kind in ("currency", "exchange"):
                            continue  # counted above
                        if kind == "topics" and not primary:
                            kind = "weak_topics"
                        if kind in FORM_KINDS and not primary:
                            continue
                        classes[kind].append(match.text)
                        continue
                    if target.tool not in names or (target.tool, target.label) in seen:
                        continue
                    seen.add((target.tool, target.label))
                    if target.needs_cue:
                        deferred.append(
                            (target.tool, target.weight * factor * weight, label, match.text)
                        )
                    else:
                        scores[target.tool] += target.weight * factor * weight
                        reasons[target.tool].append(f"trigger {label}")

            if primary:
                # Turkish reported past ("kapanmış", "grev varmış"): news heard second-hand.
                classes["weak_topics"] += trigger_set.ending_matches(
                    "weak_topic_endings", text.words
                )
                how_to = trigger_set.how_to_matches(text.words)
                if how_to and WEB_TOOL in names:
                    scores[WEB_TOOL] += HOW_TO_WEIGHT
                    reasons[WEB_TOOL].append(f"how-to question ({set_language}) ← {how_to[0]!r}")
                saved = trigger_set.saved.match(text.words)
                for tool, weight in trigger_set.saved.tools.items() if saved else ():
                    if tool in names:
                        scores[tool] += weight
                        reasons[tool].append(f"saved thing ({set_language}) ← {saved!r}")
                frame = trigger_set.explain.match(text.words)
                for tool, weight in trigger_set.explain.tools.items() if frame else ():
                    if tool in names:
                        scores[tool] += weight
                        reasons[tool].append(f"explanation question ({set_language}) ← {frame!r}")
                for tool, word in trigger_set.tool_ending_matches(text.words).items():
                    if tool in names:
                        scores[tool] += ENDING_WEIGHT
                        reasons[tool].append(f"word ending ({set_language}) ← {word!r}")

        for tool, weight, why in repository_frame(text.words, language, names, message):
            scores[tool] += weight
            reasons[tool].append(why)
        if self.use_cues:
            # A synonym class adds its cue word: "send them back" also reads as "return".
            synonyms = tuple(
                dict.fromkeys(
                    kind[4:] for kind, hits in classes.items() if kind.startswith("syn:") and hits
                )
            )
            lower = (*text.lower_words, *synonyms) if text.lower_words else None
            for cue, word in self._cue_index(catalogue).match((*text.words, *synonyms), lower):
                scores[cue.tool] += cue.weight
                reasons[cue.tool].append(f"cue {cue.label} ← {word!r}")
        for tool, weight, label, why in _confirmed(deferred, scores, text):
            scores[tool] += weight
            reasons[tool].append(f"trigger {label} ({why})")
        self._classes(text, classes, names, scores, reasons)
        return dict(scores), dict(reasons)

    @staticmethod
    def _classes(
        text: Normalized,
        classes: dict[str, list[str]],
        names: set[str],
        scores: dict[str, float],
        reasons: dict[str, list[str]],
    ) -> None:
        """The current-information class and the "how much" rules."""
        strong, weak, time = classes["topics"], classes["weak_topics"], classes["time"]
        topics = len(strong) + len(weak)
        if WEB_TOOL in names and topics:
            if strong or time or len(weak) >= 2:
                gain = 3.0 + min(topics - 1, 2) + (1.0 if time else 0.0)
                why = "+".join([*strong, *weak]) + (f" with time word {time[0]!r}" if time else "")
                scores[WEB_TOOL] += gain
                reasons[WEB_TOOL].append(f"current information: {why}")
            else:
                scores[WEB_TOOL] += 1.0
                reasons[WEB_TOOL].append(f"current information (weak, no time word): {weak[0]}")
        if text.has_url and FETCH_TOOL in names:
            scores[FETCH_TOOL] += URL_WEIGHT
            reasons[FETCH_TOOL].append("a web address")
        if text.has_version:
            for tool in VERSION_TOOLS:
                if tool in names:
                    scores[tool] += VERSION_WEIGHT
                    reasons[tool].append("a release tag (v1.2.3)")
        if text.has_identifier and CODE_TOOL in names:
            scores[CODE_TOOL] += IDENTIFIER_WEIGHT
            reasons[CODE_TOOL].append("a code identifier (snake_case, camelCase or a call)")
        if text.has_commit_id:
            for tool, weight in COMMIT_ID_TOOLS:
                if tool in names:
                    scores[tool] += weight
                    reasons[tool].append("a commit id")
        _question_form(text, classes, names, scores, reasons)
        how_much = classes["how_much"]
        if how_much and (text.has_number or text.has_operator) and CALCULATOR_TOOL in names:
            scores[CALCULATOR_TOOL] += 3.0
            reasons[CALCULATOR_TOOL].append(f"{how_much[0]!r} with a number or operator")
        elif text.has_operator and CALCULATOR_TOOL in names:
            scores[CALCULATOR_TOOL] += 2.0
            reasons[CALCULATOR_TOOL].append("an operator between numbers")
        if how_much and classes["currency"] and WEB_TOOL in names:
            scores[WEB_TOOL] += 3.0
            reasons[WEB_TOOL].append(
                f"{how_much[0]!r} with a currency word {classes['currency'][0]!r}"
            )
        currencies = list(dict.fromkeys(classes["exchange"]))
        if len(currencies) >= 2 and text.has_number and not _own_converter(names):
            why = f"an exchange: {currencies[0]!r} and {currencies[1]!r} with a number"
            for tool in (WEB_TOOL, CALCULATOR_TOOL):
                if tool in names:
                    scores[tool] += EXCHANGE_WEIGHT
                    reasons[tool].append(why)

    def route(
        self,
        message: str,
        language: str,
        catalogue: list[ToolSpec],
        keep: tuple[str, ...] = (),
    ) -> Routing:
        unique = list({spec.name: spec for spec in catalogue}.values())
        scores, reasons = self.score(message, language, unique)
        families = _family_best(scores)
        learned = self.learned(message, language, unique, scores)
        ranking = scores
        if learned and LEARNED_WEIGHT > 0:
            ranking = dict(scores)
            for name, p in learned.items():
                ranking[name] = scores.get(name, 0.0) + LEARNED_WEIGHT * p
        names_in_order = [spec.name for spec in unique]
        ranked = sorted(names_in_order,
                        key=_ranks(names_in_order, ranking, families, learned).__getitem__)
        chosen = ranked[: self.k]
        names = set(ranked)
        kept = [name for name in dict.fromkeys(keep) if name in names][: self.k]
        missing = [name for name in kept if name not in chosen]
        if missing:
            # Kept tools take the lowest-scored places of those not kept.
            others = [name for name in chosen if name not in kept]
            stay = others[: self.k - len(kept)]
            chosen = [name for name in chosen if name in stay or name in kept] + missing
        usefulness = _usefulness(scores, families, learned)
        has_path = normalize(message, language if language in self.sets else None).has_path
        chosen, companions = with_companions(chosen, kept, names, usefulness, has_path)
        why = {name: list(reasons.get(name, [])) for name in chosen}
        for name in chosen:
            if name in learned:
                why[name].append(f"learned cue: p={learned[name]:.2f} (lexical model)")
        for name, source in companions.items():
            why[name].append(f"companion of {source}: {COMPANION_WHY[name]}")
        for name in kept:
            why[name].append("kept: ran in the previous step")
        for name in chosen:
            if not why[name]:
                family = families.get(FAMILY_OF.get(name, ""), 0.0)
                why[name].append(
                    "filler: look-up tool first"
                    if name in _FALLBACK_RANK
                    else f"filler: a sibling of the {FAMILY_OF[name]} tools that scored"
                    if family >= FAMILY_MIN_SCORE
                    else "filler: fixed priority"
                )
        return Routing(chosen, why, {name: round(scores.get(name, 0.0), 3) for name in chosen})

    def learned(
        self,
        message: str,
        language: str,
        catalogue: Sequence[ToolSpec],
        scores: dict[str, float],
    ) -> dict[str, float]:
        """The lexical model's confident votes (posterior at or above its threshold) for
        tools nothing else scored; empty when the model is off or thinks no tool fits."""
        if self.lexical is None:
            return {}
        if is_courtesy(normalize(message, language if language in self.sets else None).words):
            return {}  # thanks and closings ask for nothing (router/courtesy.py)
        beside = LEARNED_BESIDE
        open_places = [
            spec.name for spec in catalogue
            if (score := scores.get(spec.name, 0.0)) <= 0.0 or score < beside
        ]
        return dict(self.lexical.votes(message, language, open_places))


def _own_converter(names: Iterable[str]) -> bool:
    """The catalogue has the user's own currency tool (convert_currency, get_fx_rate…):
    an exchange is its job, and the built-ins' exchange votes would crowd it out."""
    return any(
        name not in FAMILY_OF and any(word in name for word in ("currenc", "exchange", "fx"))
        for name in names
    )


def _confirmed(
    deferred: list[tuple[str, float, str, str]], scores: dict[str, float], text: Normalized
) -> list[tuple[str, float, str, str]]:
    """The short triggers (under four letters: oku*, yaz*, zip*) that count: (tool, weight,
    label, why). A short stem is too ambiguous alone, so it needs a second cue for its tool:
    a trigger or cue that scored, a second short trigger on another word (*not … oku*: a
    note read, *zip … at*), or, for a file or archive tool, a file name in the message
    (*hafta_sonu.txt … yaz*; a trigger of normal weight in the message's language)."""
    words_of: dict[str, set[str]] = defaultdict(set)
    for tool, _, _, word in deferred:
        words_of[tool].add(word)
    out = []
    for tool, weight, label, _ in deferred:
        if scores.get(tool, 0.0) > 0:
            out.append((tool, weight, label, "short, with a second cue"))
        elif len(words_of[tool]) >= 2:
            out.append((tool, weight, label, "short, with another short trigger"))
        elif (text.has_filename and FAMILY_OF.get(tool) in FILE_FAMILIES
              and weight >= FILE_NAME_MIN_WEIGHT):
            out.append((tool, weight, label, "short, with a file name"))
    return out


def _usefulness(
    scores: dict[str, float], families: dict[str, float], learned: dict[str, float]
) -> Callable[[str], int]:
    """How much a shown tool is worth keeping when a companion needs its place."""

    def usefulness(name: str) -> int:
        if name not in FAMILY_OF:
            return KEEP_PLACE  # the user's own tool keeps its place
        if scores.get(name, 0.0) > 0.0 or name in learned:
            return 3  # it scored
        if families.get(FAMILY_OF.get(name, ""), 0.0) >= FAMILY_MIN_SCORE:
            return 2  # a sibling of a family that scored
        return 1 if name in _FALLBACK_RANK else 0  # a look-up filler, or fixed priority

    return usefulness


def _question_form(
    text: Normalized,
    classes: dict[str, list[str]],
    names: set[str],
    scores: dict[str, float],
    reasons: dict[str, list[str]],
) -> None:
    """A question about the user's own things (my, our, benim, bizim) is a look-up in their
    stores: documents, saved facts, calendar. A weak vote: it decides only among tools
    nothing else chose. (A question without my/our gets no vote: "havale yaptım mı" is
    personal too, and the world is not the only other answer.)"""
    # Question words only, never the "?": a register without punctuation must route alike.
    if not classes["question"] or not classes["personal"]:
        return
    why = f"a question about the user's own things ({classes['personal'][0]!r})"
    for tool in PERSONAL_TOOLS:
        if tool in names:
            scores[tool] += QUESTION_WEIGHT
            reasons[tool].append(f"question form: {why}")


def _family_best(scores: dict[str, float]) -> dict[str, float]:
    """Each tool family's best score: the family of a message's best-scored tools."""
    best: dict[str, float] = {}
    for tool, score in scores.items():
        family = FAMILY_OF.get(tool)
        if family is not None and score > best.get(family, 0.0):
            best[family] = score
    return best


_PRIORITY: dict[str, tuple[int, int, str]] = {}


def _priority(name: str) -> tuple[int, int, str]:
    """``catalogue.priority``, remembered per name (every route ranks every tool)."""
    if len(_PRIORITY) >= 4096:
        _PRIORITY.clear()
    order = _PRIORITY[name] = priority(name)
    return order


def _ranks(
    names: Iterable[str],
    scores: dict[str, float],
    families: dict[str, float],
    learned: dict[str, float],
) -> dict[str, tuple[float, int, float, tuple[int, int, str], int]]:
    """``_rank`` of every name, computed in one pass (the same keys)."""
    score_of, vote_of, fallback_of = scores.get, learned.get, _FALLBACK_RANK.get
    family_best, family_of, known = families.get, FAMILY_OF.get, _PRIORITY.get
    keys = {}
    for name in names:
        score = round(score_of(name, 0.0), 6)
        order = known(name) or _priority(name)
        if score > 0 or order[0] == 0:
            keys[name] = (-score, 0, 0.0, order, 0)
        elif (vote := vote_of(name)) is not None:
            keys[name] = (0.0, 1, -vote, order, 0)
        elif (fallback := fallback_of(name)) is not None:
            keys[name] = (0.0, 2, float(fallback), order, 0)
        elif (family := family_best(family_of(name, ""), 0.0)) >= FAMILY_MIN_SCORE:
            keys[name] = (0.0, 3, -family, order, 0)
        else:
            keys[name] = (0.0, 4, 0.0, order, 0)
    return keys


def _rank(
    name: str,
    scores: dict[str, float],
    families: dict[str, float] | None = None,
    learned: dict[str, float] | None = None,
) -> tuple[float, int, float, tuple[int, int, str], int]:
    """Score first; among tools nobody scored for, the user's tools, then the lexical
    model's confident votes, then the look-up tools of ``LOOKUP_FALLBACK``, then the
    siblings of a family that scored (git_status beside git_diff, list_archive beside
    extract_archive), then the rest in the fixed priority."""
    score = round(scores.get(name, 0.0), 6)
    order = _PRIORITY.get(name) or _priority(name)
    if score > 0 or order[0] == 0:
        return (-score, 0, 0.0, order, 0)
    vote = (learned or {}).get(name)
    if vote is not None:
        return (0.0, 1, -vote, order, 0)
    fallback = _FALLBACK_RANK.get(name)
    if fallback is not None:
        return (0.0, 2, float(fallback), order, 0)
    family = (families or {}).get(FAMILY_OF.get(name, ""), 0.0)
    if family >= FAMILY_MIN_SCORE:
        return (0.0, 3, -family, order, 0)
    return (0.0, 4, 0.0, order, 0)
