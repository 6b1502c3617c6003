"""CastsimDevice with a fake `castsim` script: command line, ready line, stop, failures,
binary lookup. The real binary is exercised by test_device.py."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from castsim import CastsimDevice, CastsimError, CastsimNotFound, ControlClient, find_castsim
from fakes import recorded_argv


def test_starts_with_the_default_command_and_stops_on_sigterm(fake_castsim, tmp_path):
    with CastsimDevice(fake_castsim) as device:
        assert device.is_running()
        assert device.host.startswith("127.") and device.host != "127.0.0.1"
        assert device.cast_port == 8009 and device.cast_address == (device.host, 8009)
        assert device.control_url is not None and device.control_url.startswith(f"http://{device.host}:")
        assert device.ready_line.startswith("castsim ready cast=")
        assert isinstance(device.client, ControlClient) and device.client.device is device
        state = device.client.state()
        assert state.name == "castsim" and state.raw["pid"] == device.pid
        (argv,) = recorded_argv(tmp_path / "argv.jsonl")
        assert argv == ["run", "--host", device.host, "--port", "8009", "--http-port", "off", "--https-port", "off",
                        "--mdns", "off", "--control-port", "0"]
        log_dir = device.log_dir
        assert "fake castsim: starting" in device.stderr_tail()
    assert not device.is_running()
    assert device.returncode == 0 and not device.needed_sigkill
    assert not log_dir.exists()  # a clean stop removes its own temporary logs


def test_options_reach_the_command_line(fake_castsim, tmp_path):
    scenario = tmp_path / "movie.json"
    scenario.write_text('{"name": "movie"}')
    with CastsimDevice(fake_castsim, manual_clock=True, scenario=scenario, name="Kitchen TV", log_level="trace",
                       control_token="s3cret", args=["--default-duration", "600", "--http-port", "8008"],
                       log_dir=tmp_path / "logs") as device:
        argv = device.client.state().raw["argv"]
        assert device.client.token == "s3cret"
    assert argv[argv.index("--name") + 1] == "Kitchen TV"
    assert argv[argv.index("--log-level") + 1] == "trace"
    assert argv[argv.index("--control-token") + 1] == "s3cret"
    assert argv[argv.index("--scenario") + 1] == str(scenario.resolve())
    assert "--manual-clock" in argv
    assert argv[-4:] == ["--default-duration", "600", "--http-port", "8008"]
    assert argv.count("--http-port") == 1  # the extra argument replaced the default
    assert (tmp_path / "logs").is_dir()  # a given log folder is kept


def test_a_scenario_dict_is_written_to_a_file(fake_castsim, tmp_path):
    with CastsimDevice(fake_castsim, scenario={"name": "inline", "clock": {"mode": "manual"}}, log_dir=tmp_path) as device:
        argv = device.client.state().raw["argv"]
    path = Path(argv[argv.index("--scenario") + 1])
    assert path.parent == tmp_path and '"inline"' in path.read_text()


def test_token_from_args(fake_castsim):
    with CastsimDevice(fake_castsim, args=["--control-token=abc"]) as device:
        assert device.client.token == "abc"


def test_devices_get_different_addresses(fake_castsim):
    with CastsimDevice(fake_castsim) as first, CastsimDevice(fake_castsim) as second:
        assert first.host != second.host


def test_sigkill_when_sigterm_is_ignored(fake_castsim, monkeypatch):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "ignore-term")
    device = CastsimDevice(fake_castsim, stop_timeout=0.5).start()
    start = time.monotonic()
    status = device.stop()
    assert status == -signal.SIGKILL and device.needed_sigkill
    assert time.monotonic() - start < 5
    assert device.log_dir.exists()  # kept: it did not end cleanly
    assert device.stop() == status  # stopping twice is harmless


def test_a_start_failure_shows_stderr_and_the_command(fake_castsim, monkeypatch):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "fail")
    with pytest.raises(CastsimError) as caught:
        CastsimDevice(fake_castsim, host="127.0.0.77").start()
    text = str(caught.value)
    assert "exited with status 1 before it was ready" in text
    assert "already in use" in text
    assert f"command: {fake_castsim} run --host 127.0.0.77" in text


def test_a_port_taken_in_the_meantime_is_retried_elsewhere(fake_castsim, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "fail-once")
    monkeypatch.setenv("FAKE_CASTSIM_MARKER", str(tmp_path / "failed-once"))
    with CastsimDevice(fake_castsim) as device:
        assert device.client.state().name == "castsim"
    runs = recorded_argv(tmp_path / "argv.jsonl")
    assert len(runs) == 2 and runs[0][2] != runs[1][2]


def test_a_malformed_ready_line(fake_castsim, monkeypatch):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "garbage")
    device = CastsimDevice(fake_castsim)
    with pytest.raises(CastsimError, match="not a castsim ready line: 'hello there'"):
        device.start()
    assert not device.is_running()


def test_no_ready_line_in_time(fake_castsim, monkeypatch):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "silent")
    device = CastsimDevice(fake_castsim, ready_timeout=0.5)
    with pytest.raises(CastsimError, match="no ready line within 0.5s"):
        device.start()
    assert not device.is_running()


def test_control_off(fake_castsim):
    with CastsimDevice(fake_castsim, args=["--control-port", "off"]) as device:
        assert device.control_url is None
        with pytest.raises(CastsimError, match="control API is off"):
            device.client  # noqa: B018


def test_a_castsim_without_the_control_api(fake_castsim, monkeypatch):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "no-control")
    with CastsimDevice(fake_castsim) as device:
        with pytest.raises(CastsimError, match="predates the control API"):
            device.client  # noqa: B018


def test_missing_scenario_file(fake_castsim, tmp_path):
    with pytest.raises(CastsimError, match="scenario file not found"):
        CastsimDevice(fake_castsim, scenario=tmp_path / "nope.json").start()


def test_args_must_be_a_list(fake_castsim):
    with pytest.raises(TypeError, match="shlex"):
        CastsimDevice(fake_castsim, args="--manual-clock")


# -- finding the binary -------------------------------------------------------------


def test_find_castsim_order(fake_castsim, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    env_binary = other / "castsim-env"
    env_binary.write_bytes(fake_castsim.read_bytes())
    env_binary.chmod(0o755)
    monkeypatch.setenv("CASTSIM_BIN", str(env_binary))
    monkeypatch.setenv("PATH", str(fake_castsim.parent))
    assert find_castsim(fake_castsim) == fake_castsim  # the argument first
    assert find_castsim() == env_binary  # then CASTSIM_BIN
    monkeypatch.delenv("CASTSIM_BIN")
    assert find_castsim() == fake_castsim  # then PATH
    assert find_castsim(fake_castsim.parent) == fake_castsim  # a folder holding castsim


def test_not_found_says_how_to_build(monkeypatch, tmp_path):
    monkeypatch.delenv("CASTSIM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CastsimNotFound) as caught:
        find_castsim()
    text = str(caught.value)
    assert "CASTSIM_BIN is not set" in text and "swift build --product castsim" in text
    assert isinstance(caught.value, FileNotFoundError)


def test_missing_and_not_executable_paths(monkeypatch, tmp_path):
    monkeypatch.setenv("CASTSIM_BIN", str(tmp_path / "nope"))
    with pytest.raises(CastsimNotFound, match=r"nope \(CASTSIM_BIN\) does not exist.*swift build --product castsim"):
        CastsimDevice().start()
    plain = tmp_path / "castsim"
    plain.write_text("not a program")
    os.chmod(plain, 0o644)
    with pytest.raises(CastsimNotFound, match="is not executable"):
        find_castsim(plain)


def test_fixed_ports_are_checked_on_the_chosen_address():
    assert CastsimDevice()._fixed_ports() == [8009]
    device = CastsimDevice(http_port=8008, https_port=8443, args=["--http-port", "9000"])
    assert device._fixed_ports() == [8009, 9000, 8443]
    assert CastsimDevice(http_port=0, https_port="off", cast_port=0)._fixed_ports() == []


def test_a_household_gets_as_many_free_addresses(fake_castsim):
    with CastsimDevice(fake_castsim, address_count=3, http_port=8008) as device:
        assert len(device.hosts) == 3 and len(set(device.hosts)) == 3
        assert device.host == ",".join(device.hosts)
        assert device.cast_addresses == [(host, 8009) for host in device.hosts]
        assert device.cast_address == (device.hosts[0], 8009)
        assert device.http_address == (device.hosts[0], 8008) and device.https_address is None
        argv = device.client.state().raw["argv"]
    assert argv[argv.index("--host") + 1] == device.host


def test_subcommand_and_prefix(fake_castsim):
    prefix = ["env", "FAKE_CASTSIM_PREFIX_MARK=under-prefix"]
    with CastsimDevice(fake_castsim, subcommand="relay", prefix=prefix, args=["--upstream", "127.0.0.1"]) as device:
        state = device.client.state().raw
        assert device.command[:3] == [*prefix, str(fake_castsim)]
    assert state["argv"][0] == "relay" and state["argv"][-2:] == ["--upstream", "127.0.0.1"]
    assert state["marker"] == "under-prefix"  # castsim ran under the prefix


def test_console_lines_reach_standard_input(fake_castsim):
    with CastsimDevice(fake_castsim, console=True) as device:
        device.console("advance 10m")
        device.client.wait_for(lambda state: state.raw["console"] == ["advance 10m"], timeout=5)
    with CastsimDevice(fake_castsim) as device, pytest.raises(CastsimError, match="console=True"):
        device.console("advance 1s")


def test_wait_exit_returns_the_status_of_a_device_that_ends_by_itself(fake_castsim, monkeypatch):
    monkeypatch.setenv("FAKE_CASTSIM_MODE", "die")
    device = CastsimDevice(fake_castsim).start()
    assert not device.stopped
    assert device.wait_exit(timeout=10) == 3
    assert device.stopped and not device.is_running()  # expected, so no crash
    assert device.stop() == 3


def test_stop_with_another_signal(fake_castsim):
    device = CastsimDevice(fake_castsim).start()
    assert device.stop(sig=signal.SIGKILL) == -signal.SIGKILL
    assert not device.needed_sigkill
