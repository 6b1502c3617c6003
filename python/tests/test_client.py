"""The client against the real castsim binary (CASTSIM_BIN or --castsim-bin): each test
gets its own device through the plugin's `castsim` fixture, and raw Cast senders
(tests/cast_sender.py) play the sender's part. Without a binary these tests fail."""

from __future__ import annotations

import json
import socket
import time
import urllib.parse

import pytest

from cast_sender import NS_MEDIA, NS_RECEIVER, USER_AGENT, CastSender
from castsim import ActResult, ControlClient, ControlError

pytestmark = pytest.mark.castsim(args=["--default-duration", "600"])


def barrier(sender: CastSender) -> None:
    """A GET_STATUS round trip: everything the sender sent before it has been handled
    (one connection's messages are handled in order)."""
    sender.request(NS_RECEIVER, {"type": "GET_STATUS"})


# -- state ------------------------------------------------------------------------


@pytest.mark.castsim(args=["--name", "Kitchen TV"])
def test_state_shows_the_device_name(castsim: ControlClient):
    state = castsim.state()
    assert state.name == "Kitchen TV"
    assert state.device.get("model") == "Chromecast"
    assert state.media is None and state.connections == []
    assert 0.0 <= (state.volume.level or 0.0) <= 1.0
    assert state.clock.mode == "real"


def test_default_name(castsim: ControlClient):
    assert castsim.state().name == "castsim"


def test_state_lists_a_raw_sender_with_its_user_agent(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    status = sender.get_status()
    assert status["type"] == "RECEIVER_STATUS"
    state = castsim.state()
    assert len(state.connections) == 1
    assert [s.get("userAgent") for s in state.senders] == [USER_AGENT]
    assert state.senders[0].get("senderId") == "sender-0"


# -- act ------------------------------------------------------------------------


def test_pause_with_only_the_idle_screen_is_refused(castsim: ControlClient):
    """A remote's pause while only the idle screen runs would do nothing: a 409 says so."""
    with pytest.raises(ControlError) as caught:
        castsim.pause()
    assert caught.value.status == 409
    assert "only the idle screen runs" in str(caught.value)
    assert castsim.state().media is None
    castsim.launch_app("CC1AD845")
    # The Default Media Receiver runs, with no media loaded: still nothing to pause.
    with pytest.raises(ControlError) as caught:
        castsim.pause()
    assert caught.value.status == 409
    assert "Default Media Receiver would change nothing now" in str(caught.value)


def test_pause_with_media_loaded_is_done(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    assert sender.load(sender.launch("CC1AD845"))["type"] == "MEDIA_STATUS"
    castsim.wait_for(lambda s: s.player_state == "PLAYING", timeout=10, what="PLAYING")
    result = castsim.pause()
    assert isinstance(result, ActResult)
    assert result.done == "remote pause" and result.time is not None


def test_unknown_action_is_a_400_naming_the_problem(castsim: ControlClient):
    with pytest.raises(ControlError) as caught:
        castsim.act({"remote": "dance"})
    assert caught.value.status == 400
    assert "dance" in str(caught.value)
    with pytest.raises(ControlError) as caught:
        castsim.act({"nonsense": True})
    assert caught.value.status == 400
    with pytest.raises(ControlError) as caught:
        castsim.act({})
    assert caught.value.status == 400


def test_closing_a_connection_that_is_not_open_is_a_404(castsim: ControlClient):
    with pytest.raises(ControlError) as caught:
        castsim.close_connection(999)
    assert caught.value.status == 404


def test_every_helper_is_accepted(castsim: ControlClient, sender_factory):
    """The request bodies the typed helpers build are what the server takes. A player's
    input goes to media loaded just before: without, the player would ignore it, and the
    server refuses what would change nothing."""
    sender = sender_factory()
    sender.get_status()

    def with_media(call):
        def loaded_then_call():
            assert sender.load(sender.launch("CC1AD845"))["type"] == "MEDIA_STATUS"
            castsim.wait_for(lambda s: s.player_state == "PLAYING", timeout=10, what="PLAYING")
            return call()
        return loaded_then_call

    for call in (
        lambda: castsim.launch_app("CC1AD845"),
        lambda: castsim.set_volume(0.5),
        lambda: castsim.set_volume(muted=False),
        lambda: castsim.stop_heartbeats("1s"),
        lambda: castsim.stall_replies(0.1, 1, which="all"),
        with_media(lambda: castsim.buffering(1)),
        with_media(lambda: castsim.player_error(104)),
        with_media(lambda: castsim.player_error()),
        lambda: castsim.device_auth("dev-root"),
        lambda: castsim.withdraw(),
        lambda: castsim.restore(),
        lambda: castsim.standby(True),
        lambda: castsim.standby(False),
        with_media(lambda: castsim.play()),
        with_media(lambda: castsim.stop()),
    ):
        result = call()
        assert isinstance(result, ActResult) and result.done


def test_volume_and_standby(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    castsim.set_volume(0.3, muted=False)
    state = castsim.state()
    assert state.volume.level == pytest.approx(0.3) and state.volume.muted is False
    status = sender.wait_for(lambda m: (m.data or {}).get("type") == "RECEIVER_STATUS"
                             and abs(((m.data.get("status") or {}).get("volume") or {}).get("level", -1) - 0.3) < 1e-6,
                             what="RECEIVER_STATUS with volume 0.3")
    assert status.namespace == NS_RECEIVER
    castsim.standby(True)
    assert castsim.state().standby is True


def test_launch_and_stop_an_app(castsim: ControlClient):
    castsim.launch_app("CC1AD845")
    state = castsim.state()
    assert state.app_id == "CC1AD845" and state.transport_id
    castsim.stop_app()
    assert castsim.state().app_id != "CC1AD845"


def test_emit_reaches_the_sender(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    connection = castsim.state().connections[0]["id"]
    castsim.emit("receiver", {"type": "CASTSIM_HELLO", "n": 1}, to=connection, source="receiver-0")
    message = sender.wait_for(lambda m: (m.data or {}).get("type") == "CASTSIM_HELLO", what="the emitted message")
    assert message.namespace == NS_RECEIVER and message.source_id == "receiver-0"
    castsim.emit("receiver", {"type": "CASTSIM_HELLO", "n": 2}, source="receiver-0")  # to all
    message = sender.wait_for(lambda m: (m.data or {}).get("n") == 2, what="the broadcast")
    castsim.assert_received({"namespace": "receiver", "type": "CASTSIM_HELLO"}, direction="out", count=2)


def test_close_connection_closes_the_sender(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    castsim.close_connection("all")
    assert sender.wait_closed(timeout=5), "castsim did not close the connection"


# -- clock ----------------------------------------------------------------------


@pytest.mark.castsim(manual_clock=True)
def test_manual_clock_advances(castsim: ControlClient):
    clock = castsim.clock()
    assert clock.mode == "manual" and clock.time == 0
    assert castsim.advance("10m").time == pytest.approx(600)
    assert castsim.advance(2.5).time == pytest.approx(602.5)
    assert castsim.state().time == pytest.approx(602.5)
    assert castsim.clock().time == pytest.approx(602.5)


def test_advancing_a_real_clock_is_a_409(castsim: ControlClient):
    with pytest.raises(ControlError) as caught:
        castsim.advance("1s")
    assert caught.value.status == 409
    assert "manual" in caught.value.error


@pytest.mark.castsim(manual_clock=True)
def test_advance_with_a_bad_duration_is_a_400(castsim: ControlClient):
    with pytest.raises(ControlError) as caught:
        castsim.advance("10 minutes")
    assert caught.value.status == 400


# -- journal and verify -------------------------------------------------------------


def test_verify_what_a_raw_sender_sent(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    result = castsim.verify(message={"namespace": "receiver", "type": "GET_STATUS"})
    assert result.passed and result.count == 1
    assert result.matches[0].source_id == "sender-0" and result.matches[0].direction == "in"
    castsim.assert_received({"namespace": "connection", "type": "CONNECT"}, count=1)
    castsim.assert_received({"namespace": "receiver", "type": "RECEIVER_STATUS"}, direction="out", at_least=1)
    castsim.assert_received(sequence=[{"type": "CONNECT"}, {"type": "GET_STATUS"}])
    assert not castsim.verify(sequence=[{"type": "GET_STATUS"}, {"type": "CONNECT"}])
    assert not castsim.verify(message={"type": "GET_STATUS"}, count=2)


def test_assert_received_fails_with_the_server_message(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    with pytest.raises(AssertionError) as caught:
        castsim.assert_received({"namespace": "media", "type": "LOAD"})
    message = str(caught.value)
    assert message, "the server's message should explain the failure"
    result = castsim.verify(message={"namespace": "media", "type": "LOAD"})
    assert not result.passed and result.count == 0 and result.message == message
    assert result.nearest and all(n.differences for n in result.nearest)


def test_verify_bad_pattern_is_a_400(castsim: ControlClient):
    with pytest.raises(ControlError) as caught:
        castsim.verify(message={"nonsense": 1})
    assert caught.value.status == 400


def test_journal_filters_and_clear(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    inbound = castsim.journal(direction="in")
    assert [e.type for e in inbound][:2] == ["CONNECT", "GET_STATUS"]
    (get_status,) = castsim.journal(namespace="receiver", type="GET_STATUS")
    assert get_status.payload["type"] == "GET_STATUS" and get_status.connection is not None
    assert castsim.journal(connection=get_status.connection, type="GET_STATUS") == [get_status]
    outbound = castsim.journal(direction="out", namespace="receiver")
    assert outbound and all(e.direction == "out" for e in outbound)
    last = castsim.journal()[-1].seq
    barrier(sender)
    newer = castsim.journal(after=last)
    assert newer and all(e.seq > last for e in newer)
    assert len(castsim.journal(limit=1)) == 1
    page = castsim.journal_page()
    assert page.kept == len(page.messages) and page.seen >= page.kept
    castsim.clear_journal()
    assert castsim.journal(type="GET_STATUS") == []
    barrier(sender)
    assert castsim.journal(type="GET_STATUS")[0].seq > last  # numbers are never reused


def test_unhandled_messages(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    sender.send(NS_MEDIA, {"type": "GET_STATUS", "requestId": 99}, destination="web-nobody")
    barrier(sender)
    unhandled = castsim.unhandled()
    assert [e.destination_id for e in unhandled] == ["web-nobody"]
    assert unhandled[0].unhandled  # why no handler took it
    assert castsim.journal(unhandled=True) == unhandled


def test_load_then_pause_through_the_api(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    transport = sender.launch("CC1AD845")
    answer = sender.load(transport, custom_data={"token": "abc"})
    assert answer["type"] == "MEDIA_STATUS", answer
    castsim.assert_received({"namespace": "media", "type": "LOAD", "fields": {"customData.token": "abc"}})
    assert not castsim.verify(message={"type": "LOAD", "fields": {"customData.token": "xyz"}})
    state = castsim.wait_for(lambda s: s.player_state == "PLAYING", timeout=10, what="PLAYING")
    assert state.content_id == "http://media.castsim.test/movie.mp4" and state.title == "A test movie"
    castsim.pause()
    sender.wait_for(lambda m: m.namespace == NS_MEDIA and any(
        s.get("playerState") == "PAUSED" for s in (m.data or {}).get("status") or []), what="MEDIA_STATUS PAUSED")
    assert castsim.state().player_state == "PAUSED"
    castsim.assert_received(sequence=[{"type": "LAUNCH"}, {"namespace": "media", "type": "LOAD"}])


# -- events ---------------------------------------------------------------------


def test_event_stream(castsim: ControlClient):
    with castsim.subscribe(types=["device"]) as stream:
        assert stream.hello is not None
        castsim.set_volume(0.25)
        event = castsim.wait_for(lambda e: e.kind == "volumeChanged", timeout=5, on="events", stream=stream)
        assert event.name == "device" and event.data["volume"]["level"] == pytest.approx(0.25)


def test_events_generator_starts_with_hello(castsim: ControlClient):
    for event in castsim.events(timeout=5):
        assert event.name == "hello"
        break


def test_message_events(castsim: ControlClient, sender_factory):
    with castsim.subscribe(types=["message"]) as stream:
        sender = sender_factory()
        sender.get_status()
        event = castsim.wait_for(lambda e: e.entry is not None and e.entry.type == "GET_STATUS", timeout=5,
                                 on="events", stream=stream)
        assert event.entry.direction == "in"


def test_a_stream_not_read_loses_the_oldest_events_and_says_how_many(castsim: ControlClient, sender_factory):
    """A follower that stops reading holds at most 4 MiB of events however big they are (the
    count alone let 4,096 messages of 60 KB each pile up); when it reads again, a `dropped`
    event says how many it lost, and the newest events are there."""
    sender = sender_factory()
    sender.get_status()
    address = urllib.parse.urlsplit(castsim.base_url)
    follower = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    follower.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # no autotuned megabytes
    follower.settimeout(10)
    try:
        follower.connect((address.hostname, address.port))
        follower.sendall(f"GET /api/v1/events?types=message HTTP/1.1\r\nHost: {address.netloc}\r\n\r\n".encode())
        received = bytearray()  # appended to in place: megabytes come 4 KB at a time
        while b"event: hello" not in received:
            received += follower.recv(4096)
        # 24 MB of unhandled messages while the follower reads nothing: more than the
        # stream's buffer and both ends' socket buffers hold.
        padding = "p" * 60_000
        for number in range(400):
            sender.send("urn:x-cast:com.example.big", {"type": "BIG", "n": number, "padding": padding})
        barrier(sender)
        deadline = time.monotonic() + 30
        while b'"n":399' not in received[-200_000:] and time.monotonic() < deadline:
            received += follower.recv(1 << 20)
    finally:
        follower.close()
    text = received.decode("utf-8", "replace")
    assert '"n":399' in text, "the newest message never came"
    dropped = [json.loads(line[len("data: "):])["count"] for line in text.split("\n")
               if line.startswith("data: {\"count\"")]
    assert dropped and sum(dropped) > 0, "no dropped event"
    delivered = text.count("event: message")
    # Every message is either delivered or counted dropped (the GET_STATUS round trips too).
    assert delivered + sum(dropped) >= 400 and delivered < 400


# -- scenario, reset, report -----------------------------------------------------------


@pytest.mark.castsim(manual_clock=True)
def test_reset(castsim: ControlClient, sender_factory):
    sender = sender_factory()
    sender.get_status()
    castsim.advance("30s")
    castsim.set_volume(0.2)
    info = castsim.reset()
    assert info.steps_fired == 0
    assert sender.wait_closed(timeout=5), "reset should close sender connections"
    state = castsim.wait_for(lambda s: s.connections == [], timeout=5, what="no connections")
    assert state.clock.mode == "manual" and state.time == 0
    assert state.volume.level != pytest.approx(0.2)
    assert castsim.journal() == []


@pytest.mark.castsim(manual_clock=True)
def test_load_a_scenario(castsim: ControlClient):
    scenario = {
        "name": "standby at ten seconds",
        "clock": {"mode": "manual"},
        "timeline": [{"at": "10s", "standby": True}],
        "expectations": [{"name": "loads", "within": "1m", "message": {"type": "LOAD"}}],
    }
    info = castsim.load_scenario(scenario)
    assert (info.name, info.steps, info.steps_fired, info.expectations) == ("standby at ten seconds", 1, 0, 1)
    assert castsim.scenario().name == "standby at ten seconds"
    assert castsim.state().standby is False
    castsim.advance("10s")
    assert castsim.state().standby is True
    assert castsim.scenario().steps_fired == 1
    report = castsim.report()
    assert isinstance(report, dict)
    assert "loads" in castsim.report_junit()
    castsim.reset()
    assert castsim.state().standby is False and castsim.scenario().steps_fired == 0


def test_a_scenario_that_does_not_validate_is_a_422(castsim: ControlClient):
    with pytest.raises(ControlError) as caught:
        castsim.load_scenario({"name": "broken", "timeline": [{"at": "soon", "standby": True}]})
    assert caught.value.status == 422
    assert caught.value.issues and any("timeline" in issue.path for issue in caught.value.issues)


def test_report_formats(castsim: ControlClient):
    assert isinstance(castsim.report(), dict)
    assert "<testsuite" in castsim.report_junit()


def test_openapi_document(castsim: ControlClient):
    document = castsim.openapi()
    assert str(document.get("openapi", "")).startswith("3.")
    assert "/api/v1/state" in document.get("paths", {}) or "/state" in document.get("paths", {})
