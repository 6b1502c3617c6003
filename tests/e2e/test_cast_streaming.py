"""Cast Streaming (docs/protocol/streaming.md) with Open Screen's own sender, cast_sender 1.2.0:
it authenticates, launches the mirroring app, has its OFFER answered, and streams a video made
with Debian's ffmpeg for 30 s. castsim must take nearly every frame, keep it streaming (ACKs),
and show what it streams: a red picture, then a blue one."""

from __future__ import annotations

import json
import subprocess
import time
import zlib
from pathlib import Path
from typing import Any, Callable

import pytest

from castsim.castv2 import NS_CONNECTION, NS_RECEIVER
from device_auth_verifier import CastConnection
from e2e_harness import CAST_PORT, REPO_ROOT, CastsimDevice, wait_until
from streaming_media import hex_color, two_color_video

CAST_SENDER_PYTHON = REPO_ROOT / ".venv-cast-sender" / "bin" / "python"
DRIVER = Path(__file__).with_name("cast_sender_driver.py")
WEBRTC = "urn:x-cast:com.google.cast.webrtc"


def streaming(device: CastsimDevice) -> dict[str, Any]:
    """The mirroring app's session as the state shows it ({} while the app does not run)."""
    return device.client.state().streaming or {}


def png_average(png: bytes) -> tuple[int, int, int]:
    """The mean colour of castsim's PNG (8-bit RGB, each row filtered with type 0)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width = height = 0
    data = b""
    offset = 8
    while offset < len(png):
        length = int.from_bytes(png[offset:offset + 4], "big")
        kind = png[offset + 4:offset + 8]
        body = png[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
            assert body[8:10] == b"\x08\x02", "8-bit RGB"
        elif kind == b"IDAT":
            data += body
        offset += 12 + length
    raw = zlib.decompress(data)
    sums = [0, 0, 0]
    for row in range(height):
        start = row * (width * 3 + 1)
        assert raw[start] == 0, "row filter 0"
        pixels = raw[start + 1:start + 1 + width * 3]
        for channel in range(3):
            sums[channel] += sum(pixels[channel::3])
    return tuple(s // (width * height) for s in sums)  # type: ignore[return-value]


def reddish(rgb: tuple[int, int, int]) -> bool:
    return rgb[0] > 200 and rgb[1] < 40 and rgb[2] < 40


def bluish(rgb: tuple[int, int, int]) -> bool:
    return rgb[2] > 200 and rgb[0] < 40 and rgb[1] < 40


def test_cast_sender_streams_to_castsim(castsim_factory: Callable[..., CastsimDevice], tmp_path: Path) -> None:
    assert CAST_SENDER_PYTHON.exists(), "scripts/e2e-setup.sh makes .venv-cast-sender with cast_sender"
    video = two_color_video(tmp_path / "red-blue.mp4", first="red", second="blue", switch_at=14, seconds=45)
    device = castsim_factory()
    log = tmp_path / "cast_sender.log"
    events = device.client.subscribe(types=["device"])
    driver = subprocess.Popen(
        [str(CAST_SENDER_PYTHON), str(DRIVER), "--host", device.host, "--port", str(CAST_PORT),
         "--cert", str(REPO_ROOT / "certs" / "root.crt"), "--file", str(video), "--seconds", "32", "--log", str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: streaming(device).get("state") == "streaming", timeout=15, what="a streaming session")
        began = time.monotonic()
        udp_port = streaming(device)["udpPort"]
        # The video is red for its first 14 s (it starts about a second after the ANSWER).
        wait_until(lambda: streaming(device).get("picture") is not None, timeout=10, what="a first picture")
        time.sleep(4)
        red = streaming(device)["picture"]
        assert reddish(hex_color(red["averageColor"])), red
        assert reddish(png_average(device.client.streaming_picture()))
        assert (red["width"], red["height"]) == (1280, 720)
        # Then blue: castsim asks for a key frame when its picture is 2 s old.
        wait_until(lambda: bluish(hex_color((streaming(device).get("picture") or {}).get("averageColor", "#000000"))),
                   timeout=25, what="a blue picture")
        assert bluish(png_average(device.client.streaming_picture()))
        # The figures near the end, while the app still runs (cast_sender's STOP, when it
        # arrives, stops it).
        time.sleep(max(0.0, 29.5 - (time.monotonic() - began)))
        figures = streaming(device)
        out, err = driver.communicate(timeout=60)
        # The sender's teardown: its connection closes (or its STOP arrives), and the
        # session ends, saying why.
        ended = device.client.wait_for(lambda e: e.kind == "streaming" and e.data["streaming"]["phase"] == "ended",
                                       on="events", stream=events, timeout=10, what="the session's end")
        assert ended.data["streaming"]["reason"] in ("the sender's connection closed", "the app stopped")
    finally:
        events.close()
        if driver.poll() is None:
            driver.kill()
            driver.communicate()
    assert driver.returncode == 0, f"cast_sender_driver.py exited {driver.returncode}: {err[-2000:]}"
    summary = json.loads(out.strip().splitlines()[-1])
    sender_log = log.read_text(errors="replace")
    assert summary["started"] and not summary["fatal"], f"{summary}\n{sender_log[-3000:]}"
    # ACKs kept it streaming for the whole 30 s.
    seconds = (summary["elapsedUs"] or 0) / 1e6
    assert seconds >= 29, f"cast_sender streamed {seconds:.1f} s only: {summary}\n{sender_log[-3000:]}"
    assert summary["udpPort"] == udp_port
    # At least 90 % of the frames the sender sent by the time the figures were read
    # (30 fps video, 100 Opus frames a second, less those its encoder dropped).
    video = next(s for s in figures["streams"] if s["kind"] == "video")
    audio = next(s for s in figures["streams"] if s["kind"] == "audio")
    assert video["codec"] == "vp8" and audio["codec"] == "opus"
    sent = 28 - 1.5  # read 29.5 s after the ANSWER; frames start about a second after it
    assert video["framesReceived"] >= 0.9 * (30 * sent - summary["videoDropped"]), (video, summary)
    assert audio["framesReceived"] >= 0.9 * (100 * sent - summary["audioDropped"]), (audio, summary)
    assert video["ackLatencyP99"] < 5 and video["checkpointLag"] <= 2, video
    assert summary["kickstarts"] < 10, summary


def offer(seq_num: int, **audio_changes: Any) -> dict[str, Any]:
    audio = {"index": 0, "type": "audio_source", "codecName": "opus", "rtpProfile": "cast", "rtpPayloadType": 127,
             "ssrc": 49762, "targetDelay": 400, "timeBase": "1/48000", "channels": 2, "bitRate": 192000,
             "aesKey": "64b3dfdfc2269f76210bc15de24bb9e0", "aesIvMask": "1afe9b46c66f48922954ecadcd0b95ab"}
    audio.update(audio_changes)
    audio = {key: value for key, value in audio.items() if value is not None}
    video = {"index": 1, "type": "video_source", "codecName": "vp8", "rtpProfile": "cast", "rtpPayloadType": 96,
             "ssrc": 63938, "targetDelay": 400, "timeBase": "1/90000", "maxFrameRate": "30", "maxBitRate": 5050880,
             "resolutions": [{"width": 1920, "height": 1080}],
             "aesKey": "f3c60af2647f7084959943258f6f3a69", "aesIvMask": "cadbe4d77d4980d4661a5ba84b505e42"}
    return {"type": "OFFER", "seqNum": seq_num, "offer": {"castMode": "mirroring", "supportedStreams": [audio, video]}}


def test_a_malformed_offer_gets_the_error_answer_and_the_next_one_is_answered(castsim_factory: Callable[..., CastsimDevice]) -> None:
    device = castsim_factory()
    connection = CastConnection(device.host, CAST_PORT)

    def until(namespace: str, wanted: Callable[[dict], bool], what: str) -> dict:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            message = connection.receive(timeout=max(0.1, deadline - time.monotonic()))
            if message is None:
                break
            payload = json.loads(message.payload_utf8) if message.payload_utf8 else {}
            if message.namespace == namespace and wanted(payload):
                return payload
        raise AssertionError(f"no {what}")

    try:
        connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}))
        connection.send(NS_RECEIVER, text=json.dumps({"type": "GET_APP_AVAILABILITY", "appId": ["0F5096E8", "85CDB22F"], "requestId": 1}))
        availability = until(NS_RECEIVER, lambda p: p.get("requestId") == 1, "GET_APP_AVAILABILITY's answer")
        assert availability["availability"] == {"0F5096E8": "APP_AVAILABLE", "85CDB22F": "APP_AVAILABLE"}
        connection.send(NS_RECEIVER, text=json.dumps({"type": "LAUNCH", "appId": "0F5096E8", "requestId": 2}))
        status = until(NS_RECEIVER, lambda p: p.get("type") == "RECEIVER_STATUS" and p.get("requestId") == 2, "RECEIVER_STATUS")
        transport = status["status"]["applications"][0]["transportId"]
        source = "streaming_sender-10000"
        connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}), source=source, destination=transport)
        connection.send(WEBRTC, text=json.dumps(offer(1, aesKey=None)), source=source, destination=transport)
        refused = until(WEBRTC, lambda p: p.get("type") == "ANSWER", "the error ANSWER")
        assert refused["seqNum"] == 1 and refused["result"] == "error" and refused["error"]["code"] == 10105, refused
        connection.send(WEBRTC, text=json.dumps(offer(2)), source=source, destination=transport)
        answer = until(WEBRTC, lambda p: p.get("type") == "ANSWER", "the ANSWER")
        body = answer["answer"]
        assert answer["seqNum"] == 2 and answer["result"] == "ok", answer
        assert body["sendIndexes"] == [0, 1] and body["ssrcs"] == [49763, 63939] and 0 < body["udpPort"] < 65536
        assert streaming(device)["state"] == "streaming" and streaming(device)["udpPort"] == body["udpPort"]
    finally:
        connection.close()
