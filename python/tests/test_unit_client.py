"""The client against a fake control server: request shapes, answers, errors."""

from __future__ import annotations

import datetime as dt
import json
import socket

import pytest

from castsim import (
    ControlClient,
    ControlConnectionError,
    ControlError,
    Issue,
    State,
    VerifyResult,
    WaitTimeout,
)
from fakes import Canned

STATE = {
    "time": 12.5,
    "clock": {"mode": "manual", "speed": None, "time": 12.5},
    "device": {"name": "Living Room", "model": "Chromecast", "manufacturer": "Google Inc.",
               "uuid": "0123456789abcdef0123456789abcdef", "udn": "01234567-89ab-cdef-0123-456789abcdef",
               "advertised": True, "deviceAuth": "dev-root", "standby": False},
    "volume": {"level": 0.4, "muted": True},
    "app": {"appId": "CC1AD845", "displayName": "Default Media Receiver", "sessionId": "s-1",
            "transportId": "web-1", "namespaces": ["urn:x-cast:com.google.cast.media"], "idleScreen": False},
    "connections": [{"id": 1, "senders": [{"senderId": "sender-0", "endpoint": "receiver-0", "type": "strong",
                                           "userAgent": "ua"}]},
                    {"id": 2, "senders": []}],
    "media": {
        "mediaSessionId": 1, "playerState": "PLAYING", "phase": "playing", "currentTime": 12.3,
        "playbackRate": 1.0, "repeatMode": "REPEAT_OFF", "currentItemId": 2, "loadingItemId": None,
        "preloadedItemId": None, "activeTrackIds": [1], "volume": {"level": 1.0, "muted": False},
        "bufferingUntil": None, "liveSeekableRange": None, "customData": None,
        "items": [{"itemId": 1, "media": {"contentId": "a"}},
                  {"itemId": 2, "autoplay": True, "media": {"contentId": "http://x/movie.mp4",
                                                            "metadata": {"title": "Movie"}}}],
        "textTrackStyle": {"foregroundColor": "#FFFFFFFF"},
    },
    "emp": None,
}

ENTRY = {"seq": 17, "time": 3.25, "direction": "in", "connections": [2],
         "namespace": "urn:x-cast:com.google.cast.media", "sourceId": "sender-0", "destinationId": "web-5",
         "type": "LOAD", "payload": {"type": "LOAD", "requestId": 7}, "unhandled": None}


# -- errors ---------------------------------------------------------------------


def test_control_error_from_a_validation_answer(fake_server, fake_client):
    fake_server.route("POST", "/act", Canned(400, {
        "error": "not an action: $.remote: expected one of play, pause, stop, got \"dance\"",
        "issues": [{"path": "$.remote", "message": "expected one of play, pause, stop, got \"dance\""}]}))
    with pytest.raises(ControlError) as caught:
        fake_client.act({"remote": "dance"})
    error = caught.value
    assert error.status == 400
    assert error.error.startswith("not an action")
    assert error.issues == [Issue("$.remote", "expected one of play, pause, stop, got \"dance\"")]
    assert error.method == "POST" and error.url.endswith("/api/v1/act")
    text = str(error)
    assert "HTTP 400" in text and "POST" in text and "$.remote: expected one of" in text


def test_control_error_without_issues(fake_server, fake_client):
    fake_server.route("POST", "/clock/advance", Canned(409, {"error": "the clock is real; only a manual clock ..."}))
    with pytest.raises(ControlError) as caught:
        fake_client.advance("10m")
    assert caught.value.status == 409
    assert caught.value.issues == []
    assert caught.value.error == "the clock is real; only a manual clock ..."


def test_control_error_from_a_non_json_body(fake_server, fake_client):
    fake_server.route("GET", "/state", Canned(502, "Bad Gateway from a proxy", content_type="text/plain"))
    with pytest.raises(ControlError) as caught:
        fake_client.state()
    assert caught.value.status == 502
    assert caught.value.error == "Bad Gateway from a proxy"


def test_control_error_with_an_empty_body(fake_server, fake_client):
    fake_server.route("GET", "/state", Canned(503, b"", content_type=""))
    with pytest.raises(ControlError) as caught:
        fake_client.state()
    assert caught.value.error == "Service Unavailable"


def test_unauthorized(fake_server):
    def gate(request, handler):
        if request.headers.get("authorization") != "Bearer right":
            return Canned(401, {"error": "this castsim's control API needs its token"},
                          headers={"WWW-Authenticate": 'Bearer realm="castsim"'})
        return Canned(200, STATE)

    fake_server.route("GET", "/state", gate)
    with pytest.raises(ControlError) as caught:
        ControlClient(fake_server.url, token="wrong").state()
    assert caught.value.status == 401 and "token" in caught.value.error
    assert ControlClient(fake_server.url, token="right").state().name == "Living Room"


def test_unknown_endpoint_404(fake_server, fake_client):
    with pytest.raises(ControlError) as caught:
        fake_client.scenario()
    assert caught.value.status == 404


def test_a_2xx_that_is_not_json(fake_server, fake_client):
    fake_server.route("GET", "/state", Canned(200, "<html>", content_type="text/html"))
    with pytest.raises(ControlError, match="expected a JSON answer, got text/html"):
        fake_client.state()


def test_unreachable_server():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nobody listens on it once closed
    with pytest.raises(ControlConnectionError, match=f"GET http://127.0.0.1:{port}/api/v1/state"):
        ControlClient(f"http://127.0.0.1:{port}", timeout=2).state()


def test_control_error_pickles():
    import pickle

    error = ControlError(422, "bad", [Issue("$.name", "expected a string")])
    again = pickle.loads(pickle.dumps(error))
    assert (again.status, again.error, again.issues) == (422, "bad", [Issue("$.name", "expected a string")])


# -- base URL -------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "/", "/api/v1", "/api/v1/"])
def test_base_url_forms(fake_server, suffix):
    fake_server.route("GET", "/clock", Canned(200, {"mode": "real", "speed": None, "time": 1.5}))
    clock = ControlClient(fake_server.url + suffix).clock()
    assert (clock.mode, clock.time, clock.manual) == ("real", 1.5, False)
    assert fake_server.last().path == "/api/v1/clock"


def test_base_url_without_scheme():
    assert ControlClient("127.0.0.1:8119").base_url == "http://127.0.0.1:8119"


# -- state ----------------------------------------------------------------------


def test_state(fake_server, fake_client):
    fake_server.route("GET", "/state", Canned(200, STATE))
    state = fake_client.state()
    assert isinstance(state, State)
    assert state.name == "Living Room" and state.standby is False
    assert (state.volume.level, state.volume.muted) == (0.4, True)
    assert (state.app_id, state.app_name, state.transport_id) == ("CC1AD845", "Default Media Receiver", "web-1")
    assert (state.player_state, state.phase, state.current_time) == ("PLAYING", "playing", 12.3)
    assert state.media_session_id == 1 and state.playback_rate == 1.0
    assert state.content_id == "http://x/movie.mp4" and state.title == "Movie"
    assert state.clock.manual and state.time == 12.5
    assert [s["userAgent"] for s in state.senders] == ["ua"]
    assert state.raw == STATE
    assert fake_server.last().headers["accept"] == "application/json"


def test_state_of_an_idle_device(fake_server, fake_client):
    fake_server.route("GET", "/state", Canned(200, {**STATE, "app": None, "media": None, "connections": []}))
    state = fake_client.state()
    assert state.app_id is None and state.player_state is None and state.current_item is None
    assert state.content_id is None and state.senders == []


# -- journal --------------------------------------------------------------------


def test_journal_and_filters(fake_server, fake_client):
    fake_server.route("GET", "/journal", Canned(200, {"messages": [ENTRY], "kept": 240, "seen": 250}))
    entries = fake_client.journal(namespace="media", type="LOAD", direction="in", connection=2, since=1.5,
                                  until=10, after=16, unhandled=False, limit=5)
    (entry,) = entries
    assert (entry.seq, entry.time, entry.type, entry.connection, entry.source_id) == (17, 3.25, "LOAD", 2, "sender-0")
    assert entry.payload == {"type": "LOAD", "requestId": 7} and entry.unhandled is None
    query = fake_server.last().query
    assert query == {"namespace": ["media"], "type": ["LOAD"], "direction": ["in"], "connection": ["2"],
                     "since": ["1.5"], "until": ["10"], "after": ["16"], "unhandled": ["false"], "limit": ["5"]}
    page = fake_client.journal_page()
    assert (page.kept, page.seen) == (240, 250)
    assert fake_server.last().query == {}


def test_journal_none_filters_are_left_out(fake_server, fake_client):
    fake_server.route("GET", "/journal", Canned(200, {"messages": [], "kept": 0, "seen": 0}))
    assert fake_client.journal(namespace=None, unhandled=True) == []
    assert fake_server.last().query == {"unhandled": ["true"]}


def test_journal_unknown_filter_is_a_type_error(fake_client):
    with pytest.raises(TypeError, match="namespce"):
        fake_client.journal(namespce="media")


def test_unhandled_and_clear(fake_server, fake_client):
    binary = {**ENTRY, "payload": None, "type": None, "binary": "AAEC", "unhandled": "no CONNECT to that endpoint"}
    fake_server.route("GET", "/journal/unhandled", Canned(200, {"messages": [binary], "kept": 1, "seen": 1}))
    fake_server.route("DELETE", "/journal", Canned(204, b"", content_type=""))
    (entry,) = fake_client.unhandled()
    assert entry.unhandled == "no CONNECT to that endpoint" and entry.binary == "AAEC" and entry.payload is None
    assert fake_client.clear_journal() is None
    assert fake_server.last().method == "DELETE"


# -- verify ---------------------------------------------------------------------

FAILED = {"passed": False, "count": 0, "expected": "at least 1", "matches": [],
          "nearest": [{"entry": {**ENTRY, "type": "GET_STATUS"}, "differences": ["type: expected \"LOAD\", got \"GET_STATUS\""]}],
          "message": "no message matched {\"type\":\"LOAD\"}; nearest: #17 ..."}
PASSED = {"passed": True, "count": 1, "expected": "at least 1", "matches": [ENTRY], "nearest": [], "message": "1 message matched"}


def test_verify_message_body(fake_server, fake_client):
    fake_server.route("POST", "/verify", Canned(200, PASSED))
    pattern = {"namespace": "media", "type": "LOAD", "fields": {"customData.token": "abc"}}
    result = fake_client.verify(pattern, at_least=1, at_most=2)
    assert isinstance(result, VerifyResult) and result and result.count == 1
    assert result.matches[0].seq == 17
    request = fake_server.last()
    assert request.headers["content-type"] == "application/json"
    assert request.json == {"message": pattern, "direction": "in", "atLeast": 1, "atMost": 2}
    fake_client.verify(message={"type": "PONG"}, direction="out", count=3)
    assert fake_server.last().json == {"message": {"type": "PONG"}, "direction": "out", "count": 3}
    fake_client.verify(message={"type": "PONG"}, direction=None)
    assert fake_server.last().json == {"message": {"type": "PONG"}}


def test_verify_sequence_body(fake_server, fake_client):
    fake_server.route("POST", "/verify", Canned(200, {**FAILED, "count": 1}))
    result = fake_client.verify(sequence=[{"type": "LOAD"}, {"type": "PAUSE"}])
    assert not result and result.count == 1
    assert fake_server.last().json == {"sequence": [{"type": "LOAD"}, {"type": "PAUSE"}], "direction": "in"}


def test_verify_needs_exactly_one_of_message_and_sequence(fake_client):
    with pytest.raises(TypeError):
        fake_client.verify()
    with pytest.raises(TypeError):
        fake_client.verify(message={"type": "LOAD"}, sequence=[{"type": "LOAD"}])


def test_assert_received_raises_the_server_message(fake_server, fake_client):
    fake_server.route("POST", "/verify", Canned(200, FAILED))
    with pytest.raises(AssertionError) as caught:
        fake_client.assert_received({"type": "LOAD"})
    assert str(caught.value) == FAILED["message"]
    result = fake_client.verify({"type": "LOAD"})
    assert result.nearest[0].entry.type == "GET_STATUS"
    assert result.nearest[0].differences == ["type: expected \"LOAD\", got \"GET_STATUS\""]
    fake_server.route("POST", "/verify", Canned(200, PASSED))
    assert fake_client.assert_received({"type": "LOAD"}).passed


# -- act ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "body"),
    [
        (lambda c: c.play(), {"remote": "play"}),
        (lambda c: c.pause(), {"remote": "pause"}),
        (lambda c: c.stop(), {"remote": "stop"}),
        (lambda c: c.set_volume(0.3), {"volume": {"level": 0.3}}),
        (lambda c: c.set_volume(muted=True), {"volume": {"muted": True}}),
        (lambda c: c.set_volume(0, False), {"volume": {"level": 0, "muted": False}}),
        (lambda c: c.buffering(3), {"buffering": "3s"}),
        (lambda c: c.buffering("1.5s"), {"buffering": "1.5s"}),
        (lambda c: c.player_error(104), {"playerError": {"detailedErrorCode": 104}}),
        (lambda c: c.player_error(), {"playerError": {}}),
        (lambda c: c.standby(True), {"standby": True}),
        (lambda c: c.standby(False), {"standby": False}),
        (lambda c: c.launch_app("CC1AD845"), {"launchApp": "CC1AD845"}),
        (lambda c: c.stop_app(), {"stopApp": True}),
        (lambda c: c.emit("media", {"type": "MEDIA_STATUS", "status": []}),
         {"emit": {"namespace": "media", "payload": {"type": "MEDIA_STATUS", "status": []}, "to": "all"}}),
        (lambda c: c.emit("receiver", {"type": "X"}, to=2, source="receiver-0"),
         {"emit": {"namespace": "receiver", "payload": {"type": "X"}, "to": 2, "from": "receiver-0"}}),
        (lambda c: c.emit("media", {"type": "X"}, sender="sender-abc"),
         {"emit": {"namespace": "media", "payload": {"type": "X"}, "to": "all", "sender": "sender-abc"}}),
        (lambda c: c.close_connection(), {"closeConnection": {"which": "all", "mode": "clean"}}),
        (lambda c: c.close_connection(2, reset=True), {"closeConnection": {"which": 2, "mode": "reset"}}),
        (lambda c: c.stop_heartbeats(20), {"stopHeartbeats": "20s"}),
        (lambda c: c.stop_heartbeats(dt.timedelta(minutes=1)), {"stopHeartbeats": "1m"}),
        (lambda c: c.unresponsive("5s"), {"unresponsive": "5s"}),
        (lambda c: c.stall_replies("2s", 30), {"delayReplies": {"by": "2s", "for": "30s"}}),
        (lambda c: c.stall_replies(0.5, "30s", which=2), {"delayReplies": {"by": "500ms", "for": "30s", "which": 2}}),
        (lambda c: c.send_frame(), {"sendFrame": {"kind": "malformed"}}),
        (lambda c: c.send_frame("oversized", "first"), {"sendFrame": {"kind": "oversized", "which": "first"}}),
        (lambda c: c.device_auth("error"), {"deviceAuth": "error"}),
        (lambda c: c.withdraw(), {"withdraw": True}),
        (lambda c: c.restore(), {"restore": True}),
        (lambda c: c.restore("127.0.0.7"), {"restore": {"host": "127.0.0.7"}}),
        (lambda c: c.restore("127.0.0.7", 8010), {"restore": {"host": "127.0.0.7", "port": 8010}}),
        (lambda c: c.act({"emp": {"endProgram": True}}), {"emp": {"endProgram": True}}),
    ],
)
def test_act_bodies(fake_server, fake_client, call, body):
    fake_server.route("POST", "/act", Canned(200, {"done": "something", "time": 12.5}))
    result = call(fake_client)
    assert (result.done, result.time) == ("something", 12.5)
    request = fake_server.last()
    assert request.json == body
    assert request.headers["content-type"] == "application/json"


def test_set_volume_needs_something(fake_client):
    with pytest.raises(TypeError):
        fake_client.set_volume()


def test_act_404_for_a_closed_connection(fake_server, fake_client):
    fake_server.route("POST", "/act", Canned(404, {"error": "no open connection 7"}))
    with pytest.raises(ControlError) as caught:
        fake_client.close_connection(7)
    assert caught.value.status == 404 and caught.value.error == "no open connection 7"


# -- clock, scenario, reset, report ----------------------------------------------------


@pytest.mark.parametrize(("value", "sent"), [("10m", "10m"), (600, 600), (2.5, 2.5), (dt.timedelta(seconds=90), 90.0)])
def test_advance(fake_server, fake_client, value, sent):
    fake_server.route("POST", "/clock/advance", Canned(200, {"mode": "manual", "speed": None, "time": 600}))
    clock = fake_client.advance(value)
    assert clock.time == 600 and clock.manual
    assert fake_server.last().json == {"by": sent}


SUMMARY = {"name": "movie night", "steps": 3, "stepsFired": 1, "rules": 1, "expectations": 2}


def test_scenario_and_reset(fake_server, fake_client):
    fake_server.route("GET", "/scenario", Canned(200, SUMMARY))
    fake_server.route("POST", "/reset", Canned(200, {**SUMMARY, "stepsFired": 0}))
    info = fake_client.scenario()
    assert (info.name, info.steps, info.steps_fired, info.rules, info.expectations) == ("movie night", 3, 1, 1, 2)
    assert fake_client.reset().steps_fired == 0
    request = fake_server.last()
    assert request.method == "POST" and request.body == b""
    assert "content-type" not in request.headers  # no body, so no JSON claimed


def test_load_scenario_from_a_dict_and_a_file(fake_server, fake_client, tmp_path):
    fake_server.route("PUT", "/scenario", Canned(200, SUMMARY))
    scenario = {"name": "movie night", "clock": {"mode": "manual"}}
    assert fake_client.load_scenario(scenario).name == "movie night"
    assert fake_server.last().json == scenario
    path = tmp_path / "s.json"
    text = '{\n  "$schema": "./scenario.schema.json",\n  "name": "movie night"\n}\n'
    path.write_text(text)
    fake_client.load_scenario(path)
    assert fake_server.last().body == text.encode()  # sent as it is
    fake_client.load_scenario(str(path))
    assert fake_server.last().headers["content-type"] == "application/json"


def test_load_scenario_that_does_not_validate(fake_server, fake_client):
    fake_server.route("PUT", "/scenario", Canned(422, {"error": "the scenario does not validate: $.name: expected a string",
                                                       "issues": [{"path": "$.name", "message": "expected a string"},
                                                                  {"path": "$.timeline[0]", "message": "expected one action"}]}))
    with pytest.raises(ControlError) as caught:
        fake_client.load_scenario({"name": 5})
    assert caught.value.status == 422
    assert [i.path for i in caught.value.issues] == ["$.name", "$.timeline[0]"]


def test_load_scenario_with_an_empty_answer_reads_the_scenario(fake_server, fake_client):
    fake_server.route("PUT", "/scenario", Canned(204, b"", content_type=""))
    fake_server.route("GET", "/scenario", Canned(200, SUMMARY))
    assert fake_client.load_scenario({"name": "x"}).name == "movie night"


def test_reports(fake_server, fake_client):
    report = {"scenario": "movie night", "expectations": [{"name": "loads", "passed": True}]}
    fake_server.route("GET", "/report", lambda request, handler: (
        Canned(200, '<?xml version="1.0"?><testsuites/>', content_type="application/xml")
        if request.query.get("format") == ["junit"] else Canned(200, report)))
    assert fake_client.report() == report
    assert fake_client.report_junit().startswith("<?xml")
    assert fake_server.last().headers["accept"] == "application/xml"


# -- wait_for (polling) -----------------------------------------------------------


def test_wait_for_state(fake_server, fake_client):
    answers = iter(["BUFFERING", "BUFFERING", "PLAYING"])

    def state(request, handler):
        media = {**STATE["media"], "playerState": next(answers, "PLAYING")}
        return Canned(200, {**STATE, "media": media})

    fake_server.route("GET", "/state", state)
    found = fake_client.wait_for(lambda s: s.player_state == "PLAYING", timeout=5, interval=0.01)
    assert found.player_state == "PLAYING"
    assert len([r for r in fake_server.requests if r.path.endswith("/state")]) == 3


def test_wait_for_state_times_out_with_the_last_state(fake_server, fake_client):
    fake_server.route("GET", "/state", Canned(200, STATE))
    with pytest.raises(WaitTimeout, match=r"waiting for paused; last state: .*player_state=PLAYING"):
        fake_client.wait_for(lambda s: s.player_state == "PAUSED", timeout=0.3, interval=0.05, what="paused")


def test_wait_for_bad_source(fake_client):
    with pytest.raises(ValueError):
        fake_client.wait_for(lambda s: True, on="nowhere")


def test_json_bodies_are_utf8(fake_server, fake_client):
    fake_server.route("POST", "/act", Canned(200, {"done": "emit", "time": 0}))
    fake_client.emit("media", {"type": "X", "title": "Amélie \u2192 \U0001F3AC"})
    assert json.loads(fake_server.last().body.decode("utf-8"))["emit"]["payload"]["title"] == "Amélie \u2192 \U0001F3AC"
