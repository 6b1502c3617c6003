"""Start and stop a castsim process: one simulated Cast device on a loopback address.

    with CastsimDevice(manual_clock=True) as device:
        pychromecast.get_chromecast_from_host((device.host, device.cast_port, None, None, None))
        device.client.advance("10m")

The device runs ``castsim run --host 127.A.B.C --port 8009 --http-port off
--https-port off --mdns off --control-port 0`` on a random loopback address whose port
8009 is free (senders treat any other Cast port as a group, so every device gets its own
address rather than its own port), waits for the ready line and stops with SIGTERM
(SIGKILL after ``stop_timeout``).
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .client import ControlClient
from .launch import (
    CAST_PORT,
    REINSTALL_HINT,
    Address,
    CastsimError,
    CastsimNotFound,
    PathLike,
    _url_host,
    bind_problem,
    find_castsim,
    free_loopback_address,
    hint_for,
    is_bundled,
    parse_ready_line,
    ready_line_addresses,
    split_host_port,
)

__all__ = [
    "CastsimDevice",
    "CastsimError",
    "CastsimNotFound",
    "READY_TIMEOUT",
    "STOP_TIMEOUT",
    "bind_problem",
    "find_castsim",
    "free_loopback_address",
    "parse_ready_line",
    "ready_line_addresses",
    "split_host_port",
]

READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


# --------------------------------------------------------------------------
# The process
# --------------------------------------------------------------------------

_LIVE: "set[CastsimDevice]" = set()


@atexit.register
def _kill_leftovers() -> None:
    """A device whose stop() never ran (an interrupted test run) does not outlive Python."""
    for device in list(_LIVE):
        try:
            device.stop(timeout=2.0)
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


def _has_option(args: Sequence[str], option: str) -> bool:
    return any(arg == option or arg.startswith(option + "=") for arg in args)


def _option_value(args: Sequence[str], option: str) -> Optional[str]:
    for index, arg in enumerate(args):
        if arg == option and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(option + "="):
            return arg[len(option) + 1:]
    return None


class CastsimDevice:
    """One castsim process. Use as a context manager, or call start() and stop().

    binary: the castsim executable (default: $CASTSIM_BIN, else ``castsim`` on PATH).
    host: the address to run on (default: a random free 127.A.B.C).
    cast_port: 8009 (pychromecast insists on it).
    manual_clock: ``--manual-clock``. scenario: a scenario file, or a dict (written to
    a temporary file). args: extra ``castsim run`` arguments (a default option given
    there, e.g. ``--http-port 8008``, replaces the default). name: ``--name``.
    control_token: ``--control-token``, and the client's bearer token.
    log_dir: where stdout/stderr go (default: a temporary folder, removed by stop()
    when castsim ended cleanly). env: extra environment variables.
    address_count: a household's number of addresses (``--host A,B,C``), each free,
    when no host is given. subcommand: ``run``, or ``relay`` (with ``--upstream`` in
    args). prefix: a command castsim runs under, e.g. ``["ip", "netns", "exec", NS]``
    (it must exec castsim, so that the process stopped is castsim). console: keep
    castsim's standard input open for console() (the manual clock's ``advance 10m``);
    otherwise it is /dev/null.
    """

    def __init__(self, binary: Optional[PathLike] = None, *, host: Optional[str] = None, cast_port: int = CAST_PORT,
                 manual_clock: bool = False, scenario: Union[PathLike, Mapping[str, Any], None] = None,
                 args: Sequence[str] = (), name: Optional[str] = None, control_token: Optional[str] = None,
                 http_port: Union[int, str] = "off", https_port: Union[int, str] = "off",
                 log_level: Optional[str] = None, log_dir: Optional[PathLike] = None,
                 env: Optional[Mapping[str, str]] = None, ready_timeout: float = READY_TIMEOUT,
                 stop_timeout: float = STOP_TIMEOUT, client_timeout: float = 10.0, address_count: int = 1,
                 subcommand: str = "run", prefix: Sequence[str] = (), console: bool = False) -> None:
        if isinstance(args, str):
            raise TypeError("args is a list of arguments, not one string: use shlex.split()")
        if isinstance(prefix, str):
            raise TypeError("prefix is a list of arguments, not one string: use shlex.split()")
        if address_count < 1:
            raise ValueError(f"address_count must be at least 1, not {address_count}")
        self.binary_argument = binary
        self.requested_host = host
        self.cast_port = cast_port
        self.manual_clock = manual_clock
        self.scenario = scenario
        self.args = [str(a) for a in args]
        self.name = name
        self.control_token = control_token or _option_value(self.args, "--control-token")
        self.http_port = http_port
        self.https_port = https_port
        self.log_level = log_level
        self.env = dict(env or {})
        self.ready_timeout = ready_timeout
        self.stop_timeout = stop_timeout
        self.client_timeout = client_timeout
        self.address_count = address_count
        self.subcommand = subcommand
        self.prefix = [str(a) for a in prefix]
        self.has_console = console

        # The address castsim runs on; a household's are comma-separated (hosts has each).
        self.host: str = ""
        self.binary: Optional[Path] = None
        self.command: List[str] = []
        self.proc: Optional[subprocess.Popen] = None
        self.ready_line = ""
        self.addresses: Dict[str, Optional[Address]] = {}
        self.all_addresses: Dict[str, List[Optional[Address]]] = {}
        self.returncode: Optional[int] = None
        self.needed_sigkill = False
        self._given_log_dir = Path(log_dir) if log_dir is not None else None
        self.log_dir: Optional[Path] = None
        self._own_log_dir = False
        self.stdout_path: Optional[Path] = None
        self.stderr_path: Optional[Path] = None
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._client: Optional[ControlClient] = None
        self._stopped = False

    # -- what it is ---------------------------------------------------------

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc else None

    @property
    def hosts(self) -> List[str]:
        """Every address castsim runs on: one, or a household's."""
        return [host for host in self.host.split(",") if host]

    @property
    def cast_address(self) -> Address:
        return self.addresses.get("cast") or (self.hosts[0] if self.hosts else "", self.cast_port)

    @property
    def cast_addresses(self) -> List[Address]:
        """Every device's Cast address, in order: a household has one per device."""
        # The ready line has no "off" among the Cast addresses (ready_line_addresses checks).
        return [address for address in self.all_addresses.get("cast") or [self.cast_address] if address is not None]

    @property
    def http_address(self) -> Optional[Address]:
        """eureka_info over HTTP (8008), None when off."""
        return self.addresses.get("http")

    @property
    def https_address(self) -> Optional[Address]:
        """eureka_info over HTTPS (8443), None when off."""
        return self.addresses.get("https")

    @property
    def control_address(self) -> Optional[Address]:
        return self.addresses.get("control")

    @property
    def control_url(self) -> Optional[str]:
        """``http://HOST:PORT`` of the control API; None when it is off."""
        address = self.control_address
        return f"http://{_url_host(address[0])}:{address[1]}" if address else None

    @property
    def client(self) -> ControlClient:
        """A ControlClient of this device's control API."""
        if self._client is None:
            url = self.control_url
            if url is None:
                if not self.ready_line:
                    reason = "castsim is not started"
                elif "control" not in self.addresses:
                    reason = (f"its ready line has no control=HOST:PORT ({self.ready_line!r}): "
                              f"{self.binary} predates the control API?")
                else:
                    reason = f"its control API is off ({self.ready_line!r})"
                raise CastsimError(f"no control API: {reason}")
            self._client = ControlClient(url, token=self.control_token, timeout=self.client_timeout)
            self._client.device = self
        return self._client

    @property
    def stopped(self) -> bool:
        """stop() or wait_exit() was called: the owner ended it, or expected it to end
        (not a crash)."""
        return self._stopped

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __repr__(self) -> str:
        state = "running" if self.is_running() else f"exit {self.returncode}" if self.proc else "not started"
        return f"<CastsimDevice {self.host or '?'}:{self.cast_port} control={self.control_url} {state}>"

    # -- start --------------------------------------------------------------

    def __enter__(self) -> "CastsimDevice":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def build_command(self) -> List[str]:
        assert self.binary is not None
        args = self.args
        command = [*self.prefix, str(self.binary), self.subcommand, "--host", self.host, "--port", str(self.cast_port)]
        defaults = [("--http-port", str(self.http_port)), ("--https-port", str(self.https_port)),
                    ("--mdns", "off"), ("--control-port", "0")]
        for option, value in defaults:
            if not _has_option(args, option):
                command += [option, value]
        if self.name is not None and not _has_option(args, "--name"):
            command += ["--name", self.name]
        if self.log_level is not None and not _has_option(args, "--log-level"):
            command += ["--log-level", self.log_level]
        if self.control_token and not _has_option(args, "--control-token"):
            command += ["--control-token", self.control_token]
        if self.manual_clock and "--manual-clock" not in args:
            command.append("--manual-clock")
        if self.scenario is not None:
            command += ["--scenario", str(self._scenario_file())]
        return command + list(args)

    def _scenario_file(self) -> Path:
        if isinstance(self.scenario, Mapping):
            assert self.log_dir is not None
            path = self.log_dir / "scenario.json"
            path.write_text(json.dumps(dict(self.scenario), indent=2))
            return path
        path = Path(os.fspath(self.scenario)).expanduser()  # type: ignore[arg-type]
        if not path.is_file():
            raise CastsimError(f"scenario file not found: {path}")
        return path.resolve()

    def start(self) -> "CastsimDevice":
        if self.proc is not None:
            raise CastsimError("this CastsimDevice was already started; make a new one")
        self.binary = find_castsim(self.binary_argument)
        if self._given_log_dir is not None:
            self._given_log_dir.mkdir(parents=True, exist_ok=True)
            self.log_dir = self._given_log_dir
        else:
            self.log_dir = Path(tempfile.mkdtemp(prefix="castsim-"))
            self._own_log_dir = True
        # A random address can still be taken between our check and castsim's bind: a
        # start that failed because the port is in use tries another address.
        attempts = 1 if self.requested_host else 3
        for attempt in range(attempts):
            self.host = self.requested_host or self._free_hosts()
            try:
                self._start_once()
                return self
            except CastsimError as err:
                if attempt + 1 < attempts and "in use" in str(err):
                    self._reset_for_retry()
                    continue
                self._cleanup_logs(force=False)
                raise
        raise AssertionError("unreachable")

    def _free_hosts(self) -> str:
        hosts: List[str] = []
        for _ in range(self.address_count):
            hosts.append(free_loopback_address(self._fixed_ports(), avoid=hosts))
        return ",".join(hosts)

    def _fixed_ports(self) -> List[int]:
        """The ports this device binds that are not picked by the system (0) or off."""
        ports = [self.cast_port]
        for option, value in (("--http-port", self.http_port), ("--https-port", self.https_port)):
            value = _option_value(self.args, option) or value
            if str(value).isdigit() and int(value) > 0:
                ports.append(int(value))
        return [p for p in ports if p > 0]

    def _reset_for_retry(self) -> None:
        self.proc = None
        self._lines = queue.Queue()
        self.ready_line = ""
        self.addresses = {}
        self.all_addresses = {}
        self.returncode = None
        self.needed_sigkill = False
        self._stopped = False

    def _start_once(self) -> None:
        assert self.log_dir is not None
        self.command = self.build_command()
        tag = self.hosts[0].replace(":", "_")
        self.stdout_path = self.log_dir / f"castsim-{tag}.stdout.log"
        self.stderr_path = self.log_dir / f"castsim-{tag}.stderr.log"
        environment = dict(os.environ)
        environment.update(self.env)
        with open(self.stderr_path, "wb") as stderr_file:
            try:
                # stdin is /dev/null unless asked for: castsim's console (manual clock)
                # sees EOF and the control API drives the clock instead. Same process
                # group as the caller on purpose, so a Ctrl-C reaches castsim too.
                self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE if self.has_console else subprocess.DEVNULL,
                                             stdout=subprocess.PIPE, stderr=stderr_file, env=environment)
            except OSError as err:
                raise CastsimError(f"cannot run {self.command[0]}: {err}. {hint_for(self.binary)}") from err
        _LIVE.add(self)
        threading.Thread(target=self._pump_stdout, args=(self.proc, self._lines, self.stdout_path),
                         name=f"castsim-stdout-{self.host}", daemon=True).start()
        self._wait_ready()

    @staticmethod
    def _pump_stdout(proc: subprocess.Popen, lines: "queue.Queue[Optional[str]]", path: Path) -> None:
        """Copies stdout to a file and hands each line to the queue (castsim never
        blocks on a full pipe)."""
        assert proc.stdout is not None
        with open(path, "ab") as out:
            for raw in proc.stdout:
                out.write(raw)
                out.flush()
                lines.put(raw.decode("utf-8", errors="replace"))
        lines.put(None)

    def _wait_ready(self) -> None:
        assert self.proc is not None
        try:
            line = self._lines.get(timeout=self.ready_timeout)
        except queue.Empty:
            self._kill_quietly()
            raise CastsimError(self.describe(f"castsim printed no ready line within {self.ready_timeout:g}s")) from None
        if line is None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._kill_quietly()
            self.returncode = self.proc.returncode
            _LIVE.discard(self)
            raise CastsimError(self.describe(f"castsim exited with status {self.proc.returncode} before it was ready"))
        self.ready_line = line.rstrip("\r\n")
        try:
            self.all_addresses = ready_line_addresses(self.ready_line)
            self.addresses = parse_ready_line(self.ready_line)
        except ValueError as err:
            self._kill_quietly()
            raise CastsimError(self.describe(str(err))) from None

    def _kill_quietly(self) -> None:
        try:
            self.stop(timeout=5.0, _keep_logs=True)
        except Exception:  # noqa: BLE001
            pass

    # -- while it runs -------------------------------------------------------

    def console(self, line: str) -> None:
        """One line to castsim's standard input, e.g. ``advance 10m`` for the manual clock
        (castsim's console). Only for a device made with console=True."""
        if self.proc is None or self.proc.stdin is None:
            raise CastsimError("castsim was started without a console (console=True)")
        self.proc.stdin.write((line.rstrip("\n") + "\n").encode())
        self.proc.stdin.flush()

    def wait_exit(self, timeout: Optional[float] = None) -> int:
        """Wait for castsim to end by itself (``--exit-when-done``, a scenario's end);
        its exit status. Raises subprocess.TimeoutExpired, castsim still running, if it
        has not ended within ``timeout``. Its ending is then no crash (``stopped``)."""
        if self.proc is None:
            raise CastsimError("castsim is not started")
        self._stopped = True
        self.returncode = self.proc.wait(timeout=timeout)
        _LIVE.discard(self)
        self._close_pipes()
        return self.returncode

    # -- diagnostics ----------------------------------------------------------

    def stderr_tail(self, lines: int = 60) -> str:
        """The last ``lines`` lines of castsim's stderr; for a Swift crash report, its
        start (the crashing thread's backtrace; register dumps follow it)."""
        if self.stderr_path is None:
            return "<not started>"
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError as err:
            return f"<cannot read {self.stderr_path}: {err}>"
        all_lines = text.splitlines()
        for index, line in enumerate(all_lines):
            if line.startswith("*** Program crashed"):
                return "\n".join([*all_lines[max(0, index - 10):index], *all_lines[index:index + lines],
                                  "[... rest of the crash report in the file]"])
        tail = all_lines[-lines:]
        return "\n".join(tail) if tail else "<empty>"

    def describe(self, problem: str) -> str:
        # The package's own binary failing to start is a damaged install: say how to mend it.
        hint = f"\n  {REINSTALL_HINT}" if is_bundled(self.binary) else ""
        return (f"{problem}{hint}\n  command: {shlex.join(self.command)}\n"
                f"  stderr ({self.stderr_path}), last lines:\n{_indent(self.stderr_tail(40))}")

    # -- stop -----------------------------------------------------------------

    def stop(self, timeout: Optional[float] = None, *, sig: int = signal.SIGTERM,
             _keep_logs: bool = False) -> Optional[int]:
        """``sig`` (SIGTERM), wait up to ``timeout`` (default stop_timeout, 10 s), then SIGKILL.

        Returns the exit status (negative: killed by that signal); None if never started.
        The temporary log folder is removed when castsim ended by itself or on SIGTERM.
        """
        if self.proc is None:
            return None
        timeout = self.stop_timeout if timeout is None else timeout
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(sig)
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.needed_sigkill = True
                self.proc.kill()
                self.proc.wait(timeout=30)
            except ProcessLookupError:
                pass
        self.returncode = self.proc.returncode
        _LIVE.discard(self)
        self._close_pipes()
        if not _keep_logs:
            self._cleanup_logs(force=False)
        self._stopped = True
        return self.returncode

    def _close_pipes(self) -> None:
        assert self.proc is not None
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    def _cleanup_logs(self, force: bool) -> None:
        # Kept after a crash, a kill or a failed start (their stderr is the evidence);
        # removed when castsim never ran or ended as asked.
        clean = self.proc is None or (self.returncode in (0, -signal.SIGTERM) and not self.needed_sigkill)
        if self._own_log_dir and self.log_dir is not None and (force or clean):
            shutil.rmtree(self.log_dir, ignore_errors=True)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())
