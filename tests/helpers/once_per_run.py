"""Work done once per test run, whichever pytest-xdist worker asks for it first; the others wait and take its result.

pytest-xdist's ``--dist loadgroup`` no longer keeps a module on one worker under pytest 9 (its ``xdist_group`` suffix
is written to ``item._nodeid``, which pytest 9's nodes no longer read), so a module-scoped fixture can be built once
on each worker. What costs tens of seconds (the floors' import probe, the course's fresh environment and its notebook
runs) goes through ``once(base, name, compute)`` instead: ``compute()`` runs under a file lock in the folder all the
run's workers share (``shared_folder``), its JSON result is kept there, and every later call, in any worker, reads
it. The folder is pytest's own temporary folder of the run, which pytest cleans up as it does the rest.
"""
from __future__ import annotations

import fcntl
import json
from pathlib import Path
from typing import Any, Callable

__all__ = ["once", "shared_folder"]


def shared_folder(base: Path) -> Path:
    """The folder every worker of this run sees: the parent of a worker's ``popen-gwN`` temporary folder under xdist,
    else ``base`` itself (``base``: ``tmp_path_factory.getbasetemp()``)."""
    base = Path(base)
    return base.parent if base.name.startswith("popen-gw") else base


def once(base: Path, name: str, compute: Callable[[], Any]) -> Any:
    """``compute()``'s JSON-able result, computed by the first worker of the run to ask and read by the others."""
    folder = shared_folder(base)
    result = folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if result.exists():
            return json.loads(result.read_text())
        value = compute()
        tmp = result.with_suffix(".tmp")
        tmp.write_text(json.dumps(value))
        tmp.replace(result)
        return value
