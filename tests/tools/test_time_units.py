from __future__ import annotations

import json

import pytest


def test_current_datetime(tools) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(tools.ok("current_datetime"))
    assert data["now"] == "2026-03-12T10:47:00+03:00"
    assert data["weekday"] == "Thursday"
    tokyo = json.loads(tools.ok("current_datetime", timezone="Tokyo"))
    assert tokyo["now"].startswith("2026-03-12T16:47") and tokyo["timezone"] == "Asia/Tokyo"
    assert "unknown time zone" in tools.err("current_datetime", timezone="Mars/Olympus")


def test_date_add(tools) -> None:  # type: ignore[no-untyped-def]
    assert json.loads(tools.ok("date_add", date="2026-01-31", months=1)) == {
        "date": "2026-02-28", "weekday": "Saturday"}
    assert json.loads(tools.ok("date_add", date="today", days=45))["date"] == "2026-04-26"
    assert json.loads(tools.ok("date_add", date="12.03.2026", weeks=-2))["date"] == "2026-02-26"
    assert tools.err("date_add", date="next blursday")
    assert tools.err("date_add", date="9999-12-31", years=5)


def test_date_diff(tools) -> None:  # type: ignore[no-untyped-def]
    assert json.loads(tools.ok("date_diff", start="2026-03-12", end="2026-06-01"))["days"] == 81
    months = json.loads(tools.ok("date_diff", start="2025-01-31", end="2026-03-12",
                                 unit="months"))
    assert months["months"] == 13
    years = json.loads(tools.ok("date_diff", start="1990-03-13", end="2026-03-12", unit="years"))
    assert years["years"] == 35
    weeks = json.loads(tools.ok("date_diff", start="2026-03-01", end="2026-03-12", unit="weeks"))
    assert weeks["result"] == "1 weeks and 4 days"
    assert tools.err("date_diff", start="2026-03-01", end="2026-03-12", unit="fortnights")


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [("Berlin", "New York", "2026-03-12T10:00-04:00"),
     ("Europe/Berlin", "istanbul", "2026-03-12T17:00+03:00"),
     ("London", "UTC+3", "2026-03-12T18:00+03:00"),
     ("CET", "Tokyo", "2026-03-12T23:00+09:00")],
)
def test_convert_timezone(tools, source: str, target: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(tools.ok("convert_timezone", datetime="2026-03-12T15:00",
                               from_tz=source, to_tz=target))
    assert data["datetime"] == expected


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [(5, "mi", "km", "8.04672"), (100, "°F", "°C", "37.7777777778"), (0, "celsius", "K",
     "273.15"), (1, "GiB", "MB", "1073.741824"), (2.5, "kg", "lb", "5.5115565546"),
     (120, "km/h", "m/s", "33.3333333333"), (1, "ha", "m2", "10000"),
     ("3,5", "L", "ml", "3500"), (1, "gallon", "liters", "3.785411784")],
)
def test_convert_units(tools, value, source, target, expected) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(tools.ok("convert_units", value=value, from_unit=source, to_unit=target))
    assert data["result"] == expected


def test_convert_units_refusals(tools) -> None:  # type: ignore[no-untyped-def]
    assert "cannot convert" in tools.err("convert_units", value=1, from_unit="kg", to_unit="km")
    assert "unknown unit" in tools.err("convert_units", value=1, from_unit="furlong",
                                       to_unit="m")
    assert "absolute zero" in tools.err("convert_units", value=-500, from_unit="C",
                                        to_unit="F")
    assert tools.err("convert_units", value="abc", from_unit="m", to_unit="km")
    assert tools.err("convert_units", value=float("nan"), from_unit="m", to_unit="km")


def test_convert_units_refuses_an_empty_value(tools) -> None:  # type: ignore[no-untyped-def]
    # "" (and a lone sign) was read as 0 and converted.
    for value in ("", "  ", "-", "+"):
        assert "value must be a number" in tools.err("convert_units", value=value,
                                                     from_unit="km", to_unit="m")


def test_convert_units_refuses_a_number_out_of_range_at_once(tools) -> None:  # type: ignore[no-untyped-def]
    # A string value with a huge exponent used to be expanded digit by digit (seconds to
    # minutes, and memory); 'inf' ended in an OverflowError.
    import time

    started = time.monotonic()
    for value in ("1e3000000", "1e-3000000", "-1E999999999"):
        assert "out of range" in tools.err("convert_units", value=value, from_unit="km",
                                           to_unit="m")
    assert time.monotonic() - started < 1
    for value in ("inf", "Infinity", "NaN"):
        assert "malformed number" in tools.err("convert_units", value=value, from_unit="km",
                                               to_unit="m")
    assert json.loads(tools.ok("convert_units", value="1.5e3", from_unit="m",
                               to_unit="km"))["result"] == "1.5"


def test_date_diff_reads_turkish_units_with_their_letters(tools) -> None:  # type: ignore[no-untyped-def]
    for unit, key in (("gün", "days"), ("Gün", "days"), ("yıl", "years"), ("YIL", "years"),
                      ("hafta", "weeks"), ("ay", "months")):
        data = json.loads(tools.ok("date_diff", start="2024-03-01", end="2026-03-12", unit=unit))
        assert data["days"] == 741 and (key == "days" or key in data)
