"""benchmarks/devlaunch.py without a GPU: it says where it looked for the headers, and a failure comes back as a
traceback summary on stderr and a failure record in OUT.json (never a bare exit)."""
from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "devlaunch.py"


def _script():
    if "devlaunch_script" not in sys.modules:
        spec = importlib.util.spec_from_file_location("devlaunch_script", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["devlaunch_script"] = module
        spec.loader.exec_module(module)
    return sys.modules["devlaunch_script"]


def _raise_from_deep():
    def inner():
        raise ValueError("deep failure")

    inner()


def test_traceback_summary_ends_with_the_error():
    s = _script()
    try:
        _raise_from_deep()
    except ValueError as e:
        lines = s.traceback_summary(e)
    assert lines[-1] == "builtins.ValueError: deep failure"
    assert "in inner: raise ValueError(\"deep failure\")" in lines[-2]
    assert all(":" in line for line in lines)


@pytest.mark.parametrize("unsupported", [True, False])
def test_fail_writes_the_record_and_prints_the_summary(tmp_path, capsys, unsupported):
    from cugraphlab.core.errors import UnsupportedError

    s = _script()
    out = tmp_path / "out.json"
    try:
        if unsupported:
            raise UnsupportedError("device graph launch: no CUDA 13 include folder; looked in /x (lacks y)")
        _raise_from_deep()
    except Exception as e:
        code = s.fail(str(out), e, 2 if unsupported else 1, 0.0, {"found": None, "summary": "looked in /x"})
    err = capsys.readouterr().err
    assert code == (2 if unsupported else 1)
    assert "traceback (most recent call last):" in err and "test_fail_writes_the_record" in err
    assert ("Traceback (most recent call last)" in err) is not unsupported  # the whole one for the unexpected
    record = json.loads(out.read_text())
    assert record["kind"] == "cugraphlab.study.devlaunch.failure" and record["exit"] == code
    assert record["header_search"]["summary"] == "looked in /x"
    assert record["traceback"][-1].endswith("UnsupportedError: device graph launch: no CUDA 13 include folder; "
                                            "looked in /x (lacks y)" if unsupported else "deep failure")


def test_the_header_search_record_lists_every_folder():
    h = _script().header_search()
    assert set(h) >= {"found", "via", "nvrtc_major", "devrt", "looked", "summary"}
    assert h["found"] is None or h["looked"][-1]["folder"] == h["found"]
    assert all(x["refused"] for x in h["looked"][:-1])


def test_the_script_without_a_gpu_says_so_in_one_line_and_writes_nothing(tmp_path):
    from conftest import gpu_unavailable_reason

    if gpu_unavailable_reason() is None:
        pytest.skip("a GPU answers here: the lead runs the script itself")
    out = tmp_path / "sub" / "out.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="")
    r = subprocess.run([sys.executable, str(SCRIPT), str(out), "--watchdog", "60"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "no usable GPU" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not out.parent.exists()  # require_gpu runs before anything is created
