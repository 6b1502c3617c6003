"""An avahi-daemon of the test's own, on a private D-Bus, inside a network namespace.

The namespace shares the host's filesystem, so the daemon must not meet the host's system
bus (or an avahi-daemon there): the test starts a dbus-daemon of its own on a socket in a
temporary directory and points both avahi-daemon and castsim at it through
DBUS_SYSTEM_BUS_ADDRESS. The daemon runs in the foreground of its process, as root, without
chroot, advertising only on the namespace's veth, with a /run/avahi-daemon of its own.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from netns import Link, NamespaceUnavailable

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
"""

AVAHI_CONFIG = """[server]
use-ipv4=yes
use-ipv6=yes
enable-dbus=yes
allow-interfaces={interface}
[publish]
publish-hinfo=no
publish-workstation=no
"""


class AvahiDaemon:
    def __init__(self, link: Link, directory: Path) -> None:
        for tool in ("dbus-daemon", "avahi-daemon"):
            if shutil.which(tool) is None:
                raise NamespaceUnavailable(f"{tool} is not installed: run scripts/avahi-setup.sh")
        directory.mkdir(parents=True, exist_ok=True)
        socket = directory / "system_bus_socket"
        (directory / "bus.conf").write_text(BUS_CONFIG.format(socket=socket))
        (directory / "avahi-daemon.conf").write_text(AVAHI_CONFIG.format(interface=link.device_if))
        self.bus_address = f"unix:path={socket}"
        self.link = link
        self.log = directory / "avahi-daemon.log"
        self.bus = link.popen(link.device_ns, ["dbus-daemon", "--nofork", f"--config-file={directory / 'bus.conf'}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 5
        while not socket.exists() and time.time() < deadline:
            time.sleep(0.05)
        # avahi-daemon keeps its pid file (and a socket) in /run/avahi-daemon/, which every
        # network namespace shares, and refuses to start while the pid there is alive: each
        # daemon gets a private mount namespace with an empty tmpfs over that folder, so
        # tests that start one can run at the same time on different pytest-xdist workers.
        run_dir = "/run/avahi-daemon"
        with open(self.log, "wb") as log:
            self.daemon = link.popen(
                link.device_ns,
                ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                 f'mkdir -p {run_dir} && mount -t tmpfs castsim-avahi {run_dir} && exec "$@"', "avahi-daemon-private-run",
                 "env", f"DBUS_SYSTEM_BUS_ADDRESS={self.bus_address}", "avahi-daemon", "--no-drop-root", "--no-chroot",
                 "--no-rlimits", f"--file={directory / 'avahi-daemon.conf'}"],
                stdout=log, stderr=subprocess.STDOUT)
        # Up once it has joined the bus and chosen its host name.
        deadline = time.time() + 10
        while time.time() < deadline:
            if "Server startup complete" in self.log.read_text(errors="replace"):
                return
            if self.daemon.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise NamespaceUnavailable(f"avahi-daemon did not start:\n{self.log.read_text(errors='replace')[-2000:]}")

    def env_prefix(self) -> tuple[str, ...]:
        """Runs a command inside the namespace, on this daemon's bus."""
        return ("ip", "netns", "exec", self.link.device_ns, "env", f"DBUS_SYSTEM_BUS_ADDRESS={self.bus_address}")

    def stop(self) -> None:
        for process in (self.daemon if hasattr(self, "daemon") else None, self.bus):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
