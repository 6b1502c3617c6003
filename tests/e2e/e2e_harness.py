"""Helpers for the castsim end-to-end tests: process control, pychromecast
connections and polling.

The fixtures in conftest.py are thin wrappers around these classes, and the
tests import the polling helpers from here (importing from conftest.py is
discouraged by pytest).
"""

from __future__ import annotations

import os
import threading
import time
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import castsim
import castsim.device
import pychromecast
from castsim import find_castsim
from castsim.device import bind_problem as castsim_port_problem
from pychromecast.controllers import BaseController
from pychromecast.controllers.heartbeat import NS_HEARTBEAT
from pychromecast.controllers.media import MediaController, MediaStatusListener
from pychromecast.socket_client import ConnectionStatus, ConnectionStatusListener

# Every pychromecast client of the tests uses its socket from one thread at a time.
import castsim.pychromecast_io  # noqa: F401

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CASTSIM_BIN = REPO_ROOT / ".build" / "debug" / "castsim"

# pychromecast hard-codes these: the Cast channel must be on 8009 (any other
# port makes get_cast_type() classify the device as an audio *group*), and the
# eureka_info lookups go to https://HOST:8443 and http://HOST:8008 whatever
# the device announces. So every simulated device gets the standard ports on
# its own loopback address, like real devices on a LAN each have their own IP.
CAST_PORT = 8009
HTTP_PORT = 8008
HTTPS_PORT = 8443

# Passed as --default-duration: long enough that SEEK to 120 s is inside the
# media and playback never ends on its own during a test.
DEFAULT_DURATION_SECONDS = 600

T = TypeVar("T")


def castsim_binary() -> Path:
    """Binary under test: $CASTSIM_BIN, else <repo>/.build/debug/castsim."""
    return find_castsim(os.environ.get("CASTSIM_BIN") or DEFAULT_CASTSIM_BIN)


def bind_problem(host: str, ports: tuple[int, ...]) -> str | None:
    """None if every port can be bound on host, else a description why not."""
    for port in ports:
        if problem := castsim_port_problem(host, port):
            return problem
    return None


# --------------------------------------------------------------------------
# castsim process: the Python package's launcher, with what the tests know of
# the device they asked for (its name, model and UUID)
# --------------------------------------------------------------------------


class CastsimDevice(castsim.CastsimDevice):
    """One running castsim process (one device, or a household's devices), started
    by the package's launcher with the real ports 8009/8008/8443.

    name, model and uuid are what the test asked for, and what senders should see.
    """

    def __init__(self, binary: Path, *, name: str | None, model: str, device_uuid: uuidlib.UUID,
                 **options: Any) -> None:
        super().__init__(binary, name=name, **options)
        self.model = model
        self.uuid = device_uuid

    @property
    def udn(self) -> str:
        """UUID with dashes, as in eureka_info's ssdp_udn."""
        return str(self.uuid)

    # The names the tests use, from the ready line the package parsed.
    @property
    def cast_addr(self) -> tuple[str, int]:
        return self.cast_address

    @property
    def cast_addrs(self) -> list[tuple[str, int]]:
        return self.cast_addresses

    @property
    def http_addr(self) -> tuple[str, int] | None:
        return self.http_address

    @property
    def https_addr(self) -> tuple[str, int] | None:
        return self.https_address


def start_castsim(
    binary: Path,
    host: str | None,
    log_dir: Path,
    *,
    name: str,
    model: str = "Chromecast",
    device_uuid: uuidlib.UUID | None = None,
    log_level: str = "debug",
    extra_args: tuple[str, ...] = (),
    ready_timeout: float = castsim.device.READY_TIMEOUT,
    console: bool = False,
    prefix: tuple[str, ...] = (),
    subcommand: str = "run",
    pass_name: bool = True,
    pass_uuid: bool = True,
    address_count: int = 1,
) -> CastsimDevice:
    """Start `castsim run` (or `subcommand`, e.g. relay) with the standard ports on host
    (None: address_count free loopback addresses, found by the package); wait until
    ready. pass_name=False leaves --name and --model out: the device names itself (a
    relay after its upstream, a household from its scenario), and `name` is what the
    test expects. console=True keeps castsim's standard input open for
    CastsimDevice.console(); prefix runs it inside something, e.g. a network namespace
    (the command must exec castsim, so that the process stopped is castsim's).
    """
    device_uuid = device_uuid or uuidlib.uuid4()
    args = (
        *(("--model", model) if pass_name else ()),
        *(("--uuid", device_uuid.hex) if pass_uuid else ()),
        "--log-level", log_level,
        *extra_args,
    )  # fmt: skip
    device = CastsimDevice(
        binary, name=name if pass_name else None, model=model, device_uuid=device_uuid, host=host, address_count=address_count,
        args=args, http_port=HTTP_PORT, https_port=HTTPS_PORT, log_dir=log_dir, ready_timeout=ready_timeout,
        console=console, prefix=prefix, subcommand=subcommand)  # fmt: skip
    device.start()
    # What the test expects, also when castsim named the device itself.
    device.name = name
    return device


# --------------------------------------------------------------------------
# pychromecast senders
# --------------------------------------------------------------------------




class ConnectionRecorder(ConnectionStatusListener):
    """Records every connection status pychromecast's socket thread reports.

    Statuses: CONNECTING, CONNECTED, then LOST (heartbeat timeout or socket
    error; pychromecast reconnects by itself), FAILED, DISCONNECTED (final).
    """

    def __init__(self) -> None:
        self.events: list[tuple[float, str]] = []

    def new_connection_status(self, status: ConnectionStatus) -> None:
        self.events.append((time.monotonic(), status.status))

    def statuses(self, since: float = 0.0) -> list[str]:
        return [status for t, status in list(self.events) if t >= since]


class HeartbeatRecorder(BaseController):
    """Extra handler on the heartbeat namespace that timestamps PING/PONG.

    pychromecast delivers each message to every handler registered for its
    namespace, so this only observes; its own HeartbeatController still
    answers device PINGs and tracks our PONGs.
    """

    def __init__(self) -> None:
        super().__init__(NS_HEARTBEAT, target_platform=True)
        self.pings: list[float] = []  # device -> us
        self.pongs: list[float] = []  # device's answers to our PINGs

    def receive_message(self, _message: Any, data: dict) -> bool:
        kind = data.get("type")
        if kind == "PING":
            self.pings.append(time.monotonic())
        elif kind == "PONG":
            self.pongs.append(time.monotonic())
        return True


class TrafficRecorder:
    """Records the requestIds a sender sends and the messages it receives.

    Messages are observed by extra handlers on the given namespaces (every
    handler of a namespace sees every message). Sent ids are captured by
    wrapping SocketClient.send_message, which writes the requestId into the
    payload dict it is given.
    """

    class _Handler(BaseController):
        def __init__(self, namespace: str, sink: list) -> None:
            super().__init__(namespace, target_platform=True)
            self._sink = sink

        def receive_message(self, message: Any, data: dict) -> bool:
            self._sink.append(
                (message.namespace, message.source_id, message.destination_id, data)
            )
            return False  # let the real controllers handle it

    def __init__(self, sender: "Sender", namespaces: tuple[str, ...]) -> None:
        self.sent_request_ids: set[int] = set()
        self.received: list[tuple[str, str, str, dict]] = []
        socket_client = sender.cast.socket_client
        original_send = socket_client.send_message

        def recording_send(destination_id, namespace, data, **kwargs):  # type: ignore[no-untyped-def]
            try:
                return original_send(destination_id, namespace, data, **kwargs)
            finally:
                if isinstance(data.get("requestId"), int):
                    self.sent_request_ids.add(data["requestId"])

        # Controllers call self._socket_client.send_message / send_*_message,
        # which look the method up on the instance, so this catches them all.
        socket_client.send_message = recording_send  # type: ignore[method-assign]
        for namespace in namespaces:
            sender.cast.register_handler(self._Handler(namespace, self.received))


@dataclass
class Sender:
    """A pychromecast client connected to one castsim device."""

    cast: pychromecast.Chromecast
    connection: ConnectionRecorder
    heartbeat: HeartbeatRecorder

    @property
    def media(self) -> MediaController:
        return self.cast.media_controller

    def describe(self) -> str:
        """One-line state summary for assertion messages."""
        status = self.cast.status
        media = self.cast.media_controller.status
        receiver = (
            "None"
            if status is None
            else (
                f"app_id={status.app_id} session={status.session_id} "
                f"transport={status.transport_id} volume={status.volume_level} "
                f"muted={status.volume_muted} namespaces={status.namespaces}"
            )
        )
        return (
            f"receiver[{receiver}] media[state={media.player_state} "
            f"time={media.current_time} duration={media.duration} "
            f"media_session={media.media_session_id} content={media.content_id}] "
            f"connection={self.connection.statuses()}"
        )


def shorten_pychromecast_heartbeat(monkeypatch: Any, ping: float, pong: float, poll: float = 0.25) -> None:
    """pychromecast's heartbeat, shortened for one test (monkeypatch restores it): a PING
    every `ping` seconds, the link LOST with no PONG for `ping + pong` seconds, checked every
    `poll` seconds. Its own values (10 s, 10 s, 5 s) would make a test of liveness wait
    half a minute of real time."""
    import pychromecast.controllers.heartbeat as heartbeat
    import pychromecast.socket_client as socket_client

    monkeypatch.setattr(heartbeat, "HB_PING_TIME", ping)
    monkeypatch.setattr(heartbeat, "HB_PONG_TIME", pong)
    monkeypatch.setattr(socket_client, "SELECT_TIMEOUT", poll)


def connect_sender(device: CastsimDevice, wait_timeout: float = 10.0) -> Sender:
    """Connect pychromecast to device by host/port (no mDNS) and wait for status.

    get_chromecast_from_host() builds a CastInfo without a cast type, so the
    Chromecast constructor first calls dial.get_cast_type(), which GETs
    https://HOST:8443/setup/eureka_info?params=device_info,name (30 s timeout,
    failures only logged). cast.wait() then starts the socket thread: TLS
    connect to HOST:8009, CONNECT + GET_STATUS to receiver-0, PING; it returns
    once the first RECEIVER_STATUS has arrived.
    """
    cast = pychromecast.get_chromecast_from_host(
        (device.host, device.cast_port, device.uuid, device.model, device.name),
        # Reconnect quickly if the link drops (the recorder still sees LOST),
        # and keep disconnect() short after castsim is gone.
        retry_wait=1.0,
        timeout=10.0,
    )
    sender = Sender(cast, ConnectionRecorder(), HeartbeatRecorder())
    # Register before wait(): wait() starts the socket thread.
    cast.register_connection_listener(sender.connection)
    cast.register_handler(sender.heartbeat)
    try:
        cast.wait(timeout=wait_timeout)
    except pychromecast.RequestTimeout as err:
        disconnect_sender(sender)
        raise AssertionError(
            f"pychromecast got no RECEIVER_STATUS from {device.host}:{CAST_PORT} "
            f"within {wait_timeout}s ({err}); connection events: "
            f"{sender.connection.statuses()}"
        ) from err
    return sender


def disconnect_sender(sender: Sender, timeout: float = 10.0) -> str | None:
    """Stop pychromecast's socket thread; returns a problem description."""
    try:
        sender.cast.disconnect(timeout=timeout)
    except TimeoutError:
        return f"pychromecast socket thread did not stop within {timeout}s"
    return None


# --------------------------------------------------------------------------
# Polling
# --------------------------------------------------------------------------


def wait_until(
    predicate: Callable[[], T],
    *,
    timeout: float = 10.0,
    what: str = "condition",
    details: Callable[[], str] | None = None,
    interval: float = 0.05,
) -> T:
    """Poll predicate until it returns something truthy; fail with context.

    Status in pychromecast is updated asynchronously by its socket thread, so
    tests poll with a deadline instead of sleeping a fixed time.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            message = f"timed out after {timeout:.1f}s waiting for {what}"
            if details is not None:
                message += f"\n  state: {details()}"
            raise AssertionError(message)
        time.sleep(interval)


class FailureRecorder(MediaStatusListener):
    """Records pychromecast's load_media_failed(itemId, detailedErrorCode) callbacks."""

    def __init__(self) -> None:
        self.failures: list[tuple[int, int]] = []

    def new_media_status(self, status: Any) -> None:
        pass

    def load_media_failed(self, queue_item_id: int, error_code: int) -> None:
        self.failures.append((queue_item_id, error_code))
