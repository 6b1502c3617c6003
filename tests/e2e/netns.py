"""Network namespaces that a discovery test creates for itself.

mDNS is multicast on a real link: testing it on the host's interfaces would advertise the
test device to the whole LAN (and hear the LAN's devices). Instead a test makes two
namespaces joined by a veth pair, a "device" side where castsim runs and a "sender" side
where the browser runs, and removes both afterwards. Nothing leaves them.

A machine where namespaces cannot be made (no root, no CAP_SYS_ADMIN, no iproute2) makes
the test fail with the reason: a discovery test that did not run has not passed.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field


class NamespaceUnavailable(Exception):
    pass


def _checked(args: tuple[str, ...]) -> subprocess.CompletedProcess:
    result = subprocess.run(["ip", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise NamespaceUnavailable(f"`ip {' '.join(args)}` failed: {result.stderr.strip()}")
    return result


@dataclass
class Link:
    """Two namespaces and the veth pair between them, with IPv4 and IPv6 addresses."""

    device_ns: str
    sender_ns: str
    device_if: str
    sender_if: str
    device_ip: str
    sender_ip: str
    extra: list[str] = field(default_factory=list)

    def run(self, namespace: str, args: list[str], **kwargs) -> subprocess.CompletedProcess:  # type: ignore[no-untyped-def]
        return subprocess.run(["ip", "netns", "exec", namespace, *args], **kwargs)

    def popen(self, namespace: str, args: list[str], **kwargs) -> subprocess.Popen:  # type: ignore[no-untyped-def]
        return subprocess.Popen(["ip", "netns", "exec", namespace, *args], **kwargs)

    def add_address(self, address: str) -> None:
        """Another address on the device side (a device that comes back elsewhere)."""
        _checked(("-n", self.device_ns, "addr", "add", f"{address}/24", "dev", self.device_if))

    def destroy(self) -> None:
        for namespace in (self.device_ns, self.sender_ns):
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)


def create_link(subnet: int = 77) -> Link:
    """device side 10.<subnet>.0.1, sender side 10.<subnet>.0.2, both with link-local IPv6."""
    if shutil.which("ip") is None:
        raise NamespaceUnavailable("iproute2's `ip` is not installed (Debian: apt-get install iproute2)")
    if os.geteuid() != 0:
        raise NamespaceUnavailable("creating network namespaces needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN)")
    tag = uuid.uuid4().hex[:6]
    link = Link(device_ns=f"cs-dev-{tag}", sender_ns=f"cs-snd-{tag}", device_if=f"csd{tag}", sender_if=f"css{tag}",
                device_ip=f"10.{subnet}.0.1", sender_ip=f"10.{subnet}.0.2")
    try:
        _checked(("netns", "add", link.device_ns))
        _checked(("netns", "add", link.sender_ns))
        _checked(("link", "add", link.device_if, "type", "veth", "peer", "name", link.sender_if))
        for namespace, interface, address in ((link.device_ns, link.device_if, link.device_ip),
                                              (link.sender_ns, link.sender_if, link.sender_ip)):
            _checked(("link", "set", interface, "netns", namespace))
            _checked(("-n", namespace, "addr", "add", f"{address}/24", "dev", interface))
            _checked(("-n", namespace, "link", "set", interface, "up"))
            _checked(("-n", namespace, "link", "set", "lo", "up"))
            # No default route in a namespace: multicast needs one of its own.
            _checked(("-n", namespace, "route", "add", "224.0.0.0/4", "dev", interface))
        # IPv6 link-local addresses need duplicate address detection to finish.
        for namespace in (link.device_ns, link.sender_ns):
            subprocess.run(["ip", "netns", "exec", namespace, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0"],
                           capture_output=True)
    except NamespaceUnavailable:
        link.destroy()
        raise
    return link


class JsonLines:
    """A probe running in a namespace that prints JSON lines as things happen; the test
    takes them in order, and fails with what it did see when the one it waits for never comes."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.events: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.events.put(json.loads(line))
        self.events.put(None)

    def wait_for(self, predicate, what: str = "it", timeout: float = 15.0, seen_ok: bool = False) -> dict:  # type: ignore[no-untyped-def]
        """The next line `predicate` takes; with seen_ok, one seen already will do."""
        import pytest

        if seen_ok and (earlier := next((event for event in self.seen if predicate(event)), None)):
            return earlier
        deadline = time.time() + timeout
        while (event := self._next(deadline)) is not None:
            if predicate(event):
                return event
        stderr = self.proc.stderr.read() if self.proc.poll() is not None and self.proc.stderr else ""
        pytest.fail(f"never saw {what}; saw {self.seen}\n{stderr}", pytrace=False)

    def drain(self, seconds: float) -> list[dict]:
        """Every line that comes in the next `seconds`, added to those seen."""
        deadline = time.time() + seconds
        while self._next(deadline) is not None:
            pass
        return self.seen

    def _next(self, deadline: float) -> dict | None:
        """The next line, kept in `seen`; None once the deadline passes or the probe ends."""
        left = deadline - time.time()
        if left <= 0:
            return None
        try:
            event = self.events.get(timeout=left)
        except queue.Empty:
            return None
        if event is not None:
            self.seen.append(event)
        return event

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
