"""The edges of issue 30 §4 where a GPU answers: ``--json /dev/stdout`` of a real measurement is the record alone,
the README's measure command runs from the repository's root as written, and info exits 0 with its device table."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
DEMO = "benchmarks/measure_demo"


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def test_measure_json_to_dev_stdout_is_the_record_alone():
    """The README's command, from the repository's root, its record piped to json.tool: stdout parses as the
    measure record (verified by the demo's check, against NumPy), the table and the file's line are on stderr."""
    cmd = (f"{sys.executable} -m cugraphlab measure {DEMO}/saxpy.cu --kernel saxpy --size 2^16 --args out,x,y,2.0,n "
           f"--check {DEMO}/saxpy_check.py:check --time-budget 2 --json /dev/stdout | {sys.executable} -m json.tool")
    r = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True, env=_env(), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    record = json.loads(r.stdout)
    assert record["kind"] == "cugraphlab.measure" and record["verified"] is True
    assert "record written to /dev/stdout" in r.stderr and "eager" in r.stderr


def test_info_with_a_gpu_exits_0_with_its_devices():
    r = subprocess.run([sys.executable, "-m", "cugraphlab", "info"], cwd=ROOT, capture_output=True, text=True,
                       env=_env(), timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "no usable GPU" not in r.stdout and "device(s)" in r.stdout and "SM clock" in r.stdout
