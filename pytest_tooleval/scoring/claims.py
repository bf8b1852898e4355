"""What an answer claims against what happened: the step's ``wrong`` items, a value or a
recipient about a state-checked write that the check did not find, and an action claimed
when none ran.

Read with the evidence matcher and text/values.py, never a judge model. Each finding is a
short reason; ``scoring.outcome`` fails the step on any.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

from pytest_tooleval.cases.evidence import claims_found, same_number, same_phone, value_found
from pytest_tooleval.cases.model import Case, StateCheck
from pytest_tooleval.engine.transcript import StepTranscript
from pytest_tooleval.text.values import (
    MONEY,
    Date,
    Number,
    Person,
    Phone,
    Time,
    answer_values,
    evidence_values,
)
from pytest_tooleval.tools.names import READ_ONLY_BUILTINS
from pytest_tooleval.world.data_io import load_yaml
from pytest_tooleval.world.state import TIME_FIELDS

#: Claims of a done action, read in an answer of a step that expects no tool when nothing
#: with a side effect ran in the case (a closing "thanks" answered with "I've sent it").
#: First person or passive, so that "want me to send it?" is no claim.
ACTION_CLAIMS: tuple[str, ...] = (
    "I've sent", "I have sent", "has been sent", "I've booked", "I have booked",
    "has been booked", "I've saved", "I have saved", "has been saved", "I've scheduled",
    "I have scheduled", "has been scheduled", "I've deleted", "I have deleted",
    "gönderdim", "kaydettim", "ayarladım", "oluşturdum", "sildim", "rezerve ettim",
    "rezervasyon yaptım",
)

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# A path as people write one: folders and a file name with an extension, or a name with one
# (a stem of two characters at least, so that "e.g." and "i.e." are none).
_PATH = re.compile(r"(?<![\w@/.~-])[~\w./-]*[\w-]{2}\.[A-Za-z][A-Za-z0-9]{0,4}(?![\w/])")
_URLISH = re.compile(r"^(?:www\.|[\w-]+\.(?:com|org|net|tr|de|io)$)")

Kind = str  # "time", "date", "amount", "phone", "email", "path"
#: Record fields that name the person a write went to (a message's ``to``).
RECIPIENT_FIELDS = frozenset({"to"})


def wrong_claims(items: Sequence[str], answer: str, language: str) -> list[str]:
    """The step's ``wrong`` items the answer states, as reasons."""
    return [f"the answer states {item!r}, which is wrong here ('wrong')"
            for item in claims_found(list(items), answer, language)]


def _moment(value: str) -> list[Date | Time]:
    """A record's time field (ISO, no offset: the world's local time) as a date and a
    time; an offset would need the world's zone, so that one is not read."""
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        return []
    if when.tzinfo is not None:
        return []
    found: list[Date | Time] = [Date(when.year, when.month, when.day)]
    return found + [Time(when.hour, when.minute)] if len(value.strip()) > 10 else found


def _text_values(text: str, language: str) -> dict[Kind, list[object]]:
    """The values of the kinds compared here that a text states."""
    stated = answer_values(text, language)
    return {
        "time": list(stated.times), "date": list(stated.dates),
        "amount": [n for n in stated.numbers if n.unit in MONEY],
        # A date's digits are no phone number (2026-03-17 reads 20260317 there too).
        "phone": [p for p in stated.phones if p.digits not in {
            f"{d.year}{d.month:02d}{d.day:02d}" for d in stated.dates if d.year}],
        "email": [m.group().lower().rstrip(".") for m in _EMAIL.finditer(text)],
        "path": [m.group() for m in _PATH.finditer(text)
                 if "@" not in m.group() and not _URLISH.match(m.group())],
    }


def _record_values(checks: Iterable[StateCheck], language: str) -> dict[Kind, list[object]]:
    """The values of each kind the state checks expect the write to have left."""
    found: dict[Kind, list[object]] = {}

    def add(kind: Kind, value: object) -> None:
        found.setdefault(kind, []).append(value)

    for check in checks:
        kind = check.kind
        if kind in ("file", "absent"):
            add("path", getattr(check, kind))
            texts = [check.contains] if isinstance(check.contains, str) else \
                list(check.contains or [])
        elif kind == "commit":
            assert check.commit is not None
            for path in check.commit.paths or []:
                add("path", path)
            texts = []
        else:
            texts = []
            for name, value in getattr(check, kind).items():
                for alternative in [value] if isinstance(value, str) else value:
                    if name in TIME_FIELDS:
                        for moment in _moment(alternative):
                            add("date" if isinstance(moment, Date) else "time", moment)
                    else:
                        texts.append(alternative)
        for text in texts:
            for value in evidence_values(text, language):
                if isinstance(value, Phone):
                    add("phone", value)
                elif isinstance(value, Number) and value.unit in MONEY:
                    add("amount", value)
            for match in _EMAIL.finditer(text):
                add("email", match.group().lower())
    return found


def _same(kind: Kind, want: object, got: object) -> bool:
    if kind == "amount":
        assert isinstance(want, Number) and isinstance(got, Number)
        return same_number(want, got) or same_number(got, want)
    if kind == "phone":
        assert isinstance(want, Phone) and isinstance(got, Phone)
        # A local number is the end of one with its area code (418 33 27, 0216 418 33 27).
        shorter, longer = sorted((want.digits, got.digits), key=len)
        return same_phone(want, got) or (len(shorter) >= 7 and longer.endswith(shorter))
    if kind == "date":
        assert isinstance(want, Date) and isinstance(got, Date)
        return (want.month, want.day) == (got.month, got.day) and \
            (want.year is None or got.year is None or want.year == got.year)
    if kind == "path":
        a, b = (str(p).strip().strip("/").removeprefix("~/").split("/") for p in (want, got))
        fewer, more = sorted((a, b), key=len)
        return more[len(more) - len(fewer):] == fewer
    return want == got


def state_contradictions(case: Case, index: int, transcripts: Sequence[StepTranscript],
                         language: str) -> list[str]:
    """What the step's answer states about its state-checked write that the checks did not
    find: of a kind the checks name (a time, date, amount with a currency, phone number,
    e-mail address or path), the answer states values and none of them is the checks'; or
    it names a recipient (``_wrong_recipients``) the checks did not find.
    A value beside the right one is context ("your meeting is at 14:00, so the reminder is
    at 13:00"), and so is one the conversation showed (a message, a tool result); an answer
    that states no value of those kinds says nothing to contradict."""
    checks = case.checks_after(index)
    if not checks:
        return []
    record = _record_values(checks, language)
    stated = _text_values(transcripts[index].answer or "", language)
    shown = [case.steps[i].message for i in range(index + 1)]
    shown += [a.result or "" for t in transcripts[:index + 1] for a in t.attempts]
    seen = [_text_values(text, language) for text in shown]
    reasons = []
    for kind, wanted in record.items():
        if any(_same(kind, want, got) for want in wanted for got in stated[kind]):
            continue
        for got in stated[kind]:
            if any(_same(kind, old, got) for values in seen for old in values[kind]):
                continue
            reasons.append(f"the answer states the {kind} {_shown(got)}, but the state "
                           f"check found {', '.join(dict.fromkeys(_shown(w) for w in wanted))}")
    return reasons + _wrong_recipients(checks, transcripts[index].answer or "", shown, language)


def _named(name: str, text: str, language: str) -> bool:
    """``text`` names the person ``name``: as evidence matches a person (the full name, the
    surname, initial and surname), or by the given name, capitalised (Selin'e)."""
    given = {v.given for v in evidence_values(name, language) if isinstance(v, Person)}
    return value_found(name, text, language) or any(
        word.capital and word.folded in given for word in answer_values(text, language).words)


def _same_address(known: str, given: str, language: str) -> bool:
    """The two texts give the same phone number or e-mail address."""
    first, second = _text_values(known, language), _text_values(given, language)
    return any(_same(kind, a, b) for kind in ("phone", "email")
               for a in first[kind] for b in second[kind])


def _wrong_recipients(checks: Iterable[StateCheck], answer: str, shown: Sequence[str],
                      language: str) -> list[str]:
    """The world's known people (its contacts) that the answer names, when the checks'
    recipient field (``RECIPIENT_FIELDS``) names another and the answer does not name that
    one too. The recipient is a contact the field names, or
    has the phone number or e-mail address it gives; a person the conversation showed is
    context ("Selin reviewed it, I told Mira")."""
    wanted = [alternative for check in checks if check.kind not in ("file", "absent", "commit")
              for name, value in getattr(check, check.kind).items() if name in RECIPIENT_FIELDS
              for alternative in ([value] if isinstance(value, str) else value)]
    if not wanted:
        return []
    contacts = load_yaml("people.yaml")["contacts"]
    right = [name for name, phone, email, *_ in contacts if any(
        _named(name, alternative, language) or _same_address(f"{phone} {email}", alternative,
                                                             language)
        for alternative in wanted)]
    named = [name for name, *_ in contacts if _named(name, answer, language)]
    if set(named) & set(right):
        return []
    return [f"the answer states the recipient {name}, but the state check found "
            f"{', '.join(right or wanted[:1])}" for name in named
            if not any(_named(name, text, language) for text in shown)]


def _shown(value: object) -> str:
    if isinstance(value, Time):
        return f"{value.hour:02d}:{value.minute:02d}"
    if isinstance(value, Date):
        return f"{value.year or '?'}-{value.month:02d}-{value.day:02d}"
    if isinstance(value, Number):
        return f"{value.value} {value.unit or ''}".strip()
    if isinstance(value, Phone):
        return value.digits
    return repr(value)


def action_claims(transcripts: Sequence[StepTranscript], index: int,
                  language: str) -> list[str]:
    """In the answer of a step that expects no tool, a claim of an action
    (``ACTION_CLAIMS``) when no call with a possible side effect ran in the case without
    an error (a call the machine cut off may have acted before it failed): a call's record
    (``Attempt.read_only``, from its tool's spec) says whether it only read; without one
    (an older report), a read-only built-in's name does; an undeclared tool may have
    acted."""
    acted = any(a.valid and not a.result_is_error and not (
                    a.read_only if a.read_only is not None else a.name in READ_ONLY_BUILTINS)
                for t in transcripts for a in t.attempts)
    if acted:
        return []
    return [f"the answer claims an action ({item!r}) but nothing with a side effect ran"
            for item in claims_found(list(ACTION_CLAIMS), transcripts[index].answer or "",
                                     language)]


def contradictions(case: Case, transcripts: Sequence[StepTranscript],
                   language: str) -> list[list[str]]:
    """Per step, the reasons its answer contradicts the case or what happened."""
    return [wrong_claims(step.wrong, transcripts[index].answer or "", language)
            + state_contradictions(case, index, transcripts, language)
            + (action_claims(transcripts, index, language) if not step.routes else [])
            for index, step in enumerate(case.steps)]
