"""Durations: what the client sends for numbers, strings and timedeltas."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from castsim import format_duration, parse_duration


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0s"),
        (1, "1s"),
        (90, "1m30s"),
        (0.25, "250ms"),
        (2.5, "2s500ms"),
        (600, "10m"),
        (5400, "1h30m"),
        (3600.001, "1h1ms"),
        (86400, "24h"),
        (0.0001, "0.1ms"),
        (0.0004, "0.4ms"),
        (59.9996, "1m"),  # rounds to the millisecond, as castsim's formatter does
        (dt.timedelta(minutes=10), "10m"),
        (dt.timedelta(milliseconds=1500), "1s500ms"),
        ("3s", "3s"),
        ("1h30m", "1h30m"),
    ],
)
def test_format_duration(value, text):
    assert format_duration(value) == text


@pytest.mark.parametrize("value", [-1, -0.5, math.nan, math.inf])
def test_format_duration_rejects_negative_and_non_finite(value):
    with pytest.raises(ValueError, match="duration"):
        format_duration(value)


@pytest.mark.parametrize("value", [True, None, [1], object()])
def test_format_duration_rejects_other_types(value):
    with pytest.raises(TypeError, match="duration"):
        format_duration(value)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("250ms", 0.25), ("5s", 5), ("1.5s", 1.5), ("2m", 120), ("1h30m", 5400), ("1m30s250ms", 90.25), ("0s", 0),
     ("87600h", 87600 * 3600)],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "5", "s", "1x", "30m1h", "5s5s", "1.2.3s", "-5s", " 5s", "5 s", ".s"])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


@pytest.mark.parametrize("seconds", [0.001, 0.75, 1, 59.999, 61.5, 3599.5, 3600, 7322.123, 123456.789])
def test_format_then_parse_round_trips_to_the_millisecond(seconds):
    assert parse_duration(format_duration(seconds)) == pytest.approx(round(seconds, 3), abs=1e-9)
