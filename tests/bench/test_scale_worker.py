"""scale_worker.process_main's threads, rounds, checks and evidence, run in-process on a fake driver (no GPU).

The fakes execute what the GPU would: ``count`` increments its counter and writes its stamp pair, graphs replay
their captured launches. This checks the Python around the driver calls; the driver calls themselves run in the
GPU tests.
"""
from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from cugraphlab.bench.scale import worker as scale_worker
from cugraphlab.bench.scale.plan import Point, make_config
from cugraphlab.bench.scale.run import point_rows

_handles = itertools.count(1)
_graphs: dict = {}


class FakeArray:
    def __init__(self, n, dtype="float32"):
        self.data = np.zeros(n, dtype)
        self.ptr = next(_handles)
        self.closed = False

    def copy_from(self, host, stream=None):
        assert host.dtype == self.data.dtype and host.size == self.data.size
        self.data[:] = host

    def to_numpy(self, out=None, stream=None):
        return self.data.copy()

    def close(self):
        self.closed = True


class FakeStream:
    def __init__(self):
        self.handle = next(_handles)

    def synchronize(self):
        pass

    def close(self):
        pass


class FakeKernelSet(dict):
    def close(self):
        pass


class FakeDevice:
    opened: list = []

    def __init__(self, ordinal):
        self.ordinal, self.name = ordinal, f"Fake GPU {ordinal}"
        FakeDevice.opened.append(self)

    def make_current(self):
        pass

    def load_kernels(self, names):
        return FakeKernelSet({n: n for n in names})

    def create_stream(self):
        return FakeStream()

    def array(self, n, dtype="float32"):
        return FakeArray(n, dtype)

    def close(self):
        pass


class FakePackedArgs:
    def __init__(self, signature, values):
        assert len(signature) == len(values)
        self.values = values


class FakeLaunch:
    """Runs the kernel's effect on the host when fired."""

    def __init__(self, kernel, args, config, stream):
        self.kernel, self.values, self.api = kernel, args.values, "cuLaunchKernel"
        self.call_args = (self,)
        self.fn = _fire

    def run(self):
        if self.kernel == "count":
            counter, slots, capacity = self.values
            i = int(counter.data[0])
            counter.data[0] += 1
            if i < capacity:
                t = time.perf_counter_ns()
                slots.data[2 * i], slots.data[2 * i + 1] = t, t + 500
        return (0,)


def _fire(launch):
    return launch.run()


class FakeRunner:
    """experiment.runners.Runner on the fakes: eager fires each launch, a graph of K iterations replays them K times."""

    def __init__(self, launches, stream):
        self.launches = tuple(launches)
        self.made = set()

    def eager(self, iters):
        for _ in range(iters):
            for launch in self.launches:
                launch.fn(*launch.call_args)

    def graph_exec(self, unroll=1):
        self.made.add(unroll)

    def graphs(self, n, unroll=1):
        assert unroll in self.made, "a graph launched before it was made (captured, instantiated, uploaded)"
        for _ in range(n * unroll):
            for launch in self.launches:
                launch.run()

    def close(self):
        pass


class FakeChain:
    def __init__(self, device, n, kernels, stream, seed):
        self.launches = [FakeLaunch(k, FakePackedArgs((), ()), None, stream) for k in ("add", "mul", "sub", "relu")]
        self.rounds = 0

    def randomize(self):
        self.rounds += 1

    def poison(self):
        pass

    def check_result(self, mode):
        class V:
            ok, mismatches = True, 0

        return V()

    def close(self):
        pass


def _fakes():
    import cugraphlab.experiment.chain as chain_module

    return [(scale_worker, "Device", FakeDevice), (scale_worker, "Launch", FakeLaunch),
            (scale_worker, "PackedArgs", FakePackedArgs),
            (scale_worker, "LaunchConfig", lambda grid, block: (grid, block)),
            (scale_worker, "Runner", FakeRunner), (chain_module, "Chain", FakeChain)]


@pytest.fixture
def fake_workers(monkeypatch):
    for module, name, value in _fakes():
        monkeypatch.setattr(module, name, value)


# Targets for spawned workers: the fakes are installed inside the child process.
def fake_process_main(**kwargs):
    for module, name, value in _fakes():
        setattr(module, name, value)
    return scale_worker.process_main(**kwargs)


def fake_gil_probe(**kwargs):
    return {"busy_alone": 20e6, "busy_beside": 18e6, "launch_alone": 2e5, "launch_beside": 2e4, "seconds": 0.1,
            "us_per_launch_alone": 5.0, "switch_interval_s": 0.005, "device": 0, "env": {"gpu": {"name": "Fake"}}}


def test_run_scale_end_to_end_with_spawned_processes(monkeypatch):
    """Real spawn, real barriers across processes and threads; only the driver is fake."""
    from cugraphlab.bench.scale import run as scale
    from cugraphlab.bench.scale.plan import resolve_devices
    from cugraphlab.report.scale import render_scale

    monkeypatch.setattr("cugraphlab.core.device.device_count", lambda: 2)
    monkeypatch.setattr("cugraphlab.bench.scale.plan.usable_cpus", lambda: 16)
    monkeypatch.setattr(scale, "process_main", fake_process_main)
    monkeypatch.setattr(scale, "gil_probe_main", fake_gil_probe)
    config = resolve_devices(make_config(threads="1,2", launches=300, launch="eager,graphK", unroll=3,
                                         repeats=2, cross=True, timeout_s=60))
    t0 = time.perf_counter()
    record = scale.run_scale(config)
    assert time.perf_counter() - t0 < 60
    record = record.to_dict()
    rows = record["points"]
    assert [(r["axis"], r["workers"], r["kind"]) for r in rows] == [
        ("threads", 1, "eager"), ("threads", 1, "graph3"), ("threads", 2, "eager"), ("threads", 2, "graph3"),
        ("gpus", 2, "eager"), ("gpus", 2, "graph3"), ("processes", 2, "eager"), ("processes", 2, "graph3"),
        ("cross", 4, "eager"), ("cross", 4, "graph3")]
    for r in rows:
        assert r["ok"] and r["verified"] is True and r["launches_counted"] is True, r["errors"]
        assert r["calls_per_s"] > 0 and r["speedup"] > 0
    assert {e["device"] for e in rows[-1]["evidence"]} == {0, 1}
    assert record["env"] == {"gpu": {"name": "Fake"}} and record["gil_verdict"]["released"] is True
    assert "cross" not in render_scale(record) or "a process each, 2 threads each" in render_scale(record)


@pytest.mark.parametrize("work, stream", [("empty", "per-thread"), ("empty", "shared"), ("chain", "per-thread")])
def test_process_main_runs_every_round_and_checks(fake_workers, work, stream):
    kinds = ["eager", "graph", "graph10"]
    out = scale_worker.process_main(devices=[0, 0, 1], kinds=kinds, launches=200, work=work, size=1024,
                                    stream=stream, repeats=2, evidence=True, timeout_s=30)
    recs = out["records"]
    timed = [r for r in recs if not r["probe"]]
    probes = [r for r in recs if r["probe"]]
    assert len(timed) == 3 * 2 * len(kinds) and len(probes) == 3 * len(kinds)
    kpi = 4 if work == "chain" else 1
    for r in timed:
        _, k = {"eager": ("eager", 1), "graph": ("graph", 1), "graph10": ("graph", 10)}[r["kind"]]
        assert r["iters"] == 200 and r["calls"] == (200 * kpi if k == 1 and r["kind"] == "eager" else 200 // k)
        assert r["t1_ns"] >= r["t0_ns"]
        assert r["verified"] is (True if work == "chain" else None)
    assert all(r["verified"] and r["counted"] == 200 * kpi for r in probes)
    assert all("_starts" not in r for r in recs)
    ev = out["evidence"]
    assert {(e["device"], e["kind"]) for e in ev} == {(d, k) for d in (0, 1) for k in kinds}
    assert all(e["complete"] and e["kernels"] == (2 if e["device"] == 0 else 1) * 200 * kpi for e in ev)
    assert out["device_names"] == {"0": "Fake GPU 0", "1": "Fake GPU 1"}


def test_rows_from_a_real_process_main_result(fake_workers):
    from cugraphlab.bench.workers import WorkerOutcome

    config = make_config(threads="2", devices="0", launches=100, launch="eager,graphK", unroll=5, work="chain",
                         repeats=3)
    point = Point("threads", "2 threads, GPU 0", ((0, 0),), evidence=True)
    res = scale_worker.process_main(devices=[0, 0], kinds=list(config.kinds), launches=100, work="chain", size=64,
                                    repeats=3, evidence=True, timeout_s=30)
    rows = point_rows(point, config, [WorkerOutcome(0, True, res, None, 1.0)])
    assert [r["kind"] for r in rows] == ["eager", "graph5"]
    assert all(r["ok"] and r["verified"] is True and r["checks"] == 2 * 3 + 2 for r in rows)
    assert all(r["calls_per_s"] > 0 and r["us_per_call"]["n"] == 6 for r in rows)
    assert rows[1]["iters_per_s"] == pytest.approx(rows[1]["calls_per_s"] * 5)


def test_a_failing_thread_fails_the_process_without_hanging(fake_workers, monkeypatch):
    def broken(self, kind, iters, probe=False):
        if self.index == 1:
            raise RuntimeError("launch refused")
        return original(self, kind, iters, probe)

    original = scale_worker._Worker.fire
    monkeypatch.setattr(scale_worker._Worker, "fire", broken)
    t0 = time.perf_counter()
    with pytest.raises(RuntimeError, match="thread 1: RuntimeError: launch refused"):
        scale_worker.process_main(devices=[0, 0, 0], kinds=["eager"], launches=10, work="empty", size=16,
                                  repeats=1, evidence=False, timeout_s=20)
    assert time.perf_counter() - t0 < 10
