"""End-to-end: a household with a speaker group, found over mDNS (issue 13).

Three devices in one castsim, each on its own address of a namespace's veth, and the
speaker group Upstairs (Kitchen and Bedroom, led by Kitchen) on port 32162. pychromecast
and catt run in the other namespace, as a phone on the same Wi-Fi would.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e_harness import CastsimDevice, start_castsim, wait_until
from netns import JsonLines, Link, NamespaceUnavailable, create_link
from test_discovery import Browser

PROBE = Path(__file__).with_name("group_probe.py")
DISCOVERY_PROBE = Path(__file__).with_name("discovery_probe.py")
PYTHON = sys.executable
# catt, its socket I/O serialized as every pychromecast sender of these tests.
CATT = Path(__file__).with_name("catt_sender.py")
GROUP_PORT = 32162
KITCHEN, BEDROOM, TV = "10.77.0.1", "10.77.0.3", "10.77.0.4"


@pytest.fixture
def link() -> Iterator[Link]:
    try:
        made = create_link()
        made.add_address(BEDROOM)
        made.add_address(TV)
    except NamespaceUnavailable as error:
        pytest.fail(f"group tests need network namespaces of their own: {error}", pytrace=False)
    yield made
    made.destroy()


def household(link: Link, tmp_path: Path, castsim_bin: Path) -> CastsimDevice:
    scenario = tmp_path / "upstairs.json"
    scenario.write_text(json.dumps({
        "name": "upstairs",
        "devices": [
            {"name": "Kitchen", "model": "Google Home", "capabilities": {"video": False}, "volume": {"level": 0.5}},
            {"name": "Bedroom", "model": "Nest Audio", "capabilities": {"video": False}, "volume": {"level": 0.25}},
            {"name": "TV", "model": "Chromecast"},
        ],
        "groups": [{"name": "Upstairs", "members": ["Kitchen", "Bedroom"], "leader": "Kitchen", "port": GROUP_PORT}],
    }))
    return start_castsim(
        castsim_bin, f"{KITCHEN},{BEDROOM},{TV}", tmp_path, name="Kitchen", pass_name=False, pass_uuid=False,
        extra_args=("--scenario", str(scenario), "--mdns", "builtin", "--interface", link.device_if),
        prefix=("ip", "netns", "exec", link.device_ns))


def ctl(link: Link, castsim_bin: Path, device: CastsimDevice, *words: str) -> dict:
    result = link.run(link.device_ns, [str(castsim_bin), "ctl", "--url", device.control_url, *words],
                      capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else {}


def probe(link: Link, script: Path, *args: str, timeout: float = 90) -> dict:
    result = link.run(link.sender_ns, [PYTHON, str(script), *args], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def uuid_of(device: CastsimDevice, link: Link, castsim_bin: Path, name: str) -> str:
    for entry in ctl(link, castsim_bin, device, "devices")["devices"]:
        if entry["name"] == name:
            return entry["udn"]
    raise AssertionError(f"no device {name}")


def test_pychromecast_finds_the_household_and_the_group_and_plays_on_it(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    device = household(link, tmp_path, castsim_bin)
    try:
        found = {entry["friendly_name"]: entry for entry in probe(link, DISCOVERY_PROBE, "chromecasts", "8")["devices"]}
        assert sorted(found) == ["Bedroom", "Kitchen", "TV", "Upstairs"], found
        assert found["Kitchen"]["cast_type"] == "audio" and (found["Kitchen"]["host"], found["Kitchen"]["port"]) == (KITCHEN, 8009)
        assert found["Bedroom"]["cast_type"] == "audio" and found["Bedroom"]["host"] == BEDROOM
        assert found["TV"]["cast_type"] == "cast" and found["TV"]["host"] == TV
        # The group: found by its port alone, at its leader's address.
        upstairs = found["Upstairs"]
        assert upstairs["cast_type"] == "group", upstairs
        assert (upstairs["host"], upstairs["port"]) == (KITCHEN, GROUP_PORT)
        assert upstairs["model_name"] == "Google Cast Group"

        browser = Browser(link, seconds=60)
        played = probe(link, PROBE, "play", "Upstairs", "http://media.test/song.mp3", "30")
        group, members = played["group"], played["members"]
        assert group["player_state"] == "PLAYING" and group["app_id"] == "CC1AD845", played
        assert group["uuid"] == upstairs["uuid"]
        # MultizoneManager matched the members by their dashed ids: both are in the group.
        assert members["Kitchen"]["memberships"] == [group["uuid"]], played
        assert members["Bedroom"]["memberships"] == [group["uuid"]], played
        assert members["TV"]["memberships"] == [], played
        # Each member's own endpoint shows the group's session: the leader 531A4F84 with the
        # group's sessionId, the follower 705D30C6; neither plays media of its own.
        assert members["Kitchen"]["app_id"] == "531A4F84" and members["Kitchen"]["session_id"] == group["session_id"], played
        assert members["Kitchen"]["display_name"] == "Default Media Receiver"
        assert members["Bedroom"]["app_id"] == "705D30C6", played
        assert members["TV"]["app_id"] == "E8C28D3C", played
        assert members["Bedroom"]["media_player_state"] == "UNKNOWN", played
        # MultizoneManager forwards the group's media status to the members' listeners.
        assert "PLAYING" in members["Bedroom"]["group_media_states"], played
        # mDNS while the group plays: st=1 and rs on the group's record and on its members'.
        group_hex = group["uuid"].replace("-", "")
        for instance in (f"Google-Cast-Group-{group_hex}", f"Nest-Audio-{members['Bedroom']['uuid'].replace('-', '')}"):
            busy = browser.wait_for(lambda e: e["event"] in ("added", "updated") and e["name"] == f"{instance}._googlecast._tcp.local."
                                    and e.get("txt", {}).get("st") == "1", f"{instance} busy", timeout=20, seen_ok=True)
            assert busy["txt"]["rs"] == "Default Media Receiver", busy
        browser.stop()
    finally:
        device.stop()


def test_catt_casts_to_the_group_by_name(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    device = household(link, tmp_path, castsim_bin)
    song = tmp_path / "song.mp3"
    song.write_bytes(b"ID3" + bytes(2048))
    # catt serves a local file itself and blocks while it plays: it runs until killed.
    catt = link.popen(link.sender_ns, [PYTHON, str(CATT), "-d", "Upstairs", "cast", str(song)],
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    outputs: list[str] = []

    def stopped_catt_output() -> str:
        """catt killed (it never ends by itself), and all it printed."""
        if not outputs:
            catt.kill()
            outputs.append(catt.communicate(timeout=10)[0])
        return outputs[0]

    try:
        def group_state() -> dict:
            return ctl(link, castsim_bin, device, "--device", "Upstairs", "state")

        state = wait_until(lambda: (s := group_state()).get("media") and s["media"]["playerState"] == "PLAYING" and s,
                           timeout=60, what="catt's cast playing on the group",
                           details=lambda: f"catt: {catt.poll()} group: {group_state().get('media')}")
        # catt serves the file itself, from the sender's address.
        assert state["media"]["items"][0]["media"]["contentId"].startswith("http://10.77.0.2:")
        assert state["app"]["appId"] == "CC1AD845"
        kitchen = ctl(link, castsim_bin, device, "--device", "Kitchen", "state")
        assert kitchen["app"]["appId"] == "531A4F84" and kitchen["app"]["sessionId"] == state["app"]["sessionId"]
    except AssertionError as failure:
        exited = catt.poll()
        raise AssertionError(f"{failure}\ncatt {'exited with ' + str(exited) if exited is not None else 'was still running'}; "
                             f"its output:\n{stopped_catt_output()}") from None
    finally:
        output = stopped_catt_output()
        device.stop()
    assert "Upstairs" in output, output


class Follower(JsonLines):
    """group_probe.py follow, its JSON lines as they come."""

    def __init__(self, link: Link, seconds: float) -> None:
        super().__init__(link.popen(link.sender_ns, [PYTHON, str(PROBE), "follow", "Upstairs", str(seconds)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))


def test_a_member_drops_out_and_the_leader_moves_while_pychromecast_is_connected(link: Link, tmp_path: Path,
                                                                                  castsim_bin: Path) -> None:
    device = household(link, tmp_path, castsim_bin)
    follower = Follower(link, seconds=90)
    browser = Browser(link, seconds=90)
    try:
        ready = follower.wait_for(lambda e: e.get("event") == "ready", "the group", timeout=40)
        assert (ready["host"], ready["port"]) == (KITCHEN, GROUP_PORT)
        follower.wait_for(lambda e: e.get("event") == "member_added" and e["member"] == "Bedroom", "Bedroom in the group",
                          seen_ok=True)

        # Bedroom drops out: DEVICE_REMOVED with its dashed id, and MultizoneManager drops it;
        # back: DEVICE_ADDED, and it is a member again.
        bedroom = uuid_of(device, link, castsim_bin, "Bedroom")
        ctl(link, castsim_bin, device, "--device", "Bedroom", "act", '{"offline": true}')
        follower.wait_for(lambda e: e.get("event") == "multizone" and e["type"] == "DEVICE_REMOVED" and e["deviceId"] == bedroom,
                          "DEVICE_REMOVED for Bedroom")
        follower.wait_for(lambda e: e.get("event") == "member_removed" and e["member"] == "Bedroom", "Bedroom leaving", seen_ok=True)
        online = {entry["name"]: entry["online"] for entry in ctl(link, castsim_bin, device, "devices")["devices"]}
        assert online["Bedroom"] is False and online["Kitchen"] is True, online
        # A group the household does not have is a 404 (a thing named that does not exist),
        # not a 409 (a state that refuses).
        refused = link.run(link.device_ns, [str(castsim_bin), "ctl", "--url", device.control_url, "act", '{"deleteGroup": "Nowhere"}'],
                           capture_output=True, text=True, timeout=30)
        assert refused.returncode == 1 and '404: no group "Nowhere"' in refused.stderr, refused.stderr
        ctl(link, castsim_bin, device, "--device", "Bedroom", "act", '{"online": true}')
        follower.wait_for(lambda e: e.get("event") == "multizone" and e["type"] == "DEVICE_ADDED" and e["deviceId"] == bedroom,
                          "DEVICE_ADDED for Bedroom")
        follower.wait_for(lambda e: e.get("event") == "member_added" and e["member"] == "Bedroom", "Bedroom back", seen_ok=True)

        # Bedroom takes the lead: the group is announced from Bedroom's address on the same
        # port, the old address refuses; pychromecast resolves the group again and reconnects.
        ctl(link, castsim_bin, device, "--device", "Bedroom", "act", '{"leadGroup": {"group": "Upstairs", "rename": true}}')
        follower.wait_for(lambda e: e.get("event") == "connection" and e["status"] in ("LOST", "DISCONNECTED", "FAILED"),
                          "the group's connection closing")
        moved = follower.wait_for(lambda e: e.get("event") == "connection" and e["status"] == "CONNECTED" and e["host"] == BEDROOM,
                                  "a reconnection at the new leader", timeout=60)
        assert moved["port"] == GROUP_PORT
        # On mDNS: the old leader said goodbye for the group, the new one announces it under
        # the -1 name, SRV to its own host, same id and port.
        group_hex = uuid_of(device, link, castsim_bin, "Upstairs").replace("-", "")
        old_name = f"Google-Cast-Group-{group_hex}._googlecast._tcp.local."
        announced = browser.wait_for(lambda e: e["event"] == "added" and e["name"] == f"Google-Cast-Group-{group_hex}-1._googlecast._tcp.local.")
        assert announced["port"] == GROUP_PORT and BEDROOM in announced["addresses"], announced
        assert announced["server"] == f"{uuid_of(device, link, castsim_bin, 'Bedroom')}.local."
        assert announced["txt"]["id"] == str(uuidlib.UUID(group_hex)) and announced["txt"]["md"] == "Google Cast Group"
        assert any(e["event"] == "removed" and e["name"] == old_name for e in browser.seen) or \
            browser.wait_for(lambda e: e["event"] == "removed" and e["name"] == old_name)
        # The members' eureka_info (over HTTPS, as pychromecast reads it) agree: Bedroom leads
        # ("self", the group's port), Kitchen points at Bedroom; and the old address refuses.
        assert probe(link, DISCOVERY_PROBE, "multizone", BEDROOM)["groups"] == [
            {"name": "Upstairs", "uuid": str(uuidlib.UUID(group_hex)), "host": BEDROOM, "port": GROUP_PORT}]
        kitchen_view = probe(link, DISCOVERY_PROBE, "multizone", KITCHEN)["groups"]
        assert [(g["name"], g["host"]) for g in kitchen_view] == [("Upstairs", BEDROOM)], kitchen_view
        refused = link.run(link.sender_ns, [PYTHON, "-c", f"import socket; socket.create_connection(('{KITCHEN}', {GROUP_PORT}), 5)"],
                           capture_output=True, text=True)
        assert refused.returncode != 0 and "Connection refused" in refused.stderr, refused
    finally:
        browser.stop()
        follower.stop()
        device.stop()
