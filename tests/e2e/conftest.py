"""pytest fixtures for the castsim end-to-end tests.

Every test gets its own castsim process on a free loopback address
(127.A.B.C, found by the castsim package) with the standard Cast ports, and pychromecast senders connected
to it by host and port. Fixture teardown disconnects the senders first, then
stops castsim (SIGTERM, wait, SIGKILL fallback).

Environment:
  CASTSIM_BIN        binary under test (default <repo>/.build/debug/castsim)
  CASTSIM_LOG_LEVEL  --log-level passed to castsim (default: debug)
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from castsim import CastsimError

from e2e_harness import (
    DEFAULT_DURATION_SECONDS,
    CastsimDevice,
    Sender,
    castsim_binary,
    connect_sender,
    disconnect_sender,
    start_castsim,
)

# pychromecast logs every message it sends and receives at DEBUG level; pytest
# captures it and shows it under "Captured log" for failing tests, which is
# usually the quickest way to see what castsim answered.
logging.getLogger("pychromecast").setLevel(logging.DEBUG)

# Default device names: each its own, to tell them apart in logs.
_DEVICE_NUMBERS = itertools.count(1)
# Every process ever started, so pytest_sessionfinish can kill leftovers even
# if a teardown was skipped (e.g. KeyboardInterrupt during setup).
_ALL_DEVICES: list[CastsimDevice] = []


@pytest.fixture(scope="session")
def castsim_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the binary under test.

    Running a copy keeps the whole session on one build and avoids ETXTBSY
    ("Text file busy") when `swift build` relinks the binary mid-run. The
    copy can live anywhere: its RUNPATH is the toolchain's absolute path.
    """
    try:
        binary = castsim_binary()
    except CastsimError as error:
        pytest.fail(str(error), pytrace=False)
    copy = tmp_path_factory.mktemp("bin") / binary.name
    for _ in range(5):
        before = binary.stat()
        shutil.copy2(binary, copy)
        after = binary.stat()
        if (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size):
            return copy
        time.sleep(2)  # being relinked right now; try again
    pytest.fail(f"{binary} kept changing while being copied", pytrace=False)


@pytest.fixture
def castsim_factory(
    castsim_bin: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., CastsimDevice]]:
    """Start castsim devices: castsim_factory(name=..., model=..., extra_args=(), console=False).
    subcommand="relay" starts a relay (pass_name=False: it takes its upstream's name).

    console=True: castsim's stdin stays open for device.console("advance 10m").
    """
    devices: list[CastsimDevice] = []
    # Read by pytest_runtest_makereport below to attach stderr to failures.
    request.node._castsim_devices = devices  # type: ignore[attr-defined]
    log_level = os.environ.get("CASTSIM_LOG_LEVEL", "debug")

    def start(
        *,
        name: str | None = None,
        model: str = "Chromecast",
        device_uuid=None,
        extra_args: tuple[str, ...] = (),
        console: bool = False,
        subcommand: str = "run",
        pass_name: bool = True,
        household: int = 1,
    ) -> CastsimDevice:
        # A household of N devices: N addresses as --host A,B,C; its devices take their
        # names and UUIDs from --devices or the scenario (no --name, no --uuid).
        # A relay simulates no media: it takes no --default-duration; nor does a scenario's
        # device, whose file sets its own (castsim refuses the flag beside --scenario).
        defaults = ("--default-duration", str(DEFAULT_DURATION_SECONDS)) if subcommand == "run" and "--scenario" not in extra_args else ()
        device = start_castsim(
            castsim_bin,
            None,
            tmp_path,
            name=name or f"castsim-e2e {next(_DEVICE_NUMBERS)}",
            model=model,
            device_uuid=device_uuid,
            log_level=log_level,
            extra_args=(*defaults, *extra_args),
            console=console,
            subcommand=subcommand,
            pass_name=pass_name and household == 1,
            pass_uuid=household == 1,
            address_count=household,
        )  # fmt: skip
        _ALL_DEVICES.append(device)
        devices.append(device)
        return device

    yield start

    crashed = []
    for device in devices:
        if not device.stopped and not device.is_running():
            crashed.append(
                f"castsim on {device.host} exited during the test with status "
                f"{device.proc.returncode if device.proc else None}; stderr tail:\n{device.stderr_tail(40)}"
            )
        device.stop()
        if device.needed_sigkill:
            warnings.warn(
                f"castsim on {device.host} ignored SIGTERM for 10 s and was killed"
            )
    if crashed:
        pytest.fail("\n".join(crashed), pytrace=False)


@pytest.fixture
def device(castsim_factory: Callable[..., CastsimDevice]) -> CastsimDevice:
    """A castsim device with default settings."""
    return castsim_factory()


@pytest.fixture
def sender_factory() -> Iterator[Callable[[CastsimDevice], Sender]]:
    """Connect pychromecast senders: sender_factory(device) -> Sender."""
    senders: list[Sender] = []

    def connect(device: CastsimDevice) -> Sender:
        sender = connect_sender(device)
        senders.append(sender)
        return sender

    yield connect

    # Torn down before castsim_factory (it was requested later), so castsim
    # sees orderly CLOSEs rather than dead sockets.
    for sender in senders:
        problem = disconnect_sender(sender)
        if problem:
            warnings.warn(problem)


@pytest.fixture
def sender(
    device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]
) -> Sender:
    """A pychromecast sender connected to `device`."""
    return sender_factory(device)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator:
    """Append each castsim's stderr tail to the report of a failing test."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    for device in getattr(item, "_castsim_devices", []):
        report.sections.append(
            (
                f"castsim {device.host} stderr, last 80 lines ({device.stderr_path})",
                device.stderr_tail(80),
            )
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Safety net: never leave a castsim process behind."""
    for device in _ALL_DEVICES:
        if device.is_running():
            device.stop(timeout=5)
