"""Helpers for the castsim end-to-end tests: process control, pychromecast
connections and polling.

The fixtures in conftest.py are thin wrappers around these classes, and the
tests import the polling helpers from here (importing from conftest.py is
discouraged by pytest).
"""

from __future__ import annotations

import os
import queue
import random
import re
import shlex
import signal
import subprocess
import threading
import time
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pychromecast
from castsim.device import bind_problem as castsim_port_problem
from pychromecast.controllers import BaseController
from pychromecast.controllers.heartbeat import NS_HEARTBEAT
from pychromecast.controllers.media import MediaController, MediaStatusListener
from pychromecast.socket_client import ConnectionStatus, ConnectionStatusListener, SocketClient

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

READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0

# "castsim ready cast=HOST:PORT http=HOST:PORT https=HOST:PORT control=HOST:PORT"
READY_RE = re.compile(
    r"^castsim ready cast=(?P<cast>\S+) http=(?P<http>\S+) https=(?P<https>\S+) control=(?P<control>\S+)\s*$"
)

T = TypeVar("T")


class CastsimError(Exception):
    """castsim could not be started (or misbehaved while starting)."""


def castsim_binary() -> Path:
    """Binary under test: $CASTSIM_BIN, else <repo>/.build/debug/castsim."""
    env = os.environ.get("CASTSIM_BIN")
    return Path(env) if env else DEFAULT_CASTSIM_BIN


def split_host_port(text: str) -> tuple[str, int]:
    """'127.0.0.5:8009' -> ('127.0.0.5', 8009); tolerates '[::1]:8009'."""
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


# --------------------------------------------------------------------------
# Loopback addresses
# --------------------------------------------------------------------------


class LoopbackAllocator:
    """Hands out a fresh 127.A.B.N address for every simulated device.

    A and B are random per pytest process so that two concurrent runs (or a
    stray castsim from an aborted run) are unlikely to collide; N counts up.
    127.0.0.0/8 is all loopback on Linux, so no interface setup is needed.
    """

    def __init__(self) -> None:
        rnd = random.SystemRandom()
        self._a = rnd.randrange(16, 250)
        self._b = rnd.randrange(0, 256)
        self._n = 1
        self._lock = threading.Lock()

    def next_address(self) -> str:
        with self._lock:
            self._n += 1
            if self._n > 254:
                self._n = 2
                self._b = (self._b + 1) % 256
            return f"127.{self._a}.{self._b}.{self._n}"

    def allocate(self, ports: tuple[int, ...], attempts: int = 5) -> str:
        """Return an address on which all `ports` can currently be bound."""
        problems = []
        for _ in range(attempts):
            host = self.next_address()
            problem = bind_problem(host, ports)
            if problem is None:
                return host
            problems.append(problem)
        raise CastsimError(
            "could not find a free loopback address for castsim after "
            f"{attempts} attempts: " + "; ".join(problems)
        )


def bind_problem(host: str, ports: tuple[int, ...]) -> str | None:
    """None if every port can be bound on host, else a description why not (the
    project's Python package checks one port; scripts/e2e-setup.sh installs it)."""
    for port in ports:
        if problem := castsim_port_problem(host, port):
            return problem
    return None


# --------------------------------------------------------------------------
# castsim process
# --------------------------------------------------------------------------


@dataclass
class CastsimDevice:
    """One running castsim process, i.e. one simulated Cast device."""

    host: str
    name: str
    model: str
    uuid: uuidlib.UUID
    command: list[str]
    proc: subprocess.Popen
    stderr_path: Path
    stdout_path: Path
    ready_line: str = ""
    cast_addr: tuple[str, int] = ("", 0)
    http_addr: tuple[str, int] = ("", 0)
    https_addr: tuple[str, int] = ("", 0)
    # Every device's Cast address, in order: several for a household (--devices N, or a
    # scenario with devices), whose ready line lists them comma-separated.
    cast_addrs: list[tuple[str, int]] = field(default_factory=list)
    # The control API (http://HOST:PORT/api/v1/...); empty with --control-port off.
    control_url: str = ""
    # Set by stop(): how it ended, for teardown diagnostics.
    stop_requested: bool = False
    needed_sigkill: bool = False
    _stdout_lines: queue.Queue = field(default_factory=queue.Queue)

    @property
    def cast_port(self) -> int:
        return CAST_PORT

    @property
    def udn(self) -> str:
        """UUID with dashes, as in eureka_info's ssdp_udn."""
        return str(self.uuid)

    def is_running(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self, lines: int = 80) -> str:
        """Last `lines` lines of stderr; for a Swift crash report, its start.

        A crash report ends with register dumps, so its useful part (the
        crashing thread's backtrace) is at the top of the report.
        """
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError as err:
            return f"<cannot read {self.stderr_path}: {err}>"
        all_lines = text.splitlines()
        for index, line in enumerate(all_lines):
            if line.startswith("*** Program crashed"):
                before = all_lines[max(0, index - 10) : index]
                report = all_lines[index : index + lines]
                return "\n".join([*before, *report, "[... rest of crash report in file]"])
        tail = all_lines[-lines:]
        return "\n".join(tail) if tail else "<empty>"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT) -> int:
        """Send `sig`, wait up to `timeout`, SIGKILL as a fallback.

        Returns the exit status (negative = killed by that signal).
        """
        if self.proc.poll() is not None:
            self._close_stdin()
            return self.proc.returncode
        self.stop_requested = True
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.needed_sigkill = True
            self.proc.kill()
            return self.proc.wait(timeout=timeout)
        finally:
            self._close_stdin()

    def console(self, line: str) -> None:
        """Write one line to castsim's standard input (the manual clock's control:
        `advance 10m`, `report`). Only for a device started with console=True."""
        if self.proc.stdin is None:
            raise CastsimError("castsim was started without a console (console=True)")
        self.proc.stdin.write((line.rstrip("\n") + "\n").encode())
        self.proc.stdin.flush()

    def _close_stdin(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    # -- startup ---------------------------------------------------------

    def _pump_stdout(self) -> None:
        """Copy castsim's stdout to a file; hand every line to the queue.

        Runs in a daemon thread so castsim can never block on a full pipe.
        """
        assert self.proc.stdout is not None
        with open(self.stdout_path, "ab") as out:
            for raw in self.proc.stdout:
                out.write(raw)
                out.flush()
                self._stdout_lines.put(raw.decode("utf-8", errors="replace"))
        self._stdout_lines.put(None)  # EOF

    def _wait_ready(self, timeout: float) -> None:
        threading.Thread(
            target=self._pump_stdout, name=f"castsim-stdout-{self.host}", daemon=True
        ).start()
        try:
            line = self._stdout_lines.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise CastsimError(self._describe(f"no ready line within {timeout:.0f}s"))
        if line is None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.stop()
            raise CastsimError(
                self._describe(
                    f"castsim closed stdout without a ready line "
                    f"(exit status {self.proc.returncode})"
                )
            )
        self.ready_line = line.rstrip("\r\n")
        match = READY_RE.match(self.ready_line)
        if not match:
            self.stop()
            raise CastsimError(
                self._describe(f"malformed ready line: {self.ready_line!r}")
            )
        self.cast_addrs = [split_host_port(item) for item in match["cast"].split(",")]
        self.cast_addr = self.cast_addrs[0]
        self.http_addr = split_host_port(match["http"].split(",")[0])
        self.https_addr = split_host_port(match["https"].split(",")[0])
        self.control_url = "" if match["control"] == "off" else f"http://{match['control']}"

    def _describe(self, problem: str) -> str:
        return (
            f"{problem}\n  command: {shlex.join(self.command)}\n"
            f"  stderr ({self.stderr_path}), last lines:\n{self.stderr_tail(40)}"
        )


def start_castsim(
    binary: Path,
    host: str,
    log_dir: Path,
    *,
    name: str,
    model: str = "Chromecast",
    device_uuid: uuidlib.UUID | None = None,
    log_level: str = "debug",
    extra_args: tuple[str, ...] = (),
    ready_timeout: float = READY_TIMEOUT,
    console: bool = False,
    prefix: tuple[str, ...] = (),
    subcommand: str = "run",
    pass_name: bool = True,
    pass_uuid: bool = True,
) -> CastsimDevice:
    """Start `castsim run` (or `subcommand`, e.g. relay) on host with the standard
    ports; wait until ready. pass_name=False leaves --name out: the device names
    itself (a relay after its upstream), and `name` is what the test expects.

    console=True keeps castsim's standard input open for CastsimDevice.console()
    (the manual clock reads `advance DURATION` lines there); otherwise it is
    /dev/null. prefix runs it inside something, e.g. a network namespace.
    """
    device_uuid = device_uuid or uuidlib.uuid4()
    command = [
        # e.g. ("ip", "netns", "exec", NS): it execs castsim, so the process is castsim's.
        *prefix,
        str(binary),
        subcommand,
        *(("--name", name) if pass_name else ()),
        *(("--model", model) if pass_name else ()),
        *(("--uuid", device_uuid.hex) if pass_uuid else ()),
        "--host", host,
        "--port", str(CAST_PORT),
        "--http-port", str(HTTP_PORT),
        "--https-port", str(HTTPS_PORT),
        "--log-level", log_level,
        # Tests on the host's loopback never advertise on its real interfaces; the
        # discovery tests ask for mDNS inside network namespaces of their own.
        *(() if "--mdns" in extra_args else ("--mdns", "off")),
        # A free port for the control API: several devices share a host's addresses.
        *(() if "--control-port" in extra_args else ("--control-port", "0")),
        *extra_args,
    ]  # fmt: skip
    # A household's --host is a list: its first address names the logs.
    log_name = host.split(",")[0]
    stderr_path = log_dir / f"castsim-{log_name}.stderr.log"
    stdout_path = log_dir / f"castsim-{log_name}.stdout.log"
    with open(stderr_path, "wb") as stderr_file:
        # Same process group as pytest on purpose: a Ctrl-C (or run.sh's
        # timeout) then reaches castsim too, even if teardown never runs.
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE if console else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
        )
    device = CastsimDevice(
        host=host,
        name=name,
        model=model,
        uuid=device_uuid,
        command=command,
        proc=proc,
        stderr_path=stderr_path,
        stdout_path=stdout_path,
    )
    device._wait_ready(ready_timeout)
    return device


# --------------------------------------------------------------------------
# pychromecast senders
# --------------------------------------------------------------------------


def _serialize_pychromecast_socket_io() -> None:
    """Make each pychromecast client use its TLS socket from one thread at a time.

    pychromecast writes to its ssl socket from the caller's thread (STOP, LOAD,
    SET_VOLUME) and from its socket thread (PONG, CLOSE, GET_STATUS), while that
    thread also reads, with no lock. OpenSSL objects are not safe for that: when
    the two threads meet, the client sends a corrupt record (castsim logs
    BAD_DECRYPT and closes the connection) or fails with "[SSL] internal error".
    Real devices see the same (home-assistant/core#111762). It happens a few times
    per run on a loaded 2-core CI machine and never on an idle one. castsim's
    answer to a corrupt record (close that connection only) has its own test,
    test_corrupt_tls_record_closes_only_that_connection; everywhere else the
    suite tests castsim, not this client race, so reads and writes are serialized
    per client here.
    """
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


_serialize_pychromecast_socket_io()


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
