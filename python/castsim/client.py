"""A client of castsim's HTTP control API (docs/control-api.md), standard library only.

    client = ControlClient("http://127.0.0.1:8119")
    client.pause()
    client.assert_received({"namespace": "media", "type": "LOAD",
                            "fields": {"customData.token": "abc"}})
    client.advance("10m")        # manual clock only

Every request goes to ``<base_url>/api/v1/...``. A 4xx/5xx answer raises ControlError
with the server's ``error`` text and ``issues``; a server that cannot be reached raises
ControlConnectionError.
"""

from __future__ import annotations

import datetime as _dt
import http.client
import json
import math
import os
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union

__all__ = [
    "API_PREFIX",
    "ActResult",
    "Clock",
    "ControlClient",
    "ControlConnectionError",
    "ControlError",
    "Event",
    "EventStream",
    "Issue",
    "Journal",
    "JournalEntry",
    "Nearest",
    "ScenarioInfo",
    "SSEParser",
    "State",
    "VerifyResult",
    "Volume",
    "WaitTimeout",
    "format_duration",
    "parse_duration",
    "parse_sse",
]

API_PREFIX = "/api/v1"

Duration = Union[int, float, str, _dt.timedelta]
JSON = Any


# --------------------------------------------------------------------------
# Durations
# --------------------------------------------------------------------------

_UNITS = (("h", 3_600_000), ("m", 60_000), ("s", 1000))
_UNIT_RANK = {"h": (4, 3600.0), "m": (3, 60.0), "s": (2, 1.0), "ms": (1, 0.001)}


def _plain_number(value: float) -> str:
    """12.0 -> '12', 0.5 -> '0.5' (no exponent for the values durations have)."""
    if value == int(value):
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _seconds(value: Duration) -> float:
    if isinstance(value, bool):
        raise TypeError(f"a duration is a number of seconds, a string like '2.5s' or a timedelta, not {value!r}")
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (int, float)):
        return float(value)
    raise TypeError(f"a duration is a number of seconds, a string like '2.5s' or a timedelta, not {value!r}")


def format_duration(value: Duration) -> str:
    """A duration as the scenario syntax writes it: 90 -> '1m30s', 0.25 -> '250ms'.

    Strings are returned unchanged (the server checks them and names what is wrong);
    numbers are seconds; timedeltas are converted. The text is what castsim's own
    formatter prints: whole hours, minutes and seconds, then milliseconds.
    """
    if isinstance(value, str):
        return value
    seconds = _seconds(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"a duration must be a finite number of seconds >= 0, not {value!r}")
    if seconds == 0:
        return "0s"
    rest = round(seconds * 1000)
    if rest < 1:
        return _plain_number(seconds * 1000) + "ms"
    text = ""
    for unit, size in _UNITS:
        if rest >= size:
            count, rest = divmod(rest, size)
            text += f"{count}{unit}"
    if rest > 0:
        text += f"{rest}ms"
    return text


def parse_duration(text: str) -> float:
    """Seconds for a scenario duration string ('250ms', '5s', '1h30m', '1.5s').

    Units h, m, s, ms, each at most once and in that order, as castsim reads them.
    Raises ValueError for anything else.
    """
    if not isinstance(text, str) or not text:
        raise ValueError(f"not a duration like '90s' or '2m': {text!r}")
    total = 0.0
    rest = text
    last_rank = math.inf
    while rest:
        digits = 0
        while digits < len(rest) and (rest[digits].isdigit() or rest[digits] == "."):
            digits += 1
        number = rest[:digits]
        rest = rest[digits:]
        letters = 0
        while letters < len(rest) and rest[letters].isalpha():
            letters += 1
        unit = rest[:letters]
        rest = rest[letters:]
        if not number or number.count(".") > 1 or number == "." or unit not in _UNIT_RANK:
            raise ValueError(f"not a duration like '90s' or '2m': {text!r}")
        rank, size = _UNIT_RANK[unit]
        if rank >= last_rank:
            raise ValueError(f"not a duration like '90s' or '2m' (units h, m, s, ms in that order, each once): {text!r}")
        last_rank = rank
        total += float(number) * size
    return total


def _duration_value(value: Duration) -> Union[float, int, str]:
    """For fields the API documents as 'a number of seconds or a duration string':
    strings and ints as they are, floats and timedeltas as float seconds."""
    if isinstance(value, str):
        return value
    seconds = _seconds(value)  # rejects bools and other types
    return value if isinstance(value, int) else seconds


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Issue:
    """One validation problem: a JSON path into the request body and what is wrong there."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ControlError(Exception):
    """The control API answered with an error status.

    ``status`` is the HTTP status, ``error`` the server's message (its JSON ``error``,
    or the body text when the body is not that JSON), ``issues`` the validation problems
    (a list of Issue, empty unless a body failed validation), ``body`` the raw answer.
    """

    def __init__(self, status: int, error: str, issues: Sequence[Issue] = (), *,
                 method: str = "", url: str = "", body: bytes = b"") -> None:
        self.status = status
        self.error = error
        self.issues: List[Issue] = list(issues)
        self.method = method
        self.url = url
        self.body = body
        super().__init__(status, error, self.issues)

    def __str__(self) -> str:
        where = f" ({self.method} {self.url})" if self.method else ""
        text = f"HTTP {self.status}{where}: {self.error}"
        for issue in self.issues:
            text += f"\n  {issue}"
        return text

    @classmethod
    def from_response(cls, status: int, body: bytes, *, method: str = "", url: str = "") -> "ControlError":
        text = body.decode("utf-8", errors="replace")
        error = text.strip() or http.client.responses.get(status, "error")
        issues: List[Issue] = []
        try:
            parsed = json.loads(text) if text.strip() else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            if isinstance(parsed.get("error"), str):
                error = parsed["error"]
            for item in parsed.get("issues") or []:
                if isinstance(item, dict):
                    issues.append(Issue(str(item.get("path", "")), str(item.get("message", ""))))
                else:
                    issues.append(Issue("", str(item)))
        return cls(status, error, issues, method=method, url=url, body=body)


class ControlConnectionError(ConnectionError):
    """The control server could not be reached (not running, wrong port, timed out)."""


class WaitTimeout(AssertionError):
    """wait_for() gave up: nothing satisfied the predicate in time."""


# --------------------------------------------------------------------------
# Typed results
# --------------------------------------------------------------------------


def _dict(value: Any) -> Dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


@dataclass(frozen=True)
class Volume:
    level: Optional[float]
    muted: Optional[bool]

    @classmethod
    def from_json(cls, data: Any) -> "Volume":
        data = _dict(data)
        muted = data.get("muted")
        return cls(_number(data.get("level")), muted if isinstance(muted, bool) else None)


@dataclass(frozen=True)
class Clock:
    """``GET /api/v1/clock``: mode manual, real or scaled; speed for scaled; time now."""

    mode: Optional[str]
    speed: Optional[float]
    time: Optional[float]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def manual(self) -> bool:
        return self.mode == "manual"

    @classmethod
    def from_json(cls, data: Any) -> "Clock":
        data = _dict(data)
        return cls(data.get("mode"), _number(data.get("speed")), _number(data.get("time")), data)


@dataclass(frozen=True)
class State:
    """``GET /api/v1/state``, with the fields tests look at most lifted out.

    Everything the server sent is in ``raw`` (and ``device``, ``app``, ``media``, ``emp``
    are the raw sub-objects, None when absent).
    """

    time: Optional[float]
    clock: Clock
    device: Dict[str, Any]
    name: Optional[str]
    standby: Optional[bool]
    volume: Volume
    app: Optional[Dict[str, Any]]
    app_id: Optional[str]
    app_name: Optional[str]
    session_id: Optional[str]
    transport_id: Optional[str]
    connections: List[Dict[str, Any]]
    media: Optional[Dict[str, Any]]
    media_session_id: Optional[int]
    player_state: Optional[str]
    phase: Optional[str]
    current_time: Optional[float]
    playback_rate: Optional[float]
    current_item: Optional[Dict[str, Any]]
    emp: Optional[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @property
    def senders(self) -> List[Dict[str, Any]]:
        """Every virtual connection's sender, over all connections."""
        return [sender for connection in self.connections
                for sender in (connection.get("senders") or []) if isinstance(sender, dict)]

    @property
    def content_id(self) -> Optional[str]:
        media = _dict(_dict(self.current_item).get("media"))
        return media.get("contentId")

    @property
    def title(self) -> Optional[str]:
        media = _dict(_dict(self.current_item).get("media"))
        return _dict(media.get("metadata")).get("title")

    @classmethod
    def from_json(cls, data: Any) -> "State":
        data = _dict(data)
        device = _dict(data.get("device"))
        app = data.get("app") if isinstance(data.get("app"), dict) else None
        media = data.get("media") if isinstance(data.get("media"), dict) else None
        emp = data.get("emp") if isinstance(data.get("emp"), dict) else None
        m = media or {}
        current_id = m.get("currentItemId")
        current_item = None
        for item in m.get("items") or []:
            if isinstance(item, dict) and item.get("itemId") == current_id:
                current_item = item
                break
        standby = device.get("standby")
        return cls(
            time=_number(data.get("time")),
            clock=Clock.from_json(data.get("clock")),
            device=device,
            name=device.get("name"),
            standby=standby if isinstance(standby, bool) else None,
            volume=Volume.from_json(data.get("volume")),
            app=app,
            app_id=(app or {}).get("appId"),
            app_name=(app or {}).get("displayName"),
            session_id=(app or {}).get("sessionId"),
            transport_id=(app or {}).get("transportId"),
            connections=[c for c in data.get("connections") or [] if isinstance(c, dict)],
            media=media,
            media_session_id=m.get("mediaSessionId"),
            player_state=m.get("playerState"),
            phase=m.get("phase"),
            current_time=_number(m.get("currentTime")),
            playback_rate=_number(m.get("playbackRate")),
            current_item=current_item,
            emp=emp,
            raw=data,
        )


@dataclass(frozen=True)
class JournalEntry:
    """One message of the journal. ``direction`` is 'in' (sent by a sender) or 'out'."""

    seq: int
    time: Optional[float]
    direction: Optional[str]
    connections: List[int]
    namespace: Optional[str]
    source_id: Optional[str]
    destination_id: Optional[str]
    type: Optional[str]
    payload: Any
    unhandled: Optional[str]
    binary: Optional[str] = None
    text: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def connection(self) -> Optional[int]:
        """The connection of an inbound message (the first recipient of an outbound one)."""
        return self.connections[0] if self.connections else None

    @classmethod
    def from_json(cls, data: Any) -> "JournalEntry":
        data = _dict(data)
        connections = data.get("connections")
        if not isinstance(connections, list):
            single = data.get("connection")
            connections = [single] if single is not None else []
        seq = data.get("seq")
        return cls(
            seq=seq if isinstance(seq, int) else -1,
            time=_number(data.get("time")),
            direction=data.get("direction"),
            connections=list(connections),
            namespace=data.get("namespace"),
            source_id=data.get("sourceId"),
            destination_id=data.get("destinationId"),
            type=data.get("type"),
            payload=data.get("payload"),
            unhandled=data.get("unhandled"),
            binary=data.get("binary"),
            text=data.get("text"),
            raw=data,
        )


@dataclass(frozen=True)
class Journal:
    """``GET /api/v1/journal`` whole: the entries and the counters."""

    messages: List[JournalEntry]
    kept: Optional[int]
    seen: Optional[int]
    # Entries that pass the filters were left out past ``limit``: with ``after``, newer
    # ones (ask again after the last ``seq``); without, older ones.
    more: bool = False
    # False when messages this answer should hold were dropped first (the journal's
    # limit, or a clear): a poller's cursor was older than what the journal keeps.
    complete: bool = True
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> "Journal":
        data = _dict(data)
        return cls([JournalEntry.from_json(m) for m in data.get("messages") or []],
                   data.get("kept"), data.get("seen"), data.get("more") is True, data.get("complete") is not False, data)


@dataclass(frozen=True)
class Nearest:
    """A journal entry close to a pattern that did not match, and how it differs."""

    entry: JournalEntry
    differences: List[str]


@dataclass(frozen=True)
class VerifyResult:
    """``POST /api/v1/verify``. True in a boolean context when it passed."""

    passed: bool
    count: Optional[int]
    expected: Optional[str]
    matches: List[JournalEntry]
    nearest: List[Nearest]
    message: str
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.passed

    @classmethod
    def from_json(cls, data: Any) -> "VerifyResult":
        data = _dict(data)
        nearest = []
        for item in data.get("nearest") or []:
            item = _dict(item)
            nearest.append(Nearest(JournalEntry.from_json(item.get("entry")),
                                   [str(d) for d in item.get("differences") or []]))
        return cls(
            passed=data.get("passed") is True,
            count=data.get("count"),
            expected=data.get("expected"),
            matches=[JournalEntry.from_json(m) for m in data.get("matches") or []],
            nearest=nearest,
            message=str(data.get("message") or ""),
            raw=data,
        )


@dataclass(frozen=True)
class ActResult:
    """``POST /api/v1/act``: what was done, at which simulation time."""

    done: Optional[str]
    time: Optional[float]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> "ActResult":
        data = _dict(data)
        return cls(data.get("done"), _number(data.get("time")), data)


@dataclass(frozen=True)
class ScenarioInfo:
    """``GET /api/v1/scenario``."""

    name: Optional[str]
    steps: Optional[int]
    steps_fired: Optional[int]
    rules: Optional[int]
    expectations: Optional[int]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> "ScenarioInfo":
        data = _dict(data)
        return cls(data.get("name"), data.get("steps"), data.get("stepsFired"),
                   data.get("rules"), data.get("expectations"), data)


# --------------------------------------------------------------------------
# Server-Sent Events
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One Server-Sent Event. ``name`` is its ``event:`` (``message`` when it has none),
    ``data`` the parsed JSON of its ``data:`` lines (their text when not JSON)."""

    name: str
    data: Any
    text: str
    id: Optional[str] = None

    @property
    def kind(self) -> Optional[str]:
        """A ``device`` event's kind (playerStateChanged, volumeChanged, ...)."""
        return _dict(self.data).get("kind")

    @property
    def time(self) -> Optional[float]:
        return _number(_dict(self.data).get("time"))

    @property
    def entry(self) -> Optional[JournalEntry]:
        """A ``message`` event's journal entry."""
        return JournalEntry.from_json(self.data) if self.name == "message" and isinstance(self.data, dict) else None


class SSEParser:
    """Incremental Server-Sent Events parser (the WHATWG event-stream rules).

    Feed it lines (with or without their line ending); it returns an Event when a blank
    line completes one. Comments (``: keep-alive``) and events without data are dropped;
    an unfinished event at the end of the stream is discarded, as browsers do.
    """

    def __init__(self) -> None:
        self._name = ""
        self._data: List[str] = []
        self._id: Optional[str] = None
        self.last_id: Optional[str] = None
        self.retry: Optional[int] = None

    def feed_line(self, line: Union[str, bytes]) -> Optional[Event]:
        if isinstance(line, bytes):
            line = line.decode("utf-8", errors="replace")
        line = line.rstrip("\r\n")
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._name = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry":
            if value.isdigit():
                self.retry = int(value)
        return None

    def _dispatch(self) -> Optional[Event]:
        if self._id is not None:
            self.last_id = self._id
        name, data = self._name or "message", self._data
        self._name, self._data, self._id = "", [], None
        if not data:
            return None
        text = "\n".join(data)
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        return Event(name, parsed, text, self.last_id)


_LINE_END = re.compile(r"\r\n|\r|\n")


def _split_lines(chunks: Iterable[Union[str, bytes]]) -> Iterator[str]:
    """Lines of a stream given in arbitrary chunks; CRLF, LF and lone CR all end a line."""
    pending = ""
    for chunk in chunks:
        if isinstance(chunk, bytes):
            chunk = chunk.decode("utf-8", errors="replace")
        pending += chunk
        start = 0
        for match in _LINE_END.finditer(pending):
            if match.group() == "\r" and match.end() == len(pending):
                break  # a CR at the end of a chunk: an LF may follow in the next one
            yield pending[start:match.start()]
            start = match.end()
        pending = pending[start:]
    if pending.endswith("\r"):
        yield pending[:-1]
    elif pending:
        yield pending  # an unterminated last line; the parser discards its event anyway


def parse_sse(chunks: Iterable[Union[str, bytes]]) -> Iterator[Event]:
    """Events of a whole stream given as chunks of text or bytes (or lines)."""
    parser = SSEParser()
    for line in _split_lines(chunks):
        event = parser.feed_line(line)
        if event is not None:
            yield event


class EventStream:
    """An open ``GET /api/v1/events`` stream: iterate it, or ``next_event(timeout)``.

    Use it as a context manager, or call close(). Opened with ``wait_hello=True`` (the
    default of ControlClient.subscribe), it returns only once the server's ``hello``
    event has come, so everything done after that is on the stream: no race between
    acting and starting to listen.
    """

    def __init__(self, url: str, headers: Mapping[str, str], *, connect_timeout: float,
                 idle_timeout: Optional[float] = 60.0, wait_hello: bool = True) -> None:
        self.url = url
        self.idle_timeout = idle_timeout
        self.hello: Optional[Event] = None
        self._parser = SSEParser()
        self._pending: List[Event] = []
        self._closed = False
        parts = urllib.parse.urlsplit(url)
        connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self._connection = connection_class(parts.hostname, parts.port, timeout=connect_timeout)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        try:
            self._connection.request("GET", target, headers=dict(headers))
            # The socket, kept before getresponse(): its timeout bounds each read below.
            self._sock = self._connection.sock
            self._response = self._connection.getresponse()
        except OSError as err:
            self._connection.close()
            raise ControlConnectionError(f"cannot open the event stream {url}: {err}") from err
        if self._response.status >= 400:
            body = self._response.read()
            self._connection.close()
            raise ControlError.from_response(self._response.status, body, method="GET", url=url)
        content_type = self._response.getheader("Content-Type", "")
        if "text/event-stream" not in content_type:
            self.close()
            raise ControlError(self._response.status, f"expected text/event-stream, got {content_type or 'no Content-Type'}",
                               method="GET", url=url)
        if wait_hello:
            first = self.next_event(timeout=connect_timeout)
            if first is None:
                self.close()
                raise ControlConnectionError(f"no event from {url} within {connect_timeout}s (expected hello)")
            if first.name == "hello":
                self.hello = first
            else:
                self._pending.append(first)

    @property
    def closed(self) -> bool:
        return self._closed

    def next_event(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event; None when the stream ended, or when ``timeout`` seconds passed
        (after a timeout the stream is closed: a socket read cannot be resumed)."""
        if self._pending:
            return self._pending.pop(0)
        if self._closed:
            return None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = self.idle_timeout
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.close()
                    return None
                wait = remaining if wait is None else min(wait, remaining)
            try:
                if self._sock is not None:
                    self._sock.settimeout(wait)
                line = self._response.readline()
            except socket.timeout:
                self.close()
                if deadline is not None and time.monotonic() >= deadline - 0.001:
                    return None
                raise ControlConnectionError(
                    f"the event stream {self.url} was silent for {self.idle_timeout}s "
                    "(the server sends a keep-alive every 15 s)") from None
            except (OSError, http.client.HTTPException):
                self.close()
                return None
            if not line:
                self.close()
                return None
            event = self._parser.feed_line(line)
            if event is not None:
                return event

    def __iter__(self) -> Iterator[Event]:
        while True:
            event = self.next_event()
            if event is None:
                return
            yield event

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._sock is not None:
                self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self._response.close()
        except Exception:  # noqa: BLE001 - closing must not raise
            pass
        self._connection.close()

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------

_JOURNAL_FILTERS = {"namespace", "type", "direction", "connection", "since", "until", "after", "unhandled", "limit"}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _plain_number(value) if math.isfinite(value) else str(value)
    return str(value)


class ControlClient:
    """The control API of one castsim device.

    ``base_url`` is the control server, e.g. ``http://127.0.0.1:8119`` (a trailing
    ``/api/v1`` is accepted too); ``token`` is sent as ``Authorization: Bearer``;
    ``timeout`` bounds every request (seconds). ``device`` is the CastsimDevice this
    client belongs to, when it was started by this package (the pytest fixtures set it).
    """

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 10) -> None:
        base = base_url.rstrip("/")
        if "://" not in base:
            base = "http://" + base
        if base.endswith(API_PREFIX):
            base = base[: -len(API_PREFIX)]
        self.base_url = base
        self.token = token
        self.timeout = timeout
        self.device: Any = None

    def __repr__(self) -> str:
        return f"ControlClient({self.base_url!r})"

    # -- transport --------------------------------------------------------

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        """The full URL of an API path ('/state' -> base/api/v1/state)."""
        url = self.base_url + API_PREFIX + path
        if query:
            pairs = [(k, _query_value(v)) for k, v in query.items() if v is not None]
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        return url

    def _headers(self, accept: str = "application/json") -> Dict[str, str]:
        headers = {"Accept": accept}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def request(self, method: str, path: str, body: Any = None, *, query: Optional[Mapping[str, Any]] = None,
                accept: str = "application/json", raw_body: Optional[bytes] = None) -> tuple:
        """One request; returns (status, content_type, body bytes). Raises ControlError on
        an error status, ControlConnectionError when the server cannot be reached."""
        url = self.url(path, query)
        headers = self._headers(accept)
        data = None
        if raw_body is not None:
            data = raw_body
        elif body is not None:
            data = json.dumps(body).encode("utf-8")
        if data is not None:
            headers["Content-Type"] = "application/json"
        # With no body (reset), data stays None: http.client then sends Content-Length: 0
        # and no Content-Type (urllib would add a form Content-Type to an empty b"").
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as err:
            body_bytes = err.read() if err.fp is not None else b""
            err.close()
            raise ControlError.from_response(err.code, body_bytes, method=method, url=url) from None
        except urllib.error.URLError as err:
            raise ControlConnectionError(f"{method} {url}: {err.reason}") from None
        except (OSError, http.client.HTTPException) as err:
            raise ControlConnectionError(f"{method} {url}: {err}") from None

    def _json(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        status, content_type, data = self.request(method, path, body, **kwargs)
        if not data.strip():
            return None
        try:
            return json.loads(data)
        except ValueError:
            raise ControlError(status, f"expected a JSON answer, got {content_type or 'no Content-Type'}: "
                                       f"{data[:200].decode('utf-8', errors='replace')!r}",
                               method=method, url=self.url(path)) from None

    # -- state and journal ------------------------------------------------

    def state(self) -> State:
        """``GET /state``: the device as a sender would see it, and more."""
        return State.from_json(self._json("GET", "/state"))

    def journal_page(self, **filters: Any) -> Journal:
        """``GET /journal`` with its counters (``kept``, ``seen``); filters as journal()."""
        unknown = set(filters) - _JOURNAL_FILTERS
        if unknown:
            raise TypeError(f"unknown journal filter(s) {sorted(unknown)}; known: {sorted(_JOURNAL_FILTERS)}")
        return Journal.from_json(self._json("GET", "/journal", query=filters))

    def journal(self, **filters: Any) -> List[JournalEntry]:
        """``GET /journal``: messages of both directions, oldest first.

        Filters (all optional, ANDed): namespace (full or short: media, receiver, ...),
        type, direction ('in'/'out'), connection (id), since/until (simulation seconds),
        after (a seq), unhandled (bool), limit.
        """
        return self.journal_page(**filters).messages

    def unhandled(self, **filters: Any) -> List[JournalEntry]:
        """``GET /journal/unhandled``: the messages no handler took."""
        unknown = set(filters) - _JOURNAL_FILTERS
        if unknown:
            raise TypeError(f"unknown journal filter(s) {sorted(unknown)}; known: {sorted(_JOURNAL_FILTERS)}")
        return Journal.from_json(self._json("GET", "/journal/unhandled", query=filters)).messages

    def clear_journal(self) -> None:
        """``DELETE /journal``. Expectations keep their own evidence."""
        self.request("DELETE", "/journal")

    # -- verify -------------------------------------------------------------

    def verify(self, message: Optional[Mapping[str, Any]] = None, sequence: Optional[Sequence[Mapping[str, Any]]] = None,
               direction: Optional[str] = "in", count: Optional[int] = None, at_least: Optional[int] = None,
               at_most: Optional[int] = None) -> VerifyResult:
        """``POST /verify``: check the journal with a scenario expectation pattern.

        Exactly one of ``message`` (a pattern: namespace, type, from, to, fields) and
        ``sequence`` (patterns matched in order). ``count`` is exact; ``at_least`` and
        ``at_most`` bound it; none of them means at least 1. ``direction=None`` leaves
        the server's default ('in').
        """
        if (message is None) == (sequence is None):
            raise TypeError("verify() takes exactly one of message= and sequence=")
        body: Dict[str, Any] = {}
        if message is not None:
            body["message"] = dict(message)
        else:
            body["sequence"] = [dict(p) for p in sequence or []]
        if direction is not None:
            body["direction"] = direction
        if count is not None:
            body["count"] = count
        if at_least is not None:
            body["atLeast"] = at_least
        if at_most is not None:
            body["atMost"] = at_most
        return VerifyResult.from_json(self._json("POST", "/verify", body))

    def assert_received(self, message: Optional[Mapping[str, Any]] = None,
                        sequence: Optional[Sequence[Mapping[str, Any]]] = None, direction: Optional[str] = "in",
                        count: Optional[int] = None, at_least: Optional[int] = None,
                        at_most: Optional[int] = None) -> VerifyResult:
        """verify(), raising AssertionError with the server's message when it did not pass."""
        result = self.verify(message=message, sequence=sequence, direction=direction, count=count,
                             at_least=at_least, at_most=at_most)
        if not result.passed:
            raise AssertionError(result.message or f"verify did not pass: {result.raw}")
        return result

    # -- act --------------------------------------------------------------

    def act(self, action: Mapping[str, Any]) -> ActResult:
        """``POST /act``: one timeline action (scenario syntax, no ``at``/``after``)."""
        return ActResult.from_json(self._json("POST", "/act", dict(action)))

    def play(self) -> ActResult:
        return self.act({"remote": "play"})

    def pause(self) -> ActResult:
        return self.act({"remote": "pause"})

    def stop(self) -> ActResult:
        """The remote's stop key (not stopping castsim: see CastsimDevice.stop)."""
        return self.act({"remote": "stop"})

    def set_volume(self, level: Optional[float] = None, muted: Optional[bool] = None) -> ActResult:
        """The device's own volume (the remote's buttons): level 0-1 and/or muted."""
        if level is None and muted is None:
            raise TypeError("set_volume() needs level= and/or muted=")
        volume: Dict[str, Any] = {}
        if level is not None:
            volume["level"] = level
        if muted is not None:
            volume["muted"] = muted
        return self.act({"volume": volume})

    def buffering(self, duration: Duration) -> ActResult:
        """The player stalls for ``duration`` (seconds or '3s'), then plays on."""
        return self.act({"buffering": format_duration(duration)})

    def player_error(self, code: Optional[int] = None) -> ActResult:
        """IDLE/ERROR with that detailedErrorCode; the media session ends."""
        return self.act({"playerError": {} if code is None else {"detailedErrorCode": code}})

    def standby(self, on: bool = True) -> ActResult:
        return self.act({"standby": bool(on)})

    def launch_app(self, app_id: str) -> ActResult:
        return self.act({"launchApp": app_id})

    def stop_app(self) -> ActResult:
        return self.act({"stopApp": True})

    def emit(self, namespace: str, payload: Mapping[str, Any], to: Union[str, int] = "all",
             source: Optional[str] = None, sender: Optional[str] = None) -> ActResult:
        """Send any message: ``to`` is all, first, last or a connection id; ``source`` is
        the sending endpoint (default: the running app); ``sender`` addresses one sender
        endpoint (its id) instead of every sender connected to the source."""
        emit: Dict[str, Any] = {"namespace": namespace, "payload": dict(payload), "to": to}
        if source is not None:
            emit["from"] = source
        if sender is not None:
            emit["sender"] = sender
        return self.act({"emit": emit})

    def close_connection(self, which: Union[str, int] = "all", reset: bool = False) -> ActResult:
        """Close connections (all, first, last or an id), cleanly or with a TCP reset."""
        return self.act({"closeConnection": {"which": which, "mode": "reset" if reset else "clean"}})

    def stop_heartbeats(self, duration: Duration) -> ActResult:
        """No PONGs and no PINGs for a while."""
        return self.act({"stopHeartbeats": format_duration(duration)})

    def unresponsive(self, duration: Duration) -> ActResult:
        """Answer nothing at all for a while."""
        return self.act({"unresponsive": format_duration(duration)})

    def stall_replies(self, by: Duration, for_: Duration, which: Union[str, int, None] = None) -> ActResult:
        """Delay what the device sends by ``by`` for ``for_`` (one connection, or all)."""
        delay: Dict[str, Any] = {"by": format_duration(by), "for": format_duration(for_)}
        if which is not None:
            delay["which"] = which
        return self.act({"delayReplies": delay})

    def send_frame(self, kind: str = "malformed", which: Union[str, int, None] = None) -> ActResult:
        """A frame that is no CastMessage ('malformed') or one over 64 KiB ('oversized')."""
        frame: Dict[str, Any] = {"kind": kind}
        if which is not None:
            frame["which"] = which
        return self.act({"sendFrame": frame})

    def device_auth(self, mode: str) -> ActResult:
        """How device-auth challenges are answered from now on (dev-root, self-signed, error, ignore)."""
        return self.act({"deviceAuth": mode})

    def withdraw(self) -> ActResult:
        """mDNS goodbye: the device leaves senders' pickers; connections stay up."""
        return self.act({"withdraw": True})

    def restore(self, host: Optional[str] = None, port: Optional[int] = None) -> ActResult:
        """Advertised again; with host/port, there (the Cast port moves too)."""
        if host is None and port is None:
            return self.act({"restore": True})
        where: Dict[str, Any] = {}
        if host is not None:
            where["host"] = host
        if port is not None:
            where["port"] = port
        return self.act({"restore": where})

    # -- a household's steps (castsim run --devices N, or a scenario with devices) --

    def offline(self) -> ActResult:
        """This device of the household powers off: out of discovery, its port refusing."""
        return self.act({"offline": True})

    def online(self) -> ActResult:
        """This device of the household is back."""
        return self.act({"online": True})

    def lead_group(self, group: str, rename: bool = False) -> ActResult:
        """This device becomes the leader of speaker group `group` (`rename`: as a real
        group does when its leader moves, it is announced under a new instance name)."""
        return self.act({"leadGroup": {"group": group, "rename": True} if rename else group})

    def create_group(self, name: str, members: Sequence[str], leader: Optional[str] = None,
                     port: Optional[int] = None, uuid: Optional[str] = None) -> ActResult:
        """A new speaker group of the household's devices named in `members`."""
        group: Dict[str, Any] = {"name": name, "members": list(members)}
        for key, value in (("leader", leader), ("port", port), ("uuid", uuid)):
            if value is not None:
                group[key] = value
        return self.act({"createGroup": group})

    def delete_group(self, name: str) -> ActResult:
        return self.act({"deleteGroup": name})

    # -- the apps' own actions --------------------------------------------

    def emp(self, action: Mapping[str, Any]) -> ActResult:
        """Something in the running EMP receiver's world, in the `emp` step's syntax:
        ``{"event": "isLive"}``, ``{"entitlement": {"refuse": "NOT_ENTITLED"}}``,
        ``{"endProgram": True}``, ``{"segmentMissing": {"from": "10m", "to": "12m"}}``."""
        return self.act({"emp": dict(action)})

    # -- clock ------------------------------------------------------------

    def clock(self) -> Clock:
        return Clock.from_json(self._json("GET", "/clock"))

    def advance(self, duration: Duration) -> Clock:
        """Manual clock only (else ControlError 409): move time forward; everything due
        on the way is done. Returns the clock after it."""
        return Clock.from_json(self._json("POST", "/clock/advance", {"by": _duration_value(duration)}))

    # -- scenario ---------------------------------------------------------

    def scenario(self) -> ScenarioInfo:
        return ScenarioInfo.from_json(self._json("GET", "/scenario"))

    def load_scenario(self, scenario: Union[Mapping[str, Any], str, "os.PathLike[str]"]) -> ScenarioInfo:
        """``PUT /scenario``: replace the running scenario (a dict, or a path to a JSON
        file, sent as it is) and start it from the beginning, as reset() does. A scenario
        that does not validate raises ControlError 422 with its issues."""
        if isinstance(scenario, Mapping):
            raw = json.dumps(dict(scenario)).encode("utf-8")
        else:
            with open(os.fspath(scenario), "rb") as handle:
                raw = handle.read()
        answer = self._json("PUT", "/scenario", raw_body=raw)
        return ScenarioInfo.from_json(answer) if isinstance(answer, dict) else self.scenario()

    def reset(self) -> ScenarioInfo:
        """``POST /reset``: the scenario from its start: fresh state, empty journal,
        expectations pending, clock at 0; open sender connections are closed."""
        answer = self._json("POST", "/reset")
        return ScenarioInfo.from_json(answer) if isinstance(answer, dict) else self.scenario()

    def report(self) -> Dict[str, Any]:
        """``GET /report``: the scenario report as JSON (as ``--report`` writes it)."""
        return self._json("GET", "/report")

    def report_junit(self) -> str:
        """``GET /report?format=junit``: JUnit XML."""
        _, _, data = self.request("GET", "/report", query={"format": "junit"}, accept="application/xml")
        return data.decode("utf-8")

    def openapi(self) -> Dict[str, Any]:
        return self._json("GET", "/openapi.json")

    # -- events -----------------------------------------------------------

    def subscribe(self, types: Optional[Sequence[str]] = None, *, wait_hello: bool = True,
                  idle_timeout: Optional[float] = 60.0) -> EventStream:
        """Open the event stream (``types``: e.g. ['device', 'clock'] limits it). With
        ``wait_hello`` it returns once the server's hello came, so nothing done after it
        is missed. Close it (or use ``with``)."""
        query = {"types": ",".join(types)} if types else None
        return EventStream(self.url("/events", query), self._headers("text/event-stream"),
                           connect_timeout=self.timeout, idle_timeout=idle_timeout, wait_hello=wait_hello)

    def events(self, types: Optional[Sequence[str]] = None, timeout: Optional[float] = None) -> Iterator[Event]:
        """Events as they come (hello first), until the server closes the stream or
        ``timeout`` seconds have passed. Breaking out of the loop closes the stream."""
        stream = self.subscribe(types, wait_hello=False)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return
                event = stream.next_event(timeout=remaining)
                if event is None:
                    return
                yield event
        finally:
            stream.close()

    def wait_for(self, predicate: Callable[[Any], Any], timeout: float = 10.0, *, on: str = "state",
                 types: Optional[Sequence[str]] = None, interval: float = 0.05,
                 stream: Optional[EventStream] = None, what: Optional[str] = None) -> Any:
        """Wait until ``predicate`` is truthy and return what satisfied it.

        ``on="state"`` (default) polls state() every ``interval`` s: predicate(State),
        returns that State. ``on="events"`` watches the event stream (``types`` filters
        it; pass an already open ``stream`` from subscribe() to see events of actions
        done before this call): predicate(Event), returns that Event. Raises WaitTimeout
        (an AssertionError) with the last state or the events seen.
        """
        label = what or getattr(predicate, "__name__", "condition")
        deadline = time.monotonic() + timeout
        if on == "state":
            last: Optional[State] = None
            while True:
                last = self.state()
                if predicate(last):
                    return last
                if time.monotonic() >= deadline:
                    raise WaitTimeout(f"timed out after {timeout:g}s waiting for {label}; last state: {_summary(last)}")
                time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
        if on != "events":
            raise ValueError(f"on= is 'state' or 'events', not {on!r}")
        own = stream is None
        events_stream = stream if stream is not None else self.subscribe(types)
        seen: List[Event] = []
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                event = events_stream.next_event(timeout=remaining)
                if event is None:
                    break
                seen.append(event)
                if predicate(event):
                    return event
        finally:
            if own:
                events_stream.close()
        shown = "; ".join(f"{e.name} {_event_text(e)}" for e in seen[-10:]) or "none"
        ended = " (the stream ended)" if events_stream.closed and time.monotonic() < deadline else ""
        raise WaitTimeout(f"timed out after {timeout:g}s waiting for {label}{ended}; "
                          f"{len(seen)} events seen, the last: {shown}")


def _event_text(event: Event) -> str:
    data = _dict(event.data)
    if isinstance(data.get("text"), str):
        return data["text"]
    if event.name == "message":
        return f"{data.get('direction')} {data.get('namespace')} {data.get('type')}"
    return event.text[:120]


def _summary(state: Optional[State]) -> str:
    if state is None:
        return "none"
    return (f"time={state.time} app={state.app_id} player_state={state.player_state} phase={state.phase} "
            f"current_time={state.current_time} volume={state.volume.level}/{state.volume.muted} "
            f"standby={state.standby} connections={len(state.connections)}")
