"""End-to-end: one mDNS responder answers for every device of a fleet (issue 27).

`castsim run --devices 24` on 24 addresses of a namespace's veth, advertised with castsim's
own responder. python-zeroconf in the sender namespace finds every device; the process
has one socket per family on port 5353, not one per device; devices started together
probe and announce in shared packets; and one device withdrawn says goodbye alone.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from e2e_harness import start_castsim
from netns import JsonLines, Link
from test_discovery import PROBE, PYTHON, SERVICE, Browser, link  # noqa: F401 (the fixture)

COUNT = 24
ADDRESSES = [f"10.77.0.{10 + index}" for index in range(COUNT)]


class Packets(JsonLines):
    """discovery_probe.py packets: every mDNS packet the device side sends, as it comes."""

    def __init__(self, link: Link, seconds: float) -> None:
        super().__init__(link.popen(link.sender_ns, [PYTHON, str(PROBE), "packets", str(seconds), link.sender_ip],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))


def mdns_sockets(link: Link, pid: int) -> list[str]:
    """The UDP sockets on port 5353 that process `pid` holds."""
    listing = link.run(link.device_ns, ["ss", "-uanpH", "sport = :5353"], capture_output=True, text=True, timeout=10)
    assert listing.returncode == 0, listing.stderr
    return [line for line in listing.stdout.splitlines() if f"pid={pid}," in line]


def test_one_responder_answers_for_every_device_of_a_fleet(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    for address in ADDRESSES:
        link.add_address(address)
    # Listening before castsim starts: its probes and announcements are the first packets.
    packets = Packets(link, seconds=30)
    packets.wait_for(lambda line: line.get("listening"), what="the packet listener")
    device = start_castsim(
        castsim_bin, f"{ADDRESSES[0]}-{ADDRESSES[-1].rsplit('.', 1)[1]}", tmp_path, name="castsim", pass_uuid=False,
        extra_args=("--devices", str(COUNT), "--mdns", "builtin", "--interface", link.device_if, "--heartbeat-interval", "0"),
        prefix=("ip", "netns", "exec", link.device_ns))
    browser = Browser(link, seconds=60)
    try:
        found: dict[str, dict] = {}
        def every_device() -> bool:
            line = browser.wait_for(lambda e: e["event"] == "added" and e.get("addresses"), what="a device")
            found[line["name"]] = line
            return len(found) == COUNT
        deadline = time.time() + 30
        while not every_device():
            assert time.time() < deadline, f"found {len(found)} of {COUNT}: {sorted(found)}"
        assert sorted(address for line in found.values() for address in line["addresses"]) == sorted(ADDRESSES)
        assert {line["port"] for line in found.values()} == {8009}

        sockets = mdns_sockets(link, device.proc.pid)
        # One per family on the one interface (IPv6 once its link-local address is up), for all 24 devices.
        assert 1 <= len(sockets) <= 2 and len({line.split()[3] for line in sockets}) == len(sockets), sockets

        # Each device probes three times and announces twice (RFC 6762 §8): 72 probes and
        # 48 announcements if each went alone. Started together, they share packets.
        seen = packets.drain(3)
        probes = [line for line in seen if "instances" in line and not line["response"] and line["instances"]]
        announced = [line for line in seen if "instances" in line and line["response"] and line["instances"]]
        figures = f"probes {[len(line['instances']) for line in probes]}, responses {[len(line['instances']) for line in announced]}"
        assert sum(len(line["instances"]) for line in probes) == 3 * COUNT, figures
        # Devices due within 10 ms of each other go together (their starts spread over 250 ms).
        assert len(probes) < 3 * COUNT * 3 / 4 and max(len(line["instances"]) for line in probes) > 1, figures
        assert max(len(line["instances"]) for line in announced) > 1, figures
        assert all(line["size"] <= 1440 for line in seen if "size" in line), [line["size"] for line in seen if "size" in line]

        withdrawn = next(iter(sorted(found)))
        udn = next(entry["udn"] for entry in json.loads(link.run(
            link.device_ns, [str(castsim_bin), "ctl", "--url", device.control_url, "devices"],
            capture_output=True, text=True, timeout=30).stdout)["devices"] if entry["udn"].replace("-", "") in withdrawn)
        result = link.run(link.device_ns, [str(castsim_bin), "ctl", "--url", device.control_url, "--device", udn, "withdraw"],
                          capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        browser.wait_for(lambda e: e["event"] == "removed" and e["name"] == withdrawn, what="the withdrawn device's goodbye")
        goodbye = packets.wait_for(lambda line: line.get("goodbyes"), what="the goodbye packet")
        assert goodbye["goodbyes"] == [withdrawn], goodbye
        time.sleep(1)
        assert not [e for e in browser.seen if e["event"] == "removed" and e["name"] != withdrawn]
    finally:
        browser.stop()
        packets.stop()
        device.stop()
