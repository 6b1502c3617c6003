"""A sender project's suite against the castsim its wheel installed: no Swift toolchain, no
build folder, only `pip install castsim-....whl pytest pychromecast` (scripts/release-test.sh
runs it so, in a mount namespace where the toolchain's folder is hidden).

The plugin's fixtures run the binary the wheel carries; pychromecast plays, is paused from
the device's remote, sees another sender's change, and the manual clock ends its item."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from senders import connect, finished, play, wait_for


def test_the_fixture_runs_the_wheels_binary(castsim):
    carried = Path(sysconfig.get_paths()["purelib"]) / "castsim" / "bin" / "castsim"
    assert castsim.device.binary == carried


@pytest.mark.castsim(manual_clock=True)
def test_played_then_paused_from_the_remote_then_finished_by_the_clock(castsim):
    cast, media = play(*castsim.device.cast_address)
    castsim.pause()  # the device's remote, through the control API
    wait_for("PAUSED", lambda: media.status.player_state == "PAUSED")
    castsim.play()
    wait_for("PLAYING again", lambda: media.status.player_state == "PLAYING")
    castsim.advance("2h")
    wait_for("FINISHED", lambda: finished(media))
    cast.disconnect(timeout=5)


def test_a_second_senders_change_is_seen(castsim):
    first, _ = play(*castsim.device.cast_address)
    second = connect(*castsim.device.cast_address)
    second.set_volume(0.25)
    wait_for("the other sender's volume", lambda: abs(first.status.volume_level - 0.25) < 0.001)
    second.disconnect(timeout=5)
    first.disconnect(timeout=5)
