"""End-to-end: `castsim relay` between pychromecast and an upstream device (issue 12).

The upstream is a castsim running a scenario that differs from a plain device in ways
a sender can see (a slow load, a failing load, a volume change nobody asked for); the
relay sits on its own loopback address with the standard ports. pychromecast talks to
the relay only, and must see the upstream's behaviour; the relay's journal must hold
both directions. The relay records; the recording, converted to a scenario and run by a
plain castsim, gives the same pychromecast script the same observable sequence.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from pathlib import Path

import subprocess

from pychromecast.controllers import BaseController
from pychromecast.controllers.media import MEDIA_PLAYER_STATE_PLAYING, STREAM_TYPE_BUFFERED
from pychromecast.response_handler import WaitResponse

from e2e_harness import CAST_PORT, CastsimDevice, FailureRecorder, wait_until

MEDIA = "http://media.castsim.test"
LOAD_DELAY = 1.5
VOLUME = 0.25
UPSTREAM_NAME = "Upstream Living Room TV"

SCENARIO = {
    "name": "relay upstream",
    "media": {
        f"{MEDIA}/slow/*": {"load": {"delay": f"{int(LOAD_DELAY * 1000)}ms"}},
        f"{MEDIA}/broken/*": {"load": {"fail": {"detailedErrorCode": 104}}},
    },
    "timeline": [
        {"name": "someone turns it down", "after": {"event": "LOAD", "delay": "2s"}, "volume": {"level": VOLUME}},
    ],
}


def journal(device: CastsimDevice, **query: str) -> list[dict]:
    url = f"{device.control_url}/api/v1/journal?{urllib.parse.urlencode(query)}"
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.load(reply)["messages"]


class Observer(BaseController):
    """Every message pychromecast receives on one namespace, as what a sender acts on."""

    def __init__(self, namespace: str, seen: list) -> None:
        super().__init__(namespace)
        self.seen = seen

    def receive_message(self, _message, data: dict) -> bool:
        status = data.get("status")
        entry: tuple = (self.namespace.rsplit(".", 1)[-1], data.get("type"))
        if isinstance(status, list):
            entry += tuple((s.get("playerState"), s.get("idleReason")) for s in status)
        elif isinstance(status, dict):
            apps = status.get("applications") or [{}]
            entry += (apps[0].get("appId"), status.get("volume", {}).get("level"))
        if "detailedErrorCode" in data:
            entry += (data["detailedErrorCode"],)
        self.seen.append(entry)
        return False


def drive(device: CastsimDevice, sender_factory) -> list:
    """The sender's script: a slow load, the volume changing by itself, a failing load.
    Asserts what pychromecast must see; returns every media and receiver message it got."""
    sender = sender_factory(device)
    seen: list = []
    for namespace in ("urn:x-cast:com.google.cast.media", "urn:x-cast:com.google.cast.receiver"):
        sender.cast.register_handler(Observer(namespace, seen))
    failures = FailureRecorder()
    sender.media.register_status_listener(failures)

    # The upstream's load delay: PLAYING comes no sooner.
    started = time.monotonic()
    handler = WaitResponse(10.0, "play_media slow")
    sender.media.play_media(f"{MEDIA}/slow/movie.mp4", "video/mp4", stream_type=STREAM_TYPE_BUFFERED,
                            callback_function=handler.callback)
    wait_until(lambda: sender.media.status.player_state == MEDIA_PLAYER_STATE_PLAYING, what="PLAYING",
               details=sender.describe)
    elapsed = time.monotonic() - started
    assert LOAD_DELAY <= elapsed < LOAD_DELAY + 5, elapsed
    handler.wait_response()
    assert handler.response is not None and handler.response["type"] == "MEDIA_STATUS", handler.response

    # The upstream's volume change, nobody's request.
    wait_until(lambda: abs(sender.cast.status.volume_level - VOLUME) < 1e-3, what=f"volume {VOLUME}",
               details=sender.describe)

    # The upstream's LOAD_FAILED.
    handler = WaitResponse(10.0, "play_media broken")
    sender.media.play_media(f"{MEDIA}/broken/stream.m3u8", "application/x-mpegURL", callback_function=handler.callback)
    handler.wait_response()
    assert handler.response is not None and handler.response["type"] == "LOAD_FAILED", handler.response
    wait_until(lambda: failures.failures, what="load_media_failed callback")
    assert [code for _, code in failures.failures] == [104]
    # Whatever else comes of the failure (the IDLE status) before the sender leaves.
    time.sleep(0.5)
    sender.cast.disconnect(timeout=10)
    return seen


def without_get_status_answers(seen: list) -> list:
    """The messages but the media statuses without a media session (GET_STATUS answers)."""
    return [entry for entry in seen if entry != ("media", "MEDIA_STATUS")]


def test_pychromecast_sees_the_upstream_through_the_relay(castsim_factory, castsim_bin: Path, sender_factory,
                                                          tmp_path: Path) -> None:
    scenario = tmp_path / "relay-upstream.json"
    scenario.write_text(json.dumps(SCENARIO))
    recording = tmp_path / "relay.jsonl"
    upstream = castsim_factory(name=UPSTREAM_NAME, extra_args=("--scenario", str(scenario)))
    relay = castsim_factory(subcommand="relay", name=UPSTREAM_NAME, pass_name=False,
                            extra_args=("--upstream", f"{upstream.host}:{CAST_PORT}", "--record", str(recording)))
    assert relay.host != upstream.host

    # The relay is a device of its own, named after the upstream (its eureka_info).
    with urllib.request.urlopen(f"http://{relay.host}:{relay.http_addr[1]}/setup/eureka_info", timeout=10) as reply:
        info = json.load(reply)
    assert info["name"] == UPSTREAM_NAME
    assert info["ssdp_udn"] != upstream.udn

    through_relay = drive(relay, sender_factory)
    assert ("media", "LOAD_FAILED", 104) in through_relay, through_relay

    # Both directions in the relay's journal, as the upstream saw and sent them.
    loads = journal(relay, direction="in", type="LOAD")
    assert [m["payload"]["media"]["contentId"] for m in loads] == [f"{MEDIA}/slow/movie.mp4", f"{MEDIA}/broken/stream.m3u8"]
    assert [m["payload"] for m in loads] == [m["payload"] for m in journal(upstream, direction="in", type="LOAD")]
    failed = journal(relay, direction="out", type="LOAD_FAILED")
    assert len(failed) == 1 and failed[0]["payload"]["detailedErrorCode"] == 104
    statuses = journal(relay, direction="out", type="RECEIVER_STATUS")
    assert any(abs(m["payload"]["status"]["volume"]["level"] - VOLUME) < 1e-3 for m in statuses)
    # The relay's own device answered nothing: every reply came from the upstream.
    relayed_out = journal(relay, direction="out")
    upstream_out = [m["payload"] for m in journal(upstream, direction="out")]
    assert relayed_out and all(m["payload"] in upstream_out for m in relayed_out)

    # The recording says it is a relay's, and of what.
    assert relay.stop() == 0
    upstream.stop()
    header = json.loads(recording.read_text().splitlines()[0])
    assert header["source"] == "relay" and header["upstream"] == f"{upstream.host}:{CAST_PORT}"
    assert header["device"]["name"] == UPSTREAM_NAME

    # Converted and run by a plain castsim, it behaves as the upstream did for the same script.
    converted = subprocess.run([str(castsim_bin), "scenario", "from-recording", str(recording)],
                               capture_output=True, text=True, timeout=60)
    assert converted.returncode == 0, converted.stderr
    replay_scenario = tmp_path / "replay.json"
    replay_scenario.write_text(converted.stdout)
    rules = [rule["match"].get("type") for rule in json.loads(converted.stdout)["rules"]]
    assert "LOAD" in rules, f"the upstream's slow and failing loads are answered as recorded: {rules}"
    report = tmp_path / "replay.report.json"
    replay = castsim_factory(name=UPSTREAM_NAME, extra_args=("--scenario", str(replay_scenario), "--report", str(report)))
    replayed = drive(replay, sender_factory)
    # The same messages, and in the same order but for the empty media status that answers
    # pychromecast's own GET_STATUS when the app comes up: its socket thread sends that
    # while the test's thread sends the LOAD, so which of the two the device hears first
    # is the client's scheduling, not the device's (a loaded machine swapped them once).
    assert sorted(map(repr, replayed)) == sorted(map(repr, through_relay))
    assert without_get_status_answers(replayed) == without_get_status_answers(through_relay)
    assert replay.stop() == 0
    outcome = json.loads(report.read_text())
    assert outcome["passed"], json.dumps(outcome, indent=1)[:3000]
