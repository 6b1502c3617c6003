"""End-to-end: record, convert, replay (issue 12).

pychromecast plays a queue against castsim started with --record; `castsim scenario
from-recording` turns the recording into a scenario; castsim runs that scenario with
--exit-when-done while the same pychromecast script plays again, and its expectations pass;
the script with one step changed fails them. The recording itself is checked against the
published JSON Schema (docs/recording.schema.json), and the control API starts and stops
recordings.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import jsonschema
from pychromecast.controllers.media import MEDIA_PLAYER_STATE_PAUSED, STREAM_TYPE_BUFFERED
from pychromecast.response_handler import WaitResponse

from e2e_harness import REPO_ROOT, CastsimDevice, Sender, TrafficRecorder, connect_sender, disconnect_sender, wait_until

SCHEMA = json.loads((REPO_ROOT / "docs" / "recording.schema.json").read_text())
MEDIA = "http://media.castsim.test/queue"


def play(sender: Sender, title: str, **kwargs) -> None:
    handler = WaitResponse(10.0, f"play_media {title}")
    sender.media.play_media(f"{MEDIA}/{title.lower()}.mp3", "audio/mpeg", title=title,
                            stream_type=STREAM_TYPE_BUFFERED, callback_function=handler.callback, **kwargs)
    handler.wait_response()
    assert handler.response is not None, f"no reply to play_media {title}"


def play_queue(device: CastsimDevice, titles: list[str]) -> list[str]:
    """The sender's script: a queue of three, next, pause, the device volume; what it saw."""
    sender = connect_sender(device)
    multizone = TrafficRecorder(sender, ("urn:x-cast:com.google.cast.multizone",))
    seen: list[str] = []
    try:
        play(sender, titles[0])
        for title in titles[1:]:
            play(sender, title, enqueue=True)
        wait_until(lambda: sender.media.status.supports_queue_next, what="QUEUE_NEXT supported")
        sender.media.queue_next()
        wait_until(lambda: sender.media.status.title == titles[1], what=f"title {titles[1]}",
                   details=sender.describe)
        seen.append(sender.media.status.title)
        sender.media.pause()
        wait_until(lambda: sender.media.status.player_state == MEDIA_PLAYER_STATE_PAUSED, what="PAUSED")
        seen.append(sender.media.status.player_state)
        sender.cast.set_volume(0.4)
        wait_until(lambda: abs(sender.cast.status.volume_level - 0.4) < 1e-6, what="volume 0.4")
        seen.append(f"volume {sender.cast.status.volume_level:.1f}")
        # Like a speaker, castsim follows a volume change with DEVICE_UPDATED about itself
        # (docs/protocol/groups.md §4.3). Read before disconnecting: a socket closed with bytes
        # unread sends a reset, and the recording would say so.
        wait_until(lambda: any(data.get("type") == "DEVICE_UPDATED" for *_, data in multizone.received),
                   what="DEVICE_UPDATED after the volume change")
    finally:
        problem = disconnect_sender(sender)
        assert problem is None, problem
    return seen


def castsim(castsim_bin: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(castsim_bin), *args], capture_output=True, text=True, timeout=120)


def read_recording(path: Path) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for number, line in enumerate(lines, start=1):
        try:
            jsonschema.validate(line, SCHEMA)
        except jsonschema.ValidationError as error:
            raise AssertionError(f"line {number} of {path} does not match the schema: {error.message}\n{line}") from None
    return lines


def wait_for_exit(device: CastsimDevice, timeout: float) -> int:
    # It ends by itself (--exit-when-done): not a crash for the fixture's teardown.
    try:
        return device.wait_exit(timeout=timeout)
    finally:
        device.stop()


def test_record_convert_replay(castsim_factory, castsim_bin: Path, tmp_path: Path) -> None:
    titles = ["One", "Two", "Three"]
    recording = tmp_path / "queue.jsonl"
    device = castsim_factory(extra_args=("--record", str(recording), "--redact", "customData.sessionToken",
                                         "--idle-timeout", "300"))
    seen = play_queue(device, titles)
    assert seen == ["Two", MEDIA_PLAYER_STATE_PAUSED, "volume 0.4"]
    # pychromecast has closed its socket; castsim hears of it on its own time. Stopped
    # before then, castsim would close the connection itself and record that instead.
    wait_until(lambda: not device.client.state().connections, what="castsim to see pychromecast's close")
    assert device.stop() == 0

    lines = read_recording(recording)
    header, events = lines[0], lines[1:]
    assert header["format"] == "castsim-recording" and header["version"] == 1
    assert header["source"] == "device" and header["device"]["name"] == device.name
    assert header["redacted"] == ["customData.sessionToken"]
    kinds = {event["event"] for event in events}
    assert {"connected", "message", "disconnected"} <= kinds, kinds
    sent = [e["payload"].get("type") for e in events if e["event"] == "message" and e["direction"] == "in"]
    assert sent.count("QUEUE_INSERT") == 2 and "LOAD" in sent and "QUEUE_UPDATE" in sent and "PAUSE" in sent, sent
    replies = [e for e in events if e["event"] == "message" and e["direction"] == "out"]
    assert any(e["payload"].get("type") == "MEDIA_STATUS" for e in replies)
    assert [e["how"] for e in events if e["event"] == "disconnected"] == ["clean"]
    assert all(a["t"] <= b["t"] for a, b in zip(events, events[1:])), "time goes backwards"

    shown = castsim(castsim_bin, "recording", "show", str(recording), "--namespace", "media", "--type", "LOAD")
    assert shown.returncode == 0, shown.stderr
    load_lines = shown.stdout.splitlines()[1:]
    assert len(load_lines) == 1 and "→" in load_lines[0] and f"contentId={MEDIA}/one.mp3" in load_lines[0], shown.stdout

    converted = castsim(castsim_bin, "scenario", "from-recording", str(recording))
    assert converted.returncode == 0, converted.stderr
    # castsim reproduces castsim: the header carries how the device was run (--idle-timeout).
    assert "0 requests answered as recorded" in converted.stderr, converted.stderr
    scenario_path = tmp_path / "bug.json"
    scenario_path.write_text(converted.stdout)
    scenario = json.loads(converted.stdout)
    assert scenario["device"]["uuid"].replace("-", "") == device.uuid.hex
    assert header["scenario"]["device"]["idleTimeout"] == scenario["device"]["idleTimeout"] == "5m"
    assert f"{MEDIA}/two.mp3" in scenario["media"], scenario.get("media")
    sequence = scenario["expectations"][0]["sequence"]
    assert {"namespace": "media", "type": "QUEUE_INSERT"}.items() <= sequence[[p.get("type") for p in sequence].index("QUEUE_INSERT")].items()
    validated = castsim(castsim_bin, "validate", str(scenario_path))
    assert validated.returncode == 0, validated.stderr

    # The same script against the replay passes the expectations; castsim exits 0.
    report = tmp_path / "replay.report.json"
    replay = castsim_factory(extra_args=("--scenario", str(scenario_path), "--exit-when-done", "--timeout", "60s",
                                         "--report", str(report)))
    assert play_queue(replay, titles) == seen
    status = wait_for_exit(replay, timeout=60)
    outcome = json.loads(report.read_text())
    assert status == 0, f"replay exited {status}: {json.dumps(outcome, indent=1)[:3000]}"
    assert outcome["passed"] and all(e["passed"] for e in outcome["expectations"])

    # One step changed (the second item is another file): the expectations fail.
    report = tmp_path / "changed.report.json"
    changed = castsim_factory(extra_args=("--scenario", str(scenario_path), "--exit-when-done", "--timeout", "15s",
                                          "--report", str(report)))
    play_queue(changed, ["One", "Deux", "Three"])
    status = wait_for_exit(changed, timeout=60)
    outcome = json.loads(report.read_text())
    assert status == 1, f"the changed script passed: {outcome}"
    failed = [e for e in outcome["expectations"] if not e["passed"]]
    assert failed, outcome
    closest = [e for e in failed[0]["evidence"] if e["role"] == "closest"]
    assert closest and "deux.mp3" in json.dumps(closest[0]["payload"]), f"the report shows what the sender sent instead: {failed}"


def api(device: CastsimDevice, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{device.control_url}/api/v1{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_recording_through_the_control_api(castsim_factory, tmp_path: Path) -> None:
    device = castsim_factory()
    path = tmp_path / "api.jsonl"
    assert api(device, "GET", "/recording") == (200, {"recording": False})
    status, body = api(device, "POST", "/recording", {"path": str(path), "redact": ["credentials"]})
    assert status == 201 and body["recording"] and body["path"] == str(path), body
    assert api(device, "POST", "/recording", {"path": str(tmp_path / "b.jsonl")})[0] == 409, "one recording at a time"
    sender = connect_sender(device)
    try:
        wait_until(lambda: sender.cast.status is not None, what="receiver status")
        assert api(device, "POST", "/act", {"volume": {"level": 0.25}})[0] == 200
        wait_until(lambda: abs(sender.cast.status.volume_level - 0.25) < 1e-6, what="volume 0.25")
    finally:
        disconnect_sender(sender)
    wait_until(lambda: api(device, "GET", "/recording")[1]["events"] > 3, what="events written within a second")
    status, body = api(device, "DELETE", "/recording")
    assert status == 200 and not body["recording"] and body["events"] > 3, body
    assert api(device, "DELETE", "/recording")[0] == 404
    lines = read_recording(path)
    assert lines[0]["redacted"] == ["credentials"]
    inputs = [line for line in lines[1:] if line["event"] == "input"]
    assert [line["action"] for line in inputs] == [{"volume": {"level": 0.25}}]
    statuses = [line for line in lines[1:] if line["event"] == "message" and line["payload"].get("type") == "RECEIVER_STATUS"]
    assert any(line["payload"]["status"]["volume"]["level"] == 0.25 and line["t"] >= inputs[0]["t"] for line in statuses)

    # Refusals name what was expected; the file is left alone.
    assert api(device, "POST", "/recording", {"path": str(path)})[0] == 409
    # A folder is no file to overwrite: said at once, not a 409 that suggests "overwrite".
    status, body = api(device, "POST", "/recording", {"path": str(tmp_path)})
    assert status == 422 and "it is a directory" in body["error"], body
    status, body = api(device, "POST", "/recording", {"path": str(tmp_path / "c.jsonl"), "redact": ["a..b"]})
    assert status == 400 and "a..b" in json.dumps(body), body
    assert api(device, "POST", "/recording", {"redact": []})[0] == 400
    status, body = api(device, "POST", "/recording", {"path": str(tmp_path / "no-such-folder" / "x.jsonl")})
    assert status == 422 and "no-such-folder" in json.dumps(body), body
    # overwrite replaces a recording, never another file.
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    status, body = api(device, "POST", "/recording", {"path": str(notes), "overwrite": True})
    assert status == 409 and notes.read_text() == "my notes\n", body
    status, body = api(device, "POST", "/recording", {"path": str(path), "overwrite": True})
    assert status == 201, body
    assert api(device, "DELETE", "/recording")[0] == 200


def test_a_killed_castsim_leaves_a_readable_recording(castsim_factory, castsim_bin: Path, tmp_path: Path) -> None:
    """Events reach the file within a tenth of a second, with no stop: SIGKILL loses at most the last moment."""
    path = tmp_path / "killed.jsonl"
    device = castsim_factory(extra_args=("--record", str(path)))
    sender = connect_sender(device)
    try:
        sender.cast.set_volume(0.3)
        wait_until(lambda: abs(sender.cast.status.volume_level - 0.3) < 1e-6, what="volume 0.3")
        time.sleep(1.0)
        device.stop(sig=signal.SIGKILL)
    finally:
        disconnect_sender(sender)
    lines = read_recording(path)
    sent = [line["payload"]["type"] for line in lines[1:] if line["event"] == "message" and line["direction"] == "in"]
    assert "SET_VOLUME" in sent, sent
    assert any(line["event"] == "message" and line["payload"].get("type") == "RECEIVER_STATUS"
               and line["payload"]["status"]["volume"]["level"] == 0.3 for line in lines[1:])
    shown = castsim(castsim_bin, "recording", "show", str(path), "--type", "SET_VOLUME")
    assert shown.returncode == 0 and "level=0.3" in shown.stdout, shown.stdout + shown.stderr
