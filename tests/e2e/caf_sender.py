"""A raw CAF sender for the end-to-end tests: CASTV2 over TLS (no certificate checks, as
Cast senders do), joined to the Default Media Receiver's transport, reading until the
message it waits for comes."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from castsim.castv2 import NS_CONNECTION, NS_MEDIA, NS_RECEIVER

from device_auth_verifier import CastConnection
from e2e_harness import CAST_PORT

DMR = "CC1AD845"


class Caf:
    """A raw sender joined to the running app's transport."""

    def __init__(self, device: Any, source: str) -> None:
        self.connection = CastConnection(device.host, CAST_PORT)
        self.source = source
        self.connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}), source=source)
        self.transport = ""

    def join(self, launch: bool) -> None:
        if launch:
            self.connection.send(NS_RECEIVER, text=json.dumps({"type": "LAUNCH", "appId": DMR, "requestId": 1}), source=self.source)
        else:
            self.connection.send(NS_RECEIVER, text=json.dumps({"type": "GET_STATUS", "requestId": 1}), source=self.source)
        status = self.until(lambda ns, p: ns == NS_RECEIVER and p.get("type") == "RECEIVER_STATUS"
                            and any(a.get("appId") == DMR for a in p["status"].get("applications", [])),
                            "RECEIVER_STATUS with the Default Media Receiver")
        self.transport = next(a["transportId"] for a in status["status"]["applications"] if a["appId"] == DMR)
        self.connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}), source=self.source, destination=self.transport)

    def media(self, payload: dict) -> None:
        self.connection.send(NS_MEDIA, text=json.dumps(payload), source=self.source, destination=self.transport)

    def until(self, wanted: Callable[[str, dict], bool], what: str, timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            message = self.connection.receive(timeout=max(0.1, deadline - time.monotonic()))
            if message is None:
                break
            payload = json.loads(message.payload_utf8) if message.payload_utf8 else {}
            seen.append(payload.get("type"))
            if wanted(message.namespace, payload):
                return payload
        raise AssertionError(f"{self.source}: no {what} within {timeout} s; saw {seen}")

    def answer(self, request_id: int) -> dict:
        return self.until(lambda ns, p: ns == NS_MEDIA and p.get("requestId") == request_id, f"the answer to request {request_id}")

    def close(self) -> None:
        self.connection.close()
