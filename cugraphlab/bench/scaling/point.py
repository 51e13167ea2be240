"""One point of ``cugraphlab scaling``: the measurement of one Shape on a workload (bench.scaling.sweep drives it).

``_Point`` checks the graph (structure, and bit-exact results with the chain), times its lifecycle (one fresh graph
per sample: capture, build, instantiate, first and repeat launch, upload, memory), the steady state (eager
iterations against graph replays) and the paired instantiation (Python and C on the same capture). Every sample set
is adaptive (``_adaptive``). The held launches are timed by the sweep, in rounds over every point.
"""
from __future__ import annotations

import time
from typing import Callable

from ...core._calls import cu, driver_fn
from ...core.errors import check
from ...experiment.scaling import ScalingWorkload, Shape
from ..probes.hold import DeviceHold
from ..stats.summary import median_ci_halfwidth, sample_adaptively
from .plan import _LIFECYCLE, MEASURES, PAIR_MAX_SAMPLES, PAIR_MIN_SAMPLES, TARGET_SPREAD, ScalingPlan

__all__: list[str] = []  # private to bench.scaling


def _us(t0: int, t1: int) -> float:
    return (t1 - t0) / 1e3


def _adaptive(plan: ScalingPlan, sample: Callable[[], float], clock: str, unit: str = "us") -> tuple[str, int]:
    """``measure`` with the plan's bounds: (stop reason, samples taken after the warm-up). The warm-up sample's
    duration stretches the cap so that at least ``repeats`` samples fit where one sample is slow; should the cap
    still come first (a slow sample later on), the missing ones are taken anyway."""
    t0 = time.perf_counter()
    sample()  # warm-up, timed only to size the cap
    one = time.perf_counter() - t0
    cap = max(plan.time_cap_s, plan.repeats * one * 1.2)
    summary = sample_adaptively(sample, warmup=0, min_samples=plan.repeats, max_samples=plan.max_samples,
                      target_rel_spread=TARGET_SPREAD, time_cap_s=cap, unit=unit, clock=clock)
    n = summary.n
    while n < plan.repeats:
        sample()
        n += 1
    return summary.stop_reason, n



def _iterations(estimate_us: float) -> int:
    return int(min(100, max(1, 2000 // max(estimate_us, 1.0))))


class _Point:
    """The measurement of one Shape on a workload (all timing lives in here and in bench.probes.hold)."""

    def __init__(self, workload: ScalingWorkload, hold: DeviceHold, shape: Shape, plan: ScalingPlan, device):
        self.w, self.hold, self.shape, self.plan, self.device = workload, hold, shape, plan, device
        self.s = workload.stream.handle
        self.launch = driver_fn("cuGraphLaunch")
        self.inst = driver_fn("cuGraphInstantiate")
        self.upload = driver_fn("cuGraphUpload")
        self.sync = driver_fn("cuStreamSynchronize")
        self.destroy = driver_fn("cuGraphExecDestroy")
        self.nodes = shape.nodes(workload.per_unit)

    def _call(self, fn, name, *args):
        r = fn(*args)
        if r[0]:
            check(r, name)
        return r[1] if len(r) > 1 else None

    # --- once per point: structure and bits ---------------------------------------------------------------------
    def check(self) -> dict:
        expected = self.w.expected_structure(self.shape)
        out = {"expected": list(expected)}
        mismatches = 0
        verifications = []
        for way, make in (("capture", self.w.capture), ("explicit", self.w.build)):
            with make(self.shape) as g:
                out[way] = list(self.w.structure(g))
                if self.w.work == "chain":
                    with g.instantiate() as exe:
                        exe.upload(self.w.stream)
                        vs = self.w.verify(exe, self.shape)
                    mismatches += sum(v.mismatches for v in vs)
                    verifications += [f"{way}: {v}" for v in vs if not v.ok]
        out["ok"] = out["capture"] == out["expected"] == out["explicit"]
        out["mismatches"] = mismatches
        out["verified"] = (mismatches == 0) if self.w.work == "chain" else None
        out["failures"] = verifications[:4]
        return out

    # --- lifecycle: one fresh graph per sample ------------------------------------------------------------------
    def lifecycle(self) -> tuple[dict, dict]:
        perf = time.perf_counter_ns
        got: dict[str, list[float]] = {k: [] for k in _LIFECYCLE}
        copies = max(1, min(8, 1024 // self.nodes))
        w, shape, s = self.w, self.shape, self.s

        def sample() -> float:
            t0 = perf()
            g = w.capture(shape)
            t1 = perf()
            execs = []
            try:
                t2 = perf()
                e = w.build(shape)
                t3 = perf()
                e.close()
                t4 = perf()
                h = self._call(self.inst, "cuGraphInstantiate", g.handle, 0)
                t5 = perf()
                execs.append(h)
                t6 = perf()
                self._call(self.launch, "cuGraphLaunch", h, s)
                t7 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
                t8 = perf()
                self._call(self.launch, "cuGraphLaunch", h, s)
                t9 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
                t10 = perf()
                self._call(self.destroy, "cuGraphExecDestroy", execs.pop())
                free0 = cu("cuMemGetInfo")[0]
                for _ in range(copies):
                    execs.append(self._call(self.inst, "cuGraphInstantiate", g.handle, 0))
                u0 = perf()
                self._call(self.upload, "cuGraphUpload", execs[0], s)
                u1 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
                u2 = perf()
                for h2 in execs[1:]:
                    self._call(self.upload, "cuGraphUpload", h2, s)
                self._call(self.sync, "cuStreamSynchronize", s)
                free1 = cu("cuMemGetInfo")[0]
                l0 = perf()
                self._call(self.launch, "cuGraphLaunch", execs[0], s)
                l1 = perf()
                self._call(self.sync, "cuStreamSynchronize", s)
            finally:
                for h2 in execs:
                    cu("cuGraphExecDestroy", h2)
                g.close()
            for key, v in (("capture_us", _us(t0, t1)), ("build_us", _us(t2, t3)), ("instantiate_us", _us(t4, t5)),
                           ("first_launch_api_us", _us(t6, t7)), ("first_launch_total_us", _us(t6, t8)),
                           ("repeat_launch_api_us", _us(t8, t9)), ("repeat_launch_total_us", _us(t8, t10)),
                           ("upload_api_us", _us(u0, u1)), ("upload_total_us", _us(u0, u2)),
                           ("uploaded_launch_api_us", _us(l0, l1)),
                           ("exec_bytes", max(0, free0 - free1) / copies)):
                got[key].append(v)
            return _us(t4, t5)

        reason, n = _adaptive(self.plan, sample, MEASURES["instantiate_us"][2])
        for k in got:  # the warm-up sample is in the lists too: drop it
            got[k] = got[k][-n:]
        return got, {k: reason for k in got}

    # --- steady state on one ready executable ---------------------------------------------------------------------
    def steady(self, exe) -> tuple[dict, dict, dict]:
        """Eager iterations and graph replays of the ready executable ``exe``: (samples per cost, facts, stop
        reason per cost). The held launches come later, in rounds over every point (``_held_rounds``)."""
        got: dict[str, list[float]] = {"eager_us_per_iter": [], "graph_us_per_iter": []}
        w, shape, s = self.w, self.shape, self.s
        perf = time.perf_counter_ns
        r_eager = _iterations(w.per_unit * shape.length * 4.0)
        r_graph = _iterations(max(3.0, self.nodes * 0.6))
        info = {"eager_iterations": r_eager, "graph_iterations": r_graph}
        reasons = {}
        launch, h = self.launch, exe.handle

        def eager() -> float:
            self._call(self.sync, "cuStreamSynchronize", s)
            t0 = perf()
            for _ in range(r_eager):
                w.enqueue(shape)
            self._call(self.sync, "cuStreamSynchronize", s)
            v = _us(t0, perf()) / r_eager
            got["eager_us_per_iter"].append(v)
            return v

        def graph() -> float:
            self._call(self.sync, "cuStreamSynchronize", s)
            t0 = perf()
            for _ in range(r_graph):
                r = launch(h, s)
                if r[0]:
                    check(r, "cuGraphLaunch")
            self._call(self.sync, "cuStreamSynchronize", s)
            v = _us(t0, perf()) / r_graph
            got["graph_us_per_iter"].append(v)
            return v

        for key, fn in (("eager_us_per_iter", eager), ("graph_us_per_iter", graph)):
            reason, n = _adaptive(self.plan, fn, MEASURES[key][2])
            got[key] = got[key][-n:]  # drop the warm-up sample
            reasons[key] = reason
        w.stream.synchronize()
        return got, info, reasons

    # --- Python against C, paired, on the same graph ---------------------------------------------------------------
    def paired_instantiate(self, floor) -> tuple[dict, str]:
        """Samples of (Python cuGraphInstantiate, C cuGraphInstantiateWithFlags) on one fresh capture each: two
        pairs per sample, P C then C P (the next sample C P then P C), each executable destroyed outside the
        timing; after one warm-up sample, until the per-pair ratio's median is known within 2% (at least
        ``PAIR_MIN_SAMPLES``, an even count) or the time cap, at most ``PAIR_MAX_SAMPLES``. Returns (raw pairs,
        stop reason)."""
        perf = time.perf_counter_ns
        out = {"python_us": [], "c_us": [], "group": [], "python_first": []}
        inst, destroy = self.inst, self.destroy

        def python_us(gh) -> float:
            t0 = perf()
            r = inst(gh, 0)
            t1 = perf()
            if r[0]:
                check(r, "cuGraphInstantiate")
            self._call(destroy, "cuGraphExecDestroy", r[1])
            return _us(t0, t1)

        def sample(i: int, keep: bool) -> None:
            with self.w.capture(self.shape) as g:
                order = ("python", "c") if i % 2 == 0 else ("c", "python")
                for seq in (order, order[::-1]):
                    got = {}
                    for way in seq:
                        got[way] = python_us(g.handle) if way == "python" else floor.instantiate_ns(g, 1)[0] / 1e3
                    if keep:
                        out["python_us"].append(got["python"])
                        out["c_us"].append(got["c"])
                        out["group"].append(i)
                        out["python_first"].append(seq[0] == "python")

        sample(1, keep=False)  # warm-up
        t0 = time.perf_counter()
        cap = self.plan.time_cap_s
        reason, i = "max_samples", 0
        while i < PAIR_MAX_SAMPLES:
            sample(i, keep=True)
            i += 1
            if i < PAIR_MIN_SAMPLES or i % 2:
                continue
            ratios = [a / b for a, b in zip(out["python_us"], out["c_us"]) if b > 0]
            if median_ci_halfwidth(ratios) <= TARGET_SPREAD:
                reason = "spread"
                break
            if time.perf_counter() - t0 > cap:
                reason = "time_cap"
                break
        return {k: [round(v, 4) if isinstance(v, float) else v for v in vs] for k, vs in out.items()}, reason

