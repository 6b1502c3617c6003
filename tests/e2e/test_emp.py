"""End-to-end: the EMP receiver app (issue 9) with pychromecast senders over TLS.

Each sender gets an EMPController, a pychromecast controller for the EMP namespace
`urn:x-cast:com.ericsson.cast.receiver` (docs/protocol/emp.md), registered with
cast.register_handler() like pychromecast's own controllers. It keeps every EMP message
the sender receives, in order, beside the media-namespace messages, and checks each one
against the decoding rules of the iOS sender (emp.md §4.0, §6) and of the
Android Enigma sender (`trackId`, getLong integers): a message either of them rejects
fails the test.

The Exposure world comes from a scenario written into tmp_path. Its clock is manual, so
nothing happens unless a sender asks for it or the test moves time with the console
(`advance 11m` on castsim's standard input).
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from pychromecast.controllers.media import MEDIA_PLAYER_STATE_IDLE
from pychromecast.response_handler import WaitResponse

from e2e_harness import wait_until
from emp_senders import (
    NS_MEDIA,
    EPOCH,
    EPOCH_MS,
    SETTLE,
    active_ids,
    check_accepted,
    collect,
    iso_instant,
    load,
    start_device,
    two_senders,
    wait_for_emp,
)

# --------------------------------------------------------------------------
# End to end
# --------------------------------------------------------------------------

TRACKS = [(0, "text", "en"), (1, "text", "sv"), (2, "audio", "en"), (3, "audio", "de")]


def test_showtexttrack_reaches_both_senders_in_both_views(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device = start_device(castsim_factory, tmp_path)
    a, b = two_senders(device, sender_factory)
    _, reply = load(a, "movie-1", "tok-valid", subtitleLanguage="en", audioLanguage="de")
    assert reply["type"] == "MEDIA_STATUS", reply
    for view in (a, b):
        # First playing: tracksupdated with the LOAD's languages, English text + German audio.
        first = wait_for_emp(view, "tracksupdated")
        info = first.data["tracksInfo"]
        assert [(t["id"], t["type"], t["language"]) for t in info["tracks"]] == TRACKS, info
        assert sorted(info["activeTrackIds"]) == [0, 3], info
        wait_until(lambda v=view: v.statuses() and active_ids(v.statuses()[-1]) == [0, 3],
                   what=f"{view.name}: MEDIA_STATUS activeTrackIds [0, 3]", details=view.describe)
    time.sleep(SETTLE)
    marks = {view.name: (view.emp.mark(), view.timeline.mark()) for view in (a, b)}

    a.emp.show_text_track("sv")

    seen = {}
    for view in (a, b):
        emp_mark, media_mark = marks[view.name]
        updated = wait_for_emp(view, "tracksupdated", since=emp_mark)
        status = wait_until(lambda v=view, m=media_mark: [s for s in v.statuses(m) if "activeTrackIds" in s],
                            what=f"{view.name}: MEDIA_STATUS after showtexttrack", details=view.describe)[-1]
        info = updated.data["tracksInfo"]
        # Swedish text replaces English; the German audio stays.
        assert sorted(info["activeTrackIds"]) == [1, 3], f"{view.name}: {updated.text}"
        assert active_ids(status) == sorted(info["activeTrackIds"]), f"{view.name}: MEDIA_STATUS {status} vs {updated.text}"
        assert [(t["id"], t["type"], t["language"]) for t in info["tracks"]] == TRACKS, info
        # pychromecast's own view of the session agrees.
        wait_until(lambda v=view: sorted(v.sender.media.status.current_subtitle_tracks) == [1, 3],
                   what=f"{view.name}: pychromecast activeTrackIds [1, 3]", details=view.describe)
        # One track change, one tracksupdated: nothing else on the EMP namespace.
        assert [m.type for m in collect(view, emp_mark, 1)] == ["tracksupdated"], view.describe()
        seen[view.name] = (updated.payload, active_ids(status))
    assert seen["A"] == seen["B"]
    check_accepted(a, b)


def test_edit_tracks_info_on_the_media_namespace_also_sends_tracksupdated(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device = start_device(castsim_factory, tmp_path)
    a, b = two_senders(device, sender_factory)
    load(a, "movie-1", "tok-valid", subtitleLanguage="en", audioLanguage="de")
    for view in (a, b):
        wait_for_emp(view, "tracksupdated")
        wait_until(lambda v=view: v.sender.media.status.media_session_id is not None, what=f"{view.name}: a media session")
    time.sleep(SETTLE)
    marks = {view.name: view.emp.mark() for view in (a, b)}
    # B switches with the standard CAF request: no subtitles, English audio.
    handler = WaitResponse(10.0, "EDIT_TRACKS_INFO")
    b.sender.media._send_command({"type": "EDIT_TRACKS_INFO", "activeTrackIds": [2]}, handler.callback)
    handler.wait_response()
    assert handler.response["type"] == "MEDIA_STATUS", handler.response
    assert active_ids(handler.response["status"][0]) == [2], handler.response
    for view in (a, b):
        updated = wait_for_emp(view, "tracksupdated", since=marks[view.name])
        assert updated.data["tracksInfo"]["activeTrackIds"] == [2], updated.text
        assert [m.type for m in collect(view, marks[view.name], 1)] == ["tracksupdated"], view.describe()
    check_accepted(a, b)


PULL_PREFIX = ["volumechange", "timeShiftEnabled", "autoplay", "isLive", "startTimeLive"]


@pytest.mark.parametrize(
    ("content_id", "expected"),
    [
        (None, [*PULL_PREFIX, "tracksupdated"]),
        ("movie-1", [*PULL_PREFIX, "entitlementchange", "tracksupdated"]),
        ("news-24", [*PULL_PREFIX, "programchanged", "entitlementchange", "tracksupdated"]),
    ],
    ids=["nothing-playing", "vod", "channel"],
)
def test_pull_answers_the_documented_sequence(castsim_factory, sender_factory, tmp_path: Path,
                                              content_id: str | None, expected: list[str]) -> None:
    device = start_device(castsim_factory, tmp_path)
    a, b = two_senders(device, sender_factory)
    if content_id is not None:
        _, reply = load(a, content_id, "tok-valid", subtitleLanguage="sv", audioLanguage="de")
        assert reply["type"] == "MEDIA_STATUS", reply
        for view in (a, b):
            wait_for_emp(view, "tracksupdated")  # the first playing: the unsolicited events are out
    time.sleep(SETTLE)
    marks = {view.name: view.emp.mark() for view in (a, b)}

    b.emp.pull()

    answers = {}
    for view in (a, b):
        answer = collect(view, marks[view.name], len(expected))
        assert [m.type for m in answer] == expected, f"{view.name}: {[m.text for m in answer]}"
        answers[view.name] = [m.payload for m in answer]
    # A broadcast: the sender that did not ask gets the same answer.
    assert answers["A"] == answers["B"]
    by_type = {m["type"]: m.get("data") for m in answers["A"]}
    volume = a.sender.cast.status
    assert by_type["volumechange"]["volume"] == pytest.approx(volume.volume_level), by_type["volumechange"]
    assert by_type["volumechange"]["muted"] is volume.volume_muted, by_type["volumechange"]
    assert by_type["autoplay"] is True
    assert by_type["isLive"] is (content_id == "news-24")
    if content_id == "news-24":
        assert by_type["startTimeLive"] == EPOCH_MS  # p1 starts at scenario time 0
        program = by_type["programchanged"]["program"]
        assert (program["programId"], program["assetId"], program["channelId"]) == ("p1", "a-p1", "news-24"), program
        # emp.md §4.10: the pull answer blanks the player's start/end dates.
        assert "start" not in program and "end" not in program, program
        assert by_type["entitlementchange"]["entitlement"]["live"] is True
    if content_id == "movie-1":
        assert by_type["entitlementchange"]["entitlement"]["live"] is False
        info = by_type["tracksupdated"]["tracksInfo"]
        assert [(t["id"], t["type"], t["language"]) for t in info["tracks"]] == TRACKS, info
        assert sorted(info["activeTrackIds"]) == [1, 3], info
    check_accepted(a, b)


def test_live_channel_crosses_a_program_boundary_on_the_manual_clock(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device = start_device(castsim_factory, tmp_path, console=True)
    a, b = two_senders(device, sender_factory)
    _, reply = load(a, "news-24", "tok-valid")
    assert reply["type"] == "MEDIA_STATUS", reply
    for view in (a, b):
        # First ready: the program on air, p1, announced with its start.
        first = wait_for_emp(view, "programchanged")
        assert first.data["program"]["programId"] == "p1", first.text
        types = view.emp.types()
        assert "startTimeLive" in types and types.index("startTimeLive") < types.index("programchanged"), types
        wait_for_emp(view, "tracksupdated")
        wait_until(lambda v=view: v.sender.media.status.content_id == "a-p1", what=f"{view.name}: MEDIA_STATUS of p1",
                   details=view.describe)
    time.sleep(SETTLE)
    marks = {view.name: view.emp.mark() for view in (a, b)}
    # The manual clock has not moved: no boundary yet.
    assert all(not view.emp.received(marks[view.name]) for view in (a, b))

    device.console("advance 11m")  # p1 ends at 10m, p2 runs 10m-20m

    payloads = {}
    for view in (a, b):
        changed = collect(view, marks[view.name], 2)
        assert [m.type for m in changed] == ["startTimeLive", "programchanged"], f"{view.name}: {[m.text for m in changed]}"
        start_time_live, program_changed = changed
        p2_start = EPOCH + timedelta(minutes=10)
        assert start_time_live.data == EPOCH_MS + 10 * 60 * 1000, start_time_live.text
        program = program_changed.data["program"]
        assert (program["programId"], program["assetId"], program["channelId"]) == ("p2", "a-p2", "news-24"), program
        assert iso_instant(program["startTime"]) == p2_start, program
        assert iso_instant(program["endTime"]) == EPOCH + timedelta(minutes=20), program
        assert start_time_live.data == int(iso_instant(program["startTime"]).timestamp() * 1000)
        # emp.md §5.6: the media status names the program's asset now.
        wait_until(lambda v=view: v.sender.media.status.content_id == "a-p2", what=f"{view.name}: MEDIA_STATUS of p2",
                   details=view.describe)
        payloads[view.name] = [m.payload for m in changed]
    assert payloads["A"] == payloads["B"]
    check_accepted(a, b)


def test_load_with_a_bad_token_gets_error_and_load_failed(castsim_factory, sender_factory, tmp_path: Path) -> None:
    device = start_device(castsim_factory, tmp_path)
    a, b = two_senders(device, sender_factory)
    emp_marks = {view.name: view.emp.mark() for view in (a, b)}
    media_marks = {view.name: view.timeline.mark() for view in (a, b)}

    request_id, reply = load(a, "movie-1", "tok-forged")

    # LOAD_FAILED answers the LOAD (its requestId), to the sender that sent it.
    assert reply["type"] == "LOAD_FAILED", reply
    assert reply["requestId"] == request_id and reply["detailedErrorCode"] == 905, reply
    wait_until(lambda: a.failures.failures, what="pychromecast's load_media_failed", details=a.describe)
    assert [code for _, code in a.failures.failures] == [905]
    for view in (a, b):
        error = wait_for_emp(view, "error", since=emp_marks[view.name])
        assert error.data == {"type": "ERROR", "code": 102, "message": "INVALID_SESSION_TOKEN"}, error.text
        # Nothing plays: no entitlement, no ready, no tracks.
        assert [m.type for m in collect(view, emp_marks[view.name], 1)] == ["error"], view.describe()
        wait_until(lambda v=view: v.sender.media.status.idle_reason == "ERROR", what=f"{view.name}: IDLE/ERROR",
                   details=view.describe)
        assert view.sender.media.status.player_state == MEDIA_PLAYER_STATE_IDLE
    # On A's wire: LOAD_FAILED, then the MEDIA_STATUS IDLE/ERROR.
    media = a.timeline.since(media_marks["A"], NS_MEDIA)
    failed_at = next(i for i, e in enumerate(media) if e.type == "LOAD_FAILED")
    idle_at = next(i for i, e in enumerate(media) if e.type == "MEDIA_STATUS"
                   and any(s.get("playerState") == "IDLE" and s.get("idleReason") == "ERROR" for s in e.payload["status"]))
    assert failed_at < idle_at, [e.text for e in media]
    # B did not send the LOAD: it sees the session fail, not the LOAD_FAILED.
    assert not [e for e in b.timeline.since(media_marks["B"], NS_MEDIA) if e.type == "LOAD_FAILED"], b.describe()
    check_accepted(a, b)
