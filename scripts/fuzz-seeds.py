#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora under Fuzz/Corpus/ from the real sender messages below.

    scripts/fuzz-seeds.py          regenerate (the output is committed)

Each fuzz target gets the same messages in the form it reads:
  FuzzJSON     the JSON payload text
  FuzzMessage  a serialized CastMessage (the frame body)
  FuzzFrames   length-prefixed frames, one message and a whole session in one stream
  FuzzDevice   records "[namespace][destination][source] payload", 0x00-separated
               (see Fuzz/castsim-fuzz/FuzzDevice.swift for the selector tables)
FuzzDNS gets mDNS datagrams as senders send them: browses, QU probes, legacy unicast
queries, announcements, a packet with compression pointers. FuzzRecording's seeds are
recordings castsim wrote; this script leaves them alone.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import sys
from pathlib import Path

# The one hand-written CastMessage encoder, in the Python package (standard library only).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
from castsim.castv2 import CastMessage  # noqa: E402

ROOT = Path(__file__).resolve().parents[1] / "Fuzz" / "Corpus"
GENERATED = ("FuzzJSON", "FuzzMessage", "FuzzFrames", "FuzzDevice", "FuzzDNS")

NS_CONNECTION = "urn:x-cast:com.google.cast.tp.connection"
NS_HEARTBEAT = "urn:x-cast:com.google.cast.tp.heartbeat"
NS_RECEIVER = "urn:x-cast:com.google.cast.receiver"
NS_MEDIA = "urn:x-cast:com.google.cast.media"
NS_EMP = "urn:x-cast:com.ericsson.cast.receiver"
# Indexes into FuzzDevice's tables.
DEVICE_NAMESPACES = [NS_CONNECTION, NS_HEARTBEAT, NS_RECEIVER, NS_MEDIA, "urn:x-cast:com.google.cast.tp.deviceauth",
                     "urn:x-cast:com.example.custom", "", NS_EMP]
RECEIVER_0, APP = 0, 1

TRACKS = [
    {"trackId": 1, "type": "TEXT", "subtype": "SUBTITLES", "language": "en", "name": "English",
     "trackContentId": "https://example.com/en.vtt", "trackContentType": "text/vtt"},
    {"trackId": 2, "type": "AUDIO", "language": "sv", "name": "Svenska"},
]
MEDIA = {
    "contentId": "https://example.com/movie.m3u8", "contentType": "application/x-mpegurl",
    "streamType": "BUFFERED", "duration": 5400.5, "tracks": TRACKS,
    "metadata": {"metadataType": 1, "title": "Mörk ✨ film", "subtitle": "\"quoted\"\n",
                 "images": [{"url": "https://example.com/poster.jpg", "width": 480, "height": 720}]},
    "customData": {"assetId": "a1", "nested": {"deep": [1, 2.5, -3e-7, None, True]}},
}

# (namespace, destination, payload)
MESSAGES: list[tuple[str, int, dict]] = [
    (NS_CONNECTION, RECEIVER_0, {"type": "CONNECT", "origin": {}, "userAgent": "PyChromecast",
                                 "senderInfo": {"sdkType": 2, "version": "15.6.0", "platform": 4,
                                                "connectionType": 1, "systemVersion": "Linux"}}),
    (NS_HEARTBEAT, RECEIVER_0, {"type": "PING"}),
    (NS_HEARTBEAT, RECEIVER_0, {"type": "PONG"}),
    (NS_RECEIVER, RECEIVER_0, {"type": "GET_STATUS", "requestId": 1}),
    (NS_RECEIVER, RECEIVER_0, {"type": "LAUNCH", "appId": "CC1AD845", "requestId": 2}),
    (NS_RECEIVER, RECEIVER_0, {"type": "SET_VOLUME", "volume": {"level": 0.35}, "requestId": 3}),
    (NS_RECEIVER, RECEIVER_0, {"type": "SET_VOLUME", "volume": {"muted": True}, "requestId": 4}),
    (NS_RECEIVER, RECEIVER_0, {"type": "GET_APP_AVAILABILITY", "appId": ["CC1AD845", "233637DE"], "requestId": 5}),
    (NS_RECEIVER, RECEIVER_0, {"type": "STOP", "sessionId": "s", "requestId": 6}),
    (NS_CONNECTION, APP, {"type": "CONNECT"}),
    (NS_MEDIA, APP, {"type": "LOAD", "requestId": 7, "media": MEDIA, "autoplay": "false",
                     "currentTime": 12, "activeTrackIds": [1], "customData": None}),
    (NS_MEDIA, APP, {"type": "GET_STATUS", "requestId": 8}),
    (NS_MEDIA, APP, {"type": "PAUSE", "mediaSessionId": 1, "requestId": 9}),
    (NS_MEDIA, APP, {"type": "PLAY", "mediaSessionId": 1, "requestId": 10}),
    (NS_MEDIA, APP, {"type": "SEEK", "mediaSessionId": 1, "currentTime": 120.5, "resumeState": "PLAYBACK_PAUSE", "requestId": 11}),
    (NS_MEDIA, APP, {"type": "SET_PLAYBACK_RATE", "mediaSessionId": 1, "playbackRate": 1.5, "requestId": 12}),
    (NS_MEDIA, APP, {"type": "EDIT_TRACKS_INFO", "mediaSessionId": 1, "activeTrackIds": [1, 2], "requestId": 13,
                     "textTrackStyle": {"backgroundColor": "#00000080", "foregroundColor": "#FFFFFFFF",
                                        "edgeType": "OUTLINE", "fontScale": 1.2, "fontFamily": "Droid Sans"}}),
    (NS_MEDIA, APP, {"type": "QUEUE_LOAD", "requestId": 14, "startIndex": 1, "repeatMode": "REPEAT_ALL",
                     "items": [{"media": {"contentId": "a.mp3", "contentType": "audio/mpeg", "streamType": "BUFFERED"},
                                "autoplay": True, "preloadTime": 5}, {"media": {"contentId": "b.mp3"}}]}),
    (NS_MEDIA, APP, {"type": "QUEUE_INSERT", "mediaSessionId": 1, "requestId": 15, "insertBefore": 2,
                     "items": [{"media": {"contentId": "c.mp3"}}]}),
    (NS_MEDIA, APP, {"type": "QUEUE_UPDATE", "mediaSessionId": 1, "requestId": 16, "jump": 1}),
    (NS_MEDIA, APP, {"type": "QUEUE_GET_ITEM_IDS", "mediaSessionId": 1, "requestId": 17}),
    (NS_MEDIA, APP, {"type": "QUEUE_GET_ITEMS", "mediaSessionId": 1, "itemIds": [1, 2], "requestId": 18}),
    (NS_MEDIA, APP, {"type": "STOP", "mediaSessionId": 1, "requestId": 19}),
    (NS_CONNECTION, APP, {"type": "CLOSE"}),
]

# The EMP receiver (FuzzDevice launches the device's third app, the EMP receiver, on a 0xFC 0x02 record): both
# LOAD forms and its commands.
EMP_MESSAGES: list[tuple[str, int, dict]] = [
    (NS_MEDIA, APP, {"type": "LOAD", "requestId": 20, "media": {"contentId": "a1", "streamType": "BUFFERED"},
                     "credentials": "t", "autoplay": True,
                     "customData": {"customer": "C", "businessUnit": "B", "subtitleLanguage": "sv", "audioLanguage": "de",
                                    "locale": "sv", "adParameters": {"consent": "x", "mute": False}}}),
    (NS_EMP, APP, {"type": "pull"}),
    (NS_EMP, APP, {"type": "showtexttrack", "data": {"language": "en", "kind": "subtitles"}}),
    (NS_EMP, APP, {"type": "hidetexttrack"}),
    (NS_EMP, APP, {"type": "selectaudiotrack", "data": {"language": "en"}}),
    (NS_MEDIA, APP, {"type": "SEEK", "requestId": 21, "currentTime": 35}),
    (NS_EMP, APP, {"type": "texttrackstyle", "data": {"color": "#FFF", "textOpacity": "0.5", "edgeStyle": "raised", "fontPercent": 1.5}}),
    (NS_MEDIA, APP, {"type": "LOAD", "requestId": 22, "media": {"contentId": "ch"},
                     "customData": {"ericssonexposure": {"exposureApiURL": "https://e.test", "customer": "C", "businessUnit": "B",
                                                         "sessionToken": "t"},
                                    "channelId": "ch", "playbackProperties": {"playFrom": "startTime", "startTime": 1767268810000},
                                    "textLanguage": "en", "timeShiftDisabled": False, "autoplay": True}}),
    (NS_EMP, APP, {"type": "playheadtime", "data": 1767268800000}),
    (NS_EMP, APP, {"type": "playheadTime", "data": {"datetime": 1767268830000}}),
    (NS_EMP, APP, {"type": "playnextprogram"}),
    (NS_EMP, APP, {"type": "playpreviousprogram", "data": {"end": False}}),
    (NS_EMP, APP, {"type": "gotolive"}),
    (NS_EMP, APP, {"type": "refreshcontrols"}),
    (NS_MEDIA, APP, {"type": "LOAD", "requestId": 23, "media": {"contentId": "geo"}, "credentials": "old",
                     "customData": {"customer": "C", "businessUnit": "B"}}),
]


def cast_message(namespace: str, destination: str, payload: str) -> bytes:
    """CastMessage: protocol_version=0, source, destination, namespace, payload_type=STRING, payload."""
    return CastMessage("sender-0", destination, namespace, payload).encode()


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def dns_name(name: str) -> bytes:
    out = b""
    for label in name.split("."):
        if label:
            out += bytes([len(label.encode())]) + label.encode()
    return out + b"\0"


def dns_question(name: str, qtype: int, qu: bool = False) -> bytes:
    return dns_name(name) + struct.pack(">HH", qtype, 1 | (0x8000 if qu else 0))


def dns_record(name: str, rtype: int, rdata: bytes, ttl: int = 120, flush: bool = False) -> bytes:
    return dns_name(name) + struct.pack(">HHIH", rtype, 1 | (0x8000 if flush else 0), ttl, len(rdata)) + rdata


def dns_packet(flags: int, questions: list[bytes], answers: list[bytes] = (), authorities: list[bytes] = (),
               ident: int = 0) -> bytes:
    return (struct.pack(">HHHHHH", ident, flags, len(questions), len(answers), len(authorities), 0)
            + b"".join(questions) + b"".join(answers) + b"".join(authorities))


MDNS_INSTANCE = "Chromecast-0123456789abcdef0123456789abcdef._googlecast._tcp.local"
MDNS_HOST = "01234567-89ab-cdef-0123-456789abcdef.local"
MDNS_SEEDS = [
    # python-zeroconf's and pychromecast's browse.
    dns_packet(0, [dns_question("_googlecast._tcp.local", 12)]),
    # An iOS sender browsing an app's subtype, asking for a unicast answer.
    dns_packet(0, [dns_question("_CC1AD845._sub._googlecast._tcp.local", 12, qu=True)]),
    # Resolving the instance and the host; a known answer for the PTR.
    dns_packet(0, [dns_question(MDNS_INSTANCE, 33), dns_question(MDNS_INSTANCE, 16), dns_question(MDNS_HOST, 1)],
               [dns_record("_googlecast._tcp.local", 12, dns_name(MDNS_INSTANCE), ttl=4500)]),
    # A legacy unicast query with an id (sent from another port than 5353).
    dns_packet(0, [dns_question(MDNS_HOST, 28)], ident=0xBEEF),
    # Another host probing for the same instance name.
    dns_packet(0, [dns_question(MDNS_INSTANCE, 255, qu=True)], [], [
        dns_record(MDNS_INSTANCE, 33, struct.pack(">HHH", 0, 0, 9000) + dns_name("other.local"))]),
    # A response claiming our host name with another address.
    dns_packet(0x8400, [], [dns_record(MDNS_HOST, 1, bytes([10, 0, 0, 9]), flush=True)]),
    # A goodbye.
    dns_packet(0x8400, [], [dns_record("_googlecast._tcp.local", 12, dns_name(MDNS_INSTANCE), ttl=0)]),
    # Compression: the answer's owner points at the question's name (offset 12).
    struct.pack(">HHHHHH", 0, 0x8400, 1, 1, 0, 0) + dns_name("local") + struct.pack(">HH", 12, 1)
    + bytes([3]) + b"abc" + bytes([0xC0, 12]) + struct.pack(">HHIH", 1, 1, 60, 4) + bytes([10, 0, 0, 2]),
]


def write(target: str, data: bytes) -> None:
    directory = ROOT / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def main() -> None:
    # Only the corpora this script writes: FuzzRecording's seeds are recordings castsim
    # made (committed as they are), not messages from the table above.
    for target in GENERATED:
        shutil.rmtree(ROOT / target, ignore_errors=True)
    session_frames = b""
    session_records = []
    for namespace, destination, payload in MESSAGES:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        body = cast_message(namespace, "receiver-0" if destination == RECEIVER_0 else "app", text)
        write("FuzzJSON", text.encode())
        write("FuzzMessage", body)
        write("FuzzFrames", frame(body))
        session_frames += frame(body)
        record = bytes([DEVICE_NAMESPACES.index(namespace), destination, 0]) + text.encode()
        write("FuzzDevice", record)
        session_records.append(record)
    emp_records = []
    for namespace, destination, payload in EMP_MESSAGES:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        record = bytes([DEVICE_NAMESPACES.index(namespace), destination, 0]) + text.encode()
        write("FuzzJSON", text.encode())
        write("FuzzDevice", b"\xfc\x02\x00\x00" + record)
        emp_records.append(record)
    # An EMP session: launch, the LOADs and commands, time passing over a program boundary.
    write("FuzzDevice", b"\x00".join([b"\xfc\x02\x00"] + emp_records[:8] + [b"\xfe\x3c\x00"] + emp_records[8:]))
    write("FuzzFrames", session_frames)
    # A session with a clock advance (0xFE) and a reconnect (0xFD) in the middle.
    write("FuzzDevice", b"\x00".join(session_records[:12] + [b"\xfe\x3c\x00", b"\xfd\x00\x00"] + session_records[12:]))
    for packet in MDNS_SEEDS:
        write("FuzzDNS", packet)
    print(f"wrote seed corpora under {ROOT}")


if __name__ == "__main__":
    main()
