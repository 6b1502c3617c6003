"""The ``castsim`` command a pip install puts on PATH: runs the castsim binary the wheel
carries, with the same arguments (``castsim run``, ``castsim ctl ...``).

The process becomes the binary (exec), so signals, exit status and the ready line are
castsim's own. A source install carries no binary: then the next ``castsim`` on PATH runs,
or the command says how to get one.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from .launch import BUILD_HINT, CastsimNotFound, bundled_castsim, castsim_on_path


def main(argv: Optional[List[str]] = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    try:
        binary = bundled_castsim() or castsim_on_path()
    except CastsimNotFound as problem:
        print(f"castsim: {problem}", file=sys.stderr)
        return 126
    if binary is None:
        print("castsim: this castsim package carries no binary (installed from source) and there is no other "
              f"`castsim` on PATH. {BUILD_HINT}", file=sys.stderr)
        return 127
    try:
        os.execv(binary, [str(binary), *arguments])
    except OSError as error:
        print(f"castsim: cannot run {binary}: {error.strerror or error}", file=sys.stderr)
        return 126
    return 0  # not reached: exec replaced the process


if __name__ == "__main__":
    sys.exit(main())
