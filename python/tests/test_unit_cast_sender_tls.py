"""The tests' raw Cast sender over real TLS against a tiny fake device (a thread on
127.0.0.1 using the repository's developer device certificate)."""

from __future__ import annotations

import json
import socket
import ssl
import struct
import threading
from pathlib import Path
from typing import List

from cast_sender import NS_HEARTBEAT, NS_RECEIVER, CastMessage, CastSender, frame

CERTS = Path(__file__).resolve().parents[2] / "certs"


class FakeCastDevice:
    """Accepts one TLS connection: sends a PING, answers GET_STATUS, then closes."""

    def __init__(self) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(CERTS / "device.crt", CERTS / "device.key")
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.received: List[CastMessage] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _read(self, conn: ssl.SSLSocket, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = conn.recv(count - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def _serve(self) -> None:
        raw, _ = self.listener.accept()
        with self.context.wrap_socket(raw, server_side=True) as conn:
            conn.sendall(frame(CastMessage("receiver-0", "sender-0", NS_HEARTBEAT, '{"type":"PING"}')))
            try:
                while True:
                    (length,) = struct.unpack(">I", self._read(conn, 4))
                    message = CastMessage.decode(self._read(conn, length))
                    self.received.append(message)
                    data = message.data or {}
                    if data.get("type") == "GET_STATUS":
                        # Something unrelated first: the sender must skip it.
                        conn.sendall(frame(CastMessage("receiver-0", "*", NS_RECEIVER, '{"type":"OTHER"}')))
                        status = {"type": "RECEIVER_STATUS", "requestId": data["requestId"], "status": {}}
                        conn.sendall(frame(CastMessage("receiver-0", message.source_id, NS_RECEIVER, json.dumps(status))))
                    if data.get("type") == "BYE":
                        return
            except (EOFError, OSError):
                return

    def close(self) -> None:
        self.listener.close()


def test_sender_talks_to_a_tls_device():
    device = FakeCastDevice()
    try:
        with CastSender("127.0.0.1", device.port, timeout=5) as sender:
            status = sender.get_status()
            assert status == {"type": "RECEIVER_STATUS", "requestId": 1, "status": {}}
            sender.send(NS_RECEIVER, {"type": "BYE"})
            assert sender.wait_closed(timeout=5)
        types = [(m.namespace, (m.data or {}).get("type")) for m in device.received]
        assert (NS_HEARTBEAT, "PONG") in types  # the PING was answered while reading
        assert [t for t in types if t[0] != NS_HEARTBEAT] == [
            ("urn:x-cast:com.google.cast.tp.connection", "CONNECT"), (NS_RECEIVER, "GET_STATUS"), (NS_RECEIVER, "BYE")]
        connect = next(m for m in device.received if (m.data or {}).get("type") == "CONNECT")
        assert connect.destination_id == "receiver-0" and connect.data["userAgent"]
    finally:
        device.close()
