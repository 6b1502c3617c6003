#!/usr/bin/env python3
"""Resident memory of a castsim process, measured from outside, under a chatty sender.

    scripts/measure-memory.py [--binary PATH] [--messages N] [--senders N] [--cycles N]

Starts `castsim run` on a free loopback port, opens N TLS connections, sends PINGs
(pipelined, replies read and thrown away) until N messages have gone out, closes every
connection, then opens and closes --cycles more (TLS, CONNECT, GET_STATUS, close; eight at
a time), and prints the process's VmRSS at each stage against the budget: within 10 MB of
where it started (the journal at its default limit of 10,000 messages). A figure, not a
test: what castsim keeps per message and per connection must not grow with their number.

Standard library only (ssl, socket) and the CastMessage encoder of python/castsim/castv2.py.
"""

from __future__ import annotations

import argparse
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))
from castsim import castv2  # noqa: E402  (standard library only)


def frame(source: str, destination: str, namespace: str, payload: str) -> bytes:
    """A length-prefixed CastMessage with a STRING payload (protocol_version 0)."""
    return castv2.frame(castv2.CastMessage(source, destination, namespace, payload))


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(REPO / ".build" / "release" / "castsim"))
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--senders", type=int, default=10)
    parser.add_argument("--cycles", type=int, default=10_000)
    parser.add_argument("extra", nargs="*", help="more `castsim run` arguments, after --")
    args = parser.parse_args()

    proc = subprocess.Popen(
        [args.binary, "run", "--host", "127.0.0.1", "--port", "0", "--mdns", "off", "--http-port", "off", "--https-port", "off",
         "--heartbeat-interval", "0", "--idle-timeout", "0", "--log-level", "warning", *args.extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        ready = proc.stdout.readline().split()
        host, port = next(w for w in ready if w.startswith("cast=")).split("=")[1].rsplit(":", 1)
        time.sleep(0.5)
        start = rss_kib(proc.pid)

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        connections = [context.wrap_socket(socket.create_connection((host, int(port)))) for _ in range(args.senders)]
        connect = frame("sender-0", "receiver-0", "urn:x-cast:com.google.cast.tp.connection", '{"type":"CONNECT"}')
        ping = frame("sender-0", "receiver-0", "urn:x-cast:com.google.cast.tp.heartbeat", '{"type":"PING"}')

        def drain(connection: ssl.SSLSocket) -> None:
            try:
                while connection.recv(65536):
                    pass
            except OSError:
                pass

        readers = [threading.Thread(target=drain, args=(c,), daemon=True) for c in connections]
        for connection, reader in zip(connections, readers):
            connection.sendall(connect)
            reader.start()
        per_sender = args.messages // args.senders
        batch = ping * 500
        began = time.monotonic()
        for _ in range(per_sender // 500):
            for connection in connections:
                connection.sendall(batch)
        sent = per_sender // 500 * 500 * args.senders
        time.sleep(1)
        loaded = rss_kib(proc.pid)
        elapsed = time.monotonic() - began
        for connection in connections:
            connection.close()
        time.sleep(2)
        closed = rss_kib(proc.pid)

        get_status = frame("sender-0", "receiver-0", "urn:x-cast:com.google.cast.receiver",
                           '{"type":"GET_STATUS","requestId":1}')

        def cycle(count: int) -> None:
            for _ in range(count):
                with context.wrap_socket(socket.create_connection((host, int(port)))) as connection:
                    connection.sendall(connect + get_status)
                    # Until the RECEIVER_STATUS: the device has handled both.
                    received = b""
                    while b"RECEIVER_STATUS" not in received:
                        chunk = connection.recv(65536)
                        if not chunk:
                            raise RuntimeError("castsim closed a cycled connection")
                        received += chunk

        cycling_began = time.monotonic()
        workers = [threading.Thread(target=cycle, args=(args.cycles // 8 + (index < args.cycles % 8),)) for index in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        cycling = time.monotonic() - cycling_began
        time.sleep(2)
        cycled = rss_kib(proc.pid)
        growth = (cycled - start) / 1024
        print(f"castsim {args.binary}")
        print(f"  {sent:,} PINGs from {args.senders} senders in {elapsed:.1f} s ({sent / elapsed:,.0f}/s)")
        print(f"  {args.cycles:,} connections opened, asked GET_STATUS and closed in {cycling:.1f} s")
        print(f"  RSS at start {start / 1024:.1f} MB, with the messages sent {loaded / 1024:.1f} MB, "
              f"after every connection closed {closed / 1024:.1f} MB, after the cycles {cycled / 1024:.1f} MB "
              f"({growth:+.1f} MB; budget: within 10 MB of the start: {'met' if abs(growth) <= 10 else 'MISSED'})")
        return 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
