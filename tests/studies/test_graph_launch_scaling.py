"""The graph-launch scaling study without a GPU: its C loop (built with the system compiler) against ctypes callbacks,
the whole protocol on a fake driver that keeps graphs, and its reading against NVIDIA's model on fake series at 1, 7
and 200 ns per node."""
from __future__ import annotations

import ctypes
import shutil

import numpy as np
import pytest

from cugraphlab.core.cache import Cache
from cugraphlab.core.errors import CudaError

needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                              reason="no C compiler on this machine")
PROTO = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
SYNC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
NODES = (4, 16, 64, 256, 1024, 4096)


class CallbackDriver:
    """cuGraphLaunch and cuStreamSynchronize as C function pointers: they count, keep the handles they were given,
    and answer ``fail_at`` (a CUresult) from the launch of that number."""

    def __init__(self, fail_at: int | None = None, status: int = 400):
        self.launches, self.syncs, self.seen = 0, 0, set()
        self.fail_at, self.status = fail_at, status
        self._launch, self._sync = PROTO(self.launch), SYNC(self.sync)

    def launch(self, exe, stream):
        self.launches += 1
        self.seen.add((exe, stream))
        return self.status if self.fail_at is not None and self.launches >= self.fail_at else 0

    def sync(self, stream):
        self.syncs += 1
        return 0

    def entry(self) -> dict:
        cast = lambda f: ctypes.cast(f, ctypes.c_void_p).value  # noqa: E731
        return {"cuGraphLaunch": cast(self._launch), "cuStreamSynchronize": cast(self._sync)}


@needs_cc
def test_the_c_loop_drains_launches_and_times_every_trial(tmp_path):
    from studies.graph_launch_scaling.protocol import CRepeat

    d = CallbackDriver()
    c = CRepeat(d.entry(), Cache(tmp_path))
    api, total = c.trials(0x1234, 0x5678, 37)
    assert len(api) == len(total) == 37 and d.launches == 37
    assert d.syncs == 74  # drained before each trial, and waited for after it
    assert d.seen == {(0x1234, 0x5678)}
    assert all(a >= 0 for a in api) and all(t >= a for a, t in zip(api, total))


@needs_cc
def test_a_failing_launch_in_c_raises_its_typed_error_naming_the_call(tmp_path):
    from studies.graph_launch_scaling.protocol import CRepeat

    d = CallbackDriver(fail_at=3, status=400)  # CUDA_ERROR_INVALID_HANDLE
    c = CRepeat(d.entry(), Cache(tmp_path))
    with pytest.raises(CudaError, match=r"cuGraphLaunch \(C loop, after 2 successful calls\)"):
        c.trials(1, 2, 10)


def test_python_trials_time_the_call_and_the_wait_apart():
    from studies.graph_launch_scaling.protocol import python_trials

    ticks = iter(range(0, 10**6, 500))  # each clock read 0.5 µs after the last
    calls = []
    api, total = python_trials(lambda: calls.append("launch"), lambda: calls.append("sync"), 4,
                               lambda: next(ticks))
    assert calls == ["sync", "launch", "sync"] * 4
    assert api == [0.5] * 4 and total == [1.0] * 4


@pytest.fixture
def sim(monkeypatch):
    from cugraphlab.core.module import Kernel
    from graph_fake import GraphFakeDriver

    class Kernels(dict):
        def close(self):
            pass

    fake = GraphFakeDriver()
    kernels = Kernels(empty=Kernel(None, "empty", 0x7000))
    monkeypatch.setattr("cugraphlab.core._door._driver", fake)
    monkeypatch.setattr("cugraphlab.core.device._initialised", False)
    monkeypatch.setattr("cugraphlab.core.device.Device.load_kernels", lambda self, names=None, **kw: kernels)
    monkeypatch.setattr("cugraphlab.bench.records.environment.driver_release", lambda: "999.99")
    return fake


@needs_cc
def test_the_protocol_runs_every_way_on_every_length(sim, tmp_path):
    from cugraphlab import Device
    from studies.graph_launch_scaling.protocol import C_WAY, WAYS, render, summarize
    from studies.graph_launch_scaling.run import measure

    d = CallbackDriver()
    with Device(0) as dev:
        rec = measure(dev, (4, 16), trials=12, rounds=3, c_entry=d.entry(), c_cache=Cache(tmp_path))
    assert rec["native"] == "built" and rec["config"]["ways"] == list(WAYS)
    assert [p["nodes"] for p in rec["points"]] == [4, 16]
    assert all(ck["ok"] for ck in rec["checks"]) and len(rec["checks"]) == 2
    for p in rec["points"]:
        for way in WAYS:
            assert len(p["ways"][way]["api_us"]) == len(p["ways"][way]["total_us"]) == 12
    # C: 4 rounds (the warm-up too) of 4 trials per length; Python: the same through the fake's cuGraphLaunch,
    # plus the first launch after upload
    assert d.launches == 2 * 4 * 4
    assert len(sim.graph_launches) == 2 * (1 + 2 * 4 * 4)
    assert len({exe for exe, _ in sim.graph_launches}) == 2  # one executable per length, shared by the ways
    s = summarize(rec)
    assert set(s["4"]["ways"]) == set(WAYS) and set(s["4"]["minus_c"]) == set(WAYS) - {C_WAY}
    text = render(rec)
    assert "C API" in text and "cugraphlab - C" in text and "verdict (C series)" in text


def test_without_a_c_loop_the_python_ways_stand_alone(sim, monkeypatch):
    import studies.graph_launch_scaling.run as run
    from cugraphlab import Device
    from cugraphlab.core.errors import UnsupportedError

    def no_cc(*a, **k):
        raise UnsupportedError("native code (repeat_launch): no C compiler")

    monkeypatch.setattr(run, "CRepeat", no_cc)
    with Device(0) as dev:
        rec = run.measure(dev, (4,), trials=4, rounds=2)
    assert rec["native"].startswith("UnsupportedError: native code") and "C" not in rec["config"]["ways"]
    assert set(rec["points"][0]["ways"]) == {"cugraphlab", "cuda.bindings"}


def _record(slope_ns: float, seed: int, intercept: float = 2.5) -> dict:
    rng = np.random.default_rng(seed)

    def series(extra, n):
        return {"api_us": list((intercept + extra + slope_ns * 1e-3 * n) * (1 + 0.01 * rng.standard_normal(60))),
                "total_us": list(10 + 0.5 * n + rng.random(60))}

    return {"kind": "cugraphlab.study.graph_launch_scaling", "config": {"trials": 60, "rounds": 3},
            "env": {"driver": {"cuda": "13.0", "version_int": 13000}}, "checks": [{"text": "x", "ok": True}],
            "points": [{"nodes": n, "length": n, "ways": {"C": series(0.0, n), "cugraphlab": series(0.7, n),
                                                          "cuda.bindings": series(0.6, n)}} for n in NODES]}


@pytest.mark.parametrize("slope_ns,path,words", [(1.0, "12.6+", "on the CUDA 12.6+ straight-line path"),
                                                 (7.0, "between", "between the two paths"),
                                                 (200.0, "pre-12.6", "on the pre-12.6 path")])
def test_every_way_is_read_against_nvidias_model(slope_ns, path, words):
    from studies.graph_launch_scaling.protocol import model_fits, render, summarize, verdict

    rec = _record(slope_ns, seed=int(slope_ns))
    fits = model_fits(rec)
    assert set(fits) == {"C", "cugraphlab", "cuda.bindings"}
    for way, e in fits.items():
        f = e["fit"]
        assert f["slope_ci"][0] <= slope_ns * 1e-3 <= f["slope_ci"][1], way
        assert e["path"]["path"] == path and words in e["path"]["text"]
    assert fits["cugraphlab"]["fit"]["intercept"] == pytest.approx(3.2, rel=0.05)
    v = verdict(rec)
    assert v["way"] == "C" and v["path"] == path
    s = summarize(rec)
    assert s["4"]["minus_c"]["cugraphlab"] == pytest.approx(0.7, abs=0.2)
    text = render(rec)
    assert words in text and "verdict (C series): by the repeat launch" in text
    assert "CHECKS FAILED" not in text


def test_a_failed_check_is_shown_and_bad_input_exits_2(capsys):
    from studies.graph_launch_scaling.protocol import render
    from studies.graph_launch_scaling.run import main

    rec = _record(7.0, seed=3)
    rec["checks"].append({"text": "line of 16: nodes and edges WRONG", "ok": False})
    assert "CHECKS FAILED:\n  line of 16: nodes and edges WRONG" in render(rec)
    assert main(["out.json", "--lengths", "4,x"]) == 2
    assert main(["out.json", "--trials", "2", "--rounds", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "--lengths must be positive integers" in err
