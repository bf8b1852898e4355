"""Removal from the calendar said with the ablative (Turkish; docs/router.md "How it works").

Turkish says what an entry is taken out of with the ablative case: *programdan çıkar*,
*ajandamdan kaldırır mısınız*, *takvimimizden bir çıkarıverir misin*. The calendar noun
alone is a calendar word (``calendar_list``'s trigger), and the verb alone is not a
deletion (*çıkar* is also a subtraction and an extraction: *5'ten 3'ü çıkar*, *zipten
çıkar*). Together, a calendar noun in the ablative (with or without a possessive: -dan,
-ımdan, -ımızdan) and a removing verb anywhere in the message (*çıkar-, sil-, kaldır-*)
name a deletion from the calendar: a vote of a normal trigger's weight (2) for
``calendar_delete``, which brings ``calendar_list`` as its companion (the entry's id).

Sixth round: the class had examples in router-eval-4's frozen half (*onu programdan
cikar*, a miss) and router-eval-5's tuning half (*onu ajandadan cikar*, served only by the
fallback), where the strong phrases *takvimden sil\\*, takvimden kaldır\\** did not reach.
"""

from __future__ import annotations

import re

TOOL = "calendar_delete"
WEIGHT = 2.0
# ASCII-folded words (text.normalize): the calendar nouns, an optional possessive (my, our;
# folded ı → i), the ablative (-dan/-den; -ndan after a vowel-final possessive is not needed:
# the possessive ends in m or z).
_ABLATIVE = re.compile(r"(?:takvim|ajanda|program)(?:i?m(?:iz)?)?d[ae]n")
# Removing verbs, any form: çıkar, çıkarıver, çıkartır; sil, silebilir, silinsin; kaldır.
# Never silah (a weapon), silik (faded), silgi (an eraser).
_REMOVE = re.compile(r"(?:cikar|cikart|kaldir|sil(?!ah|ik|gi))\w*")


def calendar_removal(words: tuple[str, ...], names: set[str]) -> list[tuple[str, float, str]]:
    """(tool, weight, reason) when a calendar noun in the ablative and a removing verb meet
    (on different words); empty otherwise or when ``calendar_delete`` is not offered."""
    if TOOL not in names:
        return []
    noun = next((w for w in words if _ABLATIVE.fullmatch(w)), "")
    if not noun:
        return []
    verb = next((w for w in words if w != noun and _REMOVE.fullmatch(w)), "")
    if not verb:
        return []
    return [(TOOL, WEIGHT, f"removal from the calendar ← {noun!r} + {verb!r}")]
