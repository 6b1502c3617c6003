"""A minimal Cast sender for the tests: TLS and CASTV2 framing (castsim.castv2, no
protobuf library, no pychromecast).

The device's PINGs are answered with PONGs while reading, so a connection stays up.
"""

from __future__ import annotations

import json
import socket
import ssl
import time
from typing import Any, Callable, Dict, List, Optional

from castsim.castv2 import (
    NS_CONNECTION,
    NS_HEARTBEAT,
    NS_MEDIA,
    NS_RECEIVER,
    PLATFORM_RECEIVER,
    PLATFORM_SENDER,
    CastMessage,
    frame,
    frame_length,
)

__all__ = ["NS_CONNECTION", "NS_HEARTBEAT", "NS_MEDIA", "NS_RECEIVER", "CastMessage", "CastSender", "Closed", "frame"]

USER_AGENT = "castsim-python-tests/1.0"
DEFAULT_MEDIA_RECEIVER = "CC1AD845"


# --------------------------------------------------------------------------
# The sender
# --------------------------------------------------------------------------


class Closed(Exception):
    """The device closed the connection."""


class CastSender:
    """One TLS connection to a Cast device (certificate checks off, as senders do)."""

    def __init__(self, host: str, port: int = 8009, timeout: float = 10.0, source_id: str = PLATFORM_SENDER) -> None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        raw = socket.create_connection((host, port), timeout=timeout)
        self.sock = context.wrap_socket(raw, server_hostname=host)
        self.timeout = timeout
        self.source_id = source_id
        self.received: List[CastMessage] = []
        self.request_id = 0
        self.closed = False
        self._buffer = b""

    # -- framing ------------------------------------------------------------

    def send(self, namespace: str, payload: Dict[str, Any], destination: str = PLATFORM_RECEIVER,
             source: Optional[str] = None) -> None:
        message = CastMessage(source or self.source_id, destination, namespace, json.dumps(payload))
        self.sock.sendall(frame(message))

    def send_raw(self, message: CastMessage) -> None:
        self.sock.sendall(frame(message))

    def _read_exactly(self, count: int, deadline: float) -> bytes:
        while len(self._buffer) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no message in time")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimeoutError("no message in time") from None
            except (ConnectionResetError, ssl.SSLError, OSError) as err:
                self.closed = True
                raise Closed(str(err)) from err
            if not chunk:
                self.closed = True
                raise Closed("the device closed the connection")
            self._buffer += chunk
        data, self._buffer = self._buffer[:count], self._buffer[count:]
        return data

    def receive(self, timeout: Optional[float] = None) -> CastMessage:
        """The next message (a device PING is answered and returned like any other)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        length = frame_length(self._read_exactly(4, deadline))
        message = CastMessage.decode(self._read_exactly(length, deadline))
        self.received.append(message)
        if message.namespace == NS_HEARTBEAT and (message.data or {}).get("type") == "PING":
            try:
                self.send(NS_HEARTBEAT, {"type": "PONG"}, destination=message.source_id, source=message.destination_id)
            except OSError:
                # The device closed the connection after that PING: the next read says so.
                pass
        return message

    def wait_for(self, predicate: Callable[[CastMessage], bool], timeout: Optional[float] = None,
                 what: str = "a message") -> CastMessage:
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        seen: List[str] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                message = self.receive(timeout=max(0.0, remaining))
            except TimeoutError:
                raise AssertionError(f"no {what} within {timeout or self.timeout}s; received: {seen[-10:]}") from None
            seen.append(f"{message.namespace} {(message.data or {}).get('type')}")
            if predicate(message):
                return message

    def wait_closed(self, timeout: Optional[float] = None) -> bool:
        """True once the device closes the connection (messages before are read)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            try:
                self.receive(timeout=max(0.0, deadline - time.monotonic()))
            except Closed:
                return True
            except TimeoutError:
                return False

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> "CastSender":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- Cast ---------------------------------------------------------------

    def request(self, namespace: str, payload: Dict[str, Any], destination: str = PLATFORM_RECEIVER,
                timeout: Optional[float] = None) -> Dict[str, Any]:
        """Send with the next requestId; the answer that carries it."""
        self.request_id += 1
        request_id = self.request_id
        self.send(namespace, {**payload, "requestId": request_id}, destination)
        answer = self.wait_for(lambda m: (m.data or {}).get("requestId") == request_id, timeout,
                               what=f"answer to {payload.get('type')} #{request_id}")
        return answer.data

    def connect(self, destination: str = PLATFORM_RECEIVER) -> None:
        self.send(NS_CONNECTION, {"type": "CONNECT", "origin": {}, "userAgent": USER_AGENT,
                                  "senderInfo": {"sdkType": 2, "version": "castsim-tests", "platform": 4,
                                                 "systemVersion": "python", "connectionType": 1}}, destination)

    def get_status(self) -> Dict[str, Any]:
        """CONNECT to receiver-0 and GET_STATUS: the RECEIVER_STATUS."""
        self.connect()
        return self.request(NS_RECEIVER, {"type": "GET_STATUS"})

    def launch(self, app_id: str = DEFAULT_MEDIA_RECEIVER) -> str:
        """CONNECT, LAUNCH app_id, CONNECT to it: its transportId."""
        self.connect()
        status = self.request(NS_RECEIVER, {"type": "LAUNCH", "appId": app_id})
        for app in (status.get("status") or {}).get("applications") or []:
            if app.get("appId") == app_id:
                self.connect(app["transportId"])
                return app["transportId"]
        raise AssertionError(f"LAUNCH {app_id} answered {status}")

    def load(self, transport_id: str, content_id: str = "http://media.castsim.test/movie.mp4",
             content_type: str = "video/mp4", custom_data: Optional[Dict[str, Any]] = None,
             title: str = "A test movie", autoplay: bool = True) -> Dict[str, Any]:
        """LOAD on the media namespace; the answer (MEDIA_STATUS, or LOAD_FAILED ...)."""
        payload: Dict[str, Any] = {
            "type": "LOAD",
            "autoplay": autoplay,
            "currentTime": 0,
            "media": {"contentId": content_id, "contentType": content_type, "streamType": "BUFFERED",
                      "metadata": {"metadataType": 0, "title": title}},
        }
        if custom_data is not None:
            payload["customData"] = custom_data
        return self.request(NS_MEDIA, payload, destination=transport_id)
