"""Value-aware evidence (issue 30, item 2): a number, date, time, phone number, amount,
score or person matches the same value written another way, and never another value."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pytest_tooleval.cases.evidence import evidence_found

ROOT = Path(__file__).resolve().parent.parent


def found(value: str, answer: str, language: str = "en") -> bool:
    return evidence_found([value], answer, language)


# -- the named examples: the correct answer passes, a wrong one does not ----------
@pytest.mark.parametrize(
    ("value", "right", "wrong", "language"),
    [
        ("5.878,1", "Fazla mesai ücretiniz 5.878,13 TL.", "Ücretiniz 5.878,31 TL.", "tr"),
        ("5.878,125", "Kişi başı 5.878,13 TL.", "Kişi başı 5.787,13 TL.", "tr"),
        ("2026-03-11", "It was last touched on 11th March 2026.", "on 11th March 2025", "en"),
        ("2026-03-11", "Last edit: Mar 11.", "Last edit: Mar 12.", "en"),
        ("2025-06-17", "It shipped on 17th June 2025.", "It shipped on 17th July 2025.", "en"),
        ("15173382094", "Sent to +4915173382094.", "Sent to +4915173382049.", "en"),
        ("18:15", "Yarın, cuma günü saat 18:15'te.", "Yarın saat 18:51'de.", "tr"),
        ("486,72", "Faturanız 486 lira 72 kuruş.", "Faturanız 486 lira 27 kuruş.", "tr"),
        ("1742500", "1 milyon 742 bin 500 TL", "1 milyon 742 bin TL", "tr"),
        ("3-1", "They won 3 to 1.", "They won 3 to 2.", "en"),
        ("232.8", "about 233 °C", "about 230 °C", "en"),
        ("2026-01-24", "24/01/2026", "24/02/2026", "en"),
        ("2026-01-24", "Jan 24, 2026", "Jan 25, 2026", "en"),
        ("2026-03-27", "on the 27th of March", "on the 17th of March", "en"),
        ("2026-04-17", "Nisan'ın 17'si", "Nisan'ın 7'si", "tr"),
        ("08:15", "8:15 am", "8:15 pm", "en"),
        ("18:15", "quarter past six in the evening", "quarter to six in the evening", "en"),
        ("18:00", "akşam 6'da", "sabah 6'da", "tr"),
        ("18", "There are 18 files.", "There are 180 files.", "en"),
        ("5.878", "The ratio is 5.878.", "The ratio is 5.87.", "en"),
        ("0,21", "%0.21 yükseldi", "%0.2 yükseldi", "tr"),  # two significant digits at least
        ("Merve Tunç", "M. Tunç sent it.", "Merve Yıldız sent it.", "en"),
        ("Tobias Keller", "Keller made the last commit.", "Jonas Keller made it.", "en"),
        ("Tobias Keller", "By T. Keller.", "By J. Keller.", "en"),
        ("Selin Aydın", "Dosyayı Aydın Hanım hazırlamış.", "Dosyayı Mira Aydın hazırlamış.", "tr"),
    ],
)
def test_named_examples(value: str, right: str, wrong: str, language: str) -> None:
    assert found(value, right, language), right
    assert not found(value, wrong, language), wrong


def test_units_must_agree_where_both_are_given() -> None:
    assert found("62 gram", "62 gr protein", "tr")
    assert found("78 gün", "78 days left")
    assert not found("78 gün", "78 saat kaldı", "tr")
    assert found("%18", "KDV yüzde 18", "tr")
    assert not found("%18", "KDV yüzde 8", "tr")


def test_a_count_is_exact_and_a_scale_word_is_not_a_rounding() -> None:
    assert not found("18", "18.4 kg")
    assert found("18.000", "18 bin TL", "tr")
    assert not found("18.000", "18 TL", "tr")
    assert not found("1742500", "about 1.74 million")


def test_the_agreement_script_meets_its_goal() -> None:
    """The independent answer set (evals/answers/) is read only by its script."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "answer_agreement.py")],
                            capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all" in result.stdout


# -- properties: every correct form matches, a different value never does -----------------
def number_forms(value: Decimal, decimals: int) -> list[str]:
    """``value`` (shown with ``decimals`` decimals) as people write it."""
    text = f"{value:,.{decimals}f}"  # 1,234.56
    turkish = text.translate(str.maketrans(",.", ".,"))
    plain = text.replace(",", "")
    return [text, turkish, plain, plain.replace(".", ","), text.replace(",", " "),
            f"{turkish} TL", f"${text}", f"{turkish}₺", f"{plain} kg"]


amounts = st.builds(lambda units, decimals: (Decimal(units).scaleb(-decimals), decimals),
                    st.integers(min_value=10, max_value=10**8), st.integers(0, 3))


@settings(max_examples=200)
@given(amounts, st.sampled_from(["en", "tr"]))
def test_every_written_form_of_a_number_matches(amount: tuple[Decimal, int],
                                                language: str) -> None:
    value, decimals = amount
    evidence = f"{value:.{decimals}f}"
    if language == "tr":
        evidence = evidence.replace(".", ",")
    for form in number_forms(value, decimals):
        assert found(evidence, f"Toplam {form} oldu.", language), (evidence, form)
    for shown in range(decimals):  # rounded to fewer decimals, two significant digits kept
        rounded = value.quantize(Decimal(1).scaleb(-shown), ROUND_HALF_UP)
        if len(str(int(rounded.scaleb(shown)))) >= 2:
            assert found(evidence, f"about {rounded:,.{shown}f}", language), (evidence, shown)


@settings(max_examples=200)
@given(amounts, st.integers(min_value=1, max_value=10**4), st.sampled_from(["en", "tr"]))
def test_a_different_number_never_matches(amount: tuple[Decimal, int], step: int,
                                          language: str) -> None:
    value, decimals = amount
    other = value + Decimal(step).scaleb(-decimals)
    evidence = f"{value:.{decimals}f}"
    if language == "tr":
        evidence = evidence.replace(".", ",")
    for form in number_forms(other, decimals):
        assert not found(evidence, f"Toplam {form} oldu.", language), (evidence, form)
    assert not found(evidence, f"Toplam {step}{evidence}.", language)
    longer = f"{evidence}{step}"  # no 18 inside 180; 5.878 in 5.8784 only as its rounding
    rounds_to_it = decimals > 0 and str(step)[0] < "5"
    assert found(evidence, f"Toplam {longer}.", language) is rounds_to_it, longer


MONTHS_EN = ["January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December"]
MONTHS_TR = ["Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos",
             "Eylül", "Ekim", "Kasım", "Aralık"]
DAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def date_forms(day: date, with_year: bool = True) -> list[str]:
    en, tr = MONTHS_EN[day.month - 1], MONTHS_TR[day.month - 1]
    dated = [f"{day:%Y-%m-%d}", f"{ordinal(day.day)} {en} {day.year}",
             f"{DAYS_EN[day.weekday()]}, {en} {day.day}, {day.year}", f"{day:%d.%m.%Y}",
             f"{day.day} {tr} {day.year}", f"{day:%d/%m/%Y}", f"{en[:3]} {day.day}, {day.year}"]
    if not with_year:
        return dated
    return dated + [f"the {ordinal(day.day)} of {en}", f"{en[:3]} {day.day}",
                    f"{day.day} {tr}'da", f"{tr}'ın {day.day}'si", f"{ordinal(day.day)} {en}"]


days = st.dates(min_value=date(2020, 1, 1), max_value=date(2030, 12, 31))


@settings(max_examples=150)
@given(days)
def test_every_written_form_of_a_date_matches(day: date) -> None:
    for form in date_forms(day):
        assert found(f"{day:%Y-%m-%d}", f"It is on {form}.", "en"), form
        assert found(f"{day.day} {MONTHS_TR[day.month - 1]}", f"Tarih: {form}.", "tr"), form


@settings(max_examples=150)
@given(days, st.integers(min_value=1, max_value=800))
@example(day=date(2020, 5, 8), offset=89)  # 05.08.2020 (5 August) once read as 8 May
def test_a_different_date_never_matches(day: date, offset: int) -> None:
    other = day + timedelta(days=offset)
    same_day = (other.month, other.day) == (day.month, day.day)
    swapped = (other.day, other.month) == (day.month, day.day)  # 03/11 read the US way
    for form in date_forms(other, with_year=not same_day):
        if swapped and "/" in form:
            continue
        assert not found(f"{day:%Y-%m-%d}", f"It is on {form}.", "en"), form


def time_forms(hour: int, minute: int) -> list[str]:
    twelve = hour % 12 or 12
    suffix = "am" if hour < 12 else "pm"
    forms = [f"{hour:02d}:{minute:02d}", f"{hour}.{minute:02d}", f"{twelve}:{minute:02d} {suffix}",
             f"{twelve}:{minute:02d} {suffix.upper()}", f"{twelve}:{minute:02d}{suffix[0]}.m."]
    if minute == 0:
        forms += [f"{twelve} {suffix}", f"{twelve}{suffix}", f"saat {hour}'de"]
        if 17 <= hour <= 22:
            forms.append(f"akşam {twelve}'da")
        if 6 <= hour <= 10:
            forms.append(f"sabah {hour}'da")
    if minute == 30 and 17 <= hour <= 22:
        forms.append(f"akşam {twelve} buçukta")
    if minute == 15 and 13 <= hour <= 20:
        forms.append(f"quarter past {twelve} in the evening")
    return forms


clock = st.tuples(st.integers(0, 23), st.sampled_from([0, 5, 15, 30, 45, 59]))


@settings(max_examples=150)
@given(clock)
def test_every_written_form_of_a_time_matches(moment: tuple[int, int]) -> None:
    hour, minute = moment
    for form in time_forms(hour, minute):
        assert found(f"{hour:02d}:{minute:02d}", f"Saat: {form}", "tr"), form


@settings(max_examples=150)
@given(clock, clock)
def test_a_different_time_never_matches(moment: tuple[int, int], other: tuple[int, int]) -> None:
    assume(moment != other)
    for form in time_forms(*other):
        assert not found(f"{moment[0]:02d}:{moment[1]:02d}", f"Saat: {form}", "tr"), form


def phone_forms(national: str, country: str) -> list[str]:
    a, b, c, d = national[:3], national[3:6], national[6:8], national[8:]
    return [f"0{a} {b} {c} {d}", f"+{country} {a} {b} {c}{d}", f"+{country}{national}",
            f"(0{a}) {b}-{c}-{d}", f"{a}-{b}-{c}{d}", f"00{country} {national}", national]


nationals = st.integers(min_value=10**9, max_value=10**10 - 1).map(str)


@settings(max_examples=150)
@given(nationals, st.sampled_from(["90", "49", "1", "34"]))
def test_every_written_form_of_a_phone_number_matches(national: str, country: str) -> None:
    for form in phone_forms(national, country):
        assert found(national, f"Numara: {form}.", "tr"), form
        assert found(f"0{national}", f"Numara: {form}.", "tr"), form


@settings(max_examples=150)
@given(nationals, st.integers(0, 9), st.integers(1, 9))
def test_a_different_phone_number_never_matches(national: str, where: int, change: int) -> None:
    digit = str((int(national[where]) + change) % 10)
    other = national[:where] + digit + national[where + 1:]
    for form in phone_forms(other, "90"):
        assert not found(national, f"Numara: {form}.", "tr"), form


def test_tomorrow_today_yesterday_are_read_against_the_cases_clock() -> None:
    today = date(2026, 3, 12)
    assert evidence_found(["2026-03-13"], "Yarın saat 18:15'te.", "tr", today)
    assert evidence_found(["2026-03-13"], "YARIN 18:15", "tr", today)
    assert evidence_found(["13 March"], "Tomorrow at 6.", "en", today)
    assert evidence_found(["2026-03-12"], "Evet, bugün.", "tr", today)
    assert not evidence_found(["2026-03-13"], "today at 6", "en", today)  # the wrong day
    assert not evidence_found(["2026-03-13"], "tomorrow", "en")  # no clock: not exact
    assert not evidence_found(["2026-03-11"], "dünya", "tr", today)  # a word, not "dün"


def test_the_named_release_planning_answer_passes_on_the_cases_clock() -> None:
    from pytest_tooleval.cases.load import load_case_file
    from pytest_tooleval.scoring.outcome import case_today

    case_file = load_case_file(ROOT / "benchmarks/tr/chains.json")
    case = next(c for c in case_file.cases if c.name == "release-planning-pazartesiye-al")
    today = case_today(case_file)
    assert today == date(2026, 3, 12)  # the world's clock: Thursday 12 March
    items = case.steps[0].evidence_alternatives()
    answer = "Yarın, cuma günü saat 18:15'te."
    assert all(evidence_found(alts, answer, "tr", today) for alts in items)
    assert not all(evidence_found(alts, answer, "tr") for alts in items)
