from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.tools.builtin.calc import (
    TOOLS,
    evaluate,
    expression_convention,
    number_style,
    parse_number,
)
from pytest_tooleval.tools.builtin.sandbox import ToolError


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("10 / 4", "2.5"),
        ("10 ÷ 4 × 2", "5"),
        ("2 ^ 10", "1024"),
        ("2 ** 3 ** 2", "512"),
        ("-2 ^ 2", "-4"),
        ("--3", "3"),
        ("0.1 + 0.2", "0.3"),
        ("1/3", "0.3333333333"),
        ("3,5 * 2", "7"),
        ("1.250,50 + 0,5", "1251"),
        ("1,250.50 * 2", "2501"),
        ("1.250.000 / 1000", "1250"),
        ("%18 of 1250", "225"),
        ("18% of 1250", "225"),
        ("1250 + 18%", "1475"),
        ("1250 - 10%", "1125"),
        ("1250 * 18%", "225"),
        ("50%", "0.5"),
        ("2 ^ 0.5", "1.4142135624"),
        ("3 x 4", "12"),
        ("7 − 2", "5"),
        ("(23450 * 12) / 365", "770.9589041096"),
    ],
)
def test_calculator_values(expression: str, expected: str) -> None:
    assert evaluate(expression) == expected


@pytest.mark.parametrize(
    "expression",
    ["1 / 0", "", "2 +", "(1 + 2", "1 + abc", "__import__('os')", "2 ^ 99999999",
     "1..2", "0 ^ -1", "(-8) ^ 0.5", "(" * 500 + "1" + ")" * 500, "1,2,3"],
)
def test_calculator_errors(expression: str) -> None:
    with pytest.raises(ToolError):
        evaluate(expression)


def test_calculator_reads_a_bare_decimal_point_as_python_does() -> None:
    # ".5" could not be read at all and "5." was malformed; Python's float reads both.
    assert evaluate(".5 * 4") == "2" and evaluate("-.25 + 1") == "0.75"
    assert evaluate("5. * 2") == "10" and evaluate("(3 + 2.) / .5") == "10"
    assert evaluate("1,2 + .5") == "1.7"  # a Turkish 1,2 with an English .5: each as written
    for malformed in ("..5", "5..", "1.250.", "5,", ",5", ". 5"):
        with pytest.raises(ToolError):
            evaluate(malformed)


def test_calculator_through_provider(tools) -> None:  # type: ignore[no-untyped-def]
    assert tools.ok("calculator", expression="1250 + 18%") == "1475"
    assert "division by zero" in tools.err("calculator", expression="5/0")
    assert tools.calculator(expression=None).is_error


def test_number_formats() -> None:
    assert parse_number("1,250") == 1250
    assert parse_number("0,125") * 1000 == 125


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # Turkish: a decimal comma makes every dot a thousands separator
        ("97.640 / 1,2", "81366.6666666667"),
        ("97.640 / 1,2 * 1,2", "97640"),
        ("1.250 + 3,5", "1253.5"),
        ("1,250 + 3,5", "4.75"),  # in a Turkish expression 1,250 is 1.25
        ("1.250,50 + 1.250", "2500.5"),
        ("%18 of 1.250,50", "225.09"),
        ("1.250.000 * 1,035", "1293750"),
        ("0,125 * 1.250", "156.25"),
        ("(12.400 + 8.950) / 3,5", "6100"),
        # the ambiguous pair: a dotted three-digit group with a comma number
        ("100.000 * 1,035^6", "122925.5326344516"),
        ("100.000 * 1,035 ^ 6 - 100.000", "22925.5326344516"),
        ("1.250 + 1,250", "1251.25"),
        # English: a decimal point makes every comma a thousands separator
        ("12.50 + 1,250", "1262.5"),
        ("3.5 * 1,035", "3622.5"),
        ("1,250.50 + 1.250", "1251.75"),
        ("1,250,000 * 1.035", "1293750"),
        ("0.125 * 1,035", "129.375"),
        # every number ambiguous and one kind only: today's (English) reading
        ("1.250 * 2", "2.5"),
        ("1,035 * 2", "2070"),
        ("1,250 + 2,500", "3750"),
        # conventions mixed: each number read on its own
        ("3.5 + 2,5", "6"),
        ("1.250,50 + 1,250.50", "2501"),
    ],
)
def test_calculator_number_convention_per_expression(expression: str, expected: str) -> None:
    assert evaluate(expression) == expected


def test_turkish_examples_are_exact() -> None:
    assert evaluate("97.640 / 1,2") == evaluate("97640 / 1.2")
    assert evaluate("100.000 * 1,035^6") == evaluate("100000 * 1.035^6")


@pytest.mark.parametrize(
    ("number", "style"),
    [("1,2", "tr"), ("3,5", "tr"), ("1.250,50", "tr"), ("0,125", "tr"), ("1.250.000", "tr"),
     ("3.5", "en"), ("12.50", "en"), ("1,250.50", "en"), ("0.125", "en"), ("1,250,000", "en"),
     ("1.250", "dot"), ("100.000", "dot"), ("1,035", "comma"), ("1250", None), ("1.", None)],
)
def test_number_style(number: str, style: str | None) -> None:
    assert number_style(number) == style


def test_expression_convention() -> None:
    assert expression_convention(["97.640", "1,2"]) == "tr"
    assert expression_convention(["100.000", "1,035", "6"]) == "tr"
    assert expression_convention(["12.50", "1,250"]) == "en"
    assert expression_convention(["1.250", "2"]) is None
    assert expression_convention(["3.5", "2,5"]) is None
    assert parse_number("1.250", "tr") == 1250 and parse_number("1,035", "tr") * 1000 == 1035
    assert parse_number("1.250", "en") * 100 == 125 and parse_number("1,035", "en") == 1035


def test_calculator_description_states_the_convention() -> None:
    (tool,) = TOOLS
    assert "decimal comma" in tool.description and "97.640 / 1,2" in tool.description
    assert len(tool.description) < 400


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.,+-*/^%() ×÷xof", max_size=40) | st.text(max_size=30))
def test_calculator_never_raises_unexpectedly(expression: str) -> None:
    try:
        result = evaluate(expression)
    except ToolError:
        return
    assert isinstance(result, str) and result


def _turkish(value: Decimal) -> str:
    whole, _, frac = f"{value:,.2f}".partition(".")
    return whole.replace(",", ".") + "," + frac


@settings(max_examples=200, deadline=None)
@given(st.integers(1_000, 10**9), st.integers(1, 10**6))
def test_turkish_formatted_sums_read_as_turkish(whole: int, cents: int) -> None:
    grouped = f"{whole:,}".replace(",", ".")  # 1.250 or 1.250.000
    price = Decimal(cents) / 100
    assert Fraction(evaluate(f"{grouped} + {_turkish(price)}")) == whole + Fraction(price)
    english = f"{whole:,} + {price:,.2f}"
    assert Fraction(evaluate(english)) == whole + Fraction(price)


def test_an_unexpected_number_is_shown_as_written() -> None:
    with pytest.raises(ToolError) as caught:
        evaluate("1 250 + 3")
    assert "Fraction" not in str(caught.value) and "250" in str(caught.value)
