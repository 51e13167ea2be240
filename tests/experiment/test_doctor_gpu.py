"""The capture doctor on the GPU: every gallery case named with the right class and call in its teaching mode, the
clean case without findings in every mode, the stream, context and device memory restored after each; the explained
and plain graphs of the same capture replay alike; example 13 runs."""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gallery(device, tmp_path_factory):
    from cugraphlab.core.cache import Cache
    from cugraphlab.experiment.doctor_gallery import run_gallery

    return run_gallery(device, cache=Cache(tmp_path_factory.mktemp("doctor-cache")))


@pytest.mark.parametrize("case", ["sync", "legacy_stream", "host_copy", "allocation", "event_query", "other_thread",
                                  "unjoined", "isolation", "clean"])
def test_gallery_case_named_and_restored(gallery, case):
    rows, _ = gallery
    r = next(r for r in rows if r.case == case)
    assert r.error == "", r.error
    first = r.diagnosis.first
    assert r.named, (case, first.kind if first else None, first.call if first else None, r.diagnosis.summary())
    assert r.restored, (r.still_capturing, r.context_usable, r.memory_delta)
    if first is not None and first.seen and case != "unjoined":
        assert "doctor_gallery.py" in first.where


def test_every_mode_restores_state_and_the_clean_case_never_alarms(gallery):
    _, table = gallery
    assert [(r.case, r.mode) for r in table if not r.restored or r.error] == []
    assert [r.mode for r in table if r.case == "clean" and r.diagnosis.findings] == []


def test_unjoined_names_the_dangling_kernel(gallery):
    rows, _ = gallery
    r = next(r for r in rows if r.case == "unjoined")
    assert "KERNEL:doctor_branch" in r.diagnosis.first.detail


def test_the_overhead_is_measured_for_capture_and_replay_alike(device):
    """Every variant's capture and replay sampled in full, finite and positive; how the replays compare (explained
    over plain) is benchmarks/ratio_figures.py's figure, with its interval."""
    from cugraphlab.bench.doctor import DoctorResult, measure_overhead

    with device.load_kernels(names=["empty"]) as ks:
        o = measure_overhead(device, ks, DoctorResult(), launches=32, samples=11, replays=100)
    for label in ("capture_plain", "capture_explained", "replay_plain", "replay_explained"):
        assert o[label]["n"] == 11 and o[label]["median"] > 0 and math.isfinite(o[label]["median"]), (label, o)
    assert math.isfinite(o["replay_ratio"]) and o["replay_ratio"] > 0, o
    assert o["replay_ratio"] == o["replay_explained"]["median"] / o["replay_plain"]["median"]


def test_example_13_runs():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "13_doctor.py")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cuStreamSynchronize" in r.stdout and "0 findings" in r.stdout
