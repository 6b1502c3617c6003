"""The control API's live event stream (Server-Sent Events)."""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Union

from .errors import ControlConnectionError, ControlError
from .models import JournalEntry, _dict, _number

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
