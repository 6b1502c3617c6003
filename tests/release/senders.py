"""What the release checks' pychromecast senders do: wait for what they see, connect, play."""

from __future__ import annotations

import time

import castsim.pychromecast_io  # noqa: F401  one thread at a time on pychromecast's TLS socket
import pychromecast

MOVIE = "http://media.test/movie.mp4"


class NotSeen(AssertionError):
    """A sender did not see what it waited for."""


def wait_for(what, predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise NotSeen(f"no {what} within {timeout} s")


def connect(host, port=8009):
    cast = pychromecast.get_chromecast_from_host((host, port, None, None, None))
    cast.wait(timeout=10)
    return cast


def play(host, port=8009):
    """A sender playing a BUFFERED movie: the cast and its media controller."""
    cast = connect(host, port)
    media = cast.media_controller
    media.play_media(MOVIE, "video/mp4", stream_type="BUFFERED")
    wait_for("PLAYING", lambda: media.status.player_state == "PLAYING")
    return cast, media


def finished(media):
    return media.status.player_state == "IDLE" and media.status.idle_reason == "FINISHED"
