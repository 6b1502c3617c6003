"""What starting castsim takes before the process runs: the binary, a free loopback address,
and the ready line that says where each listener is.

The ready line, as ``castsim run`` prints it once every port is bound:

    castsim ready cast=HOST:PORT http=HOST:PORT|off https=HOST:PORT|off control=HOST:PORT|off

A household lists one address per device, comma-separated.
"""

from __future__ import annotations

import os
import random
import re
import socket
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

CAST_PORT = 8009

BUILD_HINT = (
    "Build it in the castsim repository with `swift build --product castsim` and point "
    "CASTSIM_BIN at it (e.g. CASTSIM_BIN=$PWD/.build/debug/castsim), put `castsim` on "
    "PATH, or pass the path (pytest: --castsim-bin PATH or the castsim_bin ini option)."
)

Address = Tuple[str, int]
PathLike = Union[str, "os.PathLike[str]"]


class CastsimError(Exception):
    """castsim could not be started, or misbehaved while starting."""


class CastsimNotFound(CastsimError, FileNotFoundError):
    """No castsim binary where it was looked for."""


# --------------------------------------------------------------------------
# Binary lookup
# --------------------------------------------------------------------------


# The binary a wheel carries (scripts/release.sh puts it there); a source install has none.
BUNDLED_BINARY = Path(__file__).resolve().parent / "bin" / "castsim"
REINSTALL_HINT = (
    "The castsim wheel carries this binary: reinstall it (`pip install --force-reinstall castsim-VERSION-...whl`), "
    "or point CASTSIM_BIN (pytest: --castsim-bin) at a castsim binary."
)
# What the `castsim` console script a pip install writes imports: it runs the bundled
# binary, so the binary itself is what to start (without a Python in between).
_CONSOLE_MARK = b"castsim.console"
# What an executable starts with: ELF (Linux), Mach-O (macOS, 64-bit, either byte order),
# or a script's #!.
_EXECUTABLE_MAGIC = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf")


def find_castsim(binary: Optional[PathLike] = None) -> Path:
    """The castsim binary: ``binary`` if given, else $CASTSIM_BIN, else ``castsim`` on PATH,
    else the one this package carries (an install from the wheel).

    The package's own ``castsim`` command on PATH stands for the binary it carries. Raises
    CastsimNotFound saying where it looked and how to get one, and for a carried binary
    that is missing or damaged, how to reinstall.
    """
    if binary is not None and str(binary) != "":
        return _checked(Path(os.fspath(binary)).expanduser(), "the given path")
    env = os.environ.get("CASTSIM_BIN")
    if env:
        return _checked(Path(env).expanduser(), "CASTSIM_BIN")
    found = castsim_on_path()
    if found is not None:
        return found
    bundled = bundled_castsim()
    if bundled is not None:
        return bundled
    raise CastsimNotFound(f"castsim binary not found: CASTSIM_BIN is not set, there is no `castsim` on PATH and this "
                          f"castsim package carries none (installed from source). {BUILD_HINT}")


def castsim_on_path() -> Optional[Path]:
    """The first ``castsim`` on PATH that is not this package's console script."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = Path(folder or ".") / "castsim"
        if candidate.is_file() and os.access(candidate, os.X_OK) and not is_console_script(candidate):
            return candidate
    return None


def is_console_script(path: Path) -> bool:
    """Whether ``path`` is the ``castsim`` command pip wrote for this package."""
    try:
        with open(path, "rb") as file:
            head = file.read(2048)
    except OSError:
        return False
    return head.startswith(b"#!") and _CONSOLE_MARK in head


def bundled_castsim() -> Optional[Path]:
    """The binary this package carries; None for a package that carries none (a source
    install: no ``bin/`` folder). Raises CastsimNotFound when it should be there and is
    not usable: missing from its folder, not executable, or not an executable file."""
    if not BUNDLED_BINARY.parent.is_dir():
        return None
    where = f"the castsim package's own binary {BUNDLED_BINARY}"
    if not BUNDLED_BINARY.is_file():
        raise CastsimNotFound(f"{where} is missing. {REINSTALL_HINT}")
    if not os.access(BUNDLED_BINARY, os.X_OK):
        raise CastsimNotFound(f"{where} is not executable. {REINSTALL_HINT}")
    with open(BUNDLED_BINARY, "rb") as file:
        magic = file.read(4)
    if magic not in _EXECUTABLE_MAGIC and not magic.startswith(b"#!"):
        raise CastsimNotFound(f"{where} is damaged (not an executable: it starts with {magic!r}). {REINSTALL_HINT}")
    return BUNDLED_BINARY


def is_bundled(binary: Optional[Path]) -> bool:
    """Whether ``binary`` is the one this package carries."""
    return binary is not None and binary == BUNDLED_BINARY


def hint_for(binary: Path) -> str:
    """What to do when ``binary`` will not run: reinstall the wheel for its own binary, else build."""
    return REINSTALL_HINT if is_bundled(binary) else BUILD_HINT


def _checked(path: Path, origin: str) -> Path:
    if path.is_dir():
        candidate = path / "castsim"
        if candidate.is_file():
            path = candidate
    if not path.is_file():
        raise CastsimNotFound(f"castsim binary not found: {path} ({origin}) does not exist. {BUILD_HINT}")
    if not os.access(path, os.X_OK):
        raise CastsimNotFound(f"castsim binary {path} ({origin}) is not executable. {BUILD_HINT}")
    return path


# --------------------------------------------------------------------------
# The ready line
# --------------------------------------------------------------------------

_READY_PREFIX = "castsim ready"
_PAIR = re.compile(r"(?P<key>[A-Za-z][A-Za-z0-9_-]*)=(?P<value>\S+)")


def split_host_port(text: str) -> Address:
    """'127.0.0.5:8009' -> ('127.0.0.5', 8009); '[::1]:8009' -> ('::1', 8009)."""
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit():
        raise ValueError(f"not HOST:PORT: {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def ready_line_addresses(line: str) -> Dict[str, List[Optional[Address]]]:
    """Every address of ``castsim ready cast=HOST:PORT http=... https=... control=...``.

    A household (``--devices N``, or a scenario with ``devices``) lists one address per
    device, comma-separated: ``cast=127.0.0.2:8009,127.0.0.3:8009``; a device whose
    listener is off (a profile without port 8008) has ``off`` in its place
    (``http=127.0.0.2:8008,off``), which becomes None. Returns {key: [(host, port) or
    None, ...]} in the line's order, or {key: []} for a listener that is ``off`` on every
    device; keys are whatever the line has (cast always; http, https, control as the
    version prints them). Raises ValueError for anything that is not a ready line.
    """
    text = line.strip()
    if not text.startswith(_READY_PREFIX + " "):
        raise ValueError(f"not a castsim ready line: {line!r}")
    rest = text[len(_READY_PREFIX):].split()
    addresses: Dict[str, List[Address]] = {}
    for token in rest:
        match = _PAIR.fullmatch(token)
        if not match:
            raise ValueError(f"malformed ready line (expected key=HOST:PORT pairs, got {token!r}): {line!r}")
        value = match["value"]
        try:
            addresses[match["key"]] = [] if value == "off" else [
                None if item == "off" else split_host_port(item) for item in value.split(",")]
        except ValueError:
            raise ValueError(f"malformed ready line ({match['key']}={value!r} is not HOST:PORT[,HOST:PORT...] or off): "
                             f"{line!r}") from None
    if not addresses.get("cast") or None in addresses["cast"]:
        raise ValueError(f"ready line without a cast=HOST:PORT: {line!r}")
    return addresses


def parse_ready_line(line: str) -> Dict[str, Optional[Address]]:
    """The addresses of ``castsim ready cast=HOST:PORT http=... https=... control=...``.

    Returns {key: (host, port)} (a household's first device for a list), or {key: None}
    for a listener that is ``off`` (on that first device); ready_line_addresses() gives every device's. Raises
    ValueError for anything that is not a ready line.
    """
    return {key: (values[0] if values else None) for key, values in ready_line_addresses(line).items()}


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


# --------------------------------------------------------------------------
# Loopback addresses
# --------------------------------------------------------------------------


def bind_problem(host: str, port: int) -> Optional[str]:
    """None if ``port`` can be bound on ``host`` now, else why not. SO_REUSEADDR as a
    server sets it: TIME_WAIT leftovers do not count, a live listener does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as err:
            return f"{host}:{port} is busy ({err.strerror or err})"
    return None


def free_loopback_address(ports: Sequence[int] = (CAST_PORT,), attempts: int = 20,
                          avoid: Sequence[str] = ()) -> str:
    """A random 127.A.B.C (all of 127/8 is loopback on Linux) whose ``ports`` are free,
    other than those in ``avoid`` (addresses already handed to the same device)."""
    rnd = random.SystemRandom()
    problems: List[str] = []
    for _ in range(attempts):
        host = f"127.{rnd.randrange(16, 250)}.{rnd.randrange(0, 256)}.{rnd.randrange(2, 255)}"
        if host in avoid:
            continue
        problem = next((p for p in (bind_problem(host, port) for port in ports) if p), None)
        if problem is None:
            return host
        problems.append(problem)
    raise CastsimError(f"no free loopback address for ports {list(ports)} after {attempts} tries: "
                       + "; ".join(problems[-3:]))
