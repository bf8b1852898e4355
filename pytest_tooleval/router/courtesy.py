"""Courtesy-only messages: greetings, thanks and closings ("hi, how are you", "merhaba
nasılsın", "thanks, that's all", "sağ ol, bu kadar").

Such a message asks for nothing, so the learned cue (router/lexical.py) gives it no vote
("bu kadar", learned from many "ne kadar" look-ups, pulled closings towards web_search). A
message counts as courtesy only when *every* word is a courtesy word, so "thanks, what's
the weather" and "merhaba, dolar kaç" keep their votes. An acknowledgement of what came
or worked ("ok got your message", "mesajını aldım sağ ol", "sağ olun, alarm çaldı") counts
as courtesy too.
"""

from __future__ import annotations

from collections.abc import Sequence

# ASCII-folded words (text.normalize), both languages: the router sees folded words.
COURTESY_WORDS = frozenset(
    [
        "thank", "thanks", "thankyou", "ty", "thx", "cheers", "ta", "you", "a", "lot", "so",
        "very", "much", "that", "thats", "s", "was", "is", "it", "all", "for", "now",
        "helpful", "great", "good", "ok", "okay", "perfect", "fine", "lovely", "nice",
        "brilliant", "bye", "goodbye", "cool", "done", "enough", "nothing", "else", "yes",
        "yeah", "yep", "yup", "evet", "this", "sag",
        "ol", "olun", "saol", "sagol", "tesekkur", "tesekkurler", "tesekkurederim",
        "ederim", "ederiz", "eyvallah", "mersi", "bu", "o", "kadar", "tamam", "tamamdir",
        "yeter", "iyi", "guzel", "super", "harika", "cok", "eline", "saglik", "gorusuruz",
        "hoscakal", "hosca", "kal", "simdilik", "baska", "bir", "sey", "yok", "istemez",
        "gerek",
        # greetings; chat shorthand arrives expanded (slm, mrb, nbr: dialect.py)
        "hi", "hello", "hey", "hiya", "howdy", "there", "how", "are", "doing", "today",
        "morning", "afternoon", "evening", "day", "have", "hope", "well", "going", "whats",
        "up", "yo", "merhaba", "merhabalar", "selam", "selamlar", "selamun", "aleykum",
        "nasilsin", "nasilsiniz", "naber", "ne", "haber", "napiyorsun", "napiyon",
        "yapiyorsun", "gunaydin", "gunler", "aksamlar", "geceler", "sabahlar", "hayirli",
        "kolay", "gelsin", "misin", "misiniz", "sen", "siz", "canim", "hocam", "abi",
        "abla", "kanka", "kardes", "kardesim", "what", "re", "i", "m",
    ]
)


# Verbs of what came or worked: each acknowledges, in its clause, the word before it and the
# word after it, with their determiners ("message received", "got your message"); a Turkish
# one ends its clause, so only the word before it ("mesajını aldım", not "kira geldi kaydet").
ACKNOWLEDGING_TR = frozenset(["aldim", "aldik", "geldi", "caldi", "gordum", "gorduk", "calisti"])
ACKNOWLEDGING = ACKNOWLEDGING_TR | frozenset(["got", "received", "saw", "seen", "worked",
                                              "arrived", "came", "went"])
DETERMINERS = frozenset(["the", "a", "an", "your", "my", "our", "his", "her", "their", "this"])


def acknowledged(words: tuple[str, ...], cuts: Sequence[int]) -> set[int]:
    """The positions of the acknowledging verbs and the words they acknowledge; ``cuts``:
    where the message's clauses end."""
    found: set[int] = set()
    for at in (at for at, word in enumerate(words) if word in ACKNOWLEDGING):
        start = max((cut for cut in cuts if cut <= at), default=0)
        end = min((cut for cut in cuts if cut > at), default=len(words))
        first = next((i for i in range(at - 2, start - 1, -1) if words[i] not in DETERMINERS),
                     start - 1) + 1
        if words[at] not in ACKNOWLEDGING_TR:
            last = next((i for i in range(at + 1, end) if words[i] not in DETERMINERS), end - 1)
        else:  # the word after a Turkish verb is its next clause ("kira geldi kaydet"), but
            # where the verb opens its clause in a thanks, an inverted object ("aldım mesajını
            # teşekkürler"; not "çalıştı commit")
            opens = all(word in COURTESY_WORDS for word in words[start:at])
            last = min(at + 1, end - 1) if opens and COURTESY_WORDS.intersection(words) else at
        found.update(range(max(start, first), last + 1))
    return found


def is_courtesy(words: tuple[str, ...], cuts: Sequence[int] = ()) -> bool:
    """Every word is a thanks or closing word or part of an acknowledgement (``cuts``: where
    the message's clauses end), and there is at least one."""
    acked = acknowledged(words, cuts)
    return bool(words) and all(w in COURTESY_WORDS or i in acked for i, w in enumerate(words))
