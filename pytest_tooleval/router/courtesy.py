"""Courtesy-only messages: greetings, thanks and closings ("hi, how are you", "merhaba
nasılsın", "thanks, that's all", "sağ ol, bu kadar").

Such a message asks for nothing, so the learned cue (router/lexical.py) gives it no vote
("bu kadar", learned from many "ne kadar" look-ups, pulled closings towards web_search). A
message counts as courtesy only when *every* word is a courtesy word, so "thanks, what's
the weather" and "merhaba, dolar kaç" keep their votes.
"""

from __future__ import annotations

# ASCII-folded words (text.normalize), both languages: the router sees folded words.
COURTESY_WORDS = frozenset(
    [
        "thank", "thanks", "thankyou", "ty", "thx", "cheers", "ta", "you", "a", "lot", "so",
        "very", "much", "that", "thats", "s", "was", "is", "it", "all", "for", "now",
        "helpful", "great", "good", "ok", "okay", "perfect", "fine", "lovely", "nice",
        "brilliant", "bye", "goodbye", "cool", "done", "enough", "nothing", "else", "sag",
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


def is_courtesy(words: tuple[str, ...]) -> bool:
    """Every word is a thanks or closing word (and there is at least one)."""
    return bool(words) and all(word in COURTESY_WORDS for word in words)
