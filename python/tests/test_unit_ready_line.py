"""The ready line castsim prints on standard output once every port is bound."""

from __future__ import annotations

import pytest

from castsim import parse_ready_line, ready_line_addresses
from castsim.device import split_host_port


def test_full_line():
    line = "castsim ready cast=127.3.4.5:8009 http=127.3.4.5:8008 https=127.3.4.5:8443 control=127.3.4.5:40123\n"
    assert parse_ready_line(line) == {
        "cast": ("127.3.4.5", 8009),
        "http": ("127.3.4.5", 8008),
        "https": ("127.3.4.5", 8443),
        "control": ("127.3.4.5", 40123),
    }


def test_off_listeners_are_none():
    addresses = parse_ready_line("castsim ready cast=127.0.0.9:8009 http=off https=off control=off")
    assert addresses == {"cast": ("127.0.0.9", 8009), "http": None, "https": None, "control": None}


def test_line_without_control_has_no_control_key():
    # castsim before the control API: the fixtures say so instead of guessing a port.
    addresses = parse_ready_line("castsim ready cast=127.0.0.9:8009 http=off https=off")
    assert "control" not in addresses


def test_unknown_keys_are_kept_and_order_does_not_matter():
    addresses = parse_ready_line("castsim ready control=127.0.0.1:1 cast=127.0.0.1:8009 future=127.0.0.1:7")
    assert addresses["future"] == ("127.0.0.1", 7)
    assert addresses["cast"] == ("127.0.0.1", 8009)


def test_a_household_lists_every_device_and_parse_ready_line_takes_the_first():
    line = ("castsim ready cast=127.9.0.2:8009,127.9.0.3:8009 http=127.9.0.2:8008,127.9.0.3:8008 "
            "https=off control=127.9.0.2:40000")
    assert ready_line_addresses(line) == {
        "cast": [("127.9.0.2", 8009), ("127.9.0.3", 8009)],
        "http": [("127.9.0.2", 8008), ("127.9.0.3", 8008)],
        "https": [],
        "control": [("127.9.0.2", 40000)],
    }
    assert parse_ready_line(line) == {"cast": ("127.9.0.2", 8009), "http": ("127.9.0.2", 8008), "https": None,
                                      "control": ("127.9.0.2", 40000)}


def test_a_household_whose_devices_differ_lists_off_in_their_places():
    line = ("castsim ready cast=127.9.0.2:8009,127.9.0.3:8009 http=127.9.0.2:8008,off "
            "https=off,127.9.0.3:8443 control=off")
    assert ready_line_addresses(line) == {
        "cast": [("127.9.0.2", 8009), ("127.9.0.3", 8009)],
        "http": [("127.9.0.2", 8008), None],
        "https": [None, ("127.9.0.3", 8443)],
        "control": [],
    }
    assert parse_ready_line(line)["https"] is None
    with pytest.raises(ValueError, match="cast"):
        ready_line_addresses("castsim ready cast=127.9.0.2:8009,off http=off")


def test_ipv6():
    addresses = parse_ready_line("castsim ready cast=[::1]:8009 http=off https=off control=[::1]:8119")
    assert addresses["cast"] == ("::1", 8009)
    assert addresses["control"] == ("::1", 8119)


def test_crlf_and_spaces():
    assert parse_ready_line("castsim ready  cast=127.0.0.1:8009   control=off \r\n")["control"] is None


@pytest.mark.parametrize(
    "line",
    [
        "",
        "hello",
        "castsim ready",
        "castsim ready http=off",  # no cast
        "castsim ready cast=off",
        "castsim ready cast=127.0.0.1",  # no port
        "castsim ready cast=127.0.0.1:port",
        "castsim ready cast=127.0.0.1:8009,",  # an empty list item
        "castsim ready cast=127.0.0.1:8009,off",
        "castsim ready cast=127.0.0.1:8009 junk",
        "castsim readycast=127.0.0.1:8009",
        "[info] castsim ready cast=127.0.0.1:8009",
    ],
)
def test_not_ready_lines(line):
    with pytest.raises(ValueError):
        parse_ready_line(line)


def test_split_host_port():
    assert split_host_port("127.0.0.5:8009") == ("127.0.0.5", 8009)
    assert split_host_port("[::1]:80") == ("::1", 80)
    with pytest.raises(ValueError):
        split_host_port("8009")
