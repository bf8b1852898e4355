"""``convert_units``: linear factors per dimension, temperatures by formula."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

from pytest_tooleval.text.normalize import fold
from pytest_tooleval.tools.builtin.calc import parse_number, render
from pytest_tooleval.tools.builtin.common import Context, Tool, need_str, prop
from pytest_tooleval.tools.builtin.sandbox import ToolError

F = Fraction

# unit -> (dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, Fraction]] = {}


def _add(dimension: str, factor: Fraction | int | str, *names: str) -> None:
    for name in names:
        _UNITS[name] = (dimension, F(factor))


_add("length", 1, "m", "meter", "meters", "metre", "metres")
_add("length", "0.001", "mm", "millimeter", "millimeters", "millimetre", "milimetre")
_add("length", "0.01", "cm", "centimeter", "centimeters", "centimetre", "santimetre")
_add("length", 1000, "km", "kilometer", "kilometers", "kilometre", "kilometres")
_add("length", "0.0254", "in", "inch", "inches", "inc", '"')
_add("length", "0.3048", "ft", "foot", "feet", "'")
_add("length", "0.9144", "yd", "yard", "yards")
_add("length", "1609.344", "mi", "mile", "miles", "mil")
_add("length", 1852, "nmi", "nautical mile", "nautical miles", "deniz mili")
_add("mass", 1, "kg", "kilogram", "kilograms", "kilo", "kilos")
_add("mass", "0.001", "g", "gram", "grams", "gr")
_add("mass", "0.000001", "mg", "milligram", "milligrams", "miligram")
_add("mass", 1000, "t", "tonne", "tonnes", "ton", "metric ton")
_add("mass", "0.45359237", "lb", "lbs", "pound", "pounds")
_add("mass", "0.028349523125", "oz", "ounce", "ounces")
_add("mass", "6.35029318", "st", "stone", "stones")
_add("volume", 1, "l", "liter", "liters", "litre", "litres")
_add("volume", "0.001", "ml", "milliliter", "milliliters", "millilitre", "mililitre")
_add("volume", "0.01", "cl", "centiliter", "centilitre")
_add("volume", 1000, "m3", "m^3", "cubic meter", "cubic meters", "metrekup")
_add("volume", "3.785411784", "gal", "gallon", "gallons", "us gallon")
_add("volume", "4.54609", "imperial gallon", "uk gallon")
_add("volume", "0.946352946", "qt", "quart", "quarts")
_add("volume", "0.473176473", "pt", "pint", "pints", "us pint")
_add("volume", "0.2365882365", "cup", "cups")
_add("volume", "0.0295735295625", "fl oz", "fluid ounce", "fluid ounces")
_add("volume", "0.01478676478125", "tbsp", "tablespoon", "tablespoons")
_add("volume", "0.00492892159375", "tsp", "teaspoon", "teaspoons")
_add("area", 1, "m2", "m^2", "sq m", "square meter", "square meters", "square metre",
     "metrekare")
_add("area", 1_000_000, "km2", "km^2", "sq km", "square kilometer", "square kilometers")
_add("area", "0.0001", "cm2", "cm^2", "square centimeter")
_add("area", 10_000, "ha", "hectare", "hectares", "hektar")
_add("area", 1000, "donum", "dönüm", "decare", "dekar")
_add("area", "4046.8564224", "acre", "acres")
_add("area", "0.09290304", "sq ft", "ft2", "ft^2", "square foot", "square feet")
_add("area", "2589988.110336", "sq mi", "mi2", "square mile", "square miles")
_add("speed", 1, "m/s", "mps", "meters per second", "metre per second")
_add("speed", F(1000, 3600), "km/h", "kmh", "kph", "kilometers per hour", "kilometres per hour")
_add("speed", F(1609344, 3_600_000), "mph", "mi/h", "miles per hour")
_add("speed", F(1852, 3600), "kn", "knot", "knots", "kt")
_add("speed", F(3048, 10000), "ft/s", "fps", "feet per second")
_add("data", 1, "b", "byte", "bytes")
_add("data", F(1, 8), "bit", "bits")
for _i, (_si, _bi, _word) in enumerate(
    [("kb", "kib", "kilo"), ("mb", "mib", "mega"), ("gb", "gib", "giga"),
     ("tb", "tib", "tera"), ("pb", "pib", "peta")], start=1
):
    _add("data", 1000**_i, _si, f"{_word}byte", f"{_word}bytes")
    _add("data", 1024**_i, _bi, f"{_bi[0]}ibibyte", f"{_bi[0]}ebibytes",
         {"k": "kibibyte", "m": "mebibyte", "g": "gibibyte", "t": "tebibyte",
          "p": "pebibyte"}[_si[0]])
    _add("data", F(1000**_i, 8), f"{_si[0]}bit", f"{_word}bit", f"{_word}bits")

_TEMPERATURE = {
    "c": "C", "°c": "C", "celsius": "C", "santigrat": "C", "degc": "C",
    "f": "F", "°f": "F", "fahrenheit": "F", "degf": "F",
    "k": "K", "kelvin": "K",
}
#: scale -> (offset, factor): kelvin = (value + offset) * factor, exactly.
_KELVIN = {"C": (F("273.15"), F(1)), "F": (F("459.67"), F(5, 9)), "K": (F(0), F(1))}


def _unit_key(name: str) -> str:
    key = fold(name).replace("²", "2").replace("³", "3").strip().rstrip(".")
    return key.removeprefix("degrees ").removeprefix("degree ")


def convert(value: Fraction, source: str, target: str) -> Fraction:
    src, dst = _unit_key(source), _unit_key(target)
    if src in _TEMPERATURE or dst in _TEMPERATURE:
        if src not in _TEMPERATURE or dst not in _TEMPERATURE:
            raise ToolError(f"cannot convert between {source!r} and {target!r}")
        (offset_a, factor_a), (offset_b, factor_b) = (_KELVIN[_TEMPERATURE[src]],
                                                      _KELVIN[_TEMPERATURE[dst]])
        kelvin = (value + offset_a) * factor_a
        if kelvin < 0:
            raise ToolError("that temperature is below absolute zero")
        return kelvin / factor_b - offset_b
    if src not in _UNITS:
        raise ToolError(f"unknown unit {source!r}")
    if dst not in _UNITS:
        raise ToolError(f"unknown unit {target!r}")
    (dim_a, fac_a), (dim_b, fac_b) = _UNITS[src], _UNITS[dst]
    if dim_a != dim_b:
        raise ToolError(f"cannot convert {dim_a} ({source}) to {dim_b} ({target})")
    return value * fac_a / fac_b


def _read_value(raw: Any) -> Fraction:
    if isinstance(raw, bool):
        raise ToolError("value must be a number")
    if isinstance(raw, int):
        return F(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise ToolError("value must be a finite number")
        return F(Decimal(repr(raw)))
    if isinstance(raw, str):
        text = raw.strip()
        if not text.lstrip("-−+ "):
            raise ToolError(f"value must be a number, not {raw!r}")
        sign = -1 if text.startswith(("-", "−")) else 1
        return sign * parse_number(text.lstrip("-−+ "))
    raise ToolError("value must be a number")


def _convert_units(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    if "value" not in args:
        raise ToolError("missing required argument 'value'")
    value = _read_value(args["value"])
    if abs(value) > 10**30:
        raise ToolError("value is too large")
    source, target = need_str(args, "from_unit", limit=40), need_str(args, "to_unit", limit=40)
    result = convert(value, source, target)
    return {"value": render(value), "from": source, "to": target, "result": render(result),
            "text": f"{render(value)} {source} = {render(result)} {target}"}


TOOLS = [
    Tool(
        "convert_units",
        "Convert a quantity between units of length, mass, volume, temperature, area, speed "
        "or data size (e.g. miles to km, °F to °C, GiB to MB). Not for currencies or time "
        "zones.",
        {
            "value": prop("number", "The amount to convert."),
            "from_unit": prop("string", "Unit of the value, e.g. 'mi', 'lb', '°F', 'GB'."),
            "to_unit": prop("string", "Unit wanted, e.g. 'km', 'kg', '°C', 'MiB'."),
        },
        ("value", "from_unit", "to_unit"),
        _convert_units,
        uses_world=False,
    )
]
