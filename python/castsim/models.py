"""The control API's answers as typed values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

JSON = Any


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
    def streaming(self) -> Optional[Dict[str, Any]]:
        """The mirroring app's Cast Streaming session (``mirroring.streaming``), or None
        when the mirroring app does not run."""
        mirroring = self.raw.get("mirroring")
        return mirroring.get("streaming") if isinstance(mirroring, dict) else None

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
