"""Shared fixtures of the castsim package's own tests.

Two kinds of tests live here:
- test_unit_*.py need no castsim binary (fakes: an HTTP server in a thread, a fake
  `castsim` script);
- test_client.py, test_device.py and test_plugin.py run the real binary (CASTSIM_BIN,
  or --castsim-bin); without one they fail, saying how to build it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, List

import pytest

from cast_sender import CastSender
from castsim import ControlClient
from fakes import FakeServer, write_fake_castsim


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture
def fake_client(fake_server: FakeServer) -> ControlClient:
    return ControlClient(fake_server.url, timeout=5)


@pytest.fixture
def fake_castsim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake `castsim` executable; FAKE_CASTSIM_ARGV records each run's arguments."""
    folder = tmp_path / "fakebin"
    folder.mkdir()
    binary = write_fake_castsim(folder)
    monkeypatch.setenv("FAKE_CASTSIM_ARGV", str(tmp_path / "argv.jsonl"))
    monkeypatch.delenv("FAKE_CASTSIM_MODE", raising=False)
    return binary


@pytest.fixture
def sender_factory(castsim: ControlClient) -> Iterator[Callable[..., CastSender]]:
    """Raw Cast senders connected to the test's castsim device; closed at teardown."""
    senders: List[CastSender] = []

    def connect(**kwargs) -> CastSender:
        device = castsim.device
        sender = CastSender(device.host, device.cast_port, **kwargs)
        senders.append(sender)
        return sender

    yield connect
    for sender in senders:
        sender.close()
