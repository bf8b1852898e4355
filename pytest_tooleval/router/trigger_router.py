"""The trigger router: nine tools per message from data-file triggers, cues and classes.

Scoring, per tool, summed:
- triggers of the case's language (strong 3, normal 2, weak 1; +0.5 per extra phrase
  word), longest match per word; the other languages' triggers at
  ``CROSS_LANGUAGE_WEIGHT``;
- cues from names and descriptions (router/cues.py), and cue synonyms: a phrase of a
  synonym class ("send back") also counts as its cue word ("return");
- the classes and rules of router/rules.py, the saved things, explanation questions and
  the repository frame.
Ranking (router/ranking.py): score, then the learned lexical cue's confident votes
(router/lexical.py), the broad look-up tools, and the fixed priority. Exactly k tools.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

from pytest_tooleval.router.base import SHOWN, Router, Routing, make_room
from pytest_tooleval.router.companions import WHY as COMPANION_WHY
from pytest_tooleval.router.companions import with_companions
from pytest_tooleval.router.courtesy import ACKNOWLEDGING, COURTESY_WORDS, is_courtesy
from pytest_tooleval.router.cues import CueIndex
from pytest_tooleval.router.fuzzy import FUZZY_MIN_WORD
from pytest_tooleval.router.lexical import LexicalModel, default_model
from pytest_tooleval.router.patterns import FORM_KEYS, TriggerSet
from pytest_tooleval.router.ranking import family_best, filler_why, rank_key, usefulness_of
from pytest_tooleval.router.repository import repository_frame
from pytest_tooleval.router.rules import WEB_TOOL, Tally, apply_classes, confirmed
from pytest_tooleval.router.trigger_syntax import Match, load_trigger_file, longest_matches
from pytest_tooleval.text.dialect import voiceless
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.text.stem import DEFAULT_STEMMER, check_stemmer, has_snowball, snowball_stem
from pytest_tooleval.tools.base import ToolSpec
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS, WRITE_BUILTINS

TRIGGER_DIR = Path(__file__).parent / "triggers"
# The class targets collected from every candidate, not only the longest matches.
MONEY_KINDS = ("@currency", "@exchange")
HOW_TO_WEIGHT = 1.0  # "nasıl pişirilir": general knowledge, a weak vote for web_search
ENDING_WEIGHT = 1.0  # a tool's word ending (tr: "gitmiştik" → calendar_list), weak
_CUE_CACHE_SIZE = 64
# The other languages' triggers count at this weight (Turkish users type English tech words).
CROSS_LANGUAGE_WEIGHT = 0.3
FUZZY_WEIGHT = 0.5  # a trigger matched one edit away (fuzzy.FUZZY_MIN_WORD) counts half
# The learned cue also votes for a tool whose score is below LEARNED_BESIDE (a stray cue, a
# cross-language trigger at 0.3); with LEARNED_WEIGHT a confident vote (p 0.4 → 0.8)
# passes the stray cues but never a real trigger (1 and more).
LEARNED_BESIDE = 1.0
LEARNED_WEIGHT = 2.0
# A negated request rules out the tools that change the world it names: an English clause
# from an imperative "don't", "do not", "never" or "no need" to its end ("don't send it
# yet", "don't bother saving that"; "don't forget" is a trigger of its own), a Turkish
# clause ending in a trigger's negative imperative ("mesaj atma", "dosyayı silmeyin",
# "iptal etme"; "silme işlemi" does not end in it) or its verbal noun before "gerek yok"
# ("hatırlatmana gerek yok"). Such a tool scores RULED_OUT: no learned vote, the last place
# of all, unless a trigger in another clause asks for it ("takvime ekle: bütçe planlama",
# where the last word is a noun).
NEGATORS = (("don", "t"), ("do", "not"), ("never",), ("no", "need"))
# "I don't save passwords": no request; "why don't you text him": one, not negated; "if you
# don't need to send anything else, …" stays negated (a condition asks for nothing)
SUBJECTS = ("i", "we", "they", "he", "she", "it", "why")
NEGATIVE_IMPERATIVE = ("mayiniz", "meyiniz", "mayin", "meyin", "ma", "me")
NEEDLESS = ("gerek", "yok")  # after the verbal noun: "-mana, -mene, -maya, -meye"
NEEDLESS_ENDINGS = ("maniza", "menize", "mana", "mene", "maya", "meye", "ma", "me")
LIGHT_VERBS = ("et", "yap", "kur")  # "iptal etme", "hatırlatma kurma": the trigger before them
AFTER_VERB = ("henuz", "sakin", "lutfen", "simdilik")  # "silme sakın", "atma henüz"
VERBAL_NOUNS = ("hatirlatma",)  # "kargo hatırlatma" is a reminder asked for
# A Turkish verb in a negative form after a trigger's stem (folded: "göndermeyeceksin",
# "kaydetmedim", "commitlemediğim", "silinmiyor", "yollayamadım") asks for no change: it is
# no trigger of a tool that changes the world. Not a bare -ma/-me, which is also a noun
# ("hatırlatma", "silme işlemi"; a clause's last one is read as above).
NEGATIVE_VERB = re.compile(
    r"(y?[ae])?m([ae](y[ae]c[ae][kg]|d[iu]|m[iu]s|z|y[iu]n|s[ae]|m[ae]l[iu])|[iu]yor)\w*")
# Asked as a question it is a polite request: "silemez misin", "hatırlatmaz mısın yarın",
# "göndermeyecek misin" (folded)
QUESTION_PARTICLE = re.compile(r"m[iu](s[iu]n(iz)?|y[iu]z|y[iu]m)?")
RULED_OUT = -1.0
CLAUSE_END = re.compile(r"[,:;.!?](?=\s)")
# What a thanks is for was done, not asked for: "thanks (so much) for the reminder" to the
# clause's end; in a Turkish message that thanks, a clause's words before "için"
# ("hatırlatma için teşekkürler"). The side-effecting tools named there are ruled out too.
THANKS = ("thanks", "thank", "cheers")
# After a copula, the phrase of a tool that changes the world read as a bare verb is an
# adjective: "will it be clear friday", "is it clear monday" ask for no day to be cleared
# ("clear friday*", calendar_delete); a participle is news to act on ("has been changed").
COPULAS = frozenset({"be", "is", "are", "was", "were", "been", "stay", "stays", "remain",
                     "remains", "look", "looks"})
# Where a negated or thanked span ends short of its clause: a turn to what is asked
# ("don't send it but save it", "thx for the help can u text kaan").
TURNS = frozenset({"but", "then", "now", "instead", "just", "please", "pls", "can", "could",
                   "would"})
# A question about the world asks for no change to it ("will it be clear tomorrow?", "was the
# message to kaan sent?", "toplantı hâlâ takvimde mi?"): in a message of such questions only,
# the learned cue votes for no tool that changes the world, and no trigger or cue shows one
# that creates, sends, saves or deletes (``MAKING``). Not a question put to the assistant or
# of what we do ("will you …", "can you …", "should we …", "why don't you …", "atar mısın"),
# a suggestion ("how about a reminder at 7", "why not pop it in", "ekleyelim mi", "eklesek
# mi", "eklesen olur mu"), nor one asking whether it may be done ("is it possible to …", "is
# there any way to …", "eklemek mümkün mü", "kurulabilir mi").
QUESTIONS = frozenset({"how", "what", "when", "where", "which", "who", "why", "whose", "is",
                       "are", "was", "were", "will", "do", "does", "did", "should", "am", "has",
                       "have"})
NOT_ASKED = frozenset({"about", "not", "if", "you", "u", "we", "don"})  # after QUESTIONS
# after the second word: whether it may be done, or a request after the question ("is it in
# the calendar if not add it", "… can you add it"; not "me": "who sent me that message?")
MAY = frozenset({"possible", "ok", "okay", "alright", "fine", "way", "chance", "if",
                 "can", "could", "please", "pls"})
PARTICLES = frozenset({"mi", "mu"})  # Turkish, the third person (not "misin", "musunuz")
AFTER_PARTICLE = ("acaba", "ki", "sence", "sizce")  # "çaldı mı acaba", "silsem mi sence"
SUGGESTING = ("sek", "sak", "lim", "sin", "sun", "sen", "san", "mumkun",  # before them
              "ilir", "ulur", "nir", "nur")  # a polite passive: "atılır mı", "kurulabilir mi"
MAKING = WRITE_BUILTINS - {"extract_archive", "git_commit"}
# After a negation, what the speaker will do themself asks for nothing either, to the end of
# its clause ("no need to save that, I'll just remember it"; "just" is no turn there).
OWN = frozenset({("i", "ll"), ("i", "will"), ("we", "ll"), ("we", "will")})
# In Turkish, "ben" or "kendim" to a verb in the first-person aorist or future ("kaydetme,
# ben hatırlarım", "takvime ekleme, kendim eklerim", "ben kuracağım"; not "istiyorum").
OWN_TR = ("ben", "kendim")
FIRST_PERSON = ("arim", "erim", "irim", "urum", "cagim", "cegim")
OWN_JUST = frozenset({("ll", "just"), ("will", "just")})
THANKS_TR = re.compile(r"\b(tesekkur|sag ol|sagol|saol|eyvallah|mersi\b|eline saglik)")
#: A word without which no negation, thanks or acknowledgement governs anything.
GOVERNING = frozenset({n[-1] for n in NEGATORS} | {"for", "icin"} | ACKNOWLEDGING)


@lru_cache(maxsize=8)
def _compiled(extra: tuple[Path, ...]) -> dict[str, TriggerSet]:
    """The trigger sets of the shipped data files and ``extra``, by language."""
    sets: dict[str, TriggerSet] = {}
    for path in [*sorted(TRIGGER_DIR.glob("*.yaml")), *extra]:
        try:
            language, data = load_trigger_file(path)
            sets.setdefault(language, TriggerSet(language)).load(data)
        except ValueError as exc:  # one message naming the file, the entry and the fix
            raise ValueError(f"{path}: {exc}") from None
    return sets


@lru_cache(maxsize=2)
def _starts(words: frozenset[str]) -> frozenset[str]:
    """``words`` and their starts long enough to be respelt (``FUZZY_MIN_WORD`` letters)."""
    return frozenset(word[:size] for word in words for size in range(FUZZY_MIN_WORD, len(word) + 1))


def _stand_ins(catalogue: Sequence[ToolSpec]) -> tuple[list[ToolSpec], dict[str, str]]:
    """The catalogue with each tool that stands for an absent built-in (``stands_for``: a
    prefixed MCP ``repo_git_log`` with the built-ins off or shadowed) renamed to that
    built-in, the first such tool per built-in; and the way back, built-in → own name."""
    names = {spec.name for spec in catalogue}
    back: dict[str, str] = {}
    for spec in catalogue:
        role = spec.stands_for
        if role and role not in names and role not in back:
            back[role] = spec.name
    own = {name: role for role, name in back.items()}
    return [replace(spec, name=own[spec.name]) if spec.name in own else spec
            for spec in catalogue], back


def _negated(trigger_set: TriggerSet, words: tuple[str, ...]) -> list[Match]:
    """The matches a Turkish negation governs (``NEGATIVE_IMPERATIVE``, ``NEEDLESS``)."""
    needless = words[-2:] == NEEDLESS
    words = words[:-2] if needless else words
    while trigger_set.language == "tr" and words[-1:] and words[-1] in AFTER_VERB:
        words = words[:-1]
    endings = NEEDLESS_ENDINGS if needless else NEGATIVE_IMPERATIVE
    ending = next((e for e in endings if words and words[-1].endswith(e)), "")
    if trigger_set.language != "tr" or not ending or (words[-1] in VERBAL_NOUNS
                                                      and not needless):
        return []
    verb = (*words[:-1], words[-1][: -len(ending)])  # "mesaj atma" → "mesaj at"
    return [m for m in trigger_set.candidates(verb)
            if m.end in (len(words), len(words) - (verb[-1] in LIGHT_VERBS))]


def _unless_negative(candidates: list[Match], words: tuple[str, ...]) -> list[Match]:
    """``candidates`` with no tool that changes the world matched on a word that is a verb in
    a negative form (``NEGATIVE_VERB`` after some match's stem: "silmeyeceksin" for "sil*",
    so "silme*" too), unless a question particle follows it (a request)."""
    negative: set[int] = set()
    for m in candidates:
        stem, is_stem = m.pattern.elements[-1]
        word = m.text.split()[-1]
        if (is_stem and word.startswith(stem) and NEGATIVE_VERB.fullmatch(word[len(stem):])
                and not QUESTION_PARTICLE.fullmatch(words[m.end] if m.end < len(words) else "")):
            negative.add(m.end - 1)
    return [replace(m, pattern=replace(m.pattern, targets=[
        t for t in m.pattern.targets if t.tool not in SIDE_EFFECTING_BUILTINS]))
        if negative.intersection(range(m.start, m.end)) else m for m in candidates]


def _cuts(message: str, hints: str | None) -> list[int]:
    """Where the message's clauses end: the position of the word after each ``CLAUSE_END``."""
    return [len(normalize(message[:end.start()], hints).words)
            for end in CLAUSE_END.finditer(message)]


def _asks_only(words: tuple[str, ...], cuts: list[int], language: str) -> bool:
    """Every clause of the message (``cuts``: where they end) is a question about the world:
    an English one opens with one of ``QUESTIONS`` followed by none of ``NOT_ASKED``; a
    Turkish one ends in one of ``PARTICLES`` (or ``AFTER_PARTICLE`` after it) after no
    ``SUGGESTING``."""
    clauses = [words[a:b] for a, b in pairwise([0, *cuts, len(words)]) if a < b]
    if language == "tr":
        clauses = [c[:-1] if c[-1] in AFTER_PARTICLE and len(c) > 1 else c for c in clauses]
        return bool(clauses) and all(c[-1] in PARTICLES and not any(
            w.endswith(SUGGESTING) for w in c[-3:-1]) for c in clauses)
    return language == "en" and bool(clauses) and all(
        c[0] in QUESTIONS and not NOT_ASKED & set(c[1:2]) and not MAY & set(c[2:])
        for c in clauses)


def _own(clause: tuple[str, ...]) -> int:
    """How many of the clause's first words say what the speaker will do themself: all of an
    ``OWN`` clause that does not ask the assistant to do it ("you to …", "have you …"), a
    Turkish one to its first-person verb (``OWN_TR``; "ben hatırlarım ama …")."""
    if clause[:2] not in OWN:
        at = next((i for i, word in enumerate(clause) if word in OWN_TR), len(clause))
        return next((i + 1 for i in range(at + 1, len(clause))
                     if clause[i].endswith(FIRST_PERSON)), 0)
    return 0 if any(word in {"you", "u"} and (clause[i + 1:i + 2] == ("to",)
                                              or clause[i - 1:i] == ("have",))
                    for i, word in enumerate(clause)) else len(clause)


def _governed(
    words: tuple[str, ...], cuts: list[int], spans: list[tuple[int, int]]
) -> set[int]:
    """The positions of the words an English negation (``NEGATORS``, not inside a longer
    trigger, one of ``spans``) or a thanks governs (``THANKS``)."""
    turkish = THANKS_TR.search(" ".join(words))
    found: set[int] = set()
    for at, word in enumerate(words):
        start = max((cut for cut in cuts if cut <= at), default=0)
        if word == "icin" and turkish:
            found.update(range(start, at))
        thanks = word == "for" and any(
            w in THANKS and all(x in COURTESY_WORDS for x in words[i + 1:at])
            for i, w in enumerate(words[start:at], start))
        negator = next((n for n in NEGATORS if words[at:at + len(n)] == n and not any(
            s <= at < at + len(n) < e for s, e in spans)), None)
        if negator is not None and at and words[at - 1] in SUBJECTS:
            negator = None
        if thanks or negator:
            end = min((c for c in cuts if c > at), default=len(words))
            later = min((c for c in cuts if c > end), default=len(words))
            # the next clause is the speaker's own doing ("I'll tell you when"), unless it
            # hands the task over ("I'll need you to text him", "I'll have you send it")
            if negator:
                end += _own(words[end:later])
            size = len(negator) if negator else 1  # the turn right after is part of it:
            after = at + size + 1  # "don't just delete it"
            # "so", and in a thanks "and", before a request's trigger turns too ("no need to
            # call him so text him", "thanks for the help and remind me at 9"; not "don't
            # text him so late", "no need to save it so i'll remember", "thanks for saving and
            # sending it").
            stop = next((i for i in range(after, end) if (
                words[i] in TURNS and words[i - 1:i + 1] not in OWN_JUST) or (
                words[i] in ({"so", "and"} if thanks else {"so"}) and i + 1 < len(words)
                and not words[i + 1].endswith("ing") and words[i + 1] not in SUBJECTS
                and any(s == i + 1 for s, _ in spans))),
                end)
            found.update(range(at + 1, stop))
    return found


class TriggerRouter(Router):
    """Stateless: one message in, k tool names out, with the triggers that chose them."""

    name = "triggers"

    def __init__(
        self,
        k: int = SHOWN,
        *,
        trigger_files: Sequence[Path | str] = (),
        use_cues: bool = True,
        stemmer: str = DEFAULT_STEMMER,
        lexical: bool | LexicalModel = True,
        fuzzy: bool = True,
    ) -> None:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        check_stemmer(stemmer)
        self.stemmer = stemmer
        self.fuzzy = fuzzy  # typo tolerance for long words (fuzzy.FUZZY_MIN_WORD)
        self.k = k
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
        # The learned lexical cue: votes only for tools no trigger, cue or class scored.
        self.lexical: LexicalModel | None = (
            default_model() if lexical is True else lexical or None
        )
        # Words the corpus uses are real words, never typos to correct (fuzzy matching), and
        # so are their starts: a stem that known words inflect ("hazirla" of "hazirlayacagim").
        self._known = _starts(self.lexical.words) if self.lexical is not None else frozenset()

    def describe(self) -> dict[str, object]:
        return {
            "router": self.name,
            "k": self.k,
            "languages": sorted(self.sets),
            "cross_language_weight": CROSS_LANGUAGE_WEIGHT,
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
            index = self._cues[key] = CueIndex(catalogue, self.stop_words, self.false_friends,
                                               self.description_stop_words, self.stemmer)
        return index

    def score(
        self, message: str, language: str, catalogue: Sequence[ToolSpec]
    ) -> tuple[dict[str, float], dict[str, list[str]]]:
        """Every catalogue tool's score and the reasons behind it.

        A tool that stands for an absent built-in (``ToolSpec.stands_for``: a prefixed MCP
        ``repo_git_log`` with the built-ins off or shadowed) is scored as that built-in.
        """
        renamed, back = _stand_ins(catalogue)
        scores, reasons, _ = self._score(message, language, renamed)
        for role in back:
            if role in reasons:
                reasons[role] = [*reasons[role], f"stands for the built-in {role}"]
        return ({back.get(n, n): v for n, v in scores.items()},
                {back.get(n, n): r for n, r in reasons.items()})

    def _score(
        self, message: str, language: str, catalogue: Sequence[ToolSpec]
    ) -> tuple[dict[str, float], dict[str, list[str]], set[str]]:
        """The scores, their reasons, and the tools that change the world that nothing asks
        for (``_route`` ranks them as fillers): a stray score (below LEARNED_BESIDE: "git" of
        git_commit's name) or cues alone, no trigger of the tool matching a word ("the
        reminder app is annoying", "thanks, I saw the reminder")."""
        tally = Tally({spec.name for spec in catalogue})
        hints = language if language in self.sets else None
        text = normalize(message, hints)
        classes: dict[str, list[str]] = defaultdict(list)
        deferred: list[tuple[str, float, str, str]] = []
        seen: set[tuple[str, str]] = set()
        ruled_out: set[str] = set()
        negated_at: list[int] = []  # where each negated match starts
        named: list[tuple[str, int]] = []  # (tool, start) of every trigger match
        spans: list[tuple[int, int]] = []  # (start, end) of every trigger match
        cued: list[tuple[str, int]] = []  # (tool, position) of every cue's word
        matched: set[str] = set()  # tools a trigger matched, kept as longest or not
        cuts = _cuts(message, hints)  # where the message's clauses end

        # The message's own language first: a trigger written the same in two files
        # ("commit*") counts once per tool, at the full weight, not at the other file's 0.3.
        ordered = sorted(self.sets.items(), key=lambda item: item[0] != language)
        for set_language, trigger_set in ordered:
            primary = set_language == language or language not in self.sets
            factor = 1.0 if primary else CROSS_LANGUAGE_WEIGHT
            stems = None
            if self.stemmer == "snowball" and text.lower_words and has_snowball(set_language):
                stems = tuple(snowball_stem(w, set_language) for w in text.lower_words)
            variants = None
            if set_language == "tr" and language == "tr":
                variants = tuple(voiceless(word) for word in text.words)
            candidates = trigger_set.candidates(
                text.words, stems, variants, fuzzy=self.fuzzy and primary, known=self._known
            )
            candidates = [m for m in candidates if not (
                set_language == "en" and m.start and m.end - m.start > 1
                and (text.words[m.start - 1] in COPULAS or (m.start > 1 and text.words[
                    m.start - 2] in COPULAS and text.words[m.start - 1] in SUBJECTS))
                and not text.words[m.start].endswith("ed")
                and all(t.tool in SIDE_EFFECTING_BUILTINS for t in m.pattern.targets)
                and m.start not in cuts)]  # not "the plan is: clear friday"
            if set_language == "tr":
                candidates = _unless_negative(candidates, text.words)
            matched.update(t.tool for m in candidates for t in m.pattern.targets)
            # A currency word counts even inside a longer phrase ("dolar kuru").
            for m in candidates:
                for t in m.pattern.targets:
                    if t.tool in MONEY_KINDS:
                        classes[t.tool[1:]].append(m.text)
            longest = longest_matches(candidates, len(text.words))
            for a, b in pairwise([0, *cuts, len(text.words)]):  # each clause's last verb
                for match in _negated(trigger_set, text.words[a:b]):
                    ruled_out.update(t.tool for t in match.pattern.targets
                                     if t.tool in SIDE_EFFECTING_BUILTINS)
                    negated_at.append(a + match.start)
            named += [(t.tool, m.start) for m in longest for t in m.pattern.targets]
            spans += [(m.start, m.end) for m in longest]
            for match in longest:
                # A typo-tolerant match (one edit) counts less than an exact one.
                weight = FUZZY_WEIGHT if match.typo else 1.0
                for target in match.pattern.targets:
                    if target.tool in MONEY_KINDS:
                        continue  # counted above
                    if target.tool.startswith("@"):
                        kind = target.tool[1:]
                        if kind == "topics" and not primary:
                            kind = "weak_topics"
                        if kind in FORM_KEYS and not primary:
                            continue
                        classes[kind].append(match.text)
                        continue
                    if target.tool not in tally.names or (target.tool, target.label) in seen:
                        continue
                    seen.add((target.tool, target.label))
                    gain = target.weight * factor * weight
                    label = f"{target.label!r} ({set_language}) ← {match.text!r}"
                    if match.typo:
                        label += f" (typo of {match.typo!r})"
                    if target.needs_cue:
                        deferred.append((target.tool, gain, label, match.text))
                    else:
                        tally.add(target.tool, gain, f"trigger {label}")

            if primary:
                # Turkish reported past ("kapanmış", "grev varmış"): news heard second-hand.
                classes["weak_topics"] += trigger_set.ending_matches(
                    "weak_topic_endings", text.words
                )
                how_to = trigger_set.how_to_matches(text.words)
                if how_to:
                    tally.add(WEB_TOOL, HOW_TO_WEIGHT,
                              f"how-to question ({set_language}) ← {how_to[0]!r}")
                for what, frame in (("saved thing", trigger_set.saved),
                                    ("explanation question", trigger_set.explain)):
                    found = frame.match(text.words)
                    for tool, gain in frame.tools.items() if found else ():
                        tally.add(tool, gain, f"{what} ({set_language}) ← {found!r}")
                for tool, word in trigger_set.tool_ending_matches(text.words).items():
                    tally.add(tool, ENDING_WEIGHT, f"word ending ({set_language}) ← {word!r}")

        for tool, gain, why in repository_frame(text.words, language, tally.names, message):
            tally.add(tool, gain, why)
        if self.use_cues:
            # A synonym class adds its cue word: "send them back" also reads as "return".
            synonyms = tuple(
                dict.fromkeys(
                    kind[4:] for kind, hits in classes.items() if kind.startswith("syn:") and hits
                )
            )
            lower = (*text.lower_words, *synonyms) if text.lower_words else ()
            for cue, word in self._cue_index(catalogue).match((*text.words, *synonyms), lower):
                tally.add(cue.tool, cue.weight, f"cue {cue.label} ← {word!r}")
                cued += [(cue.tool, at) for at, w in enumerate(text.words) if w == word]
        for tool, gain, label, why in confirmed(deferred, tally.scores, text):
            tally.add(tool, gain, f"trigger {label} ({why})")
        apply_classes(text, classes, tally)
        governing = ruled_out or GOVERNING.intersection(text.words)
        if is_courtesy(text.words, cuts):  # asks for nothing: "ok got your message"
            ruled_out.update(SIDE_EFFECTING_BUILTINS)
        elif governing:
            negated = {sum(at >= cut for cut in cuts) for at in negated_at}
            clauses = list(pairwise([0, *cuts, len(text.words)]))
            governed = _governed(text.words, cuts, spans)  # the speaker's own clause after a
            for a, b in (clauses[i + 1] for i in negated if i + 1 < len(clauses)):
                governed.update(range(a, a + _own(text.words[a:b])))  # Turkish negated one
            ruled_out |= {t for t, at in named + cued if at in governed} & SIDE_EFFECTING_BUILTINS
            governed.update(at for at in range(len(text.words))
                            if sum(at >= cut for cut in cuts) in negated)
            ruled_out -= {tool for tool, at in named if at not in governed}
        if _asks_only(text.words, cuts, language) and (language != "en" or "?" in message):
            ruled_out |= MAKING  # not a request run on: "where is kaan send him a text"
        for tool in sorted(ruled_out & tally.names):  # in order: scores keep no hash order
            tally.scores[tool] = RULED_OUT
            tally.reasons.pop(tool, None)
        unasked = {tool for tool in SIDE_EFFECTING_BUILTINS & set(tally.reasons)
                   if tally.scores[tool] < LEARNED_BESIDE or (tool not in matched and all(
                       why.startswith("cue ") for why in tally.reasons[tool]))}
        return dict(tally.scores), dict(tally.reasons), unasked

    def route(
        self,
        message: str,
        language: str,
        catalogue: list[ToolSpec],
        keep: tuple[str, ...] = (),
    ) -> Routing:
        unique = list({spec.name: spec for spec in catalogue}.values())
        renamed, back = _stand_ins(unique)
        # A stand-in is routed as its built-in, not only scored as it: ranked, voted for,
        # kept and brought as a companion where the built-in would have been.
        own = {name: role for role, name in back.items()}
        routing = self._route(message, language, renamed, tuple(own.get(n, n) for n in keep))
        reasons = {back.get(name, name): why for name, why in routing.reasons.items()}
        for role, name in back.items():
            if name in reasons and not all(why.startswith("filler") for why in reasons[name]):
                reasons[name].append(f"stands for the built-in {role}")
        return Routing([back.get(name, name) for name in routing.tools], reasons,
                       {back.get(name, name): v for name, v in routing.scores.items()})

    def _route(
        self, message: str, language: str, unique: list[ToolSpec], keep: tuple[str, ...]
    ) -> Routing:
        scores, reasons, unasked = self._score(message, language, unique)
        families = family_best(scores)
        # A tool that changes the world that nothing asks for ranks as one nobody scored, a
        # filler. A learned vote still places it, as any tool: by its score plus
        # LEARNED_WEIGHT times the posterior.
        ranking = {**scores, **dict.fromkeys(unasked, 0.0)}
        learned = self.learned(message, language, unique, ranking)
        ranking.update({name: scores.get(name, 0.0) + LEARNED_WEIGHT * p
                        for name, p in learned.items()})
        ranked = sorted((spec.name for spec in unique),
                        key=rank_key(ranking, families))
        names = set(ranked)
        kept = [name for name in dict.fromkeys(keep) if name in names][: self.k]
        # Kept tools take the lowest-scored places of those not kept.
        chosen = make_room(ranked[: self.k], kept)
        usefulness = usefulness_of(scores, families, learned)
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
                why[name].append(filler_why(name, families))
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
        hints = language if language in self.sets else None
        text = normalize(message, hints)
        cuts = _cuts(message, hints)
        if self.lexical is None or is_courtesy(text.words, cuts):
            return {}  # thanks and closings ask for nothing (router/courtesy.py)
        asking = _asks_only(text.words, cuts, language)
        open_places = [spec.name for spec in catalogue
                       if RULED_OUT < scores.get(spec.name, 0.0) < LEARNED_BESIDE
                       and not (asking and spec.name in SIDE_EFFECTING_BUILTINS)]
        return dict(self.lexical.votes(message, language, open_places))
