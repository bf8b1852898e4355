"""Turkish as people type it, mapped to the standard spelling the triggers are written in.

Registers the router must serve (docs/router.md): chat shorthand (*tmm, slm, bi, bişey*),
colloquial and Anatolian spellings (*nerde, napıyon, gardaş, heç, böle*), the spoken
progressive and future (*geliyom* → geliyorum, *yapıcam* → yapacağım), and the question
particle written onto the word (*varmı* → var mı, *yaparmısın* → yapar mısın), and the
git words spelt as said (*komit, gomit, branç* → commit, branch).

The Anatolian voiced initial k (*gadar*, *gapı*, *galıyom*) cannot be undone word by word
(*gaz*, *gol* are words too); the router tries the k-form of a word that matched nothing
(``voiceless``).

Rules work on one Turkish-lowercased word at a time (letters kept or ASCII-typed: a rule's
key is the folded form, so *napiyon* is found like *napıyon*) and may return several words.
They are deliberately few and general: a rule that would also rewrite a standard word
(*fonksiyon* is no *-iyon* progressive, *kendimi* no *kendi mi*) is left out.
"""

from __future__ import annotations

import re
from functools import lru_cache

_FOLD = str.maketrans({"ı": "i", "ş": "s", "ğ": "g", "ç": "c", "ö": "o", "ü": "u"})


def _key(word: str) -> str:
    return word.translate(_FOLD)


# Whole words: shorthand, colloquial and dialect spellings → standard Turkish.
_LEXICON_SOURCE: dict[str, str] = {
    # chat shorthand
    "bi": "bir", "bişey": "bir şey", "bişi": "bir şey", "birşey": "bir şey",
    "bişeyi": "bir şeyi", "birşeyi": "bir şeyi", "herşey": "her şey", "hiçbişey": "hiçbir şey",
    "tmm": "tamam", "tmam": "tamam", "slm": "selam", "mrb": "merhaba", "mrhb": "merhaba",
    "nbr": "ne haber", "knk": "kanka", "lfn": "lütfen", "lütfn": "lütfen", "ltfn": "lütfen",
    "saol": "sağ ol", "sağol": "sağ ol", "tşk": "teşekkürler", "tşkler": "teşekkürler",
    "tesekkurler": "teşekkürler", "nolur": "ne olur", "noldu": "ne oldu", "nolcak": "ne olacak",
    "nezaman": "ne zaman", "nekadar": "ne kadar", "nasi": "nasıl",
    "dimi": "değil mi", "deil": "değil", "diil": "değil", "dii": "değil",
    "msj": "mesaj", "mesj": "mesaj", "msjı": "mesajı", "msja": "mesaja", "tlf": "telefon",
    "tlfn": "telefon", "yrn": "yarın", "bgn": "bugün", "hfta": "hafta", "cmt": "cumartesi",
    "pzt": "pazartesi", "rndv": "randevu", "şfre": "şifre",
    # colloquial spellings
    "nerde": "nerede", "nerdeydi": "neredeydi", "burda": "burada", "şurda": "şurada",
    "orda": "orada", "nerden": "nereden", "burdan": "buradan", "ordan": "oradan",
    "böle": "böyle", "öle": "öyle", "şöle": "şöyle", "bööle": "böyle",
    "napıyon": "ne yapıyorsun", "napıyosun": "ne yapıyorsun", "napıyoz": "ne yapıyoruz",
    "napıyom": "ne yapıyorum", "napcam": "ne yapacağım", "napıcam": "ne yapacağım",
    "napim": "ne yapayım", "napıyım": "ne yapayım", "napayım": "ne yapayım",
    "naptın": "ne yaptın", "napalım": "ne yapalım", "napsak": "ne yapsak",
    "biliyon": "biliyorsun", "geliyon": "geliyorsun", "diyon": "diyorsun",
    "istiyon": "istiyorsun", "görüyon": "görüyorsun", "bakıyon": "bakıyorsun",
    "yapıyon": "yapıyorsun", "gidiyon": "gidiyorsun",
    # Anatolian: voiced initial k, h-dropping and vowel changes on common words
    "gardaş": "kardeş", "gardaşım": "kardeşim", "gardeş": "kardeş", "gapı": "kapı",
    "galdır": "kaldır", "heç": "hiç", "gine": "yine", "gene": "yine", "şindi": "şimdi",
    "şimdik": "şimdi", "eczahane": "eczane", "eczahaneye": "eczaneye",
    "hastahane": "hastane", "hastahaneye": "hastaneye", "elektirik": "elektrik",
    "ilaçımı": "ilacımı", "doktur": "doktor",
}
_LEXICON: dict[str, tuple[str, ...]] = {
    _key(word): tuple(standard.split()) for word, standard in _LEXICON_SOURCE.items()
}

# The spoken progressive and future: geliyom → geliyorum, yapıcam → yapacağım.
_SUFFIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<=..)([ıiuü])yom$"), r"\1yorum"),
    (re.compile(r"(?<=..)([ıiuü])yoz$"), r"\1yoruz"),
    (re.compile(r"(?<=..)([ıiuü])yosun$"), r"\1yorsun"),
    (re.compile(r"(?<=..)([ıiuü])yonuz$"), r"\1yorsunuz"),
    (re.compile(r"(?<=..)([ıiuü])yo$"), r"\1yor"),
    (re.compile(r"(?<=..)([ıiuü])yodu$"), r"\1yordu"),
    # After a consonant, or the buffer vowel after one (yapıcam, alcam), never after
    # another vowel (kocam is "my husband").
    (re.compile(r"(?<=.[^aeıioöuü])[ıu]?cam$"), "acağım"),
    (re.compile(r"(?<=.[^aeıioöuü])i?cem$"), "eceğim"),
    (re.compile(r"(?<=.[^aeıioöuü])[ıu]?caz$"), "acağız"),
    (re.compile(r"(?<=.[^aeıioöuü])i?cez$"), "eceğiz"),
)
_NOT_SPOKEN = frozenset({"webcam", "bilyon"})
_SPOKEN_ENDINGS = ("yom", "yoz", "yosun", "yonuz", "yo", "yodu", "cam", "cem", "caz", "cez")

# The question particle written onto the word: only after an aorist (yapar+mısın) or
# after a predicate word that is common in questions; never after a possessive (kendimi).
_PARTICLE = re.compile(r"^(.{2,}?)(m[ıiuü](?:s[ıiuü]n(?:[ıiuü]z)?|y[dt][ıiuü]|ym[ıiuü]ş)?)$")
_AORIST = re.compile(r"(?:[aeıioöuü]r)$")
_PREDICATES = frozenset(
    _key(word)
    for word in (
        "var", "yok", "açık", "kapalı", "tatil", "lazım", "mümkün", "doğru", "tamam",
        "uygun", "boş", "dolu", "geldi", "oldu", "bitti", "yağdı", "çıktı", "kaldı", "arandı",
        "gitti", "ödendi", "yattı", "iyi", "kötü", "ucuz", "pahalı", "normal", "nöbetçi",
    )
)


# The "quickly do it for me" compound of older speakers: bakıver, yazıver, okuyuver,
# söyleyiverir misin → the verb itself (bak, yaz, oku, söyle). Only with a verbal ending
# after "ver", so üniversite is no compound.
_QUICKLY = re.compile(
    r"^(.{2,}?)(?:y?[ıiuü])ver(?:sene|sana|sin|sen|ir|irsin|irsiniz|in|iniz|eyim|elim|ecek\w*|"
    r"ebil\w*|di\w*|se|iyor\w*|iyo\w*)?$"
)


# English git words as they are said and typed in Turkish: *komit*, *gomit* (the voiced
# Anatolian k), *branç* → commit, branch, with the Turkish ending kept (komitte → committe,
# branççları → branchları). Never *komite* (a committee): the e after komit- is no ending.
_LOANWORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^[kg]omm?it(?!e)(\w*)$"), r"commit\1"),
    (re.compile(r"^branç(\w*)$"), r"branch\1"),
)


def _loanword(word: str) -> str | None:
    for pattern, replacement in _LOANWORDS:
        changed = pattern.sub(replacement, word)
        if changed != word:
            return changed
    return None

# The two-letter verbs that end in a vowel and so take a buffer y (deyiver, yeyiver).
_VOWEL_ROOTS = frozenset({"de", "ye"})


def _quickly(word: str) -> str | None:
    found = _QUICKLY.match(word)
    if not found:
        return None
    root = found.group(1)
    if len(root) == 2 and root not in _VOWEL_ROOTS and word[2:3] == "y":
        root = word[:3]  # koyuver → koy, duyuver → duy (the y is the root's, not a buffer)
    if root.endswith("d") and len(root) >= 3:  # kaydediver → kaydet, gidiver → git
        root = root[:-1] + "t"
    return root


def _split_particle(word: str) -> tuple[str, ...] | None:
    found = _PARTICLE.match(word)
    if not found:
        return None
    head, particle = found.groups()
    if _key(head) in _PREDICATES or (len(head) >= 4 and _AORIST.search(head) and
                                     particle[2:3] == "s"):
        return head, particle
    return None


@lru_cache(maxsize=16384)
def standard_words(word: str) -> tuple[str, ...]:
    """One Turkish-lowercased word in its standard spelling (one or more words)."""
    standard = _LEXICON.get(_key(word))
    if standard is not None:
        return standard
    split = _split_particle(word) if "m" in word[2:] else None
    if split is not None:
        return split
    root = _quickly(word) if "ver" in word else None
    if root is not None:
        return (root,)
    loan = _loanword(word) if word[:1] in "kgb" else None
    if loan is not None:
        return (loan,)
    if len(word) >= 5 and word.endswith(_SPOKEN_ENDINGS) and word not in _NOT_SPOKEN:
        for pattern, replacement in _SUFFIXES:
            changed = pattern.sub(replacement, word)
            if changed != word:
                return (changed,)
    return (word,)


def standardize(words: tuple[str, ...]) -> tuple[str, ...]:
    """Every word of a message through ``standard_words``."""
    return tuple(part for word in words for part in standard_words(word))


_VOICED = {"g": "k", "d": "t"}


def voiceless(word: str) -> str:
    """The voiceless form of an Anatolian voiced initial consonant before a vowel: g → k
    (gadar → kadar, goy → koy), d → t (daşı → taşı, duz → tuz); "" for none."""
    if len(word) >= 3 and word[0] in _VOICED and word[1] in "aeıioöuü":
        return _VOICED[word[0]] + word[1:]
    return ""
