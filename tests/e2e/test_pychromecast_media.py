"""End-to-end: pychromecast's queue and subtitle features against castsim (issue 3).

A second pychromecast instance watches every test, through its own MediaController
and a recorder of the raw media-namespace messages it receives (QUEUE_CHANGE is not
something pychromecast parses itself).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from pychromecast.controllers import BaseController
from pychromecast.controllers.media import (
    MEDIA_PLAYER_STATE_PLAYING,
    STREAM_TYPE_BUFFERED,
)
from pychromecast.response_handler import WaitResponse

from e2e_harness import CastsimDevice, Sender, wait_until

NS_MEDIA = "urn:x-cast:com.google.cast.media"
SUBTITLES_URL = "http://127.0.0.1:1/subtitles.en.vtt"


class MediaRecorder(BaseController):
    """An extra handler on the media namespace: keeps every message as received.

    pychromecast hands each message to every handler of its namespace, so this
    only observes; the sender's own MediaController still processes everything.
    """

    def __init__(self) -> None:
        super().__init__(NS_MEDIA)
        self._lock = threading.Lock()
        self.messages: list[dict] = []

    def receive_message(self, _message: Any, data: dict) -> bool:
        with self._lock:
            self.messages.append(data)
        return True

    def of_type(self, kind: str) -> list[dict]:
        with self._lock:
            return [m for m in self.messages if m.get("type") == kind]

    def statuses(self) -> list[dict]:
        return [s for m in self.of_type("MEDIA_STATUS") for s in m.get("status", [])]


def title_of(sender: Sender) -> str | None:
    return sender.media.status.title


def play(sender: Sender, url: str, title: str, **kwargs: Any) -> dict:
    """play_media() and wait for the reply that carries its requestId."""
    handler = WaitResponse(10.0, f"play_media {title}")
    sender.media.play_media(
        url,
        "audio/mpeg",
        title=title,
        stream_type=STREAM_TYPE_BUFFERED,
        callback_function=handler.callback,
        **kwargs,
    )
    handler.wait_response()
    assert handler.response is not None, f"no reply to play_media {title}"
    return handler.response


def watcher_for(device: CastsimDevice, sender_factory) -> tuple[Sender, MediaRecorder]:
    watcher = sender_factory(device)
    recorder = MediaRecorder()
    watcher.cast.register_handler(recorder)
    return watcher, recorder


def test_queue_with_enqueue_next_and_prev(device: CastsimDevice, sender_factory) -> None:
    sender = sender_factory(device)
    first = play(sender, "http://127.0.0.1:1/one.mp3", "One")
    assert first.get("type") == "MEDIA_STATUS", first
    sender.media.block_until_active(timeout=10)
    watcher, recorder = watcher_for(device, sender_factory)
    # The watcher joins the running session by itself (GET_STATUS on connect).
    wait_until(lambda: watcher.media.status.media_session_id is not None, what="watcher joins the session")

    # enqueue=True sends QUEUE_INSERT with the sender's mediaSessionId.
    for title in ("Two", "Three"):
        reply = play(sender, f"http://127.0.0.1:1/{title.lower()}.mp3", title, enqueue=True)
        assert reply.get("type") == "MEDIA_STATUS", f"QUEUE_INSERT answered with {reply}"

    inserts = wait_until(lambda: len(recorder.of_type("QUEUE_CHANGE")) >= 2 and recorder.of_type("QUEUE_CHANGE"),
                         what="two QUEUE_CHANGE INSERTs at the watcher")
    assert [c["changeType"] for c in inserts] == ["INSERT", "INSERT"]
    assert [c["itemIds"] for c in inserts] == [[2], [3]]
    assert inserts[1]["sequenceNumber"] > inserts[0]["sequenceNumber"]
    wait_until(lambda: sender.media.status.supports_queue_next, what="QUEUE_NEXT in supportedMediaCommands")

    sender.media.queue_next()
    wait_until(lambda: title_of(sender) == "Two", what="title Two after queue_next", details=lambda: sender.describe())
    sender.media.queue_next()
    wait_until(lambda: title_of(sender) == "Three", what="title Three after queue_next")
    assert not sender.media.status.supports_queue_next, "no next item after the last one (REPEAT_OFF)"
    sender.media.queue_prev()
    wait_until(lambda: title_of(sender) == "Two", what="title Two after queue_prev")
    wait_until(lambda: sender.media.status.player_state == MEDIA_PLAYER_STATE_PLAYING, what="playing after queue_prev")

    # The second sender saw every change of item. Waited for as a whole: the watcher's own
    # socket and thread may lag the sender's, and its title is "Two" already after the first
    # queue_next (waiting for that title alone once let the check run before 3 and 2 came).
    def playing_ids() -> list:
        return [s.get("currentItemId") for s in recorder.statuses() if s.get("playerState") == "PLAYING"]

    wait_until(lambda: playing_ids()[-3:] == [2, 3, 2], what="the watcher sees items 2, 3, 2 playing",
               details=lambda: f"PLAYING currentItemIds {playing_ids()}; {watcher.describe()}")
    wait_until(lambda: title_of(watcher) == "Two", what="watcher's title Two", details=lambda: watcher.describe())


def test_subtitles_enable_disable(device: CastsimDevice, sender_factory) -> None:
    sender = sender_factory(device)
    reply = play(sender, "http://127.0.0.1:1/film.mp4", "Film", subtitles=SUBTITLES_URL, subtitles_lang="en-US")
    status = reply["status"][0]
    # pychromecast sends the track, activeTrackIds [1] and a textTrackStyle; all echoed.
    assert status["activeTrackIds"] == [1]
    assert status["media"]["tracks"][0]["trackContentId"] == SUBTITLES_URL
    assert status["media"]["textTrackStyle"]["edgeType"] == "OUTLINE"
    sender.media.block_until_active(timeout=10)
    watcher, recorder = watcher_for(device, sender_factory)
    wait_until(lambda: watcher.media.status.media_session_id is not None, what="watcher joins the session")

    sender.media.disable_subtitle()
    wait_until(lambda: sender.media.status.current_subtitle_tracks == [], what="no active track after disable_subtitle")
    wait_until(lambda: watcher.media.status.current_subtitle_tracks == [], what="watcher sees subtitles off")
    sender.media.enable_subtitle(1)
    wait_until(lambda: sender.media.status.current_subtitle_tracks == [1], what="track 1 active after enable_subtitle")
    wait_until(lambda: watcher.media.status.current_subtitle_tracks == [1], what="watcher sees subtitles on")
    assert watcher.media.status.subtitle_tracks and watcher.media.status.subtitle_tracks[0]["language"] == "en-US"

    # A track that does not exist is refused with INVALID_REQUEST, state unchanged.
    handler = WaitResponse(10.0, "enable_subtitle 9")
    sender.media._send_command({"type": "EDIT_TRACKS_INFO", "activeTrackIds": [9]}, handler.callback)
    handler.wait_response()
    assert handler.response == {"type": "INVALID_REQUEST", "requestId": handler.response["requestId"], "reason": "INVALID_PARAMS"}
    time.sleep(0.2)
    assert sender.media.status.current_subtitle_tracks == [1]
