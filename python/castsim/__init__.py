"""castsim: a Python client of castsim's HTTP control API and a pytest plugin.

- castsim.ControlClient: the control API (state, journal, verify, operator inputs,
  faults, clock, scenario, reset, report, live events).
- castsim.CastsimDevice: runs the castsim binary on a free loopback address.
- castsim.pytest_plugin: the ``castsim``, ``castsim_session`` and ``castsim_shared``
  fixtures (loaded by pytest through the ``pytest11`` entry point).

Standard library only; the plugin needs pytest, which loads it.
"""

from .client import (
    ActResult,
    Clock,
    ControlClient,
    ControlConnectionError,
    ControlError,
    Event,
    EventStream,
    Issue,
    Journal,
    JournalEntry,
    Nearest,
    ScenarioInfo,
    SSEParser,
    State,
    VerifyResult,
    Volume,
    WaitTimeout,
    format_duration,
    parse_duration,
    parse_sse,
)
from .device import (
    CastsimDevice,
    CastsimError,
    CastsimNotFound,
    find_castsim,
    free_loopback_address,
    parse_ready_line,
    ready_line_addresses,
)

from ._version import __version__

__all__ = [
    "__version__",
    "ActResult",
    "CastsimDevice",
    "CastsimError",
    "CastsimNotFound",
    "Clock",
    "ControlClient",
    "ControlConnectionError",
    "ControlError",
    "Event",
    "EventStream",
    "Issue",
    "Journal",
    "JournalEntry",
    "Nearest",
    "ScenarioInfo",
    "SSEParser",
    "State",
    "VerifyResult",
    "Volume",
    "WaitTimeout",
    "find_castsim",
    "format_duration",
    "free_loopback_address",
    "parse_duration",
    "parse_ready_line",
    "parse_sse",
    "ready_line_addresses",
]
