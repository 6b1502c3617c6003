"""Chromium's own tab mirroring to castsim (docs/protocol/streaming.md): headless Chromium in
the sender's network namespace (its Cast discovery ignores loopback) finds castsim over mDNS,
trusts its developer root, and mirrors a tab of one colour through the DevTools protocol's Cast
domain; castsim receives the stream and its picture shows that colour."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from e2e_harness import REPO_ROOT, CastsimDevice, start_castsim, wait_until
from netns import JsonLines, Link, NamespaceUnavailable, create_link
from streaming_media import hex_color

PYTHON = sys.executable
DRIVER = Path(__file__).with_name("chromium_mirroring.py")
SINK = "castsim mirror"


@pytest.fixture
def link() -> Iterator[Link]:
    try:
        made = create_link(subnet=78)
    except NamespaceUnavailable as error:
        pytest.fail(f"the Chromium test needs network namespaces of its own: {error}", pytrace=False)
    yield made
    made.destroy()


def streaming(link: Link, device: CastsimDevice) -> dict[str, Any]:
    """The state's mirroring session, read inside the device's namespace (where its control API is)."""
    read = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"
    result = link.run(link.device_ns, [PYTHON, "-c", read, f"{device.control_url}/api/v1/state"],
                      capture_output=True, text=True, timeout=20)
    assert result.returncode == 0, result.stderr
    return (json.loads(result.stdout).get("mirroring") or {}).get("streaming") or {}


def greenish(color: str) -> bool:
    red, green, blue = hex_color(color)
    return green > 150 and red < 60 and blue < 60


@contextmanager
def castsim_and_chromium(link: Link, tmp_path: Path, castsim_bin: Path, *driver_args: str) -> Iterator[tuple[CastsimDevice, JsonLines]]:
    """castsim in the device's namespace, advertised on the veth; the driver and its Chromium in
    the sender's, showing a green page; both stopped at the end."""
    device = start_castsim(castsim_bin, link.device_ip, tmp_path, name=SINK, model="Chromecast",
                           extra_args=("--mdns", "builtin", "--interface", link.device_if, "--certs", str(REPO_ROOT / "certs")),
                           prefix=("ip", "netns", "exec", link.device_ns))
    chromium = JsonLines(link.popen(link.sender_ns, [
        PYTHON, str(DRIVER), "--sink", SINK, "--cert", str(REPO_ROOT / "certs" / "root.crt"), "--color", "#00c000",
        "--profile", str(tmp_path / "chromium"), *driver_args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True))
    try:
        yield device, chromium
    finally:
        # The driver and the Chromium it started, together: they share a session.
        try:
            os.killpg(chromium.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        chromium.stop()
        device.stop()


def mirrored_green(link: Link, device: CastsimDevice, chromium: JsonLines) -> dict[str, Any]:
    """Waits for the driver's mirroring, castsim's session and its first picture, which is green."""
    started = chromium.wait_for(lambda e: e.get("event") in ("mirroring", "error"), what="Chromium to start mirroring", timeout=90)
    assert started["event"] == "mirroring", chromium.seen
    session = wait_until(lambda: streaming(link, device) if streaming(link, device).get("state") == "streaming" else None,
                         timeout=30, what="Chromium's streaming session")
    wait_until(lambda: (streaming(link, device).get("picture") or {}).get("averageColor"), timeout=30, what="a picture")
    picture = streaming(link, device)["picture"]
    assert greenish(picture["averageColor"]), picture
    return session


def test_chromium_mirrors_a_tab_to_castsim(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    with castsim_and_chromium(link, tmp_path, castsim_bin, "--seconds", "25") as (device, chromium):
        session = mirrored_green(link, device, chromium)
        codecs = {s["kind"]: s["codec"] for s in session["streams"]}
        assert codecs.get("video") in ("vp8", "vp9"), session
        # A still page: Chromium sends a frame only now and then, but it goes on sending.
        def video() -> dict[str, Any]:
            return next(s for s in streaming(link, device)["streams"] if s["kind"] == "video")
        first = video()["framesReceived"]
        wait_until(lambda: video()["framesReceived"] >= first + 10, timeout=30, what="Chromium to keep streaming")
        # Acknowledged at once; the 5 ms budget is castsim-load streaming's on a quiet machine,
        # here Chromium encodes beside other tests on two cores.
        assert video()["ackLatencyP99"] < 50 and video()["checkpointLag"] <= 2, video()
        print(json.dumps(streaming(link, device)))


def test_chromium_presentation_api_loads_media_on_castsim_then_mirrors(link: Link, tmp_path: Path, castsim_bin: Path) -> None:
    """A page's PresentationRequest for the Default Media Receiver, started by a real click with
    Cast.setSinkToUse: the presentation connection opens, and a LOAD sent through it comes back
    as MEDIA_STATUS from castsim. Then the same tab (a page of one colour) is mirrored to the
    same sink: the mirroring app takes over and castsim's picture has that colour."""
    with castsim_and_chromium(link, tmp_path, castsim_bin, "--mode", "presentation", "--then-mirror", "--seconds", "30") as (device, chromium):
        status = chromium.wait_for(lambda e: e.get("event") in ("media_status", "error"), what="MEDIA_STATUS", timeout=120)
        assert status["event"] == "media_status", chromium.seen
        assert status["status"] and status["status"][0]["media"]["contentId"].endswith("e2e.mp4"), status
        assert any(e.get("event") == "presentation" and e.get("state") == "connected" for e in chromium.seen), chromium.seen
        mirrored_green(link, device, chromium)
