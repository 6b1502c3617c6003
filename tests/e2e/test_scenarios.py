"""End-to-end: pychromecast against each example scenario in scenarios/ (issue 4).

Each test starts castsim with --scenario, drives pychromecast the way an app would,
and asserts what the sender observes; the scenario's own report (written when castsim
stops) must agree.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from pychromecast.controllers.media import (
    MEDIA_PLAYER_STATE_BUFFERING,
    MEDIA_PLAYER_STATE_IDLE,
    MEDIA_PLAYER_STATE_PAUSED,
    MEDIA_PLAYER_STATE_PLAYING,
    STREAM_TYPE_BUFFERED,
)
from pychromecast.response_handler import WaitResponse

from e2e_harness import REPO_ROOT, CastsimDevice, FailureRecorder, Sender, shorten_pychromecast_heartbeat, wait_until

SCENARIOS = REPO_ROOT / "scenarios"
MEDIA = "http://media.castsim.test"


def start(castsim_factory, tmp_path: Path, name: str, *extra: str) -> tuple[CastsimDevice, Path]:
    report = tmp_path / f"{name}.report.json"
    device = castsim_factory(extra_args=("--scenario", str(SCENARIOS / f"{name}.json"), "--report", str(report), *extra))
    return device, report


def stop_and_read_report(device: CastsimDevice, report: Path) -> dict:
    status = device.stop()
    assert status == 0, f"castsim exited with {status}"
    return json.loads(report.read_text())


def expectation(report: dict, name: str) -> dict:
    found = [e for e in report["expectations"] if e["name"] == name]
    assert found, f"no expectation {name!r} in {report}"
    return found[0]


def play(sender: Sender, url: str, content_type: str = "video/mp4", **kwargs: Any) -> dict:
    handler = WaitResponse(10.0, f"play_media {url}")
    sender.media.play_media(url, content_type, stream_type=STREAM_TYPE_BUFFERED,
                            callback_function=handler.callback, **kwargs)
    handler.wait_response()
    assert handler.response is not None
    sender.media.block_until_active(timeout=10)
    return handler.response


def command(sender: Sender, payload: dict) -> dict | None:
    """A raw media command with the current mediaSessionId; returns the reply."""
    handler = WaitResponse(10.0, payload["type"])
    sender.media._send_command(dict(payload), handler.callback)
    handler.wait_response()
    return handler.response


def wait_state(sender: Sender, state: str, timeout: float = 10.0) -> None:
    wait_until(lambda: sender.media.status.player_state == state, timeout=timeout,
               what=f"player state {state}", details=sender.describe)


def test_plain_movie(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device, report_path = start(castsim_factory, tmp_path, "plain-movie")
    sender = sender_factory(device)
    # The sender gives neither duration nor metadata: the catalog knows both.
    play(sender, f"{MEDIA}/big-buck-bunny.mp4")
    wait_state(sender, MEDIA_PLAYER_STATE_PLAYING)
    assert sender.media.status.duration == 596
    assert sender.media.status.title == "Big Buck Bunny"
    sender.media.pause()
    wait_state(sender, MEDIA_PLAYER_STATE_PAUSED)
    sender.media.seek(590)
    sender.media.play()
    # 6 s of movie left: it plays to the end, IDLE/FINISHED.
    wait_until(lambda: sender.media.status.idle_reason == "FINISHED", timeout=15, what="IDLE/FINISHED at the end",
               details=sender.describe)
    report = stop_and_read_report(device, report_path)
    assert report["passed"] is True, report
    assert expectation(report, "loads the movie")["evidence"][0]["payload"]["type"] == "LOAD"


def test_music_queue_with_repeat(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device, report_path = start(castsim_factory, tmp_path, "music-queue-repeat")
    sender = sender_factory(device)
    play(sender, f"{MEDIA}/music/one.mp3", "audio/mpeg", title="One")
    for title in ("Two", "Three"):
        play(sender, f"{MEDIA}/music/{title.lower()}.mp3", "audio/mpeg", title=title, enqueue=True)
    reply = command(sender, {"type": "QUEUE_UPDATE", "repeatMode": "REPEAT_ALL"})
    assert reply and reply["status"][0]["repeatMode"] == "REPEAT_ALL"
    # 3-minute songs at 60x: 3 s each. The queue goes round: One, Two, Three, One ...
    seen: list[str] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and seen[-4:] != ["One", "Two", "Three", "One"]:
        title = sender.media.status.title
        if title and (not seen or seen[-1] != title):
            seen.append(title)
        time.sleep(0.05)
    assert seen[-4:] == ["One", "Two", "Three", "One"], seen
    assert sender.media.status.supports_queue_next and sender.media.status.supports_queue_prev
    report = stop_and_read_report(device, report_path)
    assert expectation(report, "builds a queue and repeats it")["passed"], report


def test_subtitles_with_styles(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device, report_path = start(castsim_factory, tmp_path, "subtitles-styles")
    sender = sender_factory(device)
    play(sender, f"{MEDIA}/film.mp4", title="Film")
    # The tracks are in the stream (the catalog), not in the sender's LOAD.
    wait_until(lambda: len(sender.media.status.subtitle_tracks) == 3, what="tracks from the catalog")
    languages = {t["trackId"]: t.get("language") for t in sender.media.status.subtitle_tracks}
    assert languages == {1: "en-US", 2: "fr", 3: "en"}
    sender.media.enable_subtitle(1)
    wait_until(lambda: sender.media.status.current_subtitle_tracks == [1], what="English subtitles on")
    style = {"foregroundColor": "#FFFF00FF", "edgeType": "DROP_SHADOW", "fontScale": 1.5, "fontGenericFamily": "SERIF"}
    reply = command(sender, {"type": "EDIT_TRACKS_INFO", "textTrackStyle": style})
    assert reply["type"] == "MEDIA_STATUS" and reply["status"][0]["media"]["textTrackStyle"] == style
    bad = command(sender, {"type": "EDIT_TRACKS_INFO", "textTrackStyle": {"fontScale": 0}})
    assert bad["type"] == "INVALID_REQUEST" and bad["reason"] == "INVALID_PARAMS"
    sender.media.disable_subtitle()
    wait_until(lambda: sender.media.status.current_subtitle_tracks == [], what="subtitles off")
    report = stop_and_read_report(device, report_path)
    assert report["passed"] is True, json.dumps(report, indent=1)


def test_load_failure(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device, report_path = start(castsim_factory, tmp_path, "load-failure")
    sender = sender_factory(device)
    failures = FailureRecorder()
    sender.media.register_status_listener(failures)
    handler = WaitResponse(10.0, "play_media broken")
    sender.media.play_media(f"{MEDIA}/broken/stream.m3u8", "application/x-mpegURL", callback_function=handler.callback)
    handler.wait_response()
    # pychromecast completes the LOAD on the LOAD_FAILED that carries its requestId,
    # and reports it to listeners only when both itemId and detailedErrorCode are there.
    assert handler.response["type"] == "LOAD_FAILED", handler.response
    wait_until(lambda: failures.failures, what="load_media_failed callback")
    assert failures.failures == [(1, 104)]
    wait_until(lambda: sender.media.status.idle_reason == "ERROR", what="IDLE/ERROR", details=sender.describe)
    assert sender.media.status.player_state == MEDIA_PLAYER_STATE_IDLE
    report = stop_and_read_report(device, report_path)
    assert report["passed"] is True


def test_flaky_network_reconnects(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device, report_path = start(castsim_factory, tmp_path, "flaky-network")
    sender = sender_factory(device)
    play(sender, f"{MEDIA}/match.mp4", title="Match")
    session_id = sender.media.status.media_session_id
    # Two seconds into playback the connection is reset; pychromecast reconnects.
    wait_until(lambda: "LOST" in sender.connection.statuses() or "DISCONNECTED" in sender.connection.statuses(),
               timeout=15, what="pychromecast notices the reset", details=sender.describe)
    wait_until(lambda: sender.connection.statuses()[-1:] == ["CONNECTED"] and sender.connection.statuses().count("CONNECTED") >= 2,
               timeout=30, what="pychromecast reconnects", details=sender.describe)
    # ... and rejoins the media session that kept playing meanwhile.
    wait_until(lambda: sender.media.status.media_session_id == session_id
               and sender.media.status.player_state == MEDIA_PLAYER_STATE_PLAYING,
               timeout=15, what="the same session, still playing", details=sender.describe)
    assert sender.media.status.adjusted_current_time > 2
    report = stop_and_read_report(device, report_path)
    assert expectation(report, "reconnects and asks for the status again")["passed"], json.dumps(report, indent=1)


def test_heartbeat_stall_reconnects(castsim_factory, sender_factory, tmp_path: Path, monkeypatch) -> None:
    # pychromecast gives up after 4 s without a PONG here, not its own 20 s: the stall
    # (30 s from the scenario's first second) is the same real time either way.
    shorten_pychromecast_heartbeat(monkeypatch, ping=2.0, pong=2.0)
    device, report_path = start(castsim_factory, tmp_path, "heartbeat-stall")
    sender = sender_factory(device)
    started = time.monotonic()
    # No PONG for 4 s: pychromecast resets the connection, then reconnects.
    wait_until(lambda: "LOST" in sender.connection.statuses(), timeout=20, what="heartbeat timeout", details=sender.describe)
    lost_after = time.monotonic() - started
    stale_status = sender.cast.status
    # Lost by pychromecast's PONG timeout (4 s from its last PONG, at the connection's
    # start), not by castsim closing the connection when the stall begins a second in.
    assert 2.5 <= lost_after <= 12, f"LOST after {lost_after:.1f}s"
    wait_until(lambda: sender.connection.statuses()[-1:] == ["CONNECTED"], timeout=30, what="reconnected")
    # A new status object means castsim answered the new connection's GET_STATUS.
    wait_until(lambda: sender.cast.status is not None and sender.cast.status is not stale_status,
               what="RECEIVER_STATUS on the new connection", details=sender.describe)
    report = stop_and_read_report(device, report_path)
    assert report["passed"] is True, json.dumps(report, indent=1)


def test_two_senders_fight_over_the_volume(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device, report_path = start(castsim_factory, tmp_path, "volume-fight")
    first, second = sender_factory(device), sender_factory(device)
    assert abs(first.cast.status.volume_level - 0.5) < 1e-6
    for sender, level in ((first, 0.9), (second, 0.2), (first, 0.8), (second, 0.3)):
        sender.cast.set_volume(level)
        time.sleep(0.2)
    # The remote pressed volume down after the 2nd change and mute after the 4th;
    # both senders end up seeing the same thing.
    for sender in (first, second):
        wait_until(lambda s=sender: s.cast.status.volume_muted is True and abs(s.cast.status.volume_level - 0.3) < 1e-6,
                   what="level 0.3, muted, on every sender", details=sender.describe)
    report = stop_and_read_report(device, report_path)
    assert report["passed"] is True, json.dumps(report, indent=1)


@pytest.mark.parametrize(("name", "passes"), [("expectations-pass", True), ("expectations-fail", False)])
def test_expectations_exit_code_and_report(castsim_factory, sender_factory, tmp_path: Path, name: str, passes: bool) -> None:
    junit = tmp_path / f"{name}.xml"
    device, report_path = start(castsim_factory, tmp_path, name, "--exit-when-done", "--timeout", "60s", "--junit", str(junit))
    sender = sender_factory(device)
    play(sender, f"{MEDIA}/movie.mp4", title="Movie")
    sender.media.seek(60)
    sender.media.pause()
    wait_state(sender, MEDIA_PLAYER_STATE_PAUSED)
    # castsim ends by itself once every expectation is decided (10 s windows).
    status = device.wait_exit(timeout=30)
    assert status == (0 if passes else 1)
    report = json.loads(report_path.read_text())
    assert report["passed"] is passes
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and int(suite.get("tests")) == len(report["expectations"])
    failures = [e for e in report["expectations"] if not e["passed"]]
    assert int(suite.get("failures")) == len(failures)
    if passes:
        assert not failures
    else:
        assert [e["name"] for e in failures] == ["seeks past two minutes"]
        closest = [ev for ev in failures[0]["evidence"] if ev["role"] == "closest"]
        assert closest and closest[0]["payload"]["type"] == "SEEK" and closest[0]["payload"]["currentTime"] == 60
        assert failures[0]["reason"] == "no matching message within 10s"
