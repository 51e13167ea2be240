"""One wheel of this checkout per test run, shared by the tests that need it (packaging, the course's setup cell).

Under pytest-xdist every worker runs its own session fixtures, so the first worker to ask builds the wheel under a
file lock in the run's shared temporary folder and the others take the same file: the checkout is built once, and
never by two processes at a time (``pip wheel`` of a source folder writes ``build/`` inside it).
"""
from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> Path:
    """The path of a ``cugraphlab-*.whl`` built from this checkout (``pip wheel --no-deps --no-build-isolation``)."""
    pytest.importorskip("setuptools")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if base.name.startswith("popen-gw") else base  # xdist: one folder for all workers
    wheels = shared / "cugraphlab-wheel"
    with open(shared / "cugraphlab-wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = sorted(wheels.glob("cugraphlab-*.whl"))
        if not found:
            r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                                "-w", str(wheels), str(ROOT)], capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, r.stderr[-2000:]
            found = sorted(wheels.glob("cugraphlab-*.whl"))
    (wheel,) = found
    return wheel
