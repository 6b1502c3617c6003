"""End-to-end: device profiles (castsim profiles) as pychromecast's discovery sees them.

A household of real families in one castsim, each on its own address of a namespace's
veth, two speakers in a group; pychromecast browses from the other namespace. A model in
its table is classified by name; any other is probed over HTTPS 8443 (eureka_info's
display_supported and manufacturer), as with the real devices (docs/profiles.md).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e_harness import start_castsim
from netns import Link, NamespaceUnavailable, create_link
from test_groups import DISCOVERY_PROBE, probe

# name: (profile, address, what pychromecast's discovery reports: cast type, manufacturer, model).
# A model in pychromecast's table is classified by name; any other is probed over 8443.
HOUSEHOLD = {
    # Probed: its 8443 ends the TLS handshake, so the maker stays unknown (home-assistant/core#75097).
    "TV": ("bravia", "10.77.0.1", ("cast", "Unknown manufacturer", "BRAVIA 4K UR3")),
    "Hub": ("nest-hub", "10.77.0.3", ("cast", "Google Inc.", "Google Nest Hub")),           # table
    "Kitchen": ("nest-mini", "10.77.0.4", ("audio", "Google Inc.", "Google Nest Mini")),    # table
    "Bedroom": ("nest-mini", "10.77.0.5", ("audio", "Google Inc.", "Google Nest Mini")),
    "Den": ("home-max", "10.77.0.6", ("audio", "Google Inc.", "Google Home Max")),          # probed: no display
    "Tablet": ("pixel-tablet-hub", "10.77.0.7", ("cast", "Google", "Pixel Tablet")),        # probed
    # In the table as "chromecast", so shown as Google Inc. although the device says Google.
    "Lounge": ("chromecast-google-tv", "10.77.0.8", ("cast", "Google Inc.", "Chromecast")),
    "Patio": ("jbl-link", "10.77.0.9", ("audio", "JBL", "JBL Link 20")),                    # table
    "Study": ("chromecast", "10.77.0.10", ("cast", "Google Inc.", "Chromecast")),           # table
    "Cinema": ("chromecast-ultra", "10.77.0.11", ("cast", "Google Inc.", "Chromecast Ultra")),
    "Hifi": ("chromecast-audio", "10.77.0.12", ("audio", "Google Inc.", "Chromecast Audio")),
    "Attic": ("google-tv-streamer", "10.77.0.13", ("cast", "Google", "Google TV Streamer")),  # probed
    "Bath": ("nest-audio", "10.77.0.14", ("audio", "Google Inc.", "Nest Audio")),
    "Office": ("nest-hub-max", "10.77.0.15", ("cast", "Google Inc.", "Google Nest Hub Max")),
    "Garage": ("vizio-smartcast", "10.77.0.16", ("cast", "Vizio", "V705-H3")),               # table
    # Probed, and neither port answers: "Failed to determine cast type", so cast, maker unknown.
    "Phone": ("airreceiver", "10.77.0.17", ("cast", "Unknown manufacturer", "AirReceiver")),
}
GROUP_PORT = 32163


@pytest.fixture
def link() -> Iterator[Link]:
    try:
        made = create_link()
        for _, address, _ in list(HOUSEHOLD.values())[1:]:
            made.add_address(address)
    except NamespaceUnavailable as error:
        pytest.fail(f"profile tests need network namespaces of their own: {error}", pytrace=False)
    yield made
    made.destroy()


def test_pychromecast_classifies_a_household_of_profiles_as_the_real_models(link: Link, tmp_path: Path,
                                                                             castsim_bin: Path) -> None:
    scenario = tmp_path / "profiles.json"
    scenario.write_text(json.dumps({
        "name": "a house of real families",
        "devices": [{"name": name, "profile": profile} for name, (profile, _, _) in HOUSEHOLD.items()],
        "groups": [{"name": "Upstairs", "members": ["Kitchen", "Bedroom"], "leader": "Kitchen", "port": GROUP_PORT}],
    }))
    addresses = ",".join(address for _, address, _ in HOUSEHOLD.values())
    device = start_castsim(
        castsim_bin, addresses, tmp_path, name="TV", pass_name=False, pass_uuid=False,
        extra_args=("--scenario", str(scenario), "--mdns", "builtin", "--interface", link.device_if),
        prefix=("ip", "netns", "exec", link.device_ns))
    try:
        found = {entry["friendly_name"]: entry for entry in probe(link, DISCOVERY_PROBE, "chromecasts", "8")["devices"]}
        assert sorted(found) == sorted([*HOUSEHOLD, "Upstairs"]), found
        for name, (profile, address, (cast_type, manufacturer, model)) in HOUSEHOLD.items():
            seen = found[name]
            assert (seen["cast_type"], seen["manufacturer"], seen["model_name"]) == (cast_type, manufacturer, model), (profile, seen)
            assert (seen["host"], seen["port"]) == (address, 8009), (profile, seen)
        assert found["Upstairs"]["cast_type"] == "group" and found["Upstairs"]["port"] == GROUP_PORT
    finally:
        device.stop()


def test_a_stereo_pair_of_nest_audios_as_pychromecast_and_zeroconf_see_it(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    # Two Nest Audios as left and right (groups.md §9): each says ca 199428, the right one
    # st=2; the pair's group ca 199332 at the left one's address; their eureka_info lists a
    # multichannel group in current firmware's keys (leader, no cast_port), so pychromecast's
    # host discovery does not know where the pair is (quirk Q15), while mDNS finds it.
    scenario = tmp_path / "pair.json"
    scenario.write_text(json.dumps({
        "name": "a stereo pair",
        "devices": [{"name": "Left", "profile": "nest-audio"}, {"name": "Right", "profile": "nest-audio"}],
        "groups": [{"name": "Pair", "members": ["Left", "Right"], "stereoPair": True, "port": GROUP_PORT}],
    }))
    device = start_castsim(
        castsim_bin, "10.77.0.1,10.77.0.3", tmp_path, name="Left", pass_name=False, pass_uuid=False,
        extra_args=("--scenario", str(scenario), "--mdns", "builtin", "--interface", link.device_if),
        prefix=("ip", "netns", "exec", link.device_ns))
    try:
        found = {entry["friendly_name"]: entry for entry in probe(link, DISCOVERY_PROBE, "chromecasts", "6")["devices"]}
        assert sorted(found) == ["Left", "Pair", "Right"], found
        assert found["Pair"]["cast_type"] == "group" and (found["Pair"]["host"], found["Pair"]["port"]) == ("10.77.0.1", GROUP_PORT)
        assert found["Left"]["cast_type"] == found["Right"]["cast_type"] == "audio"
        records = {}
        browser = link.run(link.sender_ns, [sys.executable, str(DISCOVERY_PROBE), "browse", "4"], capture_output=True, text=True, timeout=60)
        for line in browser.stdout.splitlines():
            event = json.loads(line)
            if event.get("txt"):
                records[event["txt"]["fn"]] = event["txt"]
        assert (records["Left"]["ca"], records["Left"]["st"]) == ("199428", "0"), records
        assert (records["Right"]["ca"], records["Right"]["st"]) == ("199428", "2"), records
        assert records["Pair"]["ca"] == "199332" and records["Pair"]["md"] == "Google Cast Group", records
        # pychromecast's multizone probe (HTTPS 8443): the pair is there, but with no
        # elected_leader and no cast_port it cannot say where.
        zone = probe(link, DISCOVERY_PROBE, "multizone", "10.77.0.1")
        assert [(group["name"], group["host"], group["port"]) for group in zone["groups"]] == [("Pair", None, None)], zone
    finally:
        device.stop()


def test_the_profiles_command_and_bad_profile_names(castsim_bin: Path, tmp_path: Path) -> None:
    import subprocess

    listed = subprocess.run([str(castsim_bin), "profiles"], capture_output=True, text=True, timeout=30)
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert rows[0].split()[:2] == ["NAME", "KIND"]
    names = [row.split()[0] for row in rows[1:]]
    assert len(names) >= 14 and {"chromecast", "nest-mini", "nest-hub", "bravia", "airreceiver"} <= set(names), names

    env = {"XDG_STATE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    unknown = subprocess.run([str(castsim_bin), "run", "--profile", "chromecast-9", "--mdns", "off"],
                             capture_output=True, text=True, timeout=30, env=env)
    assert unknown.returncode != 0
    assert 'no device profile "chromecast-9"' in unknown.stderr and "nest-mini" in unknown.stderr, unknown.stderr

    scenario = tmp_path / "one.json"
    scenario.write_text(json.dumps({"name": "one", "device": {"profile": "nest-mini"}}))
    both = subprocess.run([str(castsim_bin), "run", "--profile", "bravia", "--scenario", str(scenario), "--mdns", "off"],
                          capture_output=True, text=True, timeout=30, env=env)
    assert both.returncode != 0 and "device.profile" in both.stderr, both.stderr

    # A profile of one's own: a catalog profile as a file, edited, run.
    shown = subprocess.run([str(castsim_bin), "profiles", "nest-mini", "--json"], capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0, shown.stderr
    mine = json.loads(shown.stdout)
    assert mine["base"] == "nest-mini" and mine["model"] == "Google Nest Mini" and mine["media"]["videoCodecs"] == []
    mine["model"] = "Kitchen Speaker 2"
    mine_file = tmp_path / "mine.json"
    mine_file.write_text(json.dumps(mine))
    device = start_castsim(castsim_bin, None, tmp_path, name="Mine", extra_args=("--profile", str(mine_file), "--mdns", "off"),
                           pass_name=False)
    try:
        status = _device_info(device.host)
        assert status is not None and (status.model_name, status.cast_type) == ("Kitchen Speaker 2", "audio"), status
    finally:
        device.stop()
    bad_file = tmp_path / "bad.json"
    bad_file.write_text(json.dumps({"name": "bad", "base": "nest-mini", "quirks": {"eureka": {"https": "sometimes"}}}))
    refused = subprocess.run([str(castsim_bin), "run", "--profile", str(bad_file), "--mdns", "off"],
                             capture_output=True, text=True, timeout=30, env=env)
    assert refused.returncode != 0
    assert f"{bad_file}: 1 problem" in refused.stderr and 'quirks.eureka.https: expected one of "device-info"' in refused.stderr, refused.stderr


def _device_info(host: str, hostname: str | None = None, timeout: float = 4):
    """pychromecast's get_device_info, as HA's known hosts and catt call it for an IP; with
    `hostname`, the URL names the device by that name (resolved to `host` here), as a user's
    configuration may, so the Host header is a name."""
    import socket
    import pychromecast.dial as dial

    if hostname is None:
        return dial.get_device_info(host, timeout=timeout)
    original = socket.getaddrinfo

    def resolve(name, *args, **kwargs):
        return original(host if name == hostname else name, *args, **kwargs)

    socket.getaddrinfo = resolve
    try:
        return dial.get_device_info(hostname, timeout=timeout)
    finally:
        socket.getaddrinfo = original


def _start(castsim_bin: Path, tmp_path: Path, name: str, device: dict):
    scenario = tmp_path / f"{name}.json"
    scenario.write_text(json.dumps({"name": name, "device": {"name": name, **device}}))
    name = device.get("name", name)
    return start_castsim(castsim_bin, None, tmp_path, name=name, pass_name=False, pass_uuid=False,
                         extra_args=("--scenario", str(scenario), "--mdns", "off"))


# profile: what pychromecast's get_device_info (HA's known hosts, catt -d IP) reports by IP:
# model, manufacturer, cast type; None where no port answers.
BY_IP = {
    "chromecast": ("Chromecast", "Google Inc.", "cast"),
    "chromecast-ultra": ("Chromecast Ultra", "Google Inc.", "cast"),
    "chromecast-audio": ("Chromecast Audio", "Google Inc.", "audio"),
    "chromecast-google-tv": ("Chromecast", "Google", "cast"),
    "google-tv-streamer": ("Google TV Streamer", "Google", "cast"),
    "nest-mini": ("Google Nest Mini", "Google Inc.", "audio"),
    "nest-audio": ("Nest Audio", "Google Inc.", "audio"),
    "home-max": ("Google Home Max", "Google Inc.", "audio"),
    "nest-hub": ("Google Nest Hub", "Google Inc.", "cast"),
    "nest-hub-max": ("Google Nest Hub Max", "Google Inc.", "cast"),
    "pixel-tablet-hub": ("Pixel Tablet", "Google", "cast"),
    # 8443 fails, 8008's flat body has no device_info.
    "bravia": ("Unknown model name", "Unknown manufacturer", "cast"),
    "vizio-smartcast": ("V705-H3", "Vizio", "cast"),
    "jbl-link": ("JBL Link 20", "JBL", "audio"),
    "airreceiver": None,
}


def test_every_profile_is_classified_by_ip_as_the_real_family(castsim_bin: Path, tmp_path: Path) -> None:
    import subprocess

    listed = subprocess.run([str(castsim_bin), "profiles"], capture_output=True, text=True, timeout=30)
    assert sorted(row.split()[0] for row in listed.stdout.splitlines()[1:]) == sorted(BY_IP), "a profile without an expectation"
    for profile, expected in BY_IP.items():
        name = "Dev " + profile
        device = _start(castsim_bin, tmp_path, profile, {"profile": profile, "name": name, "uuid": "0123456789abcdef0123456789abcdef"})
        try:
            status = _device_info(device.host)
            if expected is None:
                assert status is None, (profile, status)
                continue
            assert status is not None, profile
            assert (status.model_name, status.manufacturer, status.cast_type) == expected, (profile, status)
            assert status.friendly_name == name and status.uuid.hex == "0123456789abcdef0123456789abcdef", (profile, status)
        finally:
            device.stop()


def test_pychromecast_reads_eureka_info_by_ip_as_the_real_families_answer_it(castsim_bin: Path, tmp_path: Path) -> None:
    # A BRAVIA's 8443 ends the TLS handshake with EOF: pychromecast falls back to 8008, whose
    # flat body has the name and UUID but no model or maker (home-assistant/core#75097).
    tv = _start(castsim_bin, tmp_path, "TV", {"profile": "bravia", "uuid": "0123456789abcdef0123456789abcdef"})
    try:
        status = _device_info(tv.host)
        assert status is not None
        assert (status.friendly_name, status.model_name, status.manufacturer) == ("TV", "Unknown model name", "Unknown manufacturer")
        assert status.uuid.hex == "0123456789abcdef0123456789abcdef"
    finally:
        tv.stop()

    # AirReceiver: neither port answers, so a device added by IP is not found at all.
    software = _start(castsim_bin, tmp_path, "Phone", {"profile": "airreceiver"})
    try:
        assert _device_info(software.host) is None
    finally:
        software.stop()

    # A Home Mini answers 403 to a Host that is a name; pychromecast retries with an empty Host.
    mini = _start(castsim_bin, tmp_path, "Mini", {"profile": "nest-mini", "quirks": {"eureka": {"hostCheck": True}}})
    try:
        import ssl
        import urllib.error
        import urllib.request

        request = urllib.request.Request(f"https://{mini.host}:8443/setup/eureka_info?params=device_info", headers={"Host": "mini.local"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5, context=ssl._create_unverified_context())
        assert refused.value.code == 403
        status = _device_info(mini.host, hostname="mini.castsim.test")
        assert status is not None and (status.model_name, status.cast_type) == ("Google Nest Mini", "audio"), status
    finally:
        mini.stop()


def test_a_speaker_that_locks_up_after_too_many_polls(castsim_bin: Path, tmp_path: Path) -> None:
    import pychromecast.dial as dial

    speaker = _start(castsim_bin, tmp_path, "Patio", {"profile": "jbl-link", "quirks": {"eureka": {"crashAfterPolls": 3}}})
    try:
        for _ in range(3):
            assert _device_info(speaker.host) is not None
        # The fourth poll hangs until pychromecast gives up; so does the Cast channel.
        assert _device_info(speaker.host, timeout=2) is None
        assert dial.get_multizone_status(speaker.host, timeout=1) is None
        assert speaker.is_running(), "castsim itself must not have crashed"
    finally:
        speaker.stop()


def test_a_speaker_fails_a_video_load_as_it_does_there(castsim_bin: Path, tmp_path: Path) -> None:
    from e2e_harness import FailureRecorder, connect_sender, disconnect_sender, wait_until

    speaker = _start(castsim_bin, tmp_path, "Kitchen", {"profile": "nest-mini"})
    sender = connect_sender(speaker)
    try:
        failures = FailureRecorder()
        sender.media.register_status_listener(failures)
        sender.media.play_media("http://example.test/film.mp4", 'video/mp4; codecs="avc1.640028, mp4a.40.2"', stream_type="BUFFERED")
        wait_until(lambda: failures.failures, timeout=10, what="load_media_failed", details=sender.describe)
        assert failures.failures == [(1, 104)]
        wait_until(lambda: sender.media.status.idle_reason == "ERROR", timeout=10, details=sender.describe)
        # Music plays.
        sender.media.play_media("http://example.test/song.m4a", 'audio/mp4; codecs="mp4a.40.2"', stream_type="BUFFERED")
        wait_until(lambda: sender.media.status.player_state == "PLAYING", timeout=10, details=sender.describe)
    finally:
        disconnect_sender(sender)
        speaker.stop()


def test_pychromecast_sees_the_tv_on_another_input(castsim_bin: Path, tmp_path: Path) -> None:
    # HDMI-CEC's isActiveInput, which Home Assistant reads as "off" (home-assistant/core#65848).
    from e2e_harness import connect_sender, disconnect_sender, wait_until

    tv = _start(castsim_bin, tmp_path, "TV", {"profile": "chromecast"})
    sender = connect_sender(tv)
    try:
        assert sender.cast.status.is_active_input is True
        tv.client.active_input(False)
        wait_until(lambda: sender.cast.status.is_active_input is False, timeout=10, details=sender.describe)
        assert sender.cast.status.is_stand_by is False
        tv.client.active_input(True)
        wait_until(lambda: sender.cast.status.is_active_input is True, timeout=10, details=sender.describe)
    finally:
        disconnect_sender(sender)
        tv.stop()
