"""End-to-end: a household of devices in one castsim (issue 13).

`castsim run --devices N` and a scenario with `devices` start several devices in one
process, each on its own address with its own name, UUID, eureka_info and state.
pychromecast connects to each by address; `castsim ctl --device` acts on one.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import time
import urllib.request
import uuid as uuidlib
from pathlib import Path
from types import SimpleNamespace

from castsim.castv2 import NS_RECEIVER

from caf_sender import Caf
from e2e_harness import REPO_ROOT, CastsimDevice, connect_sender, disconnect_sender, wait_until


def ctl(binary: Path, device: CastsimDevice, *words: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), "ctl", "--url", device.control_url, *words], capture_output=True, text=True, timeout=30)


def listed(binary: Path, device: CastsimDevice) -> list[dict]:
    answer = ctl(binary, device, "devices")
    assert answer.returncode == 0, answer.stderr
    return json.loads(answer.stdout)["devices"]


def member(entry: dict) -> SimpleNamespace:
    """What connect_sender needs of one device of the household, from `ctl devices`."""
    host, _, port = entry["cast"].rpartition(":")
    return SimpleNamespace(host=host, cast_port=int(port), uuid=uuidlib.UUID(entry["uuid"]), model=entry["model"], name=entry["name"])


def eureka_name(host: str) -> str:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with urllib.request.urlopen(f"https://{host}:8443/setup/eureka_info?params=name", context=context, timeout=10) as reply:
        return json.loads(reply.read())["name"]


def test_devices_each_with_their_own_address_name_and_state(castsim_bin: Path, castsim_factory) -> None:
    household = castsim_factory(household=3, extra_args=("--devices", "3", "--name", "Room", "--audio-only"))
    entries = listed(castsim_bin, household)
    assert [entry["name"] for entry in entries] == ["Room", "Room 2", "Room 3"]
    assert [entry["cast"] for entry in entries] == [f"{host}:{port}" for host, port in household.cast_addrs]
    assert len({entry["uuid"] for entry in entries}) == 3
    for entry in entries:
        assert eureka_name(entry["cast"].rpartition(":")[0]) == entry["name"]

    second = connect_sender(member(entries[1]))
    third = connect_sender(member(entries[2]))
    try:
        assert second.cast.cast_info.friendly_name == "Room 2"
        second.cast.set_volume(0.4)
        wait_until(lambda: abs(second.cast.status.volume_level - 0.4) < 1e-6, what="Room 2 at 0.4")
        # The remote of Room 3, through the control API.
        done = ctl(castsim_bin, household, "--device", "Room 3", "volume", "0.2")
        assert done.returncode == 0, done.stderr
        wait_until(lambda: abs(third.cast.status.volume_level - 0.2) < 1e-6, what="Room 3 at 0.2")
        # Neither saw the other's change.
        assert abs(second.cast.status.volume_level - 0.4) < 1e-6
        state = json.loads(ctl(castsim_bin, household, "state").stdout)
        assert state["device"]["name"] == "Room" and state["volume"]["level"] == 1
        refused = ctl(castsim_bin, household, "--device", "Garage", "state")
        assert refused.returncode == 1
        assert 'no device "Garage": the devices are "Room", "Room 2", "Room 3"' in refused.stderr
    finally:
        for sender in (second, third):
            disconnect_sender(sender)


def test_household_scenario_steps_and_expectations_name_their_device(castsim_bin: Path, castsim_factory, tmp_path: Path) -> None:
    report_path = tmp_path / "household.report.json"
    household = castsim_factory(household=3, extra_args=(
        "--scenario", str(REPO_ROOT / "scenarios" / "household.json"), "--report", str(report_path)))
    entries = {entry["name"]: entry for entry in listed(castsim_bin, household)}
    assert list(entries) == ["Living Room TV", "Kitchen speaker", "Bedroom speaker"]
    assert entries["Kitchen speaker"]["model"] == "Google Home Mini"

    kitchen = connect_sender(member(entries["Kitchen speaker"]))
    tv = connect_sender(member(entries["Living Room TV"]))
    bedroom = connect_sender(member(entries["Bedroom speaker"]))
    try:
        # The kitchen's step fires when a sender connects to the kitchen, and only there.
        wait_until(lambda: abs(kitchen.cast.status.volume_level - 0.2) < 1e-6, what="the kitchen turned down")
        assert abs(bedroom.cast.status.volume_level - 0.3) < 1e-6
        tv.media.play_media("movie.mp4", "video/mp4", stream_type="BUFFERED")
        tv.media.block_until_active(timeout=10)
        wait_until(lambda: tv.media.status.player_state == "PLAYING", what="the TV playing")
        # The catalog is the household's: the TV knows the movie's length.
        assert tv.media.status.duration == 600
    finally:
        for sender in (kitchen, tv, bedroom):
            disconnect_sender(sender)
    assert household.stop() == 0
    report = json.loads(report_path.read_text())
    assert report["scenario"] == "a household of three"
    assert report["passed"] is True
    assert [(e["device"], e["name"], e["passed"]) for e in report["expectations"]] == [
        ("Living Room TV", "the TV is asked to play something", True)]
    assert report["stepsFired"] == 1 and report["stepsTotal"] == 1


def test_a_session_moves_to_another_device_of_the_household(castsim_bin: Path, castsim_factory) -> None:
    # Stream transfer (docs/protocol/media.md §7) as a controller does it, through the
    # control API: pychromecast on the target sees the session play on at the stored
    # position within a second; the source goes back to idle.
    household = castsim_factory(household=2, extra_args=("--devices", "2", "--name", "Room"))
    entries = listed(castsim_bin, household)
    source = connect_sender(member(entries[0]))
    target = connect_sender(member(entries[1]))
    try:
        source.media.play_media("http://example.test/song.mp3", "audio/mp3", stream_type="BUFFERED")
        source.media.block_until_active(timeout=10)
        wait_until(lambda: source.media.status.player_state == "PLAYING", what="the source playing")
        source.media.seek(60)
        wait_until(lambda: source.media.status.current_time >= 60, what="the source at 60 s")
        moved = ctl(castsim_bin, household, "--device", "Room", "act", '{"transferSession": "Room 2"}')
        assert moved.returncode == 0, moved.stderr
        started = time.monotonic()
        target.media.block_until_active(timeout=5)
        wait_until(lambda: target.media.status.player_state == "PLAYING", timeout=1, what="the target playing")
        assert time.monotonic() - started < 1.5
        assert target.media.status.content_id == "http://example.test/song.mp3"
        assert 60 <= target.media.status.adjusted_current_time < 65
        wait_until(lambda: source.cast.status.app_id != "CC1AD845", what="the source back to idle")
        # Refused with the reason: nothing plays on Room now.
        again = ctl(castsim_bin, household, "--device", "Room", "act", '{"transferSession": "Room 2"}')
        assert again.returncode != 0 and "plays nothing to transfer" in again.stderr, again.stderr
    finally:
        for sender in (source, target):
            disconnect_sender(sender)
    assert household.stop() == 0


def test_a_sender_stores_the_session_on_one_device_and_resumes_it_on_another(castsim_bin: Path, castsim_factory) -> None:
    # What a controller does (docs/protocol/media.md §7), by hand over TLS: STORE_SESSION on
    # A, RESUME_SESSION of the answer on B, STOP on A. pychromecast on B sees PLAYING at the
    # stored position within a second; A is idle.
    household = castsim_factory(household=2, extra_args=("--devices", "2", "--name", "Room"))
    entries = listed(castsim_bin, household)
    watcher = connect_sender(member(entries[1]))
    hosts = [entry["cast"].rpartition(":")[0] for entry in entries]
    on_a = Caf(SimpleNamespace(host=hosts[0]), "sender-phone")
    on_b = Caf(SimpleNamespace(host=hosts[1]), "sender-phone")
    try:
        on_a.join(launch=True)
        on_a.media({"type": "LOAD", "requestId": 2, "customData": {"account": "a1"},
                    "media": {"contentId": "http://example.test/song.mp3", "contentType": "audio/mp3", "streamType": "BUFFERED"}})
        on_a.answer(2)
        on_a.media({"type": "SEEK", "requestId": 3, "currentTime": 42})
        on_a.answer(3)
        on_a.media({"type": "STORE_SESSION", "requestId": 4,
                    "targetDeviceCapabilities": {"assistant_supported": True, "display_supported": True, "is_group": False}})
        stored = on_a.answer(4)
        assert stored["type"] == "SESSION_STATE", stored
        started = time.monotonic()
        on_b.join(launch=True)
        on_b.media({"type": "RESUME_SESSION", "requestId": 5, "sessionState": stored["sessionState"]})
        resumed = on_b.answer(5)["status"][0]
        assert resumed["playerState"] == "PLAYING" and 42 <= resumed["currentTime"] < 44
        watcher.media.block_until_active(timeout=5)
        wait_until(lambda: watcher.media.status.player_state == "PLAYING", timeout=1, what="pychromecast on B sees PLAYING")
        assert time.monotonic() - started < 1.5
        assert 42 <= watcher.media.status.adjusted_current_time < 45
        # The source is stopped, as the controller does: IDLE, CANCELLED.
        on_a.connection.send(NS_RECEIVER, text=json.dumps({"type": "STOP", "requestId": 6}), source=on_a.source)
        on_a.until(lambda ns, p: ns == NS_RECEIVER and p.get("type") == "RECEIVER_STATUS"
                   and all(a.get("appId") != "CC1AD845" for a in p["status"].get("applications", [])), "A back to idle")
    finally:
        on_a.close()
        on_b.close()
        disconnect_sender(watcher)
    assert household.stop() == 0
