"""End-to-end: the control API as a sender test suite uses it.

- A whole sender test written the way a user writes one: the `castsim` fixture of the
  project's pytest plugin (python/, installed into the e2e virtualenv), pychromecast
  casting, the API verifying what pychromecast sent and pressing the TV's remote, then
  a reset and the same test again on the same device.
- schemathesis against the OpenAPI document the server serves, bounded in time: no
  request it makes up gets a 5xx, every answer is one the document describes, and the
  device still serves senders afterwards.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
import uuid
from pathlib import Path

import pychromecast
import pytest
from pychromecast.controllers.media import STREAM_TYPE_BUFFERED

from e2e_harness import REPO_ROOT, CastsimDevice, Sender, wait_until

# castsim never fetches media; port 1 on loopback makes sure nothing would be.
MEDIA = "http://127.0.0.1:1/film.mp4"

SCHEMATHESIS = REPO_ROOT / ".venv-e2e" / "bin" / "schemathesis"
# schemathesis's time budget. Its examples and coverage phases take some 5 s for the 21
# operations, and the rest is random fuzzing: 20 s ran about 1,700 cases, 45 s 3,300. The
# run is CPU-bound on two cores (scripts/test.sh), and a fuzzing second here is one the
# other tests lack.
FUZZ_SECONDS = 20


@pytest.mark.castsim(http_port=8008, https_port=8443)
def test_a_sender_test_suite_verifies_acts_and_resets_through_the_api(castsim) -> None:
    device = castsim.device
    identity = castsim.state().device
    for round_number in (1, 2):
        token = f"token-of-round-{round_number}"
        cast = pychromecast.get_chromecast_from_host(
            (device.host, device.cast_port, uuid.UUID(identity["uuid"]), identity["model"], identity["name"]),
            retry_wait=1.0,
            timeout=10.0,
        )
        try:
            cast.wait(timeout=10)
            cast.media_controller.play_media(
                MEDIA, "video/mp4", title=f"Round {round_number}", stream_type=STREAM_TYPE_BUFFERED,
                media_info={"customData": {"sessionToken": token}},
            )  # fmt: skip
            castsim.wait_for(lambda state: state.player_state == "PLAYING", what="the device to play")

            # What the sender put in its LOAD, as the device received it.
            castsim.assert_received(
                {"namespace": "media", "type": "LOAD", "fields": {"media.customData.sessionToken": token}}, count=1
            )
            # The reset between rounds emptied the journal: round 1's LOAD is gone.
            assert castsim.verify({"namespace": "media", "type": "LOAD"}, count=1).passed
            stale = castsim.verify({"type": "LOAD", "fields": {"media.customData.sessionToken": "token-of-round-1"}})
            assert stale.passed == (round_number == 1)
            # A LOAD with another token fails, and says what the nearest message had.
            wrong = castsim.verify({"type": "LOAD", "fields": {"media.customData.sessionToken": "nope"}})
            assert not wrong.passed
            assert wrong.nearest[0].differences == [
                f'media.customData.sessionToken: expected = "nope", got "{token}"'
            ]

            # The TV's remote, pressed through the API; pychromecast sees it.
            assert castsim.pause().done == "remote pause"
            wait_until(
                lambda: cast.media_controller.status.player_state == "PAUSED", what="pychromecast to see PAUSED"
            )
            assert castsim.state().player_state == "PAUSED"
            assert castsim.verify({"namespace": "media", "type": "MEDIA_STATUS"}, direction="out", at_least=1).passed
        finally:
            cast.disconnect(timeout=5)

        summary = castsim.reset()
        assert summary.steps_fired == 0
        after = castsim.state()
        # Back to the idle screen, as the device started.
        assert after.app is not None and after.app["idleScreen"] is True
        assert after.media is None
        assert after.connections == []
        assert castsim.journal() == []
        assert castsim.clock().time < 1.0


def test_schemathesis_finds_no_server_error(device: CastsimDevice, sender: Sender, tmp_path: Path) -> None:
    # A session to act on, so that actions and state have something to chew.
    sender.media.play_media(MEDIA, "video/mp4", title="Fuzzed", stream_type=STREAM_TYPE_BUFFERED)
    sender.media.block_until_active(timeout=10)

    report = tmp_path / "schemathesis.xml"
    command = [
        str(SCHEMATHESIS), "run", f"{device.control_url}/api/v1/openapi.json",
        # The event stream never ends by itself: schemathesis would wait on it until its
        # request timeout, every time. Its own tests are in Tests/CastControlTests and
        # test_dashboard.py.
        "--exclude-path", "/api/v1/events",
        # POST would write files named by random paths wherever castsim runs; the
        # endpoint's refusals are tested in test_recording.py.
        "--exclude-path", "/api/v1/recording",
        "--checks", ",".join([
            "not_a_server_error", "status_code_conformance", "content_type_conformance",
            "response_schema_conformance", "response_headers_conformance",
            "unsupported_method", "allow_header_conformance",
        ]),
        "--max-time", str(FUZZ_SECONDS),
        "--workers", "1",
        "--request-timeout", "10",
        "--report", "junit", "--report-junit-path", str(report),
    ]  # fmt: skip
    # In tmp_path: schemathesis keeps a cache (.schemathesis/) in its working directory.
    run = subprocess.run(command, capture_output=True, text=True, timeout=FUZZ_SECONDS + 120, cwd=tmp_path)
    assert run.returncode == 0, f"schemathesis found problems:\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    assert "passed" in run.stdout and "generated" in run.stdout, run.stdout[-2000:]
    assert report.is_file()

    # Still alive, and still a Cast device: a fresh sender gets a RECEIVER_STATUS.
    assert device.is_running()
    with urllib.request.urlopen(f"{device.control_url}/api/v1/state", timeout=10) as response:
        assert json.loads(response.read())["device"]["name"] == device.name
    fresh = pychromecast.get_chromecast_from_host(
        (device.host, device.cast_port, device.uuid, device.model, device.name), retry_wait=1.0, timeout=10.0
    )
    try:
        fresh.wait(timeout=10)
        assert fresh.status is not None
    finally:
        fresh.disconnect(timeout=5)

