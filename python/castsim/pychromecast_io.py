"""pychromecast, made to use each client's TLS socket from one thread at a time: import this
module (or call ``serialize_socket_io()``) in a process that tests a pychromecast sender
against castsim. castsim's own end-to-end tests import it in every process that runs
pychromecast (pytest itself, the probes, catt through catt_sender.py).

pychromecast writes to its ssl socket from the caller's thread (STOP, LOAD, SET_VOLUME,
LAUNCH) and from its socket thread (PONG, CLOSE, GET_STATUS), while that thread also
reads, with no lock. OpenSSL objects are not safe for that: when the two threads meet,
the client sends a corrupt record (castsim logs BAD_DECRYPT and closes the connection) or
fails with "[SSL] internal error" in the thread that wrote. Real devices see the same
(home-assistant/core#111762). It happens a few times per run on a loaded 2-core CI
machine and never on an idle one; a sender project testing against castsim meets it too.
castsim's answer to a corrupt record (close that connection only) has its own test,
test_corrupt_tls_record_closes_only_that_connection; everywhere else a test means to test
castsim or the sender, not this client race, so reads and writes are serialized per client
here. Needs pychromecast, which the castsim package does not depend on.
"""

from __future__ import annotations

import threading

from pychromecast.socket_client import SocketClient


def serialize_socket_io() -> None:
    """Wraps SocketClient's one write and one read path in a lock per client (once per process)."""
    if getattr(SocketClient, "_castsim_io_serialized", False):
        return
    original_send = SocketClient.send_message
    original_read = SocketClient._read_bytes_from_socket

    def io_lock(client: SocketClient) -> threading.RLock:
        # dict.setdefault is atomic under the GIL: both threads get one lock.
        return vars(client).setdefault("_castsim_io_lock", threading.RLock())

    def send_message(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        with io_lock(self):
            return original_send(self, *args, **kwargs)

    def read_bytes_from_socket(self, msglen):  # type: ignore[no-untyped-def]
        with io_lock(self):
            return original_read(self, msglen)

    SocketClient.send_message = send_message  # type: ignore[method-assign]
    SocketClient._read_bytes_from_socket = read_bytes_from_socket  # type: ignore[method-assign]
    SocketClient._castsim_io_serialized = True  # type: ignore[attr-defined]


serialize_socket_io()
