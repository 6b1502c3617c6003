"""Discovery over mDNS, inside network namespaces the tests create (never the host's network).

castsim runs in a "device" namespace; python-zeroconf and pychromecast run in a "sender"
namespace joined to it by a veth pair, and see castsim as they would see a Chromecast.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e_harness import REPO_ROOT, CastsimDevice, start_castsim
from avahi_daemon import AvahiDaemon
from netns import JsonLines, Link, NamespaceUnavailable, create_link

PROBE = Path(__file__).with_name("discovery_probe.py")
PYTHON = sys.executable
SERVICE = "_googlecast._tcp.local."


@pytest.fixture
def link() -> Iterator[Link]:
    try:
        made = create_link()
    except NamespaceUnavailable as error:
        pytest.fail(f"discovery tests need network namespaces of their own: {error}", pytrace=False)
    yield made
    made.destroy()


class Browser(JsonLines):
    """discovery_probe.py browse, in the sender namespace, its JSON lines as they come."""

    def __init__(self, link: Link, seconds: float, service_type: str = SERVICE) -> None:
        super().__init__(link.popen(link.sender_ns, [PYTHON, str(PROBE), "browse", str(seconds), service_type],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))


def start_in(link: Link, tmp_path: Path, castsim_bin: Path, *, name: str, model: str = "Chromecast",
             device_uuid: uuidlib.UUID | None = None, extra_args: tuple[str, ...] = (), console: bool = False,
             ) -> CastsimDevice:
    return start_castsim(
        castsim_bin, link.device_ip, tmp_path, name=name, model=model, device_uuid=device_uuid,
        extra_args=("--mdns", "builtin", "--interface", link.device_if, *quiet(extra_args), *extra_args),
        console=console, prefix=("ip", "netns", "exec", link.device_ns))


def quiet(extra_args: tuple[str, ...]) -> tuple[str, ...]:
    """No PINGs from a plain device; a scenario's device sets its own (castsim refuses the flag beside it)."""
    return () if "--scenario" in extra_args else ("--heartbeat-interval", "0")


def instance_name(model: str, device_uuid: uuidlib.UUID) -> str:
    return f"{model.replace(' ', '-')}-{device_uuid.hex}.{SERVICE}"


def probe(link: Link, *args: str, timeout: float = 60) -> dict:
    result = link.run(link.sender_ns, [PYTHON, str(PROBE), *args], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_zeroconf_sees_the_records_a_chromecast_publishes(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    device_uuid = uuidlib.uuid4()
    device = start_in(link, tmp_path, castsim_bin, name="Living Room TV", model="Chromecast Ultra", device_uuid=device_uuid)
    browser = Browser(link, seconds=20)
    try:
        found = browser.wait_for(lambda e: e["event"] == "added" and e["name"] == instance_name("Chromecast Ultra", device_uuid))
        assert found["port"] == 8009
        assert found["server"] == f"{device_uuid}.local."
        assert link.device_ip in found["addresses"]
        txt = found["txt"]
        assert txt["id"] == device_uuid.hex
        assert txt["fn"] == "Living Room TV" and txt["md"] == "Chromecast Ultra"
        assert txt["ve"] == "05" and txt["st"] == "0" and txt["rs"] == "" and txt["ca"].isdigit()
        assert txt["ic"] == "/setup/icon.png"
        assert {"cd", "rm", "bs", "nf"} <= set(txt)
        # SIGTERM: goodbyes (TTL 0) before it goes, so browsers drop it at once.
        device.stop()
        browser.wait_for(lambda e: e["event"] == "removed" and e["name"] == found["name"], timeout=5)
    finally:
        browser.stop()
        device.stop()


def test_ios_senders_find_it_by_app_subtype(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    """iOS senders browse _<APPID>._sub._googlecast._tcp for their receiver app."""
    device_uuid = uuidlib.uuid4()
    device = start_in(link, tmp_path, castsim_bin, name="Hall", device_uuid=device_uuid)
    browser = Browser(link, seconds=20, service_type="_CC1AD845._sub._googlecast._tcp.local.")
    try:
        found = browser.wait_for(lambda e: e["event"] == "added")
        assert found["name"] == instance_name("Chromecast", device_uuid) and found["port"] == 8009
    finally:
        browser.stop()
        device.stop()


def test_pychromecast_finds_the_device_and_plays(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    device_uuid = uuidlib.uuid4()
    device = start_in(link, tmp_path, castsim_bin, name="Bedroom", model="Chromecast", device_uuid=device_uuid)
    try:
        found = probe(link, "chromecasts", "5")["devices"]
        assert found == [{"friendly_name": "Bedroom", "model_name": "Chromecast", "uuid": str(device_uuid),
                          "cast_type": "cast", "manufacturer": "Google Inc.", "host": link.device_ip, "port": 8009}]
        played = probe(link, "play", "Bedroom", "http://media.test/movie.mp4")
        assert played == {"player_state": "PLAYING", "content_id": "http://media.test/movie.mp4", "app_id": "CC1AD845"}
    finally:
        device.stop()


def test_txt_follows_the_running_app(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    device_uuid = uuidlib.uuid4()
    device = start_in(link, tmp_path, castsim_bin, name="Den", device_uuid=device_uuid)
    browser = Browser(link, seconds=40)
    name = instance_name("Chromecast", device_uuid)
    try:
        browser.wait_for(lambda e: e["event"] == "added" and e["name"] == name)
        probe(link, "play", "Den", "http://media.test/movie.mp4")
        busy = browser.wait_for(lambda e: e["event"] == "updated" and e.get("txt", {}).get("st") == "1")
        assert busy["txt"]["rs"] == "Default Media Receiver"
    finally:
        browser.stop()
        device.stop()


def test_a_withdrawn_device_disappears_and_comes_back(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    scenario = tmp_path / "vanish.json"
    scenario.write_text(json.dumps({
        "name": "vanish",
        "clock": {"mode": "manual"},
        "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
        "timeline": [
            {"at": "1m", "withdraw": True},
            {"at": "2m", "restore": True},
            {"at": "3m", "restore": {"host": "10.77.0.5", "port": 8010}},
        ],
    }))
    link.add_address("10.77.0.5")
    device_uuid = uuidlib.uuid4()
    device = start_in(link, tmp_path, castsim_bin, name="Attic", device_uuid=device_uuid, console=True,
                      extra_args=("--scenario", str(scenario)))
    browser = Browser(link, seconds=60)
    name = instance_name("Chromecast", device_uuid)
    try:
        browser.wait_for(lambda e: e["event"] == "added" and e["name"] == name)
        device.console("advance 1m")
        browser.wait_for(lambda e: e["event"] == "removed" and e["name"] == name)
        device.console("advance 1m")
        back = browser.wait_for(lambda e: e["event"] in ("added", "updated") and e["name"] == name and e.get("port"))
        assert back["port"] == 8009
        device.console("advance 1m")
        moved = browser.wait_for(lambda e: e["name"] == name and e.get("port") == 8010)
        assert "10.77.0.5" in moved["addresses"]
    finally:
        browser.stop()
        device.stop()


def google_tv_scenario(tmp_path: Path) -> Path:
    """A Chromecast with Google TV whose Cast service leaves discovery after a minute
    (pychromecast#1034), on the manual clock."""
    scenario = tmp_path / "google-tv.json"
    scenario.write_text(json.dumps({
        "name": "google tv",
        "clock": {"mode": "manual"},
        "device": {"profile": "chromecast-google-tv", "heartbeatInterval": "0s", "idleTimeout": "0s",
                   "quirks": {"mdns": {"dropCastAfter": "1m"}}},
    }))
    return scenario


def check_cast_leaves_and_the_remote_stays(link: Link, device: CastsimDevice, device_uuid: uuidlib.UUID) -> None:
    """_googlecast._tcp goes; _androidtvremote2._tcp (Home Assistant's Android TV Remote) stays."""
    cast = Browser(link, seconds=40)
    remote = Browser(link, seconds=40, service_type="_androidtvremote2._tcp.local.")
    name = instance_name("Chromecast", device_uuid)
    try:
        cast.wait_for(lambda e: e["event"] == "added" and e["name"] == name)
        found = remote.wait_for(lambda e: e["event"] == "added" and e["name"] == "Lounge._androidtvremote2._tcp.local.")
        assert found["port"] == 6466 and link.device_ip in found["addresses"], found
        assert found["server"] == f"{device_uuid}.local.", found
        # bt: the MAC Home Assistant keys the TV by (castsim's is made from the UUID).
        assert found["txt"] == {"bt": ":".join(device_uuid.hex[i:i + 2] for i in range(0, 12, 2)).upper()}, found
        device.console("advance 1m")
        cast.wait_for(lambda e: e["event"] == "removed" and e["name"] == name, timeout=10)
        # The remote service stays: still resolvable, and no goodbye for it (a goodbye would
        # have come with the Cast one, and python-zeroconf removes a service 1 s after it).
        again = probe(link, "resolve", "_androidtvremote2._tcp.local.", "Lounge._androidtvremote2._tcp.local.")
        assert again["port"] == 6466 and again["txt"]["bt"] == found["txt"]["bt"], again
        time.sleep(2)
        while not remote.events.empty():
            remote.seen.append(remote.events.get())
        assert not [e for e in remote.seen if e and e["event"] == "removed"], remote.seen
        # The device still runs and says why it is not found.
        discovery = control_state(link, device)["discovery"]
        assert discovery["advertised"] is False and "dropCastAfter" in discovery["reason"], discovery
    finally:
        cast.stop()
        remote.stop()


def test_a_google_tv_leaves_cast_discovery_and_its_remote_service_stays(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    device_uuid = uuidlib.uuid4()
    device = start_in(link, tmp_path, castsim_bin, name="Lounge", device_uuid=device_uuid, console=True,
                      extra_args=("--scenario", str(google_tv_scenario(tmp_path))))
    try:
        check_cast_leaves_and_the_remote_stays(link, device, device_uuid)
    finally:
        device.stop()


def control_state(link: Link, device: CastsimDevice) -> dict:
    """GET /api/v1/state from inside the device's namespace (the control API is on its 127.0.0.1)."""
    fetch = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())"
    result = link.run(link.device_ns, [PYTHON, "-c", fetch, device.control_url + "/api/v1/state"], capture_output=True, text=True,
                      timeout=30)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# The discovery events of the control API's stream, as JSON lines (the hello line too: it has a time).
DISCOVERY_EVENTS = """
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1]) as stream:
    for line in stream:
        if line.startswith(b"data: "):
            print(line[6:].decode().strip(), flush=True)
"""


def test_the_state_says_where_it_is_advertised_and_when_it_is_withdrawn(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    scenario = tmp_path / "vanish.json"
    scenario.write_text(json.dumps({
        "name": "vanish", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
        "timeline": [{"at": "1m", "withdraw": True}, {"at": "2m", "restore": True}],
    }))
    device = start_in(link, tmp_path, castsim_bin, name="Porch", console=True, extra_args=("--scenario", str(scenario)))
    events = JsonLines(link.popen(link.device_ns, [PYTHON, "-c", DISCOVERY_EVENTS, device.control_url + "/api/v1/events?types=discovery"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    try:
        advertised = {"mode": "builtin", "advertised": True, "reason": None, "interfaces": [link.device_if]}
        state = control_state(link, device)
        assert state["discovery"] == advertised and state["device"]["advertised"] is True
        events.wait_for(lambda e: "time" in e, "the stream's hello")
        device.console("advance 1m")
        withdrawn = events.wait_for(lambda e: e.get("advertised") is False, "a discovery event: withdrawn")
        assert withdrawn["mode"] == "builtin" and withdrawn["interfaces"] == [link.device_if]
        assert withdrawn["reason"].startswith("withdrawn"), withdrawn
        state = control_state(link, device)
        assert state["discovery"] == withdrawn and state["device"]["advertised"] is False
        device.console("advance 1m")
        assert events.wait_for(lambda e: e.get("advertised") is True, "a discovery event: restored") == advertised
        assert control_state(link, device)["discovery"] == advertised
    finally:
        events.stop()
        device.stop()


# --------------------------------------------------------------------------
# --mdns avahi: the same records published through an avahi-daemon
# --------------------------------------------------------------------------


@pytest.fixture
def avahi(link: Link, tmp_path: Path) -> Iterator[AvahiDaemon]:
    try:
        daemon = AvahiDaemon(link, tmp_path / "avahi")
    except NamespaceUnavailable as error:
        pytest.fail(f"the Avahi backend's tests need an avahi-daemon of their own: {error}", pytrace=False)
    yield daemon
    daemon.stop()


def start_with_avahi(avahi: AvahiDaemon, link: Link, tmp_path: Path, castsim_bin: Path, *, name: str,
                     device_uuid: uuidlib.UUID, extra_args: tuple[str, ...] = (), console: bool = False) -> CastsimDevice:
    return start_castsim(
        castsim_bin, link.device_ip, tmp_path, name=name, device_uuid=device_uuid,
        extra_args=("--mdns", "avahi", "--interface", link.device_if, *quiet(extra_args), *extra_args),
        console=console, prefix=avahi.env_prefix())


def test_avahi_publishes_the_records_and_follows_the_device(avahi: AvahiDaemon, link: Link, tmp_path: Path,
                                                             castsim_bin: Path) -> None:
    device_uuid = uuidlib.uuid4()
    scenario = tmp_path / "vanish.json"
    scenario.write_text(json.dumps({
        "name": "vanish", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
        "timeline": [{"at": "1m", "withdraw": True}, {"at": "2m", "restore": True}],
    }))
    device = start_with_avahi(avahi, link, tmp_path, castsim_bin, name="Avahi Den", device_uuid=device_uuid,
                              extra_args=("--scenario", str(scenario)), console=True)
    browser = Browser(link, seconds=60)
    name = instance_name("Chromecast", device_uuid)
    try:
        found = browser.wait_for(lambda e: e["event"] == "added" and e["name"] == name)
        assert found["port"] == 8009 and found["server"] == f"{device_uuid}.local."
        assert link.device_ip in found["addresses"]
        assert found["txt"]["id"] == device_uuid.hex and found["txt"]["fn"] == "Avahi Den" and found["txt"]["st"] == "0"
        probe(link, "play", "Avahi Den", "http://media.test/movie.mp4")
        busy = browser.wait_for(lambda e: e["event"] == "updated" and e.get("txt", {}).get("st") == "1")
        assert busy["txt"]["rs"] == "Default Media Receiver"
        device.console("advance 1m")
        browser.wait_for(lambda e: e["event"] == "removed" and e["name"] == name)
        device.console("advance 1m")
        browser.wait_for(lambda e: e["event"] in ("added", "updated") and e["name"] == name and e.get("port") == 8009)
    finally:
        browser.stop()
        device.stop()


def test_avahi_drops_the_cast_service_and_keeps_the_android_tv_remote(avahi: AvahiDaemon, link: Link, tmp_path: Path,
                                                                     castsim_bin: Path) -> None:
    device_uuid = uuidlib.uuid4()
    device = start_with_avahi(avahi, link, tmp_path, castsim_bin, name="Lounge", device_uuid=device_uuid, console=True,
                              extra_args=("--scenario", str(google_tv_scenario(tmp_path))))
    try:
        check_cast_leaves_and_the_remote_stays(link, device, device_uuid)
    finally:
        device.stop()


def test_avahi_renames_on_a_collision(avahi: AvahiDaemon, link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    device_uuid = uuidlib.uuid4()
    label = instance_name("Chromecast", device_uuid).removesuffix("." + SERVICE)
    # Another publisher already holds the name.
    squatter = link.popen(link.device_ns, ["env", f"DBUS_SYSTEM_BUS_ADDRESS={avahi.bus_address}", "avahi-publish", "-s", label,
                                           "_googlecast._tcp", "9999", "id=other"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    browser = Browser(link, seconds=30)
    try:
        browser.wait_for(lambda e: e["event"] == "added" and e.get("port") == 9999)
        device = start_with_avahi(avahi, link, tmp_path, castsim_bin, name="Twin", device_uuid=device_uuid)
        try:
            renamed = browser.wait_for(lambda e: e["event"] == "added" and e.get("port") == 8009)
            assert renamed["name"] == f"{label} #2.{SERVICE}"
            assert renamed["txt"]["id"] == device_uuid.hex
            assert f'another host claims "{label}"' in device.stderr_path.read_text()
        finally:
            device.stop()
    finally:
        browser.stop()
        squatter.terminate()
        squatter.wait()


def test_avahi_without_libavahi_client_says_what_to_install(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    """castsim opens libavahi-client only when --mdns avahi asks (no build-time Avahi): where
    the library cannot be loaded, the start is refused with what to install, not a crash."""
    library = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    paths = [line.rsplit("=> ", 1)[1].strip() for line in library.splitlines()
             if line.strip().startswith("libavahi-client.so.3 ") and "x86-64" in line]
    assert paths, f"libavahi-client.so.3 is not installed (scripts/avahi-setup.sh installs it):\n{library[:500]}"
    # An empty file in its place, in a mount namespace of this command's own.
    command = (f"mount --bind /dev/null {paths[0]} && exec \"$@\"")
    result = subprocess.run(
        ["ip", "netns", "exec", link.device_ns, "unshare", "--mount", "--propagation", "private", "sh", "-c", command, "castsim",
         str(castsim_bin), "run", "--host", link.device_ip, "--port", "0", "--http-port", "off", "--https-port", "off",
         "--control-port", "off", "--mdns", "avahi", "--interface", link.device_if],
        capture_output=True, text=True, timeout=30, env={"XDG_STATE_HOME": str(tmp_path), "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "--mdns avahi needs libavahi-client" in result.stderr, result.stderr
    assert "apt install avahi-daemon libavahi-client3" in result.stderr and "--mdns builtin" in result.stderr, result.stderr
    assert "castsim ready" not in result.stdout
