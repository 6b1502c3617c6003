"""End-to-end tests: a real Cast sender library (pychromecast 14.0.10) against castsim.

Each test starts its own castsim on a fresh 127.A.B.N address (see conftest.py)
and talks to it only over loopback.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import time
import urllib.request
import uuid as uuidlib
from collections.abc import Callable

import pytest
import pychromecast
from pychromecast import dial
from pychromecast.config import APP_MEDIA_RECEIVER
from pychromecast.controllers.media import (
    MEDIA_PLAYER_STATE_IDLE,
    MEDIA_PLAYER_STATE_PAUSED,
    MEDIA_PLAYER_STATE_PLAYING,
    STREAM_TYPE_BUFFERED,
)
from pychromecast.error import RequestFailed, RequestTimeout
from pychromecast.response_handler import CallbackType, WaitResponse

from e2e_harness import (
    CAST_PORT,
    DEFAULT_DURATION_SECONDS,
    HTTP_PORT,
    HTTPS_PORT,
    CastsimDevice,
    Sender,
    bind_problem,
    TrafficRecorder,
    shorten_pychromecast_heartbeat,
    wait_until,
)

# castsim never fetches media, so the URL only has to be well formed. Port 1
# on loopback makes sure nothing would be fetched even if it tried.
MEDIA_URL = "http://127.0.0.1:1/movie.mp4"
MEDIA_TYPE = "video/mp4"
MEDIA_TITLE = "castsim e2e movie"
NS_MEDIA = "urn:x-cast:com.google.cast.media"
NS_RECEIVER = "urn:x-cast:com.google.cast.receiver"
BACKDROP_APP_ID = pychromecast.IDLE_APP_ID  # "E8C28D3C", the idle screen app

# pychromecast pings every 10 s and drops the connection when it has had no
# PONG for 20 s, so 25 s of silence is enough to catch a missing PONG.
IDLE_SECONDS = 5  # two and a half times the idle timeouts of test_connection_survives_idle

DASHED_UUID = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", re.IGNORECASE)

SenderFactory = Callable[[CastsimDevice], Sender]


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def expect_response(
    sender: Sender, what: str, send: Callable[[CallbackType], None], timeout=10.0
) -> dict | None:
    """Send a request with a callback and wait for the device's answer.

    pychromecast completes a callback when a message carrying the request's
    requestId arrives (it is routed to the controllers first, so status
    objects are already updated when this returns).
    """
    handler = WaitResponse(timeout, what)
    send(handler.callback)
    try:
        handler.wait_response()
    except (RequestTimeout, RequestFailed) as err:
        raise AssertionError(
            f"{what}: {err} (no message with our requestId?)\n  state: {sender.describe()}"
        ) from err
    return handler.response


def start_playback(sender: Sender, url: str = MEDIA_URL) -> None:
    """play_media() and wait until castsim reports PLAYING.

    If the Default Media Receiver (CC1AD845) is not running, pychromecast
    first sends LAUNCH and only sends LOAD from the callback of the
    RECEIVER_STATUS that answers it (same requestId), to that status's
    transportId and with its sessionId. That status must therefore already
    list the app with the media namespace.
    """
    response = expect_response(
        sender,
        "play_media (LAUNCH + LOAD)",
        lambda callback: sender.media.play_media(
            url,
            MEDIA_TYPE,
            title=MEDIA_TITLE,
            # play_media defaults to LIVE; BUFFERED is what seeking applies to.
            stream_type=STREAM_TYPE_BUFFERED,
            callback_function=callback,
        ),
    )
    assert response is not None and response.get("type") == "MEDIA_STATUS", (
        f"LOAD was answered with {response!r}, expected MEDIA_STATUS"
    )
    sender.media.block_until_active(timeout=10)
    assert sender.media.status.media_session_id is not None, (
        f"no mediaSessionId after LOAD: {sender.describe()}"
    )
    wait_for_player_state(sender, MEDIA_PLAYER_STATE_PLAYING, "after LOAD")


def wait_for_player_state(sender: Sender, state: str, context: str = "") -> None:
    wait_until(
        lambda: sender.media.status.player_state == state,
        what=f"player state {state} {context}".strip(),
        details=sender.describe,
    )


def wait_for_volume(sender: Sender, level: float) -> None:
    wait_until(
        lambda: sender.cast.status is not None
        and abs(sender.cast.status.volume_level - level) < 1e-3,
        what=f"receiver volume level {level}",
        details=sender.describe,
    )


def assert_never_reconnected(sender: Sender) -> None:
    """pychromecast reports LOST when it tears a connection down (heartbeat
    timeout, socket error, or an exception while handling a message)."""
    assert sender.connection.statuses() == ["CONNECTING", "CONNECTED"], (
        "pychromecast's connection was not stable: "
        f"{sender.connection.statuses()}"
    )


def fetch_json(url: str) -> dict:
    # eureka_info over https uses castsim's self-signed certificate, like a
    # real device; pychromecast does not verify it either.
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with urllib.request.urlopen(url, timeout=10, context=context) as response:
        assert response.status == 200
        return json.loads(response.read().decode("utf-8"))


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------


def test_ready_line_reports_bound_addresses(device: CastsimDevice) -> None:
    assert device.cast_addr == (device.host, CAST_PORT), device.ready_line
    assert device.http_addr == (device.host, HTTP_PORT), device.ready_line
    assert device.https_addr == (device.host, HTTPS_PORT), device.ready_line


def test_connect_by_host_and_port(device: CastsimDevice, sender: Sender) -> None:
    cast = sender.cast
    assert cast.socket_client.is_connected
    assert cast.uri == f"{device.host}:{CAST_PORT}"
    assert cast.uuid == device.uuid
    assert cast.status is not None, "no RECEIVER_STATUS"

    # The Chromecast constructor read https://HOST:8443/setup/eureka_info
    # (dial.get_cast_type); on failure it only logs and keeps the defaults.
    assert cast.cast_type == "cast", "display_supported should make it a video device"
    assert cast.cast_info.manufacturer not in (None, "", "Unknown manufacturer"), (
        "dial.get_cast_type() could not read device_info.manufacturer from "
        "https eureka_info (see 'Failed to determine cast type' in the captured log)"
    )

    # A freshly started device runs no app, or only the Backdrop idle screen.
    assert cast.app_id in (None, BACKDROP_APP_ID), sender.describe()
    assert 0.0 <= cast.status.volume_level <= 1.0

    # The PING pychromecast sends right after connecting must be answered.
    wait_until(
        lambda: sender.heartbeat.pongs,
        timeout=5,
        what="PONG to pychromecast's initial PING",
    )
    assert_never_reconnected(sender)


def test_device_info_via_eureka(castsim_factory) -> None:
    name, model = "E2E Living Room", "Chromecast Ultra"
    device_uuid = uuidlib.uuid4()
    device: CastsimDevice = castsim_factory(
        name=name, model=model, device_uuid=device_uuid
    )

    # get_device_info tries https://HOST:8443 first, then http://HOST:8008;
    # it returns None (and logs at debug level) when both fail.
    info = dial.get_device_info(device.host, timeout=10)
    assert info is not None, "dial.get_device_info() failed, see captured log"
    assert info.friendly_name == name
    assert info.model_name == model
    assert info.uuid == device_uuid
    assert info.cast_type == "cast"
    assert info.multizone_supported is True
    assert info.manufacturer and info.manufacturer != "Unknown manufacturer"

    # Both endpoints individually, since get_device_info hides an https
    # failure behind its http fallback.
    for scheme, port in (("https", HTTPS_PORT), ("http", HTTP_PORT)):
        url = f"{scheme}://{device.host}:{port}/setup/eureka_info?params=device_info,name"
        body = fetch_json(url)
        where = f"{url} -> {body}"
        assert body.get("name") == name, where
        # pychromecast reads device_info.ssdp_udn (top-level only as a fallback),
        # but the castsim contract promises both.
        assert DASHED_UUID.fullmatch(str(body.get("ssdp_udn"))), f"top-level ssdp_udn: {where}"
        assert uuidlib.UUID(body["ssdp_udn"]) == device_uuid, where
        device_info = body.get("device_info") or {}
        assert device_info.get("model_name") == model, where
        assert DASHED_UUID.fullmatch(str(device_info.get("ssdp_udn"))), where
        assert uuidlib.UUID(device_info["ssdp_udn"]) == device_uuid, where
        assert device_info.get("manufacturer"), where
        capabilities = device_info.get("capabilities") or {}
        assert capabilities.get("display_supported") is True, where
        assert capabilities.get("multizone_supported") is True, where


def test_media_playback_controls(sender: Sender) -> None:
    start_playback(sender)
    media = sender.media
    assert sender.cast.app_id == APP_MEDIA_RECEIVER
    assert media.status.content_id == MEDIA_URL
    assert media.status.content_type == MEDIA_TYPE
    assert media.status.title == MEDIA_TITLE
    assert media.status.duration == pytest.approx(DEFAULT_DURATION_SECONDS)

    # play/pause/seek/stop wait for the MEDIA_STATUS carrying their requestId
    # (10 s timeout) and need the mediaSessionId from an earlier MEDIA_STATUS.
    media.pause()
    wait_for_player_state(sender, MEDIA_PLAYER_STATE_PAUSED, "after PAUSE")

    media.play()
    wait_for_player_state(sender, MEDIA_PLAYER_STATE_PLAYING, "after PLAY")

    # pychromecast sends resumeState PLAYBACK_START, so it keeps playing.
    # adjusted_current_time = currentTime + time since that status * rate.
    media.seek(120)
    wait_until(
        lambda: media.status.player_state == MEDIA_PLAYER_STATE_PLAYING
        and 119.5 <= media.status.adjusted_current_time <= 124,
        what="playing at ~120 s after SEEK",
        details=sender.describe,
    )

    media.stop()
    wait_for_player_state(sender, MEDIA_PLAYER_STATE_IDLE, "after media STOP")
    assert_never_reconnected(sender)


def test_volume_and_mute(sender: Sender) -> None:
    cast = sender.cast
    # set_volume waits for the answer to SET_VOLUME {"volume": {"level": x}}.
    assert cast.set_volume(0.3) == pytest.approx(0.3)
    wait_for_volume(sender, 0.3)

    # SET_VOLUME {"volume": {"muted": true}} carries no level: the level must stay.
    cast.set_volume_muted(True)
    wait_until(
        lambda: cast.status.volume_muted is True,
        what="volume muted",
        details=sender.describe,
    )
    assert cast.status.volume_level == pytest.approx(0.3, abs=1e-3)

    cast.set_volume_muted(False)
    wait_until(
        lambda: cast.status.volume_muted is False,
        what="volume unmuted",
        details=sender.describe,
    )
    assert cast.status.volume_level == pytest.approx(0.3, abs=1e-3)
    assert_never_reconnected(sender)


def test_quit_app(sender: Sender) -> None:
    start_playback(sender)
    first_session = sender.cast.status.session_id
    assert first_session

    # Receiver STOP with the app's sessionId; waits for the answer.
    sender.cast.quit_app()
    wait_until(
        lambda: sender.cast.app_id in (None, BACKDROP_APP_ID),
        what="no app (or Backdrop) after quit_app()",
        details=sender.describe,
    )
    assert NS_MEDIA not in sender.cast.status.namespaces
    assert not sender.media.is_active

    # A new LAUNCH after STOP gets a new session.
    start_playback(sender)
    assert sender.cast.app_id == APP_MEDIA_RECEIVER
    assert sender.cast.status.session_id not in (None, first_session)
    assert_never_reconnected(sender)


def test_second_sender_observes_changes(
    device: CastsimDevice, sender_factory: SenderFactory
) -> None:
    first = sender_factory(device)
    second = sender_factory(device)

    # The second sender learns about the launch only from a broadcast
    # RECEIVER_STATUS; it then CONNECTs to the app's transportId and sends
    # its own media GET_STATUS.
    start_playback(first)
    wait_until(
        lambda: second.cast.app_id == APP_MEDIA_RECEIVER,
        what="second sender sees the Default Media Receiver",
        details=second.describe,
    )
    wait_for_player_state(second, MEDIA_PLAYER_STATE_PLAYING, "on second sender")
    assert second.media.status.content_id == MEDIA_URL

    first.media.pause()
    wait_for_player_state(second, MEDIA_PLAYER_STATE_PAUSED, "on second sender")
    first.media.play()
    wait_for_player_state(second, MEDIA_PLAYER_STATE_PLAYING, "on second sender")

    first.cast.set_volume(0.55)
    wait_for_volume(second, 0.55)

    # And the other way round.
    second.media.pause()
    wait_for_player_state(first, MEDIA_PLAYER_STATE_PAUSED, "on first sender")

    # A sender that connects later gets the current state on connect.
    late = sender_factory(device)
    wait_for_player_state(late, MEDIA_PLAYER_STATE_PAUSED, "on late sender")
    assert late.cast.app_id == APP_MEDIA_RECEIVER
    wait_for_volume(late, 0.55)

    for sender in (first, second, late):
        assert_never_reconnected(sender)


def test_corrupt_tls_record_closes_only_that_connection(
    device: CastsimDevice, sender: Sender
) -> None:
    # What a sender that writes to its TLS socket from two threads at once
    # produces (pychromecast does; see e2e_harness): after a good handshake,
    # an application-data record that does not decrypt.
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection((device.host, CAST_PORT), timeout=10)
    with context.wrap_socket(raw) as tls:
        tls.settimeout(10)
        # TLS 1.2 and 1.3 both frame application data as type 23, 0x0303.
        os.write(tls.fileno(), bytes([23, 3, 3, 0, 64]) + os.urandom(64))
        try:
            leftover = tls.recv(1)  # the server's close_notify or alert, then EOF
        except (ssl.SSLError, ConnectionResetError):
            leftover = b""
        assert leftover == b"", f"castsim answered a corrupt record with data: {leftover!r}"

    wait_until(
        lambda: "closing connection: sslError" in device.stderr_tail(200),
        what="castsim logs why it closed the corrupt connection",
        details=lambda: device.stderr_tail(20),
    )
    # The other sender is untouched: it still gets answers on its connection.
    before = sender.cast.status
    sender.cast.set_volume(0.42)
    wait_until(
        lambda: sender.cast.status is not before
        and sender.cast.status.volume_level == pytest.approx(0.42, abs=1e-3),
        what="the other sender's SET_VOLUME answered",
        details=sender.describe,
    )
    assert_never_reconnected(sender)
    assert device.is_running()


def test_isolated_request_ids_keep_senders_apart(
    castsim_factory, sender_factory: SenderFactory
) -> None:
    """pychromecast completes a pending request as soon as ANY message carries
    its requestId (SocketClient._run_once checks every message's requestId
    against its callbacks, whatever the namespace), and every instance counts
    from 1. A real device broadcasts the status that answers a request with
    that request's id to every sender, so two pychromecast instances can
    complete each other's requests. With --isolate-request-ids castsim answers
    the requester alone with its id and sends the others a copy with 0."""
    device = castsim_factory(extra_args=("--isolate-request-ids",))
    first = sender_factory(device)
    second = sender_factory(device)
    traffic = TrafficRecorder(second, (NS_RECEIVER, NS_MEDIA))

    # The first sender's requests quickly use ids the idle second one never sends.
    start_playback(first)
    first.media.pause()
    first.cast.set_volume(0.6)
    first.media.play()
    wait_for_player_state(second, MEDIA_PLAYER_STATE_PLAYING, "on second sender")
    wait_for_volume(second, 0.6)

    foreign = [
        f"{namespace} {data.get('type')} from {source} to {destination} "
        f"requestId={data.get('requestId')}"
        for namespace, source, destination, data in traffic.received
        if data.get("requestId") not in (None, 0)
        and data.get("requestId") not in traffic.sent_request_ids
    ]
    assert not foreign, (
        "the second sender received messages carrying requestIds it never sent "
        f"(it sent {sorted(traffic.sent_request_ids)}); with --isolate-request-ids "
        "its copies must use requestId 0:\n  " + "\n  ".join(foreign)
    )


def test_broadcasts_carry_the_requesters_id_by_default(
    device: CastsimDevice, sender_factory: SenderFactory
) -> None:
    """Like a real device: the MEDIA_STATUS that answers the first sender's
    PAUSE reaches the second sender with the first sender's requestId."""
    first = sender_factory(device)
    second = sender_factory(device)
    traffic = TrafficRecorder(second, (NS_MEDIA,))
    start_playback(first)
    response = expect_response(first, "pause", lambda cb: first.media._send_command({"type": "PAUSE"}, cb))
    assert response is not None
    pause_id = response["requestId"]
    wait_until(
        lambda: any(
            data.get("type") == "MEDIA_STATUS" and data.get("requestId") == pause_id and destination == "*"
            for _namespace, _source, destination, data in traffic.received
        ),
        what=f"the PAUSE status (requestId {pause_id}) broadcast to the second sender",
    )


def test_connection_survives_idle(castsim_factory, sender_factory: SenderFactory, monkeypatch) -> None:
    # Liveness runs on real time: short intervals on both sides instead of pychromecast's
    # 10 s and castsim's 5 s PINGs. castsim drops a connection silent for 2 s, and
    # pychromecast one that answers no PING for 2 s; idle for IDLE_SECONDS, the link
    # stays up only if each side answers the other's PINGs and counts them as life.
    shorten_pychromecast_heartbeat(monkeypatch, ping=1.0, pong=1.0)
    device = castsim_factory(extra_args=("--heartbeat-interval", "0.5", "--idle-timeout", "2"))
    sender = sender_factory(device)
    cast = sender.cast
    started = time.monotonic()
    # Idle for IDLE_SECONDS, but fail as soon as pychromecast drops the link.
    while time.monotonic() - started < IDLE_SECONDS:
        dropped = [
            s for s in sender.connection.statuses(since=started) if s != "CONNECTED"
        ]
        assert not dropped, (
            f"connection dropped after {time.monotonic() - started:.1f}s idle: "
            f"{sender.connection.statuses()}; PONGs received at "
            f"{[round(t - started, 1) for t in sender.heartbeat.pongs]}"
        )
        time.sleep(0.1)

    assert_never_reconnected(sender)
    pings = [t for t in sender.heartbeat.pings if t >= started]
    pongs = [t for t in sender.heartbeat.pongs if t >= started]
    # pychromecast pings every second.
    assert len(pongs) >= 2, f"castsim answered {len(pongs)} of pychromecast's PINGs in {IDLE_SECONDS}s idle"
    # castsim's own PINGs, every 0.5 s (pychromecast answers them).
    assert len(pings) >= 4, f"only {len(pings)} device PINGs in {IDLE_SECONDS}s"
    last_pong_age = time.time() - cast.socket_client.heartbeat_controller.last_pong
    assert last_pong_age < 2, f"last PONG {last_pong_age:.1f}s ago"

    # The same connection still carries commands.
    cast.set_volume(0.42)
    wait_for_volume(sender, 0.42)
    assert_never_reconnected(sender)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_shuts_down_cleanly(
    castsim_factory, sender_factory: SenderFactory, sig: signal.Signals
) -> None:
    device: CastsimDevice = castsim_factory()
    sender = sender_factory(device)  # shutdown must not hang on open connections
    status = device.stop(sig=sig, timeout=10)
    assert not device.needed_sigkill, f"castsim did not exit within 10 s of {sig.name}"
    assert status == 0, f"castsim exited with status {status} after {sig.name}"
    # The ports are free again right away.
    assert bind_problem(device.host, (CAST_PORT, HTTP_PORT, HTTPS_PORT)) is None
    # castsim closed the connection (pychromecast then tries to reconnect).
    wait_until(
        lambda: "LOST" in sender.connection.statuses(),
        timeout=10,
        what="pychromecast to notice the closed connection",
        details=sender.describe,
    )


def test_sigterm_right_after_ready_line(castsim_factory) -> None:
    """Scripts may stop castsim as soon as it is ready: the signal handlers
    must be in place before the ready line is printed (otherwise SIGTERM
    either kills it with the default action or is lost and it hangs)."""
    for attempt in range(3):
        device: CastsimDevice = castsim_factory()
        status = device.stop(sig=signal.SIGTERM, timeout=5)
        assert not device.needed_sigkill, (
            f"attempt {attempt}: castsim ignored SIGTERM sent right after its ready line"
        )
        assert status == 0, (
            f"attempt {attempt}: castsim exited with status {status} on SIGTERM "
            "sent right after its ready line (negative = killed by that signal)"
        )
