"""The tarball's binary, started by hand (scripts/release-test.sh): pychromecast plays on it,
the control API pauses it and moves the manual clock to the item's end.

    python by_hand.py HOST CONTROL_URL
"""

from __future__ import annotations

import sys

from castsim import ControlClient
from senders import finished, play, wait_for


def main() -> None:
    host, control_url = sys.argv[1], sys.argv[2]
    cast, media = play(host)
    control = ControlClient(control_url)
    control.pause()
    wait_for("PAUSED", lambda: media.status.player_state == "PAUSED")
    control.play()
    control.advance("2h")
    wait_for("FINISHED", lambda: finished(media))
    cast.disconnect(timeout=5)
    print("by_hand: played, paused, finished")


if __name__ == "__main__":
    main()
