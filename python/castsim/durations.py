"""Durations as castsim writes them: "250ms", "5s", "1h30m" (scenario files, the
control API, the command line)."""

from __future__ import annotations

import datetime as _dt
import math
from typing import Union

Duration = Union[int, float, str, _dt.timedelta]

_UNITS = (("h", 3_600_000), ("m", 60_000), ("s", 1000))
_UNIT_RANK = {"h": (4, 3600.0), "m": (3, 60.0), "s": (2, 1.0), "ms": (1, 0.001)}


def _plain_number(value: float) -> str:
    """12.0 -> '12', 0.5 -> '0.5' (no exponent for the values durations have)."""
    if value == int(value):
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _seconds(value: Duration) -> float:
    if isinstance(value, bool):
        raise TypeError(f"a duration is a number of seconds, a string like '2.5s' or a timedelta, not {value!r}")
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (int, float)):
        return float(value)
    raise TypeError(f"a duration is a number of seconds, a string like '2.5s' or a timedelta, not {value!r}")


def format_duration(value: Duration) -> str:
    """A duration as the scenario syntax writes it: 90 -> '1m30s', 0.25 -> '250ms'.

    Strings are returned unchanged (the server checks them and names what is wrong);
    numbers are seconds; timedeltas are converted. The text is what castsim's own
    formatter prints: whole hours, minutes and seconds, then milliseconds.
    """
    if isinstance(value, str):
        return value
    seconds = _seconds(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"a duration must be a finite number of seconds >= 0, not {value!r}")
    if seconds == 0:
        return "0s"
    rest = round(seconds * 1000)
    if rest < 1:
        return _plain_number(seconds * 1000) + "ms"
    text = ""
    for unit, size in _UNITS:
        if rest >= size:
            count, rest = divmod(rest, size)
            text += f"{count}{unit}"
    if rest > 0:
        text += f"{rest}ms"
    return text


def parse_duration(text: str) -> float:
    """Seconds for a scenario duration string ('250ms', '5s', '1h30m', '1.5s').

    Units h, m, s, ms, each at most once and in that order, as castsim reads them.
    Raises ValueError for anything else.
    """
    if not isinstance(text, str) or not text:
        raise ValueError(f"not a duration like '90s' or '2m': {text!r}")
    total = 0.0
    rest = text
    last_rank = math.inf
    while rest:
        digits = 0
        while digits < len(rest) and (rest[digits].isdigit() or rest[digits] == "."):
            digits += 1
        number = rest[:digits]
        rest = rest[digits:]
        letters = 0
        while letters < len(rest) and rest[letters].isalpha():
            letters += 1
        unit = rest[:letters]
        rest = rest[letters:]
        if not number or number.count(".") > 1 or number == "." or unit not in _UNIT_RANK:
            raise ValueError(f"not a duration like '90s' or '2m': {text!r}")
        rank, size = _UNIT_RANK[unit]
        if rank >= last_rank:
            raise ValueError(f"not a duration like '90s' or '2m' (units h, m, s, ms in that order, each once): {text!r}")
        last_rank = rank
        total += float(number) * size
    return total


def _duration_value(value: Duration) -> Union[float, int, str]:
    """For fields the API documents as 'a number of seconds or a duration string':
    strings and ints as they are, floats and timedeltas as float seconds."""
    if isinstance(value, str):
        return value
    seconds = _seconds(value)  # rejects bools and other types
    return value if isinstance(value, int) else seconds
