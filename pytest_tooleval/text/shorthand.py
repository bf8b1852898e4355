"""Chat shorthand in English, as people type it to an assistant.

*tmrw, pls, msg, appt, bday, b4, ppl, wknd*: each maps to the word the triggers are
written with (*tomorrow, please, message, …*). Only forms that are no other word and no
file extension: not *atm* (a cash machine), *r*, *u* or *w* (letters of codes and paths),
*txt* or *doc*. Turkish chat shorthand lives with the dialect spellings (text/dialect.py:
*msj, tlf, yrn, bgn*).
"""

from __future__ import annotations

ENGLISH_SHORTHAND: dict[str, tuple[str, ...]] = {
    word: tuple(expanded.split())
    for word, expanded in {
        "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow",
        "2moro": "tomorrow", "2day": "today", "tonite": "tonight", "2nite": "tonight",
        "pls": "please", "plz": "please", "msg": "message", "msgs": "messages",
        "appt": "appointment", "appts": "appointments",
        "bday": "birthday", "b4": "before", "ppl": "people", "wknd": "weekend",
        "abt": "about", "thx": "thanks", "thnx": "thanks", "ty": "thank you",
        "rn": "right now", "mins": "minutes", "hrs": "hours", "yrs": "years",
        "wk": "week", "wks": "weeks", "convo": "conversation", "pic": "photo", "pics": "photos",
        "fav": "favourite", "fave": "favourite", "addr": "address",
    }.items()
}
