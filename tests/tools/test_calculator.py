from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.tools.builtin.calc import evaluate, parse_number
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


def test_calculator_through_provider(tools) -> None:  # type: ignore[no-untyped-def]
    assert tools.ok("calculator", expression="1250 + 18%") == "1475"
    assert "division by zero" in tools.err("calculator", expression="5/0")
    assert tools.calculator(expression=None).is_error


def test_number_formats() -> None:
    assert parse_number("1,250") == 1250
    assert parse_number("0,125") * 1000 == 125


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.,+-*/^%() ×÷xof", max_size=40) | st.text(max_size=30))
def test_calculator_never_raises_unexpectedly(expression: str) -> None:
    try:
        result = evaluate(expression)
    except ToolError:
        return
    assert isinstance(result, str) and result
