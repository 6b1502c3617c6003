"""Everything that is still going when castsim gets SIGTERM, run by tests/e2e/test_shutdown.py
inside a network namespace. Prints JSON lines on standard output:

  senders HOST [HOST...]  on each HOST's Cast port: a sender connected (TLS, CONNECT,
                          GET_STATUS answered) and a connection mid-handshake (a TLS record
                          header, nothing more); on the first HOST also eureka_info over HTTP
                          kept alive. {"ready": ...} once all are up, then {"closed": NAME}
                          as castsim closes each, {"done": true} when all are closed
  events URL              the control API's event stream: {"event": NAME} for each event,
                          {"ended": true} when castsim ends the stream
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import sys
import threading
import time
import urllib.request

from device_auth_verifier import CastConnection

NS_CONNECTION = "urn:x-cast:com.google.cast.tp.connection"
NS_RECEIVER = "urn:x-cast:com.google.cast.receiver"
lock = threading.Lock()


def emit(**fields: object) -> None:
    with lock:
        print(json.dumps(fields), flush=True)


def until_closed(name: str, sock: socket.socket, closed: list[str]) -> None:
    """Reads (and drops) whatever comes until the connection ends."""
    sock.settimeout(None)
    try:
        while sock.recv(65536):
            pass
    except (OSError, ssl.SSLError):
        pass
    with lock:
        closed.append(name)
    emit(closed=name)


def senders(hosts: list[str]) -> None:
    watched: list[tuple[str, socket.socket]] = []
    for host in hosts:
        connected = CastConnection(host, 8009)
        connected.send(NS_CONNECTION, text='{"type": "CONNECT"}')
        connected.send(NS_RECEIVER, text='{"type": "GET_STATUS", "requestId": 1}')
        while (message := connected.receive(10)) is not None and "RECEIVER_STATUS" not in message.payload_utf8:
            pass
        assert message is not None, f"no RECEIVER_STATUS from {host}"
        watched.append((f"cast {host}", connected.sock))
        handshaking = socket.create_connection((host, 8009), timeout=10)
        handshaking.sendall(b"\x16\x03\x01")  # a TLS record header: the ClientHello never follows
        watched.append((f"handshaking {host}", handshaking))
    eureka = http.client.HTTPConnection(hosts[0], 8008, timeout=10)
    eureka.request("GET", "/setup/eureka_info")
    answer = eureka.getresponse()
    answer.read()
    assert answer.status == 200, answer.status
    assert eureka.sock is not None
    watched.append(("eureka_info", eureka.sock))
    closed: list[str] = []
    threads = [threading.Thread(target=until_closed, args=(name, sock, closed), daemon=True) for name, sock in watched]
    for thread in threads:
        thread.start()
    emit(ready=[name for name, _ in watched])
    for thread in threads:
        thread.join()
    emit(done=True)


def events(url: str) -> None:
    with urllib.request.urlopen(url) as stream:
        for line in stream:
            text = line.decode().strip()
            if text.startswith("event: "):
                emit(event=text.removeprefix("event: "))
    emit(ended=True)


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    if command == "senders":
        senders(arguments)
    elif command == "events":
        events(arguments[0])
    else:
        sys.exit(f"unknown command {command}")
