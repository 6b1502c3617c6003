"""A sender's connection is a real connection: castsim measures its liveness (its own
PINGs, the idle timeout of 60 s) in real time, whatever the simulation clock does. Here, as
in a sender project, pychromecast plays a BUFFERED item with the plugin's device and time
runs far ahead: two hours by the manual clock, or ten minutes at a hundred times speed. The
sender stays connected and sees the item finish, with castsim's default idle timeout."""

from __future__ import annotations

INNER = """
    import time

    import castsim.pychromecast_io  # one thread at a time on pychromecast's TLS socket
    import pychromecast
    import pytest

    def wait_for(what, predicate, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        pytest.fail(f"no {what} within {timeout} s")

    def play(castsim):
        host, port = castsim.device.cast_address
        cast = pychromecast.get_chromecast_from_host((host, port, None, None, None))
        cast.wait(timeout=10)
        media = cast.media_controller
        media.play_media("http://media.test/movie.mp4", "video/mp4", stream_type="BUFFERED")
        wait_for("PLAYING", lambda: media.status.player_state == "PLAYING")
        return cast, media

    def finished(media):
        return media.status.player_state == "IDLE" and media.status.idle_reason == "FINISHED"

    @pytest.mark.castsim(manual_clock=True)
    def test_two_hours_on_the_manual_clock(castsim):
        cast, media = play(castsim)
        castsim.advance("2h")
        wait_for("FINISHED", lambda: finished(media))
        assert cast.socket_client.is_connected
        # Still answered afterwards: the connection is the one it was.
        assert len(castsim.state().connections) == 1
        cast.disconnect(timeout=5)

    @pytest.mark.castsim(args=["--speed", "100"])
    def test_ten_minutes_at_a_hundred_times_speed(castsim):
        cast, media = play(castsim)
        # The item lasts the default 10 minutes: 6 s of real time, ten times what the
        # idle timeout would be if it ran on the simulation clock.
        wait_for("FINISHED", lambda: finished(media))
        assert cast.socket_client.is_connected
        assert len(castsim.state().connections) == 1
        cast.disconnect(timeout=5)
"""


def test_liveness_is_real_time(pytester, castsim_bin):
    pytester.makepyfile(test_sender_project=INNER)
    result = pytester.runpytest("--castsim-bin", str(castsim_bin), "-v")
    result.assert_outcomes(passed=2)
