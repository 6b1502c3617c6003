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

import http.client
import json
import math
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from .durations import Duration, _duration_value, _plain_number, format_duration, parse_duration
from .errors import ControlConnectionError, ControlError, Issue, WaitTimeout
from .events import Event, EventStream, SSEParser, parse_sse
from .models import ActResult, Clock, Journal, JournalEntry, Nearest, ScenarioInfo, State, VerifyResult, Volume, _dict

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

    def next(self) -> ActResult:
        """The remote's next key: the queue's next item."""
        return self.act({"remote": "next"})

    def previous(self) -> ActResult:
        """The remote's previous key: the queue's previous item."""
        return self.act({"remote": "previous"})

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

    def ad_break(self, what: str = "start") -> ActResult:
        """Ad breaks: ``"start"`` the item's next unwatched break now, or ``"fail"`` the
        break clip playing (it is skipped, as CAF does with a clip that cannot load)."""
        return self.act({"adBreak": what})

    def standby(self, on: bool = True) -> ActResult:
        return self.act({"standby": bool(on)})

    def active_input(self, on: bool = True) -> ActResult:
        """The TV shows the device's HDMI input (True) or another one: isActiveInput false."""
        return self.act({"activeInput": bool(on)})

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

    def transfer_session(self, to: str) -> ActResult:
        """Stream transfer: this device's media session goes on on the device ``to`` (same
        app, position, queue, rate and tracks) and its app stops here."""
        return self.act({"transferSession": to})

    # -- the apps' own actions --------------------------------------------

    def emp(self, action: Mapping[str, Any]) -> ActResult:
        """Something in the running EMP receiver's world, in the `emp` step's syntax:
        ``{"event": "isLive"}``, ``{"entitlement": {"refuse": "NOT_ENTITLED"}}``,
        ``{"endProgram": True}``, ``{"segmentMissing": {"from": "10m", "to": "12m"}}``."""
        return self.act({"emp": dict(action)})

    def mirroring(self, **settings: Any) -> ActResult:
        """The mirroring receiver (Cast Streaming) from now on, in the `mirroring` step's
        syntax: ``packetLoss=10``, ``delay=0.2``, ``feedback=False``,
        ``refuseOffers={"code": 10107}``, ``limits={"maxWidth": 1280}``, or
        ``endSession=True`` (or a reason)."""
        if not settings:
            raise TypeError("mirroring() takes at least one of packetLoss, delay, feedback, refuseOffers, limits, endSession")
        return self.act({"mirroring": dict(settings)})

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

    def streaming_picture(self) -> bytes:
        """``GET /streaming/picture``: the newest picture of a mirroring session, as PNG
        (ControlError 404, saying why, when there is none)."""
        _, _, data = self.request("GET", "/streaming/picture", accept="image/png")
        return data

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
