"""catt's command line (`catt ARGS...`), its pychromecast clients using their TLS socket from
one thread at a time like every other sender of these tests (castsim/pychromecast_io.py says why).

catt drives pychromecast from its main thread (LAUNCH, LOAD) while pychromecast's socket
thread reads and answers PINGs; unserialized, a loaded machine now and then makes catt
send a corrupt TLS record (castsim drops that connection) or fail with "[SSL] internal
error", and catt exits 1 before the group plays.
"""

import sys

import castsim.pychromecast_io  # noqa: F401
from catt.cli import main

if __name__ == "__main__":
    sys.exit(main())
