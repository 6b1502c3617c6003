"""The Server-Sent Events parser and the event stream, against a fake server."""

from __future__ import annotations

import time

import pytest

from castsim import ControlClient, ControlConnectionError, ControlError, SSEParser, WaitTimeout, parse_sse
from fakes import Canned, sse_route

HELLO = 'event: hello\ndata: {"time": 0.0}\n\n'
VOLUME = ('event: device\ndata: {"time": 1.5, "kind": "volumeChanged", "text": "volumeChanged 0.3", '
          '"volume": {"level": 0.3, "muted": false}}\n\n')
MESSAGE = ('event: message\ndata: {"seq": 4, "time": 2.0, "direction": "in", "connections": [1], '
           '"namespace": "urn:x-cast:com.google.cast.media", "sourceId": "sender-0", "destinationId": "web-1", '
           '"type": "LOAD", "payload": {"type": "LOAD", "requestId": 7}, "unhandled": null}\n\n')


# -- the parser ---------------------------------------------------------------


def test_named_events_with_json_data():
    events = list(parse_sse([HELLO + VOLUME + MESSAGE]))
    assert [e.name for e in events] == ["hello", "device", "message"]
    assert events[0].data == {"time": 0.0}
    assert events[1].kind == "volumeChanged"
    assert events[1].time == 1.5
    entry = events[2].entry
    assert entry is not None and entry.type == "LOAD" and entry.connection == 1 and entry.seq == 4
    assert events[1].entry is None


def test_comments_keepalives_and_unknown_fields_are_ignored():
    text = ": keep-alive\n\nretry: 3000\nfoo: bar\nevent: clock\ndata: {\"time\": 600}\n\n: keep-alive\n\n"
    parser = SSEParser()
    events = [e for line in text.split("\n") for e in [parser.feed_line(line)] if e is not None]
    assert [(e.name, e.data) for e in events] == [("clock", {"time": 600})]
    assert parser.retry == 3000


def test_multi_line_data_is_joined_with_newlines():
    (event,) = parse_sse(["data: first\ndata:second\ndata:  third\n\n"])
    assert event.name == "message"  # no event: line
    assert event.text == "first\nsecond\n third"  # one leading space removed, not more
    assert event.data == event.text  # not JSON: the text


def test_split_across_chunks_and_line_endings():
    stream = HELLO.replace("\n", "\r\n") + VOLUME.replace("\n", "\r")
    chunks = [stream[i:i + 7] for i in range(0, len(stream), 7)]
    events = list(parse_sse(chunk.encode() for chunk in chunks))
    assert [e.name for e in events] == ["hello", "device"]
    assert events[1].data["volume"] == {"level": 0.3, "muted": False}


def test_cr_at_a_chunk_boundary_is_one_line_end():
    events = list(parse_sse(["event: a\r", "\ndata: 1\r", "\n\r", "\n"]))
    assert [(e.name, e.data) for e in events] == [("a", 1)]


def test_unfinished_event_at_end_is_dropped_and_empty_events_are_not_dispatched():
    events = list(parse_sse(["event: lonely\n\n", HELLO, "event: device\ndata: {}"]))
    assert [e.name for e in events] == ["hello"]


def test_id_is_carried():
    (event,) = parse_sse(["id: 42\nevent: reset\ndata: {}\n\n"])
    assert event.id == "42" and event.name == "reset" and event.data == {}


def test_utf8_in_data():
    (event,) = parse_sse(['event: device\ndata: {"text": "loading \u2192 playing"}\n\n'.encode()])
    assert event.data["text"] == "loading \u2192 playing"


# -- the stream over HTTP -------------------------------------------------------


@pytest.mark.parametrize("chunked", [True, False])
def test_events_until_the_server_closes(fake_server, fake_client, chunked):
    fake_server.route("GET", "/events", sse_route([HELLO, 0.05, ": keep-alive\n\n", VOLUME, MESSAGE], chunked=chunked))
    events = list(fake_client.events())
    assert [e.name for e in events] == ["hello", "device", "message"]
    request = fake_server.last()
    assert request.headers["accept"] == "text/event-stream"
    assert "types" not in request.query


def test_events_types_and_token(fake_server):
    fake_server.route("GET", "/events", sse_route([HELLO]))
    client = ControlClient(fake_server.url + "/api/v1/", token="s3cret", timeout=5)
    list(client.events(types=["device", "clock"]))
    request = fake_server.last()
    assert request.query["types"] == ["device,clock"]
    assert request.headers["authorization"] == "Bearer s3cret"


def test_events_timeout_ends_the_generator(fake_server, fake_client):
    # The stream stays open and silent: a timeout ends it without waiting for keep-alives.
    fake_server.route("GET", "/events", sse_route([HELLO], hold=5.0))
    start = time.monotonic()
    events = list(fake_client.events(timeout=0.5))
    assert [e.name for e in events] == ["hello"]
    assert time.monotonic() - start < 3


def test_subscribe_waits_for_hello_then_next_event(fake_server, fake_client):
    fake_server.route("GET", "/events", sse_route([HELLO, 0.2, VOLUME], hold=2.0))
    with fake_client.subscribe() as stream:
        assert stream.hello is not None and stream.hello.data == {"time": 0.0}
        event = stream.next_event(timeout=5)
        assert event is not None and event.kind == "volumeChanged"
        assert stream.next_event(timeout=0.2) is None  # nothing more in time: closed
        assert stream.closed


def test_wait_for_on_events(fake_server, fake_client):
    fake_server.route("GET", "/events", sse_route([HELLO, 0.1, MESSAGE, 0.1, VOLUME], hold=2.0))
    event = fake_client.wait_for(lambda e: e.kind == "volumeChanged", timeout=5, on="events")
    assert event.data["volume"]["level"] == 0.3


def test_wait_for_on_events_times_out_with_what_it_saw(fake_server, fake_client):
    fake_server.route("GET", "/events", sse_route([HELLO, MESSAGE], hold=3.0))
    with pytest.raises(WaitTimeout, match=r"waiting for paused; 1 events seen.*in urn:x-cast:com.google.cast.media LOAD"):
        fake_client.wait_for(lambda e: False, timeout=0.5, on="events", what="paused")


def test_wait_for_on_events_stream_that_ends(fake_server, fake_client):
    fake_server.route("GET", "/events", sse_route([HELLO]))
    with pytest.raises(WaitTimeout, match="the stream ended"):
        fake_client.wait_for(lambda e: e.name == "device", timeout=5, on="events")


def test_event_stream_error_status(fake_server, fake_client):
    fake_server.route("GET", "/events", Canned(400, {"error": "types: unknown event type \"x\""}))
    with pytest.raises(ControlError) as caught:
        fake_client.subscribe(types=["x"])
    assert caught.value.status == 400
    assert "unknown event type" in caught.value.error


def test_event_stream_wrong_content_type(fake_server, fake_client):
    fake_server.route("GET", "/events", Canned(200, {"not": "a stream"}))
    with pytest.raises(ControlError, match="expected text/event-stream"):
        fake_client.subscribe()


def test_event_stream_unreachable():
    client = ControlClient("http://127.0.0.1:9", timeout=2)
    with pytest.raises(ControlConnectionError, match="event stream"):
        client.subscribe()
