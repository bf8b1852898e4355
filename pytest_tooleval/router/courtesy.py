"""Courtesy-only messages: thanks and closings ("thanks, that's all", "sağ ol, bu kadar").

Such a message asks for nothing, so the learned cue (router/lexical.py) gives it no vote:
with router-eval-4 spent into the training set, "bu kadar" (from many "ne kadar" look-ups)
pulled a closing towards web_search. A message counts as courtesy only when *every* word
is a courtesy word, so "thanks, what's the weather" keeps its vote.
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
        "gerek"
    ]
)


def is_courtesy(words: tuple[str, ...]) -> bool:
    """Every word is a thanks or closing word (and there is at least one)."""
    return bool(words) and all(word in COURTESY_WORDS for word in words)
