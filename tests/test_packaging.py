"""The wheel carries the kernel sources (package data mapped from kernels/)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_kernels(tmp_path):
    pytest.importorskip("setuptools")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("cugraphlab-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for k in ("add", "mul", "sub", "relu", "fused", "empty"):
        assert f"cugraphlab/kernels/{k}.cu" in names
    assert "cugraphlab/kernels/elementwise.cuh" in names
    assert "cugraphlab/cli.py" in names and "cugraphlab/bench/experiment.py" in names
    assert not any(n.startswith("tests/") for n in names)
