"""SIGTERM while everything is still going (issue 23): senders connected and one in its TLS
handshake, eureka_info kept alive, the control API's event stream open, a recording written,
mDNS advertising in a network namespace the test makes. castsim exits with 0, says nothing of
scheduling on an event loop that has shut down, says goodbye on mDNS, ends the event stream,
closes every connection, and leaves a complete recording: every line valid, every connection
it opened closed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from e2e_harness import REPO_ROOT, CastsimDevice, start_castsim
from netns import JsonLines, Link, NamespaceUnavailable, create_link

PROBE = Path(__file__).with_name("shutdown_probe.py")
BROWSE = Path(__file__).with_name("discovery_probe.py")
PYTHON = sys.executable
SCHEMA = json.loads((REPO_ROOT / "docs" / "recording.schema.json").read_text())
# NIO's words when something schedules work on an event loop that has shut down.
LATE_WORK = "Cannot schedule tasks on an EventLoop that has already shut down"


@pytest.fixture
def link() -> Iterator[Link]:
    try:
        made = create_link(subnet=78)
    except NamespaceUnavailable as error:
        pytest.fail(f"the shutdown tests need network namespaces of their own: {error}", pytrace=False)
    yield made
    made.destroy()


def probe(link: Link, namespace: str, *args: str) -> JsonLines:
    return JsonLines(link.popen(namespace, [PYTHON, str(PROBE), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, cwd=Path(__file__).parent))


def start(link: Link, tmp_path: Path, castsim_bin: Path, host: str, *extra: str) -> CastsimDevice:
    return start_castsim(castsim_bin, host, tmp_path, name="Shutdown TV", device_uuid=uuidlib.uuid4(),
                         extra_args=("--mdns", "builtin", "--interface", link.device_if, *extra),
                         prefix=("ip", "netns", "exec", link.device_ns))


def sigterm(device: CastsimDevice) -> tuple[int, str]:
    """SIGTERM, the exit status, and everything castsim wrote on stdout and stderr."""
    status = device.stop()
    output = device.stdout_path.read_text(errors="replace") + device.stderr_path.read_text(errors="replace")
    return status, output


def test_sigterm_with_everything_going_exits_cleanly(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    recording = tmp_path / "shutdown.jsonl"
    device = start(link, tmp_path, castsim_bin, link.device_ip, "--record", str(recording))
    browser = JsonLines(link.popen(link.sender_ns, [PYTHON, str(BROWSE), "browse", "30"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    senders = probe(link, link.sender_ns, "senders", link.device_ip)
    # The control API listens on 127.0.0.1 inside the device's namespace.
    events = probe(link, link.device_ns, "events", device.control_url + "/api/v1/events")
    try:
        found = browser.wait_for(lambda e: e["event"] == "added" and e.get("port") == 8009, "the device announced")
        ready = senders.wait_for(lambda e: "ready" in e, "the senders connected")
        events.wait_for(lambda e: e.get("event") == "hello", "the event stream open")

        status, output = sigterm(device)

        assert status == 0, f"castsim exited with {status}:\n{device.stderr_tail(40)}"
        assert LATE_WORK not in output, device.stderr_tail(40)
        browser.wait_for(lambda e: e["event"] == "removed" and e["name"] == found["name"], "the goodbye", timeout=5)
        events.wait_for(lambda e: e.get("ended"), "the event stream to end", timeout=5)
        # Ended by castsim, and said so last: not a lost connection.
        assert [e.get("event") for e in events.seen if "event" in e][-1] == "end", events.seen[-3:]
        closed = senders.wait_for(lambda e: e.get("done"), "every connection closed", timeout=5)
        assert closed and {e["closed"] for e in senders.seen if "closed" in e} == set(ready["ready"])

        lines = [json.loads(line) for line in recording.read_text().splitlines()]
        for number, line in enumerate(lines, start=1):
            jsonschema.validate(line, SCHEMA)
        opened = {line["connection"] for line in lines if line.get("event") == "connected"}
        ended = {line["connection"]: line["how"] for line in lines if line.get("event") == "disconnected"}
        # The sender and the one in its handshake, each closed by the device as it stopped.
        assert len(opened) == 2 and ended == {connection: "device" for connection in opened}, lines[-4:]
        assert lines[-1]["event"] == "disconnected", lines[-1]
    finally:
        for running in (browser, senders, events):
            running.stop()
        device.stop()


def test_sigterm_stops_a_household_cleanly(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    """Two devices in one castsim, a speaker group of both, a sender on each: the fleet's
    loop goes last, after the group's endpoint and every device."""
    link.add_address("10.78.0.5")
    scenario = tmp_path / "household.json"
    scenario.write_text(json.dumps({
        "name": "household",
        "devices": [{"name": "Kitchen"}, {"name": "Den"}],
        "groups": [{"name": "Downstairs", "members": ["Kitchen", "Den"], "leader": "Kitchen"}],
    }))
    device = start_castsim(castsim_bin, f"{link.device_ip},10.78.0.5", tmp_path, name="Kitchen", pass_uuid=False,
                           pass_name=False, extra_args=("--mdns", "builtin", "--interface", link.device_if, "--scenario", str(scenario)),
                           prefix=("ip", "netns", "exec", link.device_ns))
    browser = JsonLines(link.popen(link.sender_ns, [PYTHON, str(BROWSE), "browse", "30"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    senders = probe(link, link.sender_ns, "senders", link.device_ip, "10.78.0.5")
    try:
        group = browser.wait_for(lambda e: e["event"] == "added" and e["name"].startswith("Google-Cast-Group-"), "the group announced")
        senders.wait_for(lambda e: "ready" in e, "the senders connected")

        status, output = sigterm(device)

        assert status == 0, f"castsim exited with {status}:\n{device.stderr_tail(40)}"
        assert LATE_WORK not in output, device.stderr_tail(40)
        browser.wait_for(lambda e: e["event"] == "removed" and e["name"] == group["name"], "the group's goodbye", timeout=5)
        senders.wait_for(lambda e: e.get("done"), "every connection closed", timeout=5)
    finally:
        browser.stop()
        senders.stop()
        device.stop()
