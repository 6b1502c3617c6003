"""pytest plugin (entry point ``castsim``): fixtures that run a simulated Cast device.

Fixtures
- ``castsim``: a fresh device per test; yields its ControlClient (``.device`` is the
  CastsimDevice: ``.host``, ``.cast_port``, ...). Options from the marker
  ``@pytest.mark.castsim(scenario="path.json", manual_clock=True, args=[...])``.
- ``castsim_session``: one device for the whole session (options from the
  ``castsim_session_options`` fixture, which a conftest may override).
- ``castsim_shared``: the session device, reset() before each test.

The binary: ``--castsim-bin PATH``, else $CASTSIM_BIN, else the ``castsim_bin`` ini
option, else ``castsim`` on PATH, else the one the castsim wheel carries. Without one, or
with a damaged one, the fixtures fail saying what to do (they do not skip).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

import pytest

from .client import ControlClient, ControlError
from .device import CastsimDevice, CastsimError, CastsimNotFound, find_castsim
from .launch import BUILD_HINT

MARKER_HELP = (
    "castsim(scenario=None, manual_clock=False, args=(), **device_options): how the `castsim` "
    "fixture starts its device. scenario: a scenario file (relative to the test file's folder, "
    "else to the rootdir) or a dict; args: extra `castsim run` arguments; other keywords go to "
    "castsim.CastsimDevice (name, http_port, https_port, control_token, log_level, ...)."
)

_DEVICE_OPTIONS = {
    "scenario", "manual_clock", "args", "name", "http_port", "https_port", "control_token", "log_level", "env",
    "ready_timeout", "stop_timeout", "client_timeout", "host", "cast_port",
}

_DEVICES_KEY = pytest.StashKey[list]() if hasattr(pytest, "StashKey") else None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("castsim", "castsim (simulated Google Cast device)")
    group.addoption("--castsim-bin", dest="castsim_bin", default=None, metavar="PATH",
                    help="castsim binary for the castsim fixtures (default: $CASTSIM_BIN, else the castsim_bin "
                         "ini option, else `castsim` on PATH, else the one the castsim wheel carries)")
    parser.addini("castsim_bin", "castsim binary for the castsim fixtures (relative to the ini file's folder)",
                  default=None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


def castsim_binary(config: pytest.Config) -> Path:
    """The binary the fixtures run: --castsim-bin, $CASTSIM_BIN, castsim_bin (ini), PATH, the wheel's."""
    option = config.getoption("castsim_bin", default=None)
    if option:
        return find_castsim(option)
    if os.environ.get("CASTSIM_BIN"):
        return find_castsim()
    ini = config.getini("castsim_bin")
    if ini:
        path = Path(str(ini)).expanduser()
        if not path.is_absolute():
            base = config.inipath.parent if getattr(config, "inipath", None) else Path(str(config.rootdir))
            path = base / path
        return find_castsim(path)
    return find_castsim()


def _usage_error(message: str) -> None:
    pytest.fail(message, pytrace=False)


def _marker_options(request: pytest.FixtureRequest) -> Dict[str, Any]:
    """The castsim markers' keywords, the closest (function) winning over class/module."""
    options: Dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers("castsim"))):
        if marker.args:
            _usage_error(f"@pytest.mark.castsim takes keywords only ({MARKER_HELP}); got {marker.args!r}")
        options.update(marker.kwargs)
    unknown = set(options) - _DEVICE_OPTIONS
    if unknown:
        _usage_error(f"@pytest.mark.castsim: unknown option(s) {sorted(unknown)}; "
                                f"known: {sorted(_DEVICE_OPTIONS)}")
    scenario = options.get("scenario")
    if isinstance(scenario, (str, os.PathLike)):
        options["scenario"] = _find_scenario(Path(os.fspath(scenario)), request)
    return options


def _find_scenario(path: Path, request: pytest.FixtureRequest) -> Path:
    path = path.expanduser()
    if path.is_absolute():
        candidates = [path]
    else:
        test_file = getattr(request.node, "path", None) or Path(str(request.node.fspath))
        candidates = [Path(test_file).parent / path, Path(str(request.config.rootdir)) / path,
                      Path.cwd() / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    _usage_error("@pytest.mark.castsim: scenario file not found; looked at "
                            + ", ".join(str(c) for c in candidates))


def _start(config: pytest.Config, log_dir: Path, options: Dict[str, Any]) -> CastsimDevice:
    # pytest.fail() outside the except blocks: no "during handling ..." noise.
    problem: Optional[str] = None
    try:
        binary = castsim_binary(config)
    except CastsimNotFound as err:
        problem = str(err)
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    device = CastsimDevice(binary, log_dir=log_dir, **options)
    try:
        device.start()
        device.client  # noqa: B018 - fails now, clearly, if the control API is off
    except CastsimError as err:
        device.stop()
        problem = f"castsim did not start: {err}"
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    return device


def _finish(device: CastsimDevice, what: str) -> None:
    """Stop the device; a device that died on its own fails the teardown."""
    died = not device.is_running() and not device.stopped
    status = device.stop()
    if died:
        pytest.fail(device.describe(f"castsim ({what}) exited by itself during the test with status {status}"),
                    pytrace=False)


def _remember(request: pytest.FixtureRequest, device: CastsimDevice) -> None:
    node = request.node
    if _DEVICES_KEY is not None:
        node.stash.setdefault(_DEVICES_KEY, []).append(device)
    else:  # pytest < 7
        devices = getattr(node, "_castsim_devices", None)
        if devices is None:
            devices = []
            node._castsim_devices = devices
        devices.append(device)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A failing test that used a castsim device shows castsim's stderr tail."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    if _DEVICES_KEY is not None:
        devices = item.stash.get(_DEVICES_KEY, [])
    else:
        devices = getattr(item, "_castsim_devices", [])
    for device in devices:
        if device.stderr_path is not None:
            report.sections.append((f"castsim stderr ({device.stderr_path})", device.stderr_tail(60)))


@pytest.fixture(scope="session")
def castsim_bin(request: pytest.FixtureRequest) -> Path:
    """The castsim binary the fixtures run (fails, saying how to build one, without it)."""
    problem: Optional[str] = None
    try:
        return castsim_binary(request.config)
    except CastsimNotFound as err:
        problem = str(err)
    pytest.fail(problem, pytrace=False)


@pytest.fixture
def castsim(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlClient]:
    """A castsim device for this test; yields its ControlClient (``.device`` for host/port)."""
    options = _marker_options(request)
    device = _start(request.config, tmp_path_factory.mktemp("castsim"), options)
    _remember(request, device)
    try:
        yield device.client
    finally:
        _finish(device, request.node.name)


@pytest.fixture(scope="session")
def castsim_session_options() -> Dict[str, Any]:
    """CastsimDevice options of the ``castsim_session`` device; override it (session
    scope) in a conftest.py, e.g. ``return {"manual_clock": True}``."""
    return {}


@pytest.fixture(scope="session")
def castsim_session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                    castsim_session_options: Dict[str, Any]) -> Iterator[ControlClient]:
    """One castsim device shared by the whole session; yields its ControlClient."""
    device = _start(request.config, tmp_path_factory.mktemp("castsim-session"), dict(castsim_session_options))
    try:
        yield device.client
    finally:
        _finish(device, "session device")


@pytest.fixture
def castsim_shared(request: pytest.FixtureRequest, castsim_session: ControlClient) -> ControlClient:
    """The session's device, reset() first: fresh state, empty journal, clock at 0,
    sender connections closed. Cheaper than ``castsim`` for many small tests."""
    device: Optional[CastsimDevice] = castsim_session.device
    if device is not None:
        _remember(request, device)
        if not device.is_running():
            pytest.fail(device.describe(f"the session's castsim exited with status {device.stop()}"), pytrace=False)
    problem: Optional[str] = None
    try:
        castsim_session.reset()
    except ControlError as err:
        problem = f"castsim reset failed: {err}"
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    return castsim_session


__all__ = ["BUILD_HINT", "castsim", "castsim_bin", "castsim_binary", "castsim_session", "castsim_session_options", "castsim_shared"]
