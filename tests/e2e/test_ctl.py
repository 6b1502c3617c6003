"""`castsim ctl`: a person or a shell script drives a running castsim through its control API."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable

from e2e_harness import CastsimDevice, Sender, wait_until


def ctl(binary: Path, device: CastsimDevice, *words: str, token: str | None = None) -> subprocess.CompletedProcess:
    args = [str(binary), "ctl", "--url", device.control_url, *(("--token", token) if token else ()), *words]
    return subprocess.run(args, capture_output=True, text=True, timeout=30)


def test_ctl_drives_a_session_a_sender_sees(castsim_bin: Path, device: CastsimDevice, sender: Sender) -> None:
    sender.media.play_media("http://example.test/film.mp4", "video/mp4", title="A film")
    sender.media.block_until_active(timeout=10)
    wait_until(lambda: sender.media.status.player_state == "PLAYING", what="PLAYING")

    state = ctl(castsim_bin, device, "state")
    assert state.returncode == 0, state.stderr
    answer = json.loads(state.stdout)
    assert answer["media"]["playerState"] == "PLAYING"
    assert answer["media"]["items"][0]["media"]["metadata"]["title"] == "A film"
    # Indented for a person.
    assert state.stdout.startswith('{\n  "app": {')

    paused = ctl(castsim_bin, device, "pause")
    assert paused.returncode == 0 and json.loads(paused.stdout)["done"] == "remote pause"
    wait_until(lambda: sender.media.status.player_state == "PAUSED", what="pychromecast to see PAUSED")

    volume = ctl(castsim_bin, device, "volume", "0.3")
    assert volume.returncode == 0, volume.stderr
    wait_until(lambda: abs(sender.cast.status.volume_level - 0.3) < 1e-6, what="pychromecast to see volume 0.3")

    verified = ctl(castsim_bin, device, "verify", '{"message": {"namespace": "media", "type": "LOAD"}, "count": 1}')
    assert verified.returncode == 0 and json.loads(verified.stdout)["passed"] is True
    failed = ctl(castsim_bin, device, "verify", '{"message": {"type": "LOAD", "fields": {"media.contentId": "other.mp4"}}}')
    assert failed.returncode == 1
    nearest = json.loads(failed.stdout)["nearest"][0]
    assert nearest["entry"]["type"] == "LOAD"
    assert nearest["differences"] == ['media.contentId: expected = "other.mp4", got "http://example.test/film.mp4"']
    assert failed.stderr.startswith("castsim ctl: verify failed: 0 messages matched")
    assert '(media.contentId: expected = "other.mp4", got "http://example.test/film.mp4")' in failed.stderr

    journal = ctl(castsim_bin, device, "journal", "type=LOAD", "direction=in")
    assert journal.returncode == 0, f"exit {journal.returncode}: {journal.stderr}"
    assert [m["type"] for m in json.loads(journal.stdout)["messages"]] == ["LOAD"]


def test_ctl_advances_a_manual_clock(castsim_bin: Path, castsim_factory: Callable[..., CastsimDevice]) -> None:
    device = castsim_factory(extra_args=("--manual-clock",))
    advanced = ctl(castsim_bin, device, "advance", "10m")
    assert advanced.returncode == 0, advanced.stderr
    assert json.loads(advanced.stdout) == {"mode": "manual", "speed": None, "time": 600}
    report = ctl(castsim_bin, device, "report", "junit")
    assert report.returncode == 0 and report.stdout.startswith('<?xml version="1.0"')


def test_ctl_refuses_with_a_reason(castsim_bin: Path, device: CastsimDevice) -> None:
    # A verb castsim ctl does not know: refused before any request, with the verbs it knows.
    unknown = ctl(castsim_bin, device, "dance")
    assert unknown.returncode != 0 and 'unknown verb "dance"; expected one of state, journal' in unknown.stderr
    bad_level = ctl(castsim_bin, device, "volume", "3")
    assert bad_level.returncode != 0 and "volume 3: expected a level from 0 to 1" in bad_level.stderr
    # castsim refuses: its reason and the JSON path of the problem.
    refused = ctl(castsim_bin, device, "act", '{"remote": "paws"}')
    assert refused.returncode == 1
    assert 'castsim ctl: 400: not an action: remote: expected one of "play", "pause", "stop", "next", "previous", got "paws"' in refused.stderr
    # The real clock cannot be advanced by hand.
    real = ctl(castsim_bin, device, "advance", "1s")
    assert real.returncode == 1 and "409: the clock is real" in real.stderr
    # Nobody listening: exit status 2 and what to check.
    gone = subprocess.run([str(castsim_bin), "ctl", "--url", "http://127.0.0.1:1", "state"], capture_output=True, text=True, timeout=30)
    assert gone.returncode == 2 and "cannot reach castsim's control API at http://127.0.0.1:1" in gone.stderr


def test_ctl_with_a_token(castsim_bin: Path, castsim_factory: Callable[..., CastsimDevice]) -> None:
    device = castsim_factory(extra_args=("--control-token", "s3cret"))
    anonymous = ctl(castsim_bin, device, "state")
    assert anonymous.returncode == 1 and "401: this castsim's control API needs its token" in anonymous.stderr
    assert ctl(castsim_bin, device, "state", token="s3cret").returncode == 0


def test_the_control_api_binds_only_loopback_without_a_token(castsim_bin: Path) -> None:
    result = subprocess.run(
        [str(castsim_bin), "run", "--host", "127.0.0.1", "--port", "0", "--http-port", "off", "--https-port", "off",
         "--mdns", "off", "--control-host", "0.0.0.0", "--control-port", "0"],
        capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "--control-host 0.0.0.0 is reachable from the network: give a --control-token" in result.stderr


def test_ctl_events_prints_each_event_once_as_it_comes(castsim_bin: Path, device: CastsimDevice) -> None:
    follower = subprocess.Popen(
        [str(castsim_bin), "ctl", "--url", device.control_url, "events"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    # The stream never ends by itself: a thread reads it, the test waits with a deadline.
    threading.Thread(target=lambda: [lines.put(line) for line in follower.stdout], daemon=True).start()
    seen: list[str] = []

    def wait_for(count: int, marker: str) -> None:
        deadline = time.monotonic() + 10
        while sum(marker in line for line in seen) < count:
            try:
                seen.append(lines.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"{count} x {marker!r} not printed; got {seen}") from None

    try:
        wait_for(1, "event: hello")
        for standby in ("true", "false", "true"):
            assert ctl(castsim_bin, device, "act", f'{{"standby": {standby}}}').returncode == 0
        wait_for(3, '"kind":"standbyChanged"')
        time.sleep(0.3)  # anything printed twice would be here by now
        while not lines.empty():
            seen.append(lines.get())
        # Each event once: a follower that printed everything again with each new chunk
        # would show the hello line again and again.
        assert sum(line.startswith("event: hello") for line in seen) == 1
        assert sum('"kind":"standbyChanged"' in line for line in seen) == 3
    finally:
        follower.terminate()
        follower.wait(timeout=10)


def test_ctl_events_refused_exits_1_with_the_reason_on_stderr(castsim_bin: Path, device: CastsimDevice) -> None:
    # A stream the server refuses (no such device) is a refusal like any verb's: before,
    # its error JSON went to standard output and the exit status was 0.
    result = subprocess.run([str(castsim_bin), "ctl", "--url", device.control_url, "--device", "Nowhere", "events"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith('castsim ctl: 404: no device "Nowhere"'), result.stderr
