"""The trigger router's rules over a message's classes and its shape: the
current-information class, the "how much" rules, an exchange between currencies, a web
address, a release tag, a code identifier, a commit id, the question about the user's own
things, and the short triggers that count only with a second cue. Each adds to a tool's
score with the reason; none decides alone which tools are shown (router/ranking.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pytest_tooleval.router.ranking import FAMILY_OF
from pytest_tooleval.text.normalize import Normalized

WEB_TOOL = "web_search"
FETCH_TOOL = "web_fetch"
CALCULATOR_TOOL = "calculator"
URL_WEIGHT = 3.0
CODE_TOOL = "grep_code"
PERSONAL_TOOLS = ("search_documents", "memory_search", "calendar_list")
QUESTION_WEIGHT = 0.25
IDENTIFIER_WEIGHT = 2.0
# Two currencies (data key current_info.exchange: names, not price words like "ücret")
# with a number ("300 pounds into lira", "180€ kaç ₺"): an exchange needs
# today's rate (web_search) and the arithmetic (calculator).
EXCHANGE_WEIGHT = 3.0
VERSION_WEIGHT = 1.5
VERSION_TOOLS = ("git_show", "git_branches", "git_log", "git_diff")
COMMIT_ID_TOOLS = (("git_show", 3.0), ("git_diff", 1.5), ("git_log", 1.5))
FILE_FAMILIES = ("files", "archives")  # a file name confirms their short triggers
FILE_NAME_MIN_WEIGHT = 2.0  # … of normal weight in the message's language (not a weak not*)


class Tally:
    """Each catalogue tool's score and the reasons behind it; votes for other tools are
    dropped."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.scores: dict[str, float] = defaultdict(float)
        self.reasons: dict[str, list[str]] = defaultdict(list)

    def add(self, tool: str, weight: float, why: str) -> None:
        if tool in self.names:
            self.scores[tool] += weight
            self.reasons[tool].append(why)


def apply_classes(text: Normalized, classes: dict[str, list[str]], tally: Tally) -> None:
    """The current-information class and the "how much" rules."""
    strong, weak, time = classes["topics"], classes["weak_topics"], classes["time"]
    topics = len(strong) + len(weak)
    if topics and (strong or time or len(weak) >= 2):
        gain = 3.0 + min(topics - 1, 2) + (1.0 if time else 0.0)
        why = "+".join([*strong, *weak]) + (f" with time word {time[0]!r}" if time else "")
        tally.add(WEB_TOOL, gain, f"current information: {why}")
    elif topics:
        tally.add(WEB_TOOL, 1.0, f"current information (weak, no time word): {weak[0]}")
    if text.has_url:
        tally.add(FETCH_TOOL, URL_WEIGHT, "a web address")
    for tool in VERSION_TOOLS if text.has_version else ():
        tally.add(tool, VERSION_WEIGHT, "a release tag (v1.2.3)")
    if text.has_identifier:
        tally.add(CODE_TOOL, IDENTIFIER_WEIGHT,
                  "a code identifier (snake_case, camelCase or a call)")
    for tool, weight in COMMIT_ID_TOOLS if text.has_commit_id else ():
        tally.add(tool, weight, "a commit id")
    # A question about the user's own things (my, our, benim, bizim) is a look-up in their
    # stores: a weak vote, deciding only among tools nothing else chose. Question words
    # only, never the "?": a register without punctuation must route alike.
    if classes["question"] and classes["personal"]:
        why = f"a question about the user's own things ({classes['personal'][0]!r})"
        for tool in PERSONAL_TOOLS:
            tally.add(tool, QUESTION_WEIGHT, f"question form: {why}")
    how_much = classes["how_much"]
    if how_much and (text.has_number or text.has_operator):
        tally.add(CALCULATOR_TOOL, 3.0, f"{how_much[0]!r} with a number or operator")
    elif text.has_operator:
        tally.add(CALCULATOR_TOOL, 2.0, "an operator between numbers")
    if how_much and classes["currency"]:
        tally.add(WEB_TOOL, 3.0,
                  f"{how_much[0]!r} with a currency word {classes['currency'][0]!r}")
    currencies = list(dict.fromkeys(classes["exchange"]))
    if len(currencies) >= 2 and text.has_number and not own_converter(tally.names):
        why = f"an exchange: {currencies[0]!r} and {currencies[1]!r} with a number"
        for tool in (WEB_TOOL, CALCULATOR_TOOL):
            tally.add(tool, EXCHANGE_WEIGHT, why)


def own_converter(names: Iterable[str]) -> bool:
    """The catalogue has the user's own currency tool (convert_currency, get_fx_rate…):
    an exchange is its job, and the built-ins' exchange votes would crowd it out. Any case:
    getFxRate and convertCurrency are as much a converter as get_fx_rate."""
    return any(
        name not in FAMILY_OF
        and any(word in name.lower() for word in ("currenc", "exchange", "fx"))
        for name in names
    )


def confirmed(
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
