"""CastsimDevice with the real castsim binary (CASTSIM_BIN): start, ready line, control
API, token, stop. Without a binary these tests fail, saying how to build one."""

from __future__ import annotations

import signal

import pytest

from cast_sender import CastSender
from castsim import CastsimDevice, CastsimError, ControlClient, ControlError



def test_start_use_and_stop(castsim_bin, tmp_path):
    device = CastsimDevice(castsim_bin, log_dir=tmp_path)
    with device:
        assert device.is_running()
        assert device.addresses["cast"] == (device.host, 8009)
        assert device.addresses["http"] is None and device.addresses["https"] is None
        control = device.addresses["control"]
        assert control is not None and control[0] == device.host  # next to a loopback device
        assert device.client.state().name == "castsim"
        with CastSender(device.host, device.cast_port) as sender:
            assert sender.get_status()["type"] == "RECEIVER_STATUS"
    assert not device.is_running()
    assert device.returncode in (0, -signal.SIGTERM) and not device.needed_sigkill
    assert device.stderr_path.exists()


def test_two_devices_side_by_side(castsim_bin):
    with CastsimDevice(castsim_bin, name="One") as one, CastsimDevice(castsim_bin, name="Two") as two:
        assert one.host != two.host
        assert one.client.state().name == "One"
        assert two.client.state().name == "Two"


def test_control_api_off(castsim_bin):
    with CastsimDevice(castsim_bin, args=["--control-port", "off"]) as device:
        assert device.addresses["control"] is None
        with pytest.raises(CastsimError, match="control API is off"):
            device.client  # noqa: B018


def test_token(castsim_bin):
    with CastsimDevice(castsim_bin, control_token="s3cret") as device:
        assert device.client.state().name == "castsim"
        with pytest.raises(ControlError) as caught:
            ControlClient(device.control_url).state()
        assert caught.value.status == 401
        with pytest.raises(ControlError) as caught:
            ControlClient(device.control_url, token="wrong").state()
        assert caught.value.status == 401


def test_scenario_file_and_manual_clock(castsim_bin, tmp_path):
    scenario = tmp_path / "standby.json"
    scenario.write_text('{"name": "standby soon", "timeline": [{"at": "30s", "standby": true}]}')
    with CastsimDevice(castsim_bin, scenario=scenario, manual_clock=True) as device:
        assert device.client.scenario().name == "standby soon"
        device.client.advance("30s")
        assert device.client.state().standby is True


def test_a_bad_argument_fails_with_castsim_s_message(castsim_bin):
    with pytest.raises(CastsimError) as caught:
        CastsimDevice(castsim_bin, args=["--no-such-option"]).start()
    assert "--no-such-option" in str(caught.value)
