"""End-to-end: CAF's requests beyond playback, over TLS from two raw senders at once
(docs/protocol/media.md §2.2, §2.3, §7, §11): ad breaks under the manual clock, user
actions, stream transfer's STORE_SESSION / RESUME_SESSION, the Chrome-internal names.
pychromecast has none of these calls; the senders speak CASTV2 as a CAF sender does."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path

from castsim.castv2 import NS_MEDIA

from caf_sender import Caf
from e2e_harness import CastsimDevice

SHOW = {
    "contentId": "http://example.test/show.mp4", "contentType": "video/mp4", "streamType": "BUFFERED", "duration": 1800,
    "breaks": [{"id": "pre", "position": 0, "breakClipIds": ["ad1"]},
               {"id": "mid", "position": 600, "breakClipIds": ["ad2"]}],
    "breakClips": [{"id": "ad1", "duration": 15, "whenSkippable": 5, "title": "Ad one"},
                   {"id": "ad2", "duration": 20, "title": "Ad two"}],
}


def advance(device: CastsimDevice, by: str) -> None:
    request = urllib.request.Request(f"{device.control_url}/api/v1/clock/advance", data=json.dumps({"by": by}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def state(device: CastsimDevice) -> dict:
    with urllib.request.urlopen(f"{device.control_url}/api/v1/state", timeout=10) as response:
        return json.loads(response.read())


def two_senders(device: CastsimDevice) -> tuple[Caf, Caf]:
    first = Caf(device, "sender-caf-1")
    first.join(launch=True)
    second = Caf(device, "sender-caf-2")
    second.join(launch=False)
    return first, second


def test_an_ad_break_scenario_under_the_manual_clock(castsim_factory: Callable[..., CastsimDevice]) -> None:
    device = castsim_factory(extra_args=("--manual-clock",))
    first, second = two_senders(device)
    try:
        first.media({"type": "LOAD", "requestId": 2, "media": SHOW, "autoplay": True})
        loaded = first.answer(2)["status"][0]
        # The pre-roll plays with the LOAD's answer.
        assert loaded["breakStatus"] == {"breakId": "pre", "breakClipId": "ad1", "currentBreakTime": 0, "currentBreakClipTime": 0,
                                         "whenSkippable": 5}
        assert loaded["supportedMediaCommands"] & 512 == 512
        assert [b.get("isWatched") for b in loaded["media"]["breaks"]] == [True, None]
        session = loaded["mediaSessionId"]
        # Too early to skip: refused, with the request's id.
        advance(device, "2s")
        first.media({"type": "SKIP_AD", "requestId": 3, "mediaSessionId": session})
        assert first.answer(3) == {"type": "INVALID_PLAYER_STATE", "requestId": 3}
        advance(device, "4s")
        first.media({"type": "SKIP_AD", "requestId": 4, "mediaSessionId": session})
        skipped = first.answer(4)["status"][0]
        assert "breakStatus" not in skipped and skipped["currentTime"] == 0
        # The other sender sees the break end too.
        second.until(lambda ns, p: ns == NS_MEDIA and p.get("type") == "MEDIA_STATUS" and "breakStatus" not in p["status"][0],
                     "the skipped pre-roll")
        # The mid-roll at 10 m: the content waits at 600 while its clip plays; both senders see it.
        advance(device, "10m")
        for sender in (first, second):
            started = sender.until(lambda ns, p: ns == NS_MEDIA and p.get("status") and p["status"][0].get("breakStatus", {}).get("breakId") == "mid",
                                   "the mid-roll")
            assert started["status"][0]["currentTime"] == 600 and started["requestId"] == 0
        assert state(device)["media"]["breakStatus"]["breakId"] == "mid"
        advance(device, "20s")
        advance(device, "1m")
        assert state(device)["media"]["breakStatus"] is None and state(device)["media"]["currentTime"] == 660
        # Back before it and forward past it: the watched mid-roll is not replayed.
        first.media({"type": "SEEK", "requestId": 5, "currentTime": 100})
        first.answer(5)
        first.media({"type": "SEEK", "requestId": 6, "currentTime": 700})
        forward = first.answer(6)["status"][0]
        assert "breakStatus" not in forward and forward["currentTime"] == 700
    finally:
        first.close()
        second.close()


def test_user_actions_stream_transfer_and_chrome_internal_names(castsim_factory: Callable[..., CastsimDevice], tmp_path: Path) -> None:
    scenario = tmp_path / "liked.json"
    scenario.write_text(json.dumps({"name": "liked", "media": {"http://example.test/song.mp3": {"duration": "3m", "userActions": ["LIKE"]}}}))
    device = castsim_factory(extra_args=("--scenario", str(scenario), "--manual-clock"))
    first, second = two_senders(device)
    try:
        first.media({"type": "LOAD", "requestId": 2, "customData": {"account": "a1"},
                     "media": {"contentId": "http://example.test/song.mp3", "contentType": "audio/mp3", "streamType": "BUFFERED"}})
        status = first.answer(2)["status"][0]
        assert status["supportedMediaCommands"] & 16384 == 16384 and status["supportedMediaCommands"] & 32768 == 0
        # The state names the same bits.
        names = state(device)["media"]["supportedMediaCommandNames"]
        assert "LIKE" in names and "STREAM_TRANSFER" in names and "DISLIKE" not in names, names
        # LIKE: every sender sees the item's userActionStates; the asker with its requestId.
        first.media({"type": "USER_ACTION", "requestId": 3, "userAction": "LIKE", "userActionContext": "TRACK"})
        liked = first.answer(3)["status"][0]
        assert liked["media"]["userActionStates"] == [{"userAction": "LIKE"}]
        seen = second.until(lambda ns, p: ns == NS_MEDIA and p.get("requestId") == 3, "the LIKE's status")
        assert seen["status"][0]["media"]["userActionStates"] == [{"userAction": "LIKE"}]
        first.media({"type": "USER_ACTION", "requestId": 4, "userAction": "FOLLOW"})
        assert first.answer(4) == {"type": "ERROR", "requestId": 4, "reason": "NOT_SUPPORTED"}
        first.media({"type": "USER_ACTION", "requestId": 5, "userAction": "LIKE", "clear": "yes"})
        assert first.answer(5) == {"type": "INVALID_REQUEST", "requestId": 5, "reason": "INVALID_PARAMS"}
        # fx_cast's names, answered as their twins.
        first.media({"type": "MEDIA_GET_STATUS", "requestId": 6})
        assert first.answer(6)["type"] == "MEDIA_STATUS"
        # STORE_SESSION: the state to the asker alone.
        advance(device, "30s")
        first.media({"type": "STORE_SESSION", "requestId": 7,
                     "targetDeviceCapabilities": {"assistant_supported": True, "display_supported": True, "is_group": False}})
        stored = first.answer(7)
        assert stored["type"] == "SESSION_STATE"
        load = stored["sessionState"]["loadRequestData"]
        assert load["currentTime"] == 30 and load["customData"] == {"account": "a1"} and load["autoplay"] is True
        assert load["media"]["contentId"] == "http://example.test/song.mp3"
        # RESUME_SESSION of it: a new session at the stored position, every sender told.
        first.media({"type": "RESUME_SESSION", "requestId": 8, "sessionState": stored["sessionState"]})
        resumed = first.answer(8)["status"][0]
        assert resumed["playerState"] == "PLAYING" and resumed["currentTime"] == 30 and resumed["mediaSessionId"] != status["mediaSessionId"]
        first.media({"type": "RESUME_SESSION", "requestId": 9, "sessionState": {}})
        assert first.answer(9) == {"type": "INVALID_REQUEST", "requestId": 9, "reason": "INVALID_PARAMS"}
        assert state(device)["media"]["playerState"] == "PLAYING"
    finally:
        first.close()
        second.close()
