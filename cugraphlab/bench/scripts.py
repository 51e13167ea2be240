"""What every script under ``benchmarks/`` shares when it starts: a GPU looked for before anything is created.

    from cugraphlab.bench.scripts import require_gpu, run_main

    def main(argv=None) -> int:
        args = parser.parse_args(argv)
        require_gpu(__file__, args.device)   # before any output folder or log is made
        ...

    if __name__ == "__main__":
        run_main(main, __file__)

Without a usable GPU a script says so in one line on stderr (``name.py: no usable GPU: ...``) and exits 2, with
nothing created, as the ``cugraphlab`` commands do; ``run_main`` turns a NoDeviceError raised later (a GPU lost, a
device index past the last) into the same line instead of a traceback.
"""
from __future__ import annotations

import os
import sys
from typing import Callable, NoReturn

from ..core.errors import EXIT_USAGE

__all__ = ["require_gpu", "run_main"]


def _name(script: str) -> str:
    return os.path.basename(script)


def _no_gpu(script: str, why: str) -> NoReturn:
    print(f"{_name(script)}: no usable GPU: {why}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


def require_gpu(script: str, device: int | None = 0) -> None:
    """Return when device ``device`` (default 0) can be used; else one line on stderr naming ``script`` and
    SystemExit(2). Call it after the options are parsed (``--help`` and bad options need no GPU) and before
    anything is written."""
    from ..core.device import device_count
    from ..core.errors import NoDeviceError

    try:
        count = device_count()
    except NoDeviceError as e:
        _no_gpu(script, str(e))
    index = 0 if device is None else int(device)
    if index >= count:
        _no_gpu(script, f"device {index} does not exist: the driver sees {count} GPU(s)")


def run_main(main: Callable[[], int | None], script: str) -> NoReturn:
    """``sys.exit(main())``, with a NoDeviceError that reaches it said in one line (exit 2), not a traceback."""
    from ..core.errors import NoDeviceError

    try:
        code = main()
    except NoDeviceError as e:
        _no_gpu(script, str(e))
    raise SystemExit(code)
