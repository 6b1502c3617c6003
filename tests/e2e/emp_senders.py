"""The EMP end-to-end tests' senders: pychromecast senders with a controller for the EMP
namespace that keeps every message and checks it against the iOS and the Android Enigma
senders' decoding rules (docs/protocol/emp.md §4.0, §6), the test scenario's Exposure world,
and what the tests do with them."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pychromecast.controllers import BaseController
from pychromecast.response_handler import WaitResponse

from e2e_harness import CastsimDevice, FailureRecorder, Sender, wait_until

NS_MEDIA = "urn:x-cast:com.google.cast.media"
NS_EMP = "urn:x-cast:com.ericsson.cast.receiver"
EMP_APP_ID = "F40E2D17"

# The scenario's wall clock at scenario time 0: EPG times are this plus scenario time.
EPOCH = datetime(2026, 5, 1, 18, 0, 0, tzinfo=timezone.utc)
EPOCH_MS = int(EPOCH.timestamp() * 1000)

SCENARIO: dict[str, Any] = {
    "name": "EMP end to end",
    "description": "tests/e2e/test_emp.py: a VOD asset in two text and two audio languages, a live channel of two programs.",
    "clock": {"mode": "manual"},
    "exposure": {
        "epoch": "2026-05-01T18:00:00Z",
        "businessUnits": [
            {"customer": "Blixt", "businessUnit": "Play", "sessionTokens": {"tok-valid": "valid", "tok-old": "expired"}}
        ],
        "assets": {
            "movie-1": {"title": "Northern Lights", "duration": "1h30m", "textLanguages": ["en", "sv"], "audioLanguages": ["en", "de"]}
        },
        "channels": {
            "news-24": {
                "title": "News 24",
                "programs": [
                    {"programId": "p1", "assetId": "a-p1", "title": "Morning", "start": "0s", "end": "10m"},
                    {"programId": "p2", "assetId": "a-p2", "title": "Noon", "start": "10m", "end": "20m"},
                ],
            }
        },
    },
}

# How long to keep listening after the expected messages arrived, to catch extra ones.
SETTLE = 0.5


# --------------------------------------------------------------------------
# The senders' decoding rules (docs/protocol/emp.md §4.0 table, §4.1-§4.8, §6)
# --------------------------------------------------------------------------

# iOS `MessageType` (v4.1.0): anything else is SenderError.unsupportedMessage.
IOS_TYPES = frozenset({
    "tracksupdated", "timeShiftEnabled", "volumechange", "durationchange", "startTimeLive", "programchanged",
    "segmentmissing", "autoplay", "isLive", "error", "entitlementchange",
})  # fmt: skip


def _is_int(value: Any) -> bool:
    """A JSON integer (Swift Int/Int64, Android getInt/getLong): no bool, no fraction."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _require(problems: list[str], container: Any, key: str, check, what: str, path: str) -> Any:
    """container[key] must exist and pass check; returns it (or None)."""
    if not isinstance(container, dict) or key not in container:
        problems.append(f"{path}.{key}: missing; expected {what}")
        return None
    value = container[key]
    if not check(value):
        problems.append(f"{path}.{key}: expected {what}, got {json.dumps(value)}")
        return None
    return value


def _optional(problems: list[str], container: dict, key: str, check, what: str, path: str) -> None:
    """Swift `decodeIfPresent`: absent or null is fine, anything else must pass check."""
    if container.get(key) is not None and not check(container[key]):
        problems.append(f"{path}.{key}: expected {what} or nothing, got {json.dumps(container[key])}")


def _check_tracks(problems: list[str], data: Any, id_key: str, id_what: str) -> None:
    """tracksupdated's `data.tracksInfo`: integer active ids; tracks with string label,
    type and language and an integer id under the key this sender reads (emp.md §4.1)."""
    info = _require(problems, data, "tracksInfo", lambda v: isinstance(v, dict), "an object", "data")
    if info is None:
        return
    _require(problems, info, "activeTrackIds", lambda v: isinstance(v, list) and all(map(_is_int, v)),
             "a list of integers", "data.tracksInfo")
    tracks = _require(problems, info, "tracks", lambda v: isinstance(v, list), "a list", "data.tracksInfo")
    for index, track in enumerate(tracks or []):
        path = f"data.tracksInfo.tracks[{index}]"
        if not isinstance(track, dict):
            problems.append(f"{path}: expected an object")
            continue
        _require(problems, track, id_key, _is_int, id_what, path)
        for key in ("label", "type", "language"):
            _require(problems, track, key, _is_str, "a string", path)


def ios_rejections(message: dict) -> list[str]:
    """Why iOSClientCast v4.1.0 (`Channel.didReceiveTextMessage`) rejects a message; [] if it accepts it."""
    problems: list[str] = []
    kind = message.get("type")
    if kind not in IOS_TYPES:
        return [f"type {json.dumps(kind)} is not one of the 11 iOS types (exact casing)"]
    data = message.get("data")
    if kind == "tracksupdated":
        _check_tracks(problems, data, id_key="id", id_what="an integer")
    elif kind in ("timeShiftEnabled", "autoplay", "isLive"):
        _require(problems, message, "data", _is_bool, "a JSON boolean", "")
    elif kind == "volumechange":
        _require(problems, data, "volume", lambda v: _is_number(v) and 0 <= v <= 1, "a number in 0...1", "data")
        _require(problems, data, "muted", _is_bool, "a boolean", "data")
    elif kind == "durationchange":
        _require(problems, message, "data", _is_number, "a number", "")
    elif kind in ("startTimeLive", "segmentmissing"):
        _require(problems, message, "data", _is_int, "an integer (Int64)", "")
    elif kind == "programchanged":
        program = _require(problems, data, "program", lambda v: isinstance(v, dict), "an object", "data")
        if program is not None:
            for key in ("programId", "assetId", "channelId"):
                _require(problems, program, key, _is_str, "a string", "data.program")
            for key in ("startTime", "endTime"):
                _optional(problems, program, key, _is_str, "a string", "data.program")
    elif kind == "entitlementchange":
        entitlement = _require(problems, data, "entitlement", lambda v: isinstance(v, dict), "an object", "data")
        if entitlement is not None:
            for key in ("live", "ffEnabled", "timeshiftEnabled", "rwEnabled", "airplayBlocked"):
                _require(problems, entitlement, key, _is_bool, "a boolean", "data.entitlement")
            for key in ("minBitrate", "maxBitrate", "maxResHeight"):
                _optional(problems, entitlement, key, _is_int, "an integer", "data.entitlement")
    elif kind == "error":
        # No data, or data that is no object: ReceiverError(-1, "UNKNOWN_ERROR"), accepted.
        if isinstance(data, dict):
            _optional(problems, data, "code", _is_int, "an integer", "data")
            _optional(problems, data, "message", _is_str, "a string", "data")
    return problems


def android_rejections(message: dict) -> list[str]:
    """Why the Android Enigma sender (`EnigmaMessageConverter`) fails on a message; [] if it reads it.

    org.json coerces (getInt of 1.5 or "1", getBoolean of "true", getString of 7): like
    the iOS rules these ask for the JSON type the receiver is meant to send. Types it
    does not know go to onUnhandledMessageType, which is no failure.
    """
    problems: list[str] = []
    kind = message.get("type")
    data = message.get("data")
    if kind == "tracksupdated":
        _check_tracks(problems, data, id_key="trackId", id_what="an integer (getInt)")
    elif kind in ("timeShiftEnabled", "autoplay", "isLive"):
        _require(problems, message, "data", _is_bool, "a boolean", "")
    elif kind == "volumechange":
        _require(problems, data, "volume", _is_number, "a number (getDouble)", "data")
        _require(problems, data, "muted", _is_bool, "a boolean", "data")
    elif kind in ("startTimeLive", "segmentmissing"):
        _require(problems, message, "data", _is_int, "an integer (getLong)", "")
    elif kind == "programchanged":
        _require(problems, data, "program", lambda v: isinstance(v, dict), "an object (getJSONObject)", "data")
    elif kind == "entitlementchange":
        _require(problems, data, "entitlement", lambda v: isinstance(v, dict), "an object", "data")
    elif kind == "assetchanged":
        _require(problems, data, "asset", lambda v: isinstance(v, dict), "an object", "data")
    elif kind == "error":
        _require(problems, message, "data", lambda v: isinstance(v, dict), "an object (getJSONObject)", "")
    elif kind == "liveDelay":
        _require(problems, message, "data", _is_number, "a number (getDouble)", "")
    return problems


def emp_rejections(text: str) -> list[str]:
    """Every reason an EMP payload (a JSON text) is rejected by the iOS or the Android Enigma sender."""
    try:
        message = json.loads(text)
    except ValueError as err:
        return [f"not JSON: {err}"]
    if not isinstance(message, dict):
        return ["not a JSON object {\"type\", \"data\"}"]
    if not isinstance(message.get("type"), str):
        return ["no string type"]
    return [f"iOS: {p}" for p in ios_rejections(message)] + [f"Android: {p}" for p in android_rejections(message)]


# --------------------------------------------------------------------------
# What a sender receives
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    namespace: str
    source_id: str
    destination_id: str
    payload: Any  # the payload parsed ourselves, whatever JSON it is
    text: str

    @property
    def type(self) -> Any:
        return self.payload.get("type") if isinstance(self.payload, dict) else None

    @property
    def data(self) -> Any:
        return self.payload.get("data") if isinstance(self.payload, dict) else None


@dataclass
class Timeline:
    """Every media and EMP message one sender received, in arrival order.

    pychromecast routes all of a connection's messages from its one socket thread, so
    the order here is the order on the wire across both namespaces.
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    entries: list[Received] = field(default_factory=list)

    def add(self, entry: Received) -> None:
        with self.lock:
            self.entries.append(entry)

    def mark(self) -> int:
        with self.lock:
            return len(self.entries)

    def since(self, mark: int = 0, namespace: str | None = None) -> list[Received]:
        with self.lock:
            entries = self.entries[mark:]
        return [e for e in entries if namespace is None or e.namespace == namespace]


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


class EMPController(BaseController):
    """A controller for the EMP namespace, as a sender app's EMP channel.

    supporting_app_id makes it an app controller: send_message goes to the running
    app's transport id (pychromecast's send_app_message), which must list the EMP
    namespace in RECEIVER_STATUS, and launches F40E2D17 first if another app runs.
    Receiving needs a virtual connection to that transport id: pychromecast opens one
    when a RECEIVER_STATUS names a new app with a namespace that has a handler (then it
    calls channel_connected), and attach() opens it for an app that was already running
    when the controller was registered.
    """

    def __init__(self, name: str, timeline: Timeline) -> None:
        super().__init__(NS_EMP, supporting_app_id=EMP_APP_ID)
        self.name = name
        self.timeline = timeline
        self.transport_id: str | None = None
        self._lock = threading.Lock()
        self.messages: list[Received] = []
        # (message, reasons) for every message a sender would reject.
        self.rejected: list[tuple[Received, list[str]]] = []

    # -- connection ------------------------------------------------------

    def channel_connected(self) -> None:
        assert self._socket_client is not None
        self.transport_id = self._socket_client.destination_id

    def channel_disconnected(self) -> None:
        self.transport_id = None

    def attach(self) -> str:
        """Connect to the running EMP app's transport id; returns it."""
        client = self._socket_client
        assert client is not None, "register the controller first"
        wait_until(lambda: client.destination_id is not None and NS_EMP in client.app_namespaces,
                   what=f"{self.name}: a running app with {NS_EMP} in RECEIVER_STATUS",
                   details=lambda: f"app_namespaces={client.app_namespaces} destination={client.destination_id}")
        assert client.destination_id is not None
        # What pychromecast does itself for a new app (new_cast_status) and before any
        # send: CONNECT to the app's transport id unless that channel is already open.
        client._ensure_channel_connected(client.destination_id)
        self.transport_id = client.destination_id
        return self.transport_id

    # -- receiving -------------------------------------------------------

    def receive_message(self, message: Any, _data: dict) -> bool:
        # pychromecast turns a payload that is no JSON object into {}: parse it ourselves.
        text = message.payload_utf8
        entry = Received(message.namespace, message.source_id, message.destination_id, _parse(text), text)
        rejections = emp_rejections(text)
        with self._lock:
            self.messages.append(entry)
            if rejections:
                self.rejected.append((entry, rejections))
        self.timeline.add(entry)
        return True

    def received(self, since: int = 0) -> list[Received]:
        with self._lock:
            return self.messages[since:]

    def mark(self) -> int:
        with self._lock:
            return len(self.messages)

    def types(self, since: int = 0) -> list[Any]:
        return [m.type for m in self.received(since)]

    def of_type(self, kind: str, since: int = 0) -> list[Received]:
        return [m for m in self.received(since) if m.type == kind]

    # -- sending (as the iOS sender writes them, emp.md §3.1: no requestId) ------

    def send(self, kind: str, data: Any = None) -> None:
        payload: dict[str, Any] = {"type": kind}
        if data is not None:
            payload["data"] = data
        self.send_message(payload, no_add_request_id=True)

    def pull(self) -> None:
        self.send("pull")

    def show_text_track(self, language: str) -> None:
        self.send("showtexttrack", {"language": language})

    def hide_text_track(self) -> None:
        self.send("hidetexttrack")

    def select_audio_track(self, language: str) -> None:
        self.send("selectaudiotrack", {"language": language})


class MediaRecorder(BaseController):
    """Extra handler on the media namespace: puts every message on the timeline.

    pychromecast hands each message to every handler of its namespace, so the sender's
    own MediaController still processes everything.
    """

    def __init__(self, timeline: Timeline) -> None:
        super().__init__(NS_MEDIA)
        self.timeline = timeline

    def receive_message(self, message: Any, _data: dict) -> bool:
        text = message.payload_utf8
        self.timeline.add(Received(message.namespace, message.source_id, message.destination_id, _parse(text), text))
        return True


@dataclass
class EmpSender:
    """One pychromecast sender with its EMP channel and a timeline of what it received."""

    name: str
    sender: Sender
    emp: EMPController
    timeline: Timeline
    failures: FailureRecorder

    @property
    def source_id(self) -> str:
        return self.sender.cast.socket_client.source_id

    def statuses(self, since: int = 0) -> list[dict]:
        """The media status objects of every MEDIA_STATUS received since `since`."""
        return [
            status
            for entry in self.timeline.since(since, NS_MEDIA)
            if entry.type == "MEDIA_STATUS"
            for status in entry.payload.get("status", [])
        ]

    def describe(self) -> str:
        return (
            f"{self.name}: EMP types {self.emp.types()}; media "
            f"{[(e.type, e.payload.get('requestId')) for e in self.timeline.since(0, NS_MEDIA)]}; "
            f"{self.sender.describe()}"
        )


def emp_sender(device: CastsimDevice, sender_factory, name: str) -> EmpSender:
    timeline = Timeline()
    sender = sender_factory(device)
    emp = EMPController(name, timeline)
    sender.cast.register_handler(emp)
    sender.cast.register_handler(MediaRecorder(timeline))
    failures = FailureRecorder()
    sender.media.register_status_listener(failures)
    return EmpSender(name, sender, emp, timeline, failures)


def launch_emp(view: EmpSender) -> str:
    """The EMP receiver via a receiver LAUNCH (pychromecast's start_app); returns its transport id."""
    view.sender.cast.start_app(EMP_APP_ID)
    wait_until(lambda: view.sender.cast.status is not None and view.sender.cast.status.app_id == EMP_APP_ID,
               what="F40E2D17 running", details=view.sender.describe)
    status = view.sender.cast.status
    assert status.display_name == "EMP Receiver", status
    assert NS_MEDIA in status.namespaces and NS_EMP in status.namespaces, status.namespaces
    # The new app's RECEIVER_STATUS made pychromecast connect this controller to it.
    wait_until(lambda: view.emp.transport_id == status.transport_id, what="EMP channel connected to the app",
               details=lambda: f"controller transport={view.emp.transport_id} app transport={status.transport_id}")
    return view.emp.attach()


def start_device(castsim_factory, tmp_path: Path, *, console: bool = False) -> CastsimDevice:
    scenario = tmp_path / "emp.json"
    scenario.write_text(json.dumps(SCENARIO, indent=1))
    return castsim_factory(extra_args=("--scenario", str(scenario)), console=console)


def two_senders(device: CastsimDevice, sender_factory) -> tuple[EmpSender, EmpSender]:
    """A launches the EMP receiver; B connects to the running app, as a second phone would."""
    a = emp_sender(device, sender_factory, "A")
    transport = launch_emp(a)
    b = emp_sender(device, sender_factory, "B")
    wait_until(lambda: b.sender.cast.status is not None and b.sender.cast.status.app_id == EMP_APP_ID,
               what="B sees F40E2D17", details=b.sender.describe)
    assert b.emp.attach() == transport
    # B's MediaController asked for the media status while connecting, possibly before
    # B's recorders were registered: ask again and wait for the answer, so B is known to
    # be in the app (and on its timeline) before anything happens.
    handler = WaitResponse(10.0, "B: GET_STATUS")
    b.sender.media.update_status(callback_function=handler.callback)
    handler.wait_response()
    assert handler.response is not None and handler.response["type"] == "MEDIA_STATUS", handler.response
    return a, b


def load(view: EmpSender, content_id: str, token: str, **custom: Any) -> tuple[int, dict]:
    """A LOAD as the current iOS sender sends it (emp.md §5.1, §5.2), on the media namespace to
    the app; returns its requestId and the reply that carries that requestId."""
    payload: dict[str, Any] = {
        "type": "LOAD",
        "media": {"contentId": content_id, "streamType": "BUFFERED", "contentType": "video/mp4"},
        "credentials": token,
        "customData": {"customer": "Blixt", "businessUnit": "Play", **custom},
        "autoplay": True,
    }
    handler = WaitResponse(10.0, f"LOAD {content_id}")
    # MediaController.send_message: to the app's transport id, requestId added in place.
    view.sender.media.send_message(payload, inc_session_id=True, callback_function=handler.callback)
    handler.wait_response()
    assert handler.response is not None, f"no reply to LOAD {content_id}"
    return payload["requestId"], handler.response


def collect(view: EmpSender, since: int, count: int, timeout: float = 10.0) -> list[Received]:
    """The EMP messages since `since` once at least `count` arrived (or the timeout
    passed) and nothing more came for SETTLE seconds: the caller compares them exactly."""
    deadline = time.monotonic() + timeout
    while len(view.emp.received(since)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(SETTLE)
    return view.emp.received(since)


def check_accepted(*views: EmpSender) -> None:
    """Every EMP message decodes under the iOS and the Android Enigma rules, and came from
    the app to this sender (or to all)."""
    problems = []
    for view in views:
        for entry, reasons in view.emp.rejected:
            problems.append(f"{view.name} received {entry.text}\n    rejected: {'; '.join(reasons)}")
        for entry in view.emp.received():
            if entry.source_id != view.emp.transport_id:
                problems.append(f"{view.name} received {entry.text} from {entry.source_id}, not the app {view.emp.transport_id}")
            if entry.destination_id not in ("*", view.source_id):
                problems.append(f"{view.name} received {entry.text} addressed to {entry.destination_id}")
    assert not problems, "EMP messages a sender rejects:\n  " + "\n  ".join(problems)


def active_ids(status: dict) -> list[int]:
    return sorted(status.get("activeTrackIds", []))


def wait_for_emp(view: EmpSender, kind: str, since: int = 0, timeout: float = 10.0) -> Received:
    found = wait_until(lambda: view.emp.of_type(kind, since), timeout=timeout,
                       what=f"{view.name}: EMP {kind}", details=view.describe)
    return found[0]


def iso_instant(text: Any) -> datetime:
    """An ISO 8601 date-time with Z, as JavaScript's Date.toJSON writes it."""
    assert isinstance(text, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z", text), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
