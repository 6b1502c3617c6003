"""Cast Streaming (docs/protocol/streaming.md) with Open Screen's own sender, cast_sender 1.2.0:
it authenticates, launches the mirroring app, has its OFFER answered, and streams a video made
with Debian's ffmpeg for 30 s. castsim must take nearly every frame, keep it streaming (ACKs),
and show what it streams: a red picture, then a blue one. And what Chrome looks at before it
offers mirroring: the apps' availability and the device's `ca` bits."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid as uuidlib
import zlib
from pathlib import Path
from typing import Any, Callable

import pytest

from castsim.castv2 import NS_CONNECTION, NS_RECEIVER
from castsim.errors import ControlError
from device_auth_verifier import CastConnection
from e2e_harness import CAST_PORT, REPO_ROOT, CastsimDevice, start_castsim, wait_until
from netns import NamespaceUnavailable, create_link
from streaming_media import hex_color, moving_video, two_color_video

CAST_SENDER_PYTHON = REPO_ROOT / ".venv-cast-sender" / "bin" / "python"
DRIVER = Path(__file__).with_name("cast_sender_driver.py")
DISCOVERY_PROBE = Path(__file__).with_name("discovery_probe.py")
WEBRTC = "urn:x-cast:com.google.cast.webrtc"
MIRRORING_APPS = ("0F5096E8", "85CDB22F")  # audio+video, audio only


def streaming(device: CastsimDevice) -> dict[str, Any]:
    """The mirroring app's session as the state shows it ({} while the app does not run)."""
    return device.client.state().streaming or {}


def start_cast_sender(device: CastsimDevice, video: Path, log: Path, seconds: float, *args: str) -> subprocess.Popen:
    """cast_sender_driver.py streaming `video` to the device for `seconds`, in a process of its own."""
    assert CAST_SENDER_PYTHON.exists(), "scripts/e2e-setup.sh makes .venv-cast-sender with cast_sender"
    return subprocess.Popen(
        [str(CAST_SENDER_PYTHON), str(DRIVER), "--host", device.host, "--port", str(CAST_PORT),
         "--cert", str(REPO_ROOT / "certs" / "root.crt"), "--file", str(video), "--seconds", str(seconds),
         "--log", str(log), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def log_tail(log: Path, characters: int = 3000) -> str:
    text = log.read_text(errors="replace") if log.exists() else "(no log)"
    return f"cast_sender's log ({log}), its end:\n{text[-characters:]}"


def cast_sender_summary(driver: subprocess.Popen, log: Path, timeout: float = 60) -> dict[str, Any]:
    """The driver's JSON line, printed once the session is over and before cast_sender's
    teardown; a clear failure when it crashed before it (cast_sender aborts its process on
    some ANSWERs) or printed none. cast_sender 1.2.0 now and then dies (SIGSEGV) in its own
    teardown, after its session and its statistics: that is noted, not failed."""
    out, err = driver.communicate(timeout=timeout)
    lines = [json.loads(line) for line in out.strip().splitlines() if line.startswith("{")]
    summary = next((line for line in lines if "started" in line), None)
    if summary is None:
        pytest.fail(f"cast_sender_driver.py exited with {driver.returncode} and no summary "
                    f"(a negative status is the signal that ended it)\n{err[-1500:]}\n{log_tail(log)}", pytrace=False)
    summary["exitAfterSession"] = driver.returncode
    if driver.returncode != 0:
        print(f"note: cast_sender ended with {driver.returncode} in its teardown, after its session and its summary")
    return summary


def frames_sent(summary: dict[str, Any], kind: str, per_second: float) -> tuple[float, str]:
    """How many `kind` frames cast_sender sent, and how that is known: its own figures (frames
    captured, less those its encoder dropped; the frames it logs as `Dropping` for too much in
    flight never count as captured), else how long it streamed, less those it logged dropping.
    Its own figures matter: on a busy machine its VP8 encoder falls well below 30 fps."""
    dropped = summary[f"{kind}Dropped"]
    figures = ((summary.get("statistics") or {}).get(f"{kind}_statistics")) or {}
    if figures.get("NumFramesCaptured") is not None:
        captured = figures["NumFramesCaptured"]
        by_encoder = figures.get("NumFramesDroppedByEncoder") or 0
        return captured - by_encoder, f"its figures: {captured:.0f} captured, {by_encoder:.0f} dropped by its encoder"
    seconds = (summary["elapsedUs"] or 0) / 1e6
    return per_second * seconds - dropped, f"no figures logged: {per_second:g}/s x {seconds:.1f} s - {dropped} dropped"


def receive_until(connection: CastConnection, namespace: str, wanted: Callable[[dict], bool], what: str,
                  timeout: float = 10) -> dict:
    """The next message on `namespace` whose JSON payload `wanted` takes."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = connection.receive(timeout=max(0.1, deadline - time.monotonic()))
        if message is None:
            break
        payload = json.loads(message.payload_utf8) if message.payload_utf8 else {}
        if message.namespace == namespace and wanted(payload):
            return payload
        seen.append((message.namespace, payload.get("type")))
    raise AssertionError(f"no {what} within {timeout} s; saw {seen}")


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
    # 360p: cast_sender encodes what it reads in real time, and at 720p this test took 42
    # CPU-seconds (12 at 360p) of the two cores the whole suite shares. Flat colours make
    # one-packet frames at either size; the lossy network test streams a moving 720p pattern.
    video = two_color_video(tmp_path / "red-blue.mp4", first="red", second="blue", switch_at=14, seconds=45, size=(640, 360))
    # Expectations on the figures, and a recording that carries them.
    scenario = tmp_path / "figures.json"
    scenario.write_text(json.dumps({"name": "mirroring figures", "expectations": [
        {"name": "100 video frames", "streaming": {"kind": "video", "codec": "vp8", "framesReceived": {"$gte": 100}}, "within": "40s"},
        {"name": "audio keeps up", "streaming": {"kind": "audio", "framesPerSecond": {"$gte": 50}}, "within": "40s"},
        {"name": "an H.264 stream", "streaming": {"codec": "h264"}, "within": "20s"},
    ]}))
    recording = tmp_path / "mirroring.jsonl"
    device = castsim_factory(extra_args=("--scenario", str(scenario), "--record", str(recording)))
    log = tmp_path / "cast_sender.log"
    events = device.client.subscribe(types=["device"])
    driver = start_cast_sender(device, video, log, 32)
    try:
        # The session, or the sender giving up (its launch refused, its ANSWER not taken).
        wait_until(lambda: driver.poll() is not None or streaming(device).get("state") == "streaming", timeout=20,
                   what="a streaming session", details=lambda: f"{streaming(device)}\n{log_tail(log)}")
        if driver.poll() is not None:
            summary = cast_sender_summary(driver, log)
            pytest.fail(f"cast_sender gave up before streaming: {summary['fatal'] or summary}\n"
                        f"castsim: {streaming(device)}\n{log_tail(log)}", pytrace=False)
        began = time.monotonic()
        udp_port = streaming(device)["udpPort"]
        # The video is red for its first 14 s (it starts about a second after the ANSWER).
        wait_until(lambda: streaming(device).get("picture") is not None, timeout=10, what="a first picture")
        time.sleep(4)
        red = streaming(device)["picture"]
        assert reddish(hex_color(red["averageColor"])), red
        assert reddish(png_average(device.client.streaming_picture()))
        assert (red["width"], red["height"]) == (640, 360)
        # Then blue: castsim asks for a key frame when its picture is 2 s old.
        # (The video is blue from 14 s to its end, after the driver's 32 s.)
        wait_until(lambda: bluish(hex_color((streaming(device).get("picture") or {}).get("averageColor", "#000000"))),
                   timeout=28, what="a blue picture",
                   details=lambda: f"{ {k: v for k, v in streaming(device).items() if k != 'streams'} }\n"
                                   f"{[(s['kind'], s['framesReceived'], s['keyFrames'], s['pictureLossIndications']) for s in streaming(device).get('streams', [])]}\n"
                                   f"{log_tail(log)}")
        assert bluish(png_average(device.client.streaming_picture()))
        # The figures near the end, while the session still streams.
        time.sleep(max(0.0, 29.5 - (time.monotonic() - began)))
        near_end = streaming(device)
        summary = cast_sender_summary(driver, log)
        # The sender's end: its connection closes (the driver shuts its Cast socket, so that
        # cast_sender logs its own figures; its STOP never arrives), and the session ends,
        # saying why.
        ended = device.client.wait_for(lambda e: e.kind == "streaming" and e.data["streaming"]["phase"] == "ended",
                                       on="events", stream=events, timeout=10, what="the session's end")
        assert ended.data["streaming"]["reason"] in ("the sender's connection closed", "the app stopped")
        final = streaming(device)
        report = {e["name"]: e for e in device.client.report()["expectations"]}
    finally:
        events.close()
        if driver.poll() is None:
            driver.kill()
            driver.communicate()
    assert summary["answered"] and not summary["fatal"] and not summary["error"], f"{summary}\n{log_tail(log)}"
    # ACKs kept it streaming for the whole 30 s.
    seconds = (summary["elapsedUs"] or 0) / 1e6
    assert seconds >= 29, f"cast_sender streamed {seconds:.1f} s only: {summary}\n{log_tail(log)}"
    assert summary["udpPort"] == udp_port
    # Every frame counted once the session is over (the app stays, its session ended);
    # the reading near the end if the app has gone.
    figures = final if final.get("state") == "ended" and final.get("streams") else near_end
    video = next(s for s in figures["streams"] if s["kind"] == "video")
    audio = next(s for s in figures["streams"] if s["kind"] == "audio")
    assert video["codec"] == "vp8" and audio["codec"] == "opus"
    # At least 90 % of the frames the sender sent (30 fps video, 100 Opus frames a second).
    for stream, per_second in ((video, 30), (audio, 100)):
        sent, how = frames_sent(summary, stream["kind"], per_second)
        assert stream["framesReceived"] >= 0.9 * sent, (
            f"castsim took {stream['framesReceived']} {stream['kind']} frames of {sent:.0f} sent ({how}): "
            f"{stream}\n{ {k: v for k, v in summary.items() if k != 'statistics'} }")
    near_video = next(s for s in near_end["streams"] if s["kind"] == "video")
    # Acknowledged at once: the 5 ms budget is castsim-load streaming's, on a quiet machine;
    # here three tests and a sanitizer build share two cores.
    assert near_video["ackLatencyP99"] < 50 and near_video["checkpointLag"] <= 2, near_video
    # A stalled sender re-sends its newest packet every 20 ms (1,500 in 30 s); a late ACK on a
    # loaded machine (the bound above allows 50 ms) costs one now and then: 12 in one CI run.
    assert summary["kickstarts"] < 100, summary
    # castsim's receiver event logs (the OFFER asks for them): the sender's own statistics
    # count the packets castsim received and the network latency they took.
    for kind in ("video", "audio"):
        stats = (summary["statistics"] or {}).get(f"{kind}_statistics") or {}
        assert stats.get("NumPacketsReceived", 0) >= 0.8 * stats.get("NumPacketsSent", 0) > 0, stats
        assert 0 <= stats.get("AvgNetworkLatencyMs", -1) < 50 and 0 < stats.get("AvgFrameLatencyMs", 0) < 100, stats
    # The figures as expectations saw them: met, with the stream as evidence; never met,
    # with the nearest stream.
    # Decided when met, while the sender streams (its 30 s), not at the 40 s window: the time
    # counts from castsim's start, and on a machine busy with builds the sender's start-up
    # and first frames took 15.02 s in one CI run, against 15 allowed before.
    met = report["100 video frames"]
    assert met["passed"] and met["decidedAt"] < 30, met
    assert met["evidence"][0]["payload"]["framesReceived"] >= 100 and met["evidence"][0]["payload"]["kind"] == "video", met
    assert report["audio keeps up"]["passed"], report["audio keeps up"]
    h264 = report["an H.264 stream"]
    assert not h264["passed"] and h264["reason"] == "no stream's figures met it within 20s", h264
    # The recording has the session's events, a measured one about once a second.
    device.stop()
    lines = [json.loads(line) for line in recording.read_text().splitlines()[1:]]
    phases = [line["streaming"]["phase"] for line in lines if line["event"] == "streaming"]
    assert phases[:2] == ["negotiating", "started"] and phases[-1] == "ended", phases
    measured = [line for line in lines if line["event"] == "streaming" and line["streaming"]["phase"] == "measured"]
    assert 25 <= len(measured) <= 40, len(measured)
    last_video = next(s for s in measured[-1]["streaming"]["streams"] if s["kind"] == "video")
    # The last second's frames may come after the last report.
    assert video["framesReceived"] - 60 <= last_video["framesReceived"] <= video["framesReceived"], last_video


def greenish(rgb: tuple[int, int, int]) -> bool:
    return rgb[1] > 100 and rgb[0] < 40 and rgb[2] < 40


@pytest.mark.parametrize("codec", ["vp9", "h264", "av1", "hevc"])
def test_pictures_for_each_video_codec_cast_sender_offers(castsim_factory: Callable[..., CastsimDevice], tmp_path: Path,
                                                           codec: str) -> None:
    """cast_sender offers one video codec when told to: castsim takes it and FFmpeg decodes its key frames."""
    video = two_color_video(tmp_path / "green.mp4", first="green", second="green", switch_at=4, seconds=10, size=(640, 360))
    device = castsim_factory()
    log = tmp_path / "cast_sender.log"
    driver = start_cast_sender(device, video, log, 6, "--codec", codec)
    try:
        picture = wait_until(lambda: streaming(device).get("picture") or (driver.poll() is not None and {"gone": True}),
                             timeout=20, what=f"a {codec} picture", details=lambda: f"{streaming(device)}\n{log_tail(log)}")
        assert "gone" not in picture, f"cast_sender ended first: {streaming(device)}\n{log_tail(log)}"
        session = streaming(device)
        assert [s["codec"] for s in session["streams"]] == ["opus", codec], session
        assert (picture["width"], picture["height"]) == (640, 360) and greenish(hex_color(picture["averageColor"])), picture
        assert greenish(png_average(device.client.streaming_picture()))
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.communicate()


def test_the_lossy_network_example_passes_with_cast_sender(castsim_factory: Callable[..., CastsimDevice], tmp_path: Path) -> None:
    """scenarios/mirroring-lossy-network.json: 2 % of the datagrams dropped; cast_sender re-sends
    what the NACKs ask for, and the example's expectations on the figures pass. A moving pattern:
    frames of many packets, lost and NACKed in part, as on a real screen."""
    device = castsim_factory(extra_args=("--scenario", str(REPO_ROOT / "scenarios" / "mirroring-lossy-network.json")))
    video = moving_video(tmp_path / "pattern.mp4", seconds=20)
    log = tmp_path / "cast_sender.log"
    # The sender streams for as long as the test waits, and is ended once the expectations
    # pass (some 12 s). Streaming 15 s, on a machine the other tests kept busy its VP8
    # encoder made 8 frames a second, and the session ended at 92 of the hundred frames.
    driver = start_cast_sender(device, video, log, 40)
    try:
        report = wait_until(lambda: (lambda r: r if all(e["passed"] for e in r["expectations"]) else None)(device.client.report()),
                            timeout=40, what="the example's expectations to pass",
                            details=lambda: f"{device.client.report()}\n{streaming(device)}\n{log_tail(log)}")
        assert len(report["expectations"]) == 2 and report["passed"], report
        video_stream = next(s for s in streaming(device)["streams"] if s["kind"] == "video")
        assert streaming(device)["droppedByScenario"] > 0 and video_stream["packetsRecovered"] > 0, streaming(device)
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.communicate()


def test_without_ffmpeg_the_session_streams_and_pictures_are_unavailable(castsim_bin: Path, tmp_path: Path) -> None:
    """castsim in a mount namespace where every libavcodec the loader knows is an empty file:
    the session streams and is acknowledged as before; the state and the picture route say why
    there is no picture."""
    libraries = sorted({line.split("=>")[-1].strip() for line in subprocess.run(
        ["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout.splitlines() if "libavcodec.so." in line})
    assert libraries, "scripts/e2e-setup.sh installs Debian's ffmpeg: libavcodec should be there to hide"
    hide = " && ".join(f"mount --bind /dev/null {library}" for library in libraries)
    device = start_castsim(castsim_bin, None, tmp_path, name="No FFmpeg", extra_args=("--mdns", "off"),
                           prefix=("unshare", "--mount", "sh", "-c", f'{hide} && exec "$0" "$@"'))
    video = two_color_video(tmp_path / "green.mp4", first="green", second="green", switch_at=4, seconds=20, size=(640, 360))
    log = tmp_path / "cast_sender.log"
    # Long enough for a loaded machine, where the sender's encoder starts slowly; the test
    # ends it once castsim has what it checks.
    driver = start_cast_sender(device, video, log, 15)
    try:
        def video_frames() -> int:
            return next((s["framesReceived"] for s in streaming(device).get("streams", []) if s["kind"] == "video"), 0)
        # A key frame comes first: with FFmpeg there would be a picture by now.
        wait_until(lambda: video_frames() >= 30, timeout=25, what="30 video frames", details=lambda: f"{streaming(device)}\n{log_tail(log)}")
        session = streaming(device)
        assert session["picture"] is None and session["picturesDecoded"] == 0, session
        assert "libavcodec is not installed" in session["picturesUnavailable"], session
        with pytest.raises(ControlError) as refused:
            device.client.streaming_picture()
        assert refused.value.status == 404 and "libavcodec is not installed" in str(refused.value), refused.value
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.communicate()
        device.stop()


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
    try:
        connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}))
        connection.send(NS_RECEIVER, text=json.dumps({"type": "GET_APP_AVAILABILITY", "appId": list(MIRRORING_APPS), "requestId": 1}))
        availability = receive_until(connection, NS_RECEIVER, lambda p: p.get("requestId") == 1, "GET_APP_AVAILABILITY's answer")
        assert availability["availability"] == {"0F5096E8": "APP_AVAILABLE", "85CDB22F": "APP_AVAILABLE"}
        connection.send(NS_RECEIVER, text=json.dumps({"type": "LAUNCH", "appId": "0F5096E8", "requestId": 2}))
        status = receive_until(connection, NS_RECEIVER, lambda p: p.get("requestId") == 2 and p.get("type") in (
            "RECEIVER_STATUS", "LAUNCH_ERROR", "INVALID_REQUEST"), "LAUNCH's answer")
        assert status.get("type") == "RECEIVER_STATUS", f"LAUNCH 0F5096E8 answered {status}"
        transport = status["status"]["applications"][0]["transportId"]
        source = "streaming_sender-10000"
        connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}), source=source, destination=transport)
        connection.send(WEBRTC, text=json.dumps(offer(1, aesKey=None)), source=source, destination=transport)
        refused = receive_until(connection, WEBRTC, lambda p: p.get("type") == "ANSWER", "the error ANSWER")
        assert refused["seqNum"] == 1 and refused["result"] == "error" and refused["error"]["code"] == 10105, refused
        connection.send(WEBRTC, text=json.dumps(offer(2)), source=source, destination=transport)
        answer = receive_until(connection, WEBRTC, lambda p: p.get("type") == "ANSWER", "the ANSWER")
        assert answer["seqNum"] == 2 and answer["result"] == "ok", answer
        body = answer["answer"]
        assert len(body["sendIndexes"]) == len(body["ssrcs"]) and not set(body["ssrcs"]) & {49762, 63938}, body
        assert body["sendIndexes"] == [0, 1] and body["ssrcs"] == [49763, 63939] and 0 < body["udpPort"] < 65536
        assert streaming(device)["state"] == "streaming" and streaming(device)["udpPort"] == body["udpPort"]
    finally:
        connection.close()


def test_mirroring_apps_are_available(castsim_factory: Callable[..., CastsimDevice], castsim_bin: Path,
                                      tmp_path: Path) -> None:
    """Chrome offers tab mirroring to a device that has one of the apps available and whose
    TXT `ca` has video_out (1) and audio_out (4)."""
    device = castsim_factory()
    connection = CastConnection(device.host, CAST_PORT)
    try:
        connection.send(NS_CONNECTION, text=json.dumps({"type": "CONNECT"}))
        for request_id, app in enumerate(MIRRORING_APPS, start=1):  # Chrome asks one app at a time
            connection.send(NS_RECEIVER, text=json.dumps({"type": "GET_APP_AVAILABILITY", "appId": [app], "requestId": request_id}))
            answer = receive_until(connection, NS_RECEIVER, lambda p: p.get("requestId") == request_id,
                                   f"GET_APP_AVAILABILITY's answer for {app}")
            assert answer.get("responseType") == "GET_APP_AVAILABILITY", answer
            assert answer["availability"] == {app: "APP_AVAILABLE"}, answer
    finally:
        connection.close()
    # The TXT record as a sender's mDNS browser resolves it, from a device on a link of its own.
    try:
        link = create_link()
    except NamespaceUnavailable as error:
        pytest.fail(f"reading the TXT record needs network namespaces: {error}", pytrace=False)
    device_uuid = uuidlib.uuid4()
    advertised = None
    try:
        advertised = start_castsim(
            castsim_bin, link.device_ip, tmp_path, name="Mirroring TV", device_uuid=device_uuid,
            extra_args=("--mdns", "builtin", "--interface", link.device_if, "--heartbeat-interval", "0"),
            prefix=("ip", "netns", "exec", link.device_ns))
        instance = f"Chromecast-{device_uuid.hex}._googlecast._tcp.local."
        resolved = link.run(link.sender_ns, [sys.executable, str(DISCOVERY_PROBE), "resolve", "_googlecast._tcp.local.", instance],
                            capture_output=True, text=True, timeout=60)
        assert resolved.returncode == 0, resolved.stderr
        txt = json.loads(resolved.stdout.strip().splitlines()[-1]).get("txt") or {}
        assert txt.get("ca", "").isdigit(), f"no ca in the TXT record: {txt}"
        assert int(txt["ca"]) & 5 == 5, f"ca={txt['ca']} lacks video_out|audio_out (5)"
    finally:
        if advertised is not None:
            advertised.stop()
        link.destroy()
