"""``calculator``: exact arithmetic with its own parser (a model's string is never eval'd).

Values are ``Fraction``s, so 0.1 + 0.2 is 0.3. Percentages follow how people write them:
"18% of 1250", "%18 of 1250" (Turkish order), "1250 + 18%" (add 18 percent of 1250).

Number format is decided once per expression (see ``expression_convention``):

- Turkish: a number with a decimal comma ("1,2", "3,5", "0,125", "1.250,50") or several
  dot groups ("1.250.000") makes dots thousands separators and commas decimal marks in the
  whole expression: "97.640 / 1,2" is 97640 / 1.2.
- English: a number with a decimal point ("3.5", "12.50", "0.125"), English order
  ("1,250.50") or several comma groups ("1,250,000") makes commas thousands separators and
  dots decimal points in the whole expression.
- When every number is ambiguous ("1.250", "1,035": one separator followed by exactly three
  digits), the English reading holds (1.25, 1035), except that a dotted number together with
  a comma number reads as Turkish: "100.000 * 1,035^6" is 100000 * 1.035^6.
- An expression mixing the two conventions ("3.5 + 2,5") reads each number on its own.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import Any

from pytest_tooleval.tools.builtin.common import Context, Tool, need_str, prop
from pytest_tooleval.tools.builtin.sandbox import ToolError

MAX_EXPRESSION = 1000
MAX_DEPTH = 100
MAX_BITS = 20_000
MAX_EXPONENT = MAX_EXPRESSION  # no literal of the calculator's own goes past it

# Applied before _TOKEN, which therefore only sees ASCII operators.
_TRANSLATE = str.maketrans({"−": "-", "–": "-", "×": "*", "·": "*", "÷": "/", ":": "/"})
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\.?\d[\d.,]*)|(?P<word>of|x|mod)\b|(?P<op>\*\*|[-+*/^%()x]))",
    re.IGNORECASE,
)


def number_style(text: str) -> str | None:
    """What one number says about the expression's convention.

    "tr" (decimal comma, Turkish order, dot groups), "en" (decimal point, English order,
    comma groups), "dot" or "comma" (one separator before exactly three digits: either
    reading is possible), None (no separator, or malformed: parse_number reports it).
    """
    if not text or text.endswith((".", ",")):
        return None
    dots, commas = text.count("."), text.count(",")
    if dots and commas:
        return "tr" if text.rfind(",") > text.rfind(".") else "en"
    if dots > 1:
        return "tr"
    if commas > 1:
        return "en"
    if dots == commas == 0:
        return None
    sep = "." if dots else ","
    whole, frac = text.split(sep)
    if _could_be_grouping(whole, frac):
        return "dot" if dots else "comma"
    return "en" if dots else "tr"


def _could_be_grouping(whole: str, frac: str) -> bool:
    return len(frac) == 3 and whole not in ("", "0") and len(whole) <= 3


def expression_convention(numbers: list[str]) -> str | None:
    """"tr", "en", or None (read each number on its own) for the numbers of one expression."""
    styles = {number_style(n) for n in numbers}
    if "tr" in styles or "en" in styles:
        return None if {"tr", "en"} <= styles else "tr" if "tr" in styles else "en"
    return "tr" if {"dot", "comma"} <= styles else None  # 100.000 * 1,035


def parse_number(text: str, convention: str | None = None) -> Fraction:
    """Read 1250, 3.5, .5, 5., 3,5, 1.250,50, 1,250.50, 1.250.000 or 1,250,000 exactly.

    ``convention`` only settles the ambiguous forms "1.250" and "1,035" (one separator
    before exactly three digits): with "tr" the dot groups thousands and the comma is a
    decimal mark (1250, 1.035); otherwise the English reading (1.25, 1035).
    """
    if text.endswith(".") and text[:-1].isdecimal():  # "5." as Python reads it
        text = text[:-1]
    if text.endswith((".", ",")):
        raise ToolError(f"malformed number {text!r}")
    dots, commas = text.count("."), text.count(",")
    if dots and commas:
        decimal_sep = "." if text.rfind(".") > text.rfind(",") else ","
        group_sep = "," if decimal_sep == "." else "."
        if text.count(decimal_sep) > 1:
            raise ToolError(f"malformed number {text!r}")
        whole, frac = text.split(decimal_sep)
        _check_groups(whole, group_sep, text)
        digits = whole.replace(group_sep, "") + "." + frac
    elif dots > 1 or commas > 1:
        sep = "." if dots else ","
        _check_groups(text, sep, text)
        digits = text.replace(sep, "")
    elif commas == 1:
        whole, frac = text.split(",")
        # 1,250 reads as English grouping (a decimal comma in a Turkish expression);
        # 3,5 and 0,125 always as a decimal comma.
        grouped = _could_be_grouping(whole, frac) and convention != "tr"
        digits = whole + frac if grouped else whole + "." + frac
    elif dots == 1:
        whole, frac = text.split(".")
        # 1.250 reads as a decimal point (thousands grouping in a Turkish expression)
        grouped = _could_be_grouping(whole, frac) and convention == "tr"
        digits = whole + frac if grouped else text
    else:
        digits = text
    try:
        number = Decimal(digits)
    except InvalidOperation:
        raise ToolError(f"malformed number {text!r}") from None
    if not number.is_finite():  # 'inf', 'NaN' (convert_units reads a string value here)
        raise ToolError(f"malformed number {text!r}")
    # An exponent ('1e999999999') would be expanded digit by digit into the Fraction.
    if abs(number.adjusted()) > MAX_EXPONENT:
        raise ToolError(f"number {text!r} is out of range")
    return Fraction(number)


def _check_groups(whole: str, sep: str, shown: str) -> None:
    groups = whole.split(sep)
    if not groups[0] or len(groups[0]) > 3 or any(len(g) != 3 for g in groups[1:]):
        raise ToolError(f"malformed number {shown!r} (digit grouping)")


def tokenize(expression: str) -> list[tuple[str, Any]]:
    text = expression.translate(_TRANSLATE).strip()
    raw: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            bad = text[pos:].strip()[:20]
            raise ToolError(f"cannot read {bad!r}; only numbers, + - * / ^ ( ) and % are allowed")
        pos = match.end()
        if match.group("num"):
            raw.append(("num", match.group("num")))
        else:
            op = (match.group("word") or match.group("op")).lower()
            raw.append(("op", "*" if op == "x" else op))
    convention = expression_convention([value for kind, value in raw if kind == "num"])
    return [(kind, parse_number(value, convention) if kind == "num" else value)
            for kind, value in raw]


class _Parser:
    """Recursive descent; each rule returns (value, is_bare_percentage)."""

    def __init__(self, tokens: list[tuple[str, Any]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> Any:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, Any]:
        if self.pos >= len(self.tokens):
            raise ToolError("the expression ends too early")
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def parse(self) -> Fraction:
        if not self.tokens:
            raise ToolError("empty expression")
        value, _ = self.expr()
        if self.pos != len(self.tokens):
            token = self.peek()
            shown = render(token) if isinstance(token, Fraction) else token
            raise ToolError(f"unexpected {shown!r} in the expression")
        return value

    def expr(self) -> tuple[Fraction, bool]:
        value, percent = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            right, right_percent = self.term()
            if right_percent:  # 1250 + 18% → 1250 * 1.18
                right = value * right
            value = value + right if op == "+" else value - right
            percent = False
        return value, percent

    def term(self) -> tuple[Fraction, bool]:
        value, percent = self.unary()
        while self.peek() in ("*", "/", "of", "mod"):
            op = self.take()[1]
            right, _ = self.unary()
            if op in ("/", "mod") and right == 0:
                raise ToolError("division by zero")
            value = value / right if op == "/" else value % right if op == "mod" else value * right
            _check_size(value)
            percent = False
        return value, percent

    def unary(self) -> tuple[Fraction, bool]:
        if self.peek() in ("-", "+"):
            op = self.take()[1]
            self._enter()
            value, percent = self.unary()
            self.depth -= 1
            return (-value if op == "-" else value), percent
        return self.power()

    def power(self) -> tuple[Fraction, bool]:
        base, percent = self.postfix()
        if self.peek() in ("^", "**"):
            self.take()
            self._enter()
            exponent, _ = self.unary()
            self.depth -= 1
            return _power(base, exponent), False
        return base, percent

    def postfix(self) -> tuple[Fraction, bool]:
        value, percent = self.primary()
        while self.peek() == "%":
            self.take()
            value, percent = value / 100, True
        return value, percent

    def primary(self) -> tuple[Fraction, bool]:
        kind, value = self.take()
        if kind == "num":
            return value, False
        if value == "%":  # Turkish order: %18
            inner, _ = self.primary()
            return inner / 100, True
        if value == "(":
            self._enter()
            inner, _ = self.expr()
            self.depth -= 1
            if self.peek() != ")":
                raise ToolError("a '(' is never closed")
            self.take()
            return inner, False
        raise ToolError(f"unexpected {value!r} in the expression")

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ToolError("the expression is nested too deeply")


def _check_size(value: Fraction) -> None:
    if value.numerator.bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
        raise ToolError("the result is too large to compute exactly")


def _power(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator == 1:
        n = exponent.numerator
        if base == 0 and n < 0:
            raise ToolError("division by zero (zero to a negative power)")
        bits = max(base.numerator.bit_length(), base.denominator.bit_length())
        if abs(n) * max(bits, 1) > MAX_BITS:
            raise ToolError("the result is too large to compute exactly")
        return base**n
    if base < 0:
        raise ToolError("a negative number to a fractional power is not a real number")
    if base == 0:
        return Fraction(0)
    with localcontext() as ctx:
        ctx.prec = 40
        try:
            result = (Decimal(base.numerator) / Decimal(base.denominator)) ** (
                Decimal(exponent.numerator) / Decimal(exponent.denominator)
            )
        except ArithmeticError:  # InvalidOperation and Overflow among them
            raise ToolError("the result is too large to compute") from None
    if not result.is_finite() or result.adjusted() > 1000:
        raise ToolError("the result is too large to compute")
    return Fraction(result)


def render(value: Fraction) -> str:
    """Integers without decimals; otherwise up to 10 decimals, trailing zeros trimmed."""
    if value.denominator == 1:
        return str(value.numerator)
    with localcontext() as ctx:
        ctx.prec = max(50, len(str(abs(value.numerator) // value.denominator)) + 20)
        decimal = Decimal(value.numerator) / Decimal(value.denominator)
        text = format(decimal.quantize(Decimal("1e-10")), "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text


def evaluate(expression: str) -> str:
    if len(expression) > MAX_EXPRESSION:
        raise ToolError(f"the expression is longer than {MAX_EXPRESSION} characters")
    return render(_Parser(tokenize(expression)).parse())


def _calculator(ctx: Context, args: dict[str, Any]) -> str:
    return evaluate(need_str(args, "expression", limit=MAX_EXPRESSION))


TOOLS = [
    Tool(
        "calculator",
        "Evaluate arithmetic exactly: + - * / (or × ÷), parentheses, powers (^ or **), "
        "percentages ('18% of 1250', '%18 of 1250', '1250 + 18%'). One number format per "
        "expression: a decimal comma ('1,2', '1.250,50') makes dots thousands separators "
        "throughout ('97.640 / 1,2' = 97640/1.2); a decimal point ('3.5') makes commas "
        "thousands separators. Use it for any sum; no units or dates.",
        {"expression": prop("string", "The expression, e.g. '(1250 + 18%) / 3' or '3,5 * 4'. "
                            "Alone, '1.250' is 1.25 and '1,035' is 1035; with both, "
                            "'100.000 * 1,035' is Turkish: 100000 * 1.035.")},
        ("expression",),
        _calculator,
        uses_world=False,
    )
]
