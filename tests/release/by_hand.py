"""The tarball's binary, started by hand (scripts/release-test.sh): pychromecast plays on it,
the control API pauses it and moves the manual clock to the item's end.

    python by_hand.py HOST CONTROL_URL
"""

from __future__ import annotations

import sys
import time

import castsim.pychromecast_io  # noqa: F401
import pychromecast
from castsim import ControlClient


def wait_for(what, predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    sys.exit(f"by_hand: no {what} within {timeout} s")


def main() -> None:
    host, control_url = sys.argv[1], sys.argv[2]
    cast = pychromecast.get_chromecast_from_host((host, 8009, None, None, None))
    cast.wait(timeout=10)
    media = cast.media_controller
    media.play_media("http://media.test/movie.mp4", "video/mp4", stream_type="BUFFERED")
    wait_for("PLAYING", lambda: media.status.player_state == "PLAYING")
    control = ControlClient(control_url)
    control.pause()
    wait_for("PAUSED", lambda: media.status.player_state == "PAUSED")
    control.play()
    control.advance("2h")
    wait_for("FINISHED", lambda: media.status.player_state == "IDLE" and media.status.idle_reason == "FINISHED")
    cast.disconnect(timeout=5)
    print("by_hand: played, paused, finished")


if __name__ == "__main__":
    main()
