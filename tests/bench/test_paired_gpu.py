"""On the GPU: the native floor, the held stream, the SM clock probe and the paired harness (gpu marker)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def rig_parts():
    from cugraphlab.core.device import Device
    from cugraphlab.core.launch import LaunchConfig, PackedArgs

    with Device(0) as dev, dev.load_kernels(names=["add", "hold", "clockprobe"]) as ks, dev.create_stream() as s:
        rng = np.random.default_rng()
        n = 4099  # not a multiple of 4: the scalar tail runs too
        x = rng.standard_normal(n, dtype=np.float32)
        y = rng.standard_normal(n, dtype=np.float32)
        with dev.to_device(x) as dx, dev.to_device(y) as dy, dev.array(n) as out:
            args = PackedArgs(("ptr", "ptr", "ptr", "u64"), (out, dx, dy, n))
            launch = ks["add"].prepare(("ptr", "ptr", "ptr", "u64"), (out, dx, dy, n), LaunchConfig(3, 256), s)
            yield dev, ks, s, launch, out, x + y, args


def _bits_differ(out, expected, stream) -> int:
    got = out.to_numpy(stream=stream)
    return int(np.count_nonzero(got.view(np.uint32) != expected.view(np.uint32)))


def test_c_loop_launches_add_bit_exact(rig_parts):
    from cugraphlab.bench.native.loops import NativeFloor, bindings_loop

    dev, ks, s, launch, out, expected, _ = rig_parts
    floor = NativeFloor()
    loop = floor.launch_loop(launch)
    out.poison(s)
    assert _bits_differ(out, expected, s) == out.n  # poisoned: nothing matches yet
    ns = loop(3)
    s.synchronize()
    assert ns > 0 and _bits_differ(out, expected, s) == 0
    # the C loop and Python launch the same function with the same packed arguments
    out.poison(s)
    bindings_loop(launch)(2)
    s.synchronize()
    assert _bits_differ(out, expected, s) == 0


def test_c_graph_loop_bit_exact(rig_parts):
    from cugraphlab.bench.native.loops import NativeFloor
    from cugraphlab.graphs.capture import capture_launches
    from cugraphlab.graphs.exec import ready_exec

    dev, ks, s, launch, out, expected, _ = rig_parts
    with ready_exec(capture_launches(s, [launch], 4), s) as exe:
        out.poison(s)
        ns = NativeFloor().graph_loop(exe, s)(5)
        s.synchronize()
        assert ns > 0 and _bits_differ(out, expected, s) == 0


def test_c_loop_raises_a_typed_error(rig_parts):
    from cugraphlab.bench.native.loops import NativeFloor
    from cugraphlab.core.errors import CudaError

    dev, ks, s, launch, out, expected, _ = rig_parts
    floor = NativeFloor()
    bad = floor.raw_launch_loop(int(launch.kernel.handle), (1, 1, 1, 4096, 1, 1, 0), int(s.handle),
                                launch.args.address)  # 4096 threads per block: refused
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_VALUE"):
        bad(10)


@pytest.mark.parametrize("release", ["mapped", "memset"])
def test_held_stream_queues_then_runs(rig_parts, release):
    from cugraphlab.bench.native.loops import NativeFloor
    from cugraphlab.bench.probes.hold import DeviceHold

    dev, ks, s, launch, out, expected, _ = rig_parts
    with DeviceHold(dev, ks, s, release=release, timeout_ms=5000) as holder:
        assert holder.check_released().released
        out.poison(s)
        with holder.held() as h:
            NativeFloor().launch_loop(launch)(256)
            assert _queued_not_run(out, dev)
        assert h["report"].released and h["report"].spun_ns > 0
        assert _bits_differ(out, expected, s) == 0


def _queued_not_run(out, dev) -> bool:
    """While held, the output is still poisoned (read on another stream, without waiting for the held one)."""
    from cugraphlab.core.memory import POISON_BITS

    with dev.create_stream() as other:
        got = out.to_numpy(stream=other)
    return bool(np.all(got.view(np.uint32) == POISON_BITS))


def test_clock_probe_reads_the_sm_clock(rig_parts):
    from cugraphlab.bench.probes.sm_clock import SmClockProbe, rated_clock_mhz

    dev, ks, s, *_ = rig_parts
    probe = SmClockProbe(dev, ks, s)
    try:
        readings = [probe.read() for _ in range(5)]
    finally:
        probe.close()
    rated = rated_clock_mhz(dev)
    assert all(r is not None and 100 < r < 5000 for r in readings), readings
    if rated:
        assert max(readings) < 1.25 * rated, (readings, rated)


def _in_child(code: str) -> dict:
    """Run ``code`` (which prints one JSON line last) in a fresh interpreter: CuPy's runtime keeps the primary
    context of the process it starts in, so measurements that use it, or that need fresh contexts, get their own."""
    import os
    import pathlib
    import subprocess
    import sys

    root = str(pathlib.Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_paired_measures_every_own_way():
    from cugraphlab.bench.paired.harness import PairedResult
    from cugraphlab.report.paired import render_paired

    d = _in_child(
        "import json; from cugraphlab.bench.paired.harness import measure_paired; "
        "r = measure_paired(0, size=1024, contexts=2, rounds=2, max_rounds=3, launches=500, held_launches=128, "
        "warmup=50); print(json.dumps(r.to_dict()))")
    PairedResult.check(d)
    ways = {w["name"]: w for w in d["ways"]}
    for own in ("bindings", "cugraphlab", "cugraphlab_launch", "ctypes", "c"):
        assert own in ways, (own, d["skipped"])
    for name in ("cuda_core", "cupy_raw"):
        assert name in ways or name in d["skipped"]
        if name in d["skipped"]:
            assert d["skipped"][name].startswith(("not installed", "failed")), d["skipped"][name]
    for w in ways.values():
        # finite, positive, inside their own intervals; the figures with their intervals: benchmarks/ratio_figures.py
        for key in ("us", "held_us", "ratio"):
            iv = w[key]
            assert iv is not None and 0 < iv["median"] and math.isfinite(iv["median"]), (key, w)
            assert iv.get("lo") is None or iv["lo"] <= iv["median"] <= iv["hi"], (key, w)
        assert w["samples"] >= 4
    assert ways["bindings"]["ratio"]["median"] == pytest.approx(1.0)
    assert ways["bindings"]["vs_c_us"] is not None
    assert len(d["contexts"]) == 2 and d["rated_clock_mhz"]
    assert all(r["sm_mhz"] for r in d["rows"])
    text = render_paired(d)
    assert "Python adds" in text and "bindings" in text
    print(text)


def test_paired_in_created_contexts_and_graph_mode():
    from cugraphlab.bench.paired.harness import measure_paired

    rec = measure_paired(0, contexts=1, rounds=2, max_rounds=2, launches=300, held_launches=64, warmup=20,
                         context_kind="spin", ways=["bindings", "cugraphlab", "c"], release="memset")
    assert rec.names == ["bindings", "cugraphlab", "c"] and rec.contexts[0]["kind"] == "spin"
    g = measure_paired(0, contexts=1, rounds=2, max_rounds=2, launches=300, held_launches=64, warmup=20,
                       mode="graph")
    assert set(g.names) == {"bindings", "cugraphlab", "ctypes", "c", "cugraphlab_native"}  # graph-mode ways
    assert all(w.us.median > 0 for w in g.ways)


def test_fresh_primary_contexts_are_fresh():
    """In a process where nothing else holds the primary context, each paired context is a new one."""
    d = _in_child(
        "import json; from cugraphlab.bench.paired.harness import measure_paired; "
        "r = measure_paired(0, contexts=2, rounds=1, max_rounds=1, launches=100, held_launches=0, warmup=5, "
        "ways=['bindings', 'c']); print(json.dumps(r.to_dict()))")
    assert [c["fresh"] for c in d["contexts"]] == [True, True]
