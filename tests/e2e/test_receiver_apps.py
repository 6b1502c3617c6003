"""End-to-end: the public receivers real senders launch besides the Default Media Receiver
(docs/apps/receivers.md), driven by pychromecast's own controllers and by catt.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable

from pychromecast.controllers.dashcast import DashCastController
from pychromecast.controllers.homeassistant import HomeAssistantController
from pychromecast.controllers.youtube import YouTubeController
from pychromecast.quick_play import quick_play

from e2e_harness import CastsimDevice, Sender, wait_until

CATT = Path(__file__).with_name("catt_sender.py")


def test_home_assistant_shows_a_dashboard_view(device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]) -> None:
    sender = sender_factory(device)
    unregistered = threading.Event()
    controller = HomeAssistantController(hass_url="https://ha.example.test", hass_uuid="1234abcd", client_id=None,
                                         refresh_token="token", unregister=unregistered.set, hass_connect_timeout=10)
    sender.cast.register_handler(controller)
    # LAUNCH A078F6B0, get_status, connect, wait for a connected receiver_status, then the view.
    controller.show_lovelace_view("kitchen", url_path="lovelace")
    wait_until(lambda: controller.status is not None and controller.status.get("lovelacePath") == "kitchen", timeout=10,
               details=lambda: f"status {controller.status}")
    assert controller.hass_connected and not unregistered.is_set()
    assert controller.status["urlPath"] is None
    assert sender.cast.status.app_id == "A078F6B0" and sender.cast.status.display_name == "Home Assistant Lovelace"
    assert "urn:x-cast:com.nabucasa.hast" in sender.cast.status.namespaces


def test_dashcast_load_url_completes_on_its_echo(device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]) -> None:
    sender = sender_factory(device)
    controller = DashCastController()
    sender.cast.register_handler(controller)
    done = threading.Event()
    outcome: list[bool] = []

    def finished(ok: bool, _response: object) -> None:
        outcome.append(ok)
        done.set()

    controller.load_url("https://example.test/dashboard", reload_seconds=60, callback_function=finished)
    assert done.wait(15), "pychromecast's load_url never completed (no echo with its requestId)"
    assert outcome == [True]
    assert sender.cast.status.app_id == "84912283"
    # Half a second after the launch the receiver says it is ready, unasked.
    wait_until(lambda: sender.cast.status.status_text == "Application ready", timeout=5, details=sender.describe)


def test_catt_casts_a_site_through_dashcast(device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]) -> None:
    # catt LAUNCHes DashCast and waits, without a timeout of its own, for "Application ready".
    result = subprocess.run([sys.executable, str(CATT), "-d", device.host, "cast_site", "https://example.test/page"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    sender = sender_factory(device)
    assert sender.cast.status.app_id == "84912283"


def test_quick_play_of_the_media_apps(device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]) -> None:
    sender = sender_factory(device)
    quick_play(sender.cast, "bubbleupnp", {"media_id": "http://example.test/a.mp3", "media_type": "audio/mp3"})
    wait_until(lambda: sender.media.status.player_state == "PLAYING", timeout=10, details=sender.describe)
    assert sender.cast.status.app_id == "3927FA74" and sender.media.status.content_id == "http://example.test/a.mp3"
    # Each controller's main call, with the app's own id; the real receivers resolve these ids online.
    for app_name, app_id, data in [
        ("bbcsounds", "D350F6A9", {"media_id": "live:bbc_radio_one", "is_live": True}),
        ("bbciplayer", "5E81F6DB", {"media_id": "m0001234", "metadata": {"title": "News", "subtitle": "At six"}}),
        ("nrktv", "3AEDF8D1", {"media_id": "OUHA43000207"}),
        ("nrkradio", "A49874B1", {"media_id": "p1"}),
        ("shaka", "07AEE832", {"media_id": "https://example.test/manifest.mpd"}),
        ("homeassistant_media", "B45F4572", {"media_id": "https://example.test/camera.m3u8"}),
    ]:
        quick_play(sender.cast, app_name, data)
        wait_until(lambda: sender.cast.status.app_id == app_id and sender.media.status.content_id == data["media_id"]
                   and sender.media.status.player_state == "PLAYING", timeout=10, details=sender.describe)
    # Yle Areena's LOAD has no contentId: its receiver plays the entry id in customData.
    quick_play(sender.cast, "yleareena", {"media_id": "0_whwjqpry"})
    wait_until(lambda: sender.cast.status.app_id == "A9BCCB7C" and sender.media.status.content_id == "0_whwjqpry"
               and sender.media.status.player_state == "PLAYING", timeout=10, details=sender.describe)
    # BBC iPlayer's LOAD carries the subtitle in customData; the status gives it back.
    quick_play(sender.cast, "bbciplayer", {"media_id": "m0005678", "metadata": {"title": "Film", "subtitle": "Late"}})
    wait_until(lambda: sender.media.status.content_id == "m0005678", timeout=10, details=sender.describe)
    assert sender.media.status.media_custom_data == {"secondary_title": "Late"}


def test_supla_and_plex_launch(device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]) -> None:
    # Supla's controller sends its own load on its own namespace and waits for nothing.
    sender = sender_factory(device)
    quick_play(sender.cast, "supla", {"media_id": "1234", "is_live": False})
    wait_until(lambda: sender.cast.status.app_id == "A41B766D", timeout=10, details=sender.describe)
    assert "urn:x-cast:fi.ruutu.chromecast" in sender.cast.status.namespaces
    # Plex's controller launches its app (its play_media needs a Plex server, which castsim is not).
    from pychromecast.controllers.plex import PlexController

    plex = PlexController()
    sender.cast.register_handler(plex)
    plex.launch()
    wait_until(lambda: sender.cast.status.app_id == "9AC194DC", timeout=10, details=sender.describe)
    assert "urn:x-cast:plex" in sender.cast.status.namespaces


def test_youtube_gives_its_screen_id(device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]) -> None:
    sender = sender_factory(device)
    controller = YouTubeController()
    sender.cast.register_handler(controller)
    controller.launch()
    wait_until(lambda: sender.cast.status.app_id == "233637DE", timeout=10, details=sender.describe)
    controller.update_screen_id()
    assert controller._screen_id and controller._screen_id.startswith("castsim-")


def test_music_assistant_dashboard_and_player_commands(device: CastsimDevice, sender_factory: Callable[[CastsimDevice], Sender]) -> None:
    from pychromecast.controllers import BaseController

    class MusicAssistant(BaseController):
        """A raw sender on Music Assistant's namespace, as its server's controller speaks it."""

        def __init__(self) -> None:
            super().__init__("urn:x-cast:io.music-assistant.cast", "C35B0678")
            self.received: list[dict] = []

        def receive_message(self, _message, data: dict) -> bool:
            self.received.append(data)
            return True

    sender = sender_factory(device)
    music = MusicAssistant()
    sender.cast.register_handler(music)
    music.launch()
    wait_until(lambda: sender.cast.status.app_id == "C35B0678", timeout=10, details=sender.describe)
    music.send_message({"type": "show_dashboard", "url": "http://ma.example.test:8095/"})
    wait_until(lambda: {"type": "receiver_status", "connected": True} in music.received, timeout=10,
               details=lambda: str(music.received))
    # Music Assistant plays through the media namespace and reads its queue_item_id back.
    sender.media.play_media("http://ma.example.test:8097/flow/1.flac", "audio/flac",
                            stream_type="BUFFERED", metadata={"metadataType": 3, "title": "Song"},
                            media_info={"customData": {"queue_item_id": "q1"}})
    wait_until(lambda: sender.media.status.player_state == "PLAYING", timeout=10, details=sender.describe)
    assert sender.media.status.media_custom_data == {"queue_item_id": "q1"}
    assert sender.cast.status.app_id == "C35B0678"
    # In flow mode the server names the next track by a PLAY carrying its metadata, as Music Assistant's does.
    sender.media._send_command({"type": "PLAY", "customData": {"metadata": {"metadataType": 3, "title": "Next song",
                                                                            "artist": "Band"}}}, None)
    wait_until(lambda: sender.media.status.title == "Next song" and sender.media.status.artist == "Band", timeout=10,
               details=sender.describe)
    # The receiver's next goes to Music Assistant's server as a player_command.
    sender.media.queue_next()
    wait_until(lambda: {"type": "player_command", "command": "next"} in music.received, timeout=10,
               details=lambda: str(music.received))
    # And so does the device's remote.
    device.client.act({"remote": "previous"})
    wait_until(lambda: {"type": "player_command", "command": "previous"} in music.received, timeout=10,
               details=lambda: str(music.received))
