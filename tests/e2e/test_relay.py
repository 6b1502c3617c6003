"""End-to-end: `castsim relay` between pychromecast and an upstream device (issue 12).

The upstream is a castsim running a scenario that differs from a plain device in ways
a sender can see (a slow load, a failing load, a volume change nobody asked for); the
relay sits on its own loopback address with the standard ports. pychromecast talks to
the relay only, and must see the upstream's behaviour; the relay's journal must hold
both directions.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from pathlib import Path

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


def test_pychromecast_sees_the_upstream_through_the_relay(castsim_factory, sender_factory, tmp_path: Path) -> None:
    scenario = tmp_path / "relay-upstream.json"
    scenario.write_text(json.dumps(SCENARIO))
    upstream = castsim_factory(name=UPSTREAM_NAME, extra_args=("--scenario", str(scenario)))
    relay = castsim_factory(subcommand="relay", name=UPSTREAM_NAME, pass_name=False,
                            extra_args=("--upstream", f"{upstream.host}:{CAST_PORT}"))
    assert relay.host != upstream.host

    # The relay is a device of its own, named after the upstream (its eureka_info).
    with urllib.request.urlopen(f"http://{relay.host}:{relay.http_addr[1]}/setup/eureka_info", timeout=10) as reply:
        info = json.load(reply)
    assert info["name"] == UPSTREAM_NAME
    assert info["ssdp_udn"] != upstream.udn

    sender = sender_factory(relay)
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
