"""One worker process of ``cugraphlab scale``: its launching threads, their timed rounds, their checks.

``process_main`` runs in a process started by ``bench.workers.run_workers`` (spawn). It opens each Device it needs
once (cuDevicePrimaryCtxRetain), loads the kernels once per device (NVRTC cubin from the cache, cuModuleLoadData),
and starts one thread per entry of ``devices``. Each thread makes its device's primary context current
(cuCtxSetCurrent), takes its own stream (cuStreamCreate) or the device's shared one, prepares its launches with
arguments packed once, captures and instantiates its graphs (cuStreamBeginCapture/EndCapture, cuGraphInstantiate,
cuGraphUpload) and warms up. Set-up and warm-up are done one thread at a time (a lock): not measured.

Every round, all threads of all processes start together (a threading.Barrier whose action is the cross-process
``wait_start()``), run their loop of cuLaunchKernel or cuGraphLaunch calls, synchronize their stream
(cuStreamSynchronize) and wait for each other again before checking anything. Each thread stamps its loop with
``perf_counter_ns`` from before the first launch to after the synchronize.

Checks: with the chain, fresh random inputs and poisoned outputs before each round, a bit-exact comparison with NumPy
after it. Probe rounds replace every kernel by ``count`` (kernels/count.cu) in the same launch pattern: the counter
must equal the launches (the empty-kernel check), and with evidence each launch's %globaltimer start/end is kept to
measure how idle the GPU was between kernels.
"""
from __future__ import annotations

import os
import threading
import time

import numpy as np

from ...core._resource import Resource
from ...core.device import Device
from ...core.launch import Launch, LaunchConfig, PackedArgs
from ...experiment.ops import CHAIN_KERNELS
from ...experiment.runners import Runner
from .. import workers
from .plan import KERNELS_PER_ITER, kind_unroll
from .rates import device_activity

__all__ = ["process_main", "round_plan", "WARMUP_ITERS"]

WARMUP_ITERS = 1000
PROBE_BLOCK = 32


def round_plan(kinds, repeats: int, probe: bool) -> list[tuple[str, int, bool]]:
    """(kind, repeat, is_probe) in run order: kinds interleaved within each repeat, then one probe round per kind."""
    plan = [(k, r, False) for r in range(repeats) for k in kinds]
    if probe:
        plan += [(k, 0, True) for k in kinds]
    return plan


class _Worker(Resource):
    """The objects of one launching thread, owned through core's Resource (closed in reverse order of adoption).
    Made, used and closed on that thread (its context current). It fires through ``experiment.runners.Runner``: the
    one hot loop of the package, for the work and for the counting probe alike."""

    def __init__(self, index, device, kernels, shared_stream, work, size, kinds, iters, capacity, seed):
        self.index, self.device, self.kernels = index, device, kernels
        self.shared_stream, self.work, self.size, self.kinds = shared_stream, work, size, tuple(kinds)
        self.iters, self.capacity, self.seed = iters, capacity, seed
        self.records: list[dict] = []
        self.chain = None

    def setup(self) -> None:
        """Stream, launches with arguments packed once, graph executables, the probe counter and stamp slots."""
        dev = self.device
        self.stream = self.shared_stream or self.adopt(dev.create_stream())
        if self.work == "chain":
            from ...experiment.chain import Chain

            self.chain = self.adopt(Chain(dev, n=self.size, kernels=self.kernels, stream=self.stream,
                                          seed=self.seed))
            self.launches = list(self.chain.launches)
        else:
            self.launches = [Launch(self.kernels["empty"], PackedArgs((), ()), LaunchConfig(1, PROBE_BLOCK),
                                    self.stream)]
        self.counter = self.adopt(dev.array(1, "uint32"))
        self.slots = self.adopt(dev.array(2 * self.capacity, "uint64")) if self.capacity else None
        probe = Launch(self.kernels["count"], PackedArgs(("ptr", "ptr", "u64"), (self.counter,
                                                                                 self._slots_arg(), self.capacity)),
                       LaunchConfig(1, PROBE_BLOCK), self.stream)
        self.probe_launches = [probe] * len(self.launches)
        self.runner = self.adopt(Runner(self.launches, self.stream))
        self.probe_runner = self.adopt(Runner(self.probe_launches, self.stream))
        for kind in self.kinds:  # every executable made (captured, instantiated, uploaded) before any timing
            mode, k = kind_unroll(kind)
            if mode == "graph":
                self.runner.graph_exec(k)
                self.probe_runner.graph_exec(k)
        self._zeros_counter = np.zeros(1, np.uint32)
        self._zeros_slots = np.zeros(2 * self.capacity, np.uint64) if self.capacity else None

    def _slots_arg(self):
        return self.slots if self.slots is not None else 0  # no evidence: the probe only counts

    def fire(self, kind: str, iters: int, probe: bool = False) -> tuple[int, int]:
        """Enqueue ``iters`` iterations of the work as ``kind``; returns (driver launch calls, iterations)."""
        mode, k = kind_unroll(kind)
        runner = self.probe_runner if probe else self.runner
        if mode == "eager":
            runner.eager(iters)
            return iters * len(runner.launches), iters
        n = iters // k
        runner.graphs(n, k)
        return n, n * k

    def warm_up(self) -> None:
        for kind in self.kinds:
            _, k = kind_unroll(kind)
            n = max(k, min(self.iters, WARMUP_ITERS) // k * k)
            self.fire(kind, n)
            self.fire(kind, n, probe=True)
        self.stream.synchronize()

    def prepare(self, probe: bool) -> None:
        """Before a round: zero the probe counter and stamps, or give the chain fresh inputs and poisoned outputs."""
        if probe:
            self.counter.copy_from(self._zeros_counter, self.stream)
            if self.slots is not None:
                self.slots.copy_from(self._zeros_slots, self.stream)
        elif self.chain is not None:
            self.chain.randomize()
            self.chain.poison()

    def check_round(self, kind: str, probe: bool) -> dict:
        """After a round: the probe's count (and stamps), or the chain's bit-exact comparison."""
        kernels = self.iters * len(self.launches)
        if probe:
            counted = int(self.counter.to_numpy(stream=self.stream)[0])
            out = {"verified": counted == kernels, "counted": counted, "expected": kernels}
            if self.slots is not None:
                raw = self.slots.to_numpy(stream=self.stream)
                n = min(kernels, self.capacity)
                out["_starts"], out["_ends"] = raw[0:2 * n:2].copy(), raw[1:2 * n:2].copy()
            return out
        if self.chain is not None:
            v = self.chain.check_result("eager" if kind == "eager" else "graph")
            return {"verified": bool(v.ok), "mismatches": int(v.mismatches)}
        return {"verified": None}  # the empty kernel computes nothing: its probe round checks the launches


def _thread_main(w: _Worker, plan, barrier: threading.Barrier, lock: threading.Lock, errors: list) -> None:
    perf = time.perf_counter_ns
    try:
        w.device.make_current()
        # One thread at a time: set-up and warm-up. A stream being captured (a shared stream, by another thread)
        # must see no other thread's launches or synchronizes, or the capture takes them in or is invalidated.
        with lock:
            w.setup()
            w.warm_up()
        for kind, repeat, probe in plan:
            w.prepare(probe)
            barrier.wait()  # every thread of every process starts together
            t0 = perf()
            calls, iters = w.fire(kind, w.iters, probe)
            w.stream.synchronize()
            t1 = perf()
            barrier.wait()  # nobody checks (copies, syncs) while another still launches
            rec = {"kind": kind, "repeat": repeat, "probe": probe, "thread": w.index, "device": w.device.ordinal,
                   "t0_ns": t0, "t1_ns": t1, "calls": calls, "iters": iters}
            rec.update(w.check_round(kind, probe))
            w.records.append(rec)
    except BaseException as e:  # noqa: BLE001 - reported to the parent through process_main
        errors.append((w.index, e))
        barrier.abort()
    finally:
        w.close()


def _first_error(errors) -> str:
    real = [(i, e) for i, e in errors if not isinstance(e, threading.BrokenBarrierError)] or errors
    i, e = real[0]
    return f"thread {i}: {type(e).__name__}: {e}"


def process_main(*, devices, kinds, launches, work, size, stream="per-thread", repeats=3, evidence=False,
                 timeout_s=180.0, seed=None) -> dict:
    """Run one process's share of a scale point; returns a plain dict (records per thread, evidence per device).

    Parameters: ``devices`` the device ordinal of each thread of this process (e.g. [0, 0, 0, 0]); ``kinds`` launch
    kinds ("eager", "graph", "graph50"); ``launches`` work iterations per thread per round; ``work`` "empty" or
    "chain"; ``size`` floats of the chain; ``stream`` "per-thread" or "shared" (one stream per device); ``repeats``
    timed rounds per kind; ``evidence`` keep the probe's %globaltimer stamps; ``timeout_s`` how long a barrier waits.
    Raises RuntimeError naming the first thread that failed.
    """
    devices = [int(d) for d in devices]
    kpi = KERNELS_PER_ITER[work]
    probe = work == "empty" or bool(evidence)
    capacity = launches * kpi if evidence else 0
    plan = round_plan(kinds, repeats, probe)
    opened: dict[int, Device] = {}
    per_device: dict[int, list] = {}  # kernel set (and shared stream) per device, closed last
    names = ["empty", "count"] if work == "empty" else [*CHAIN_KERNELS, "count"]  # Chain prepares a fused launch too
    try:
        for d in sorted(set(devices)):
            dev = opened[d] = Device(d)
            dev.make_current()
            per_device[d] = [dev.load_kernels(names=names)]
            if stream == "shared":
                per_device[d].append(dev.create_stream())
        barrier = threading.Barrier(len(devices), action=workers.wait_start, timeout=timeout_s)
        lock = threading.Lock()
        errors: list = []
        ws = [_Worker(i, opened[d], per_device[d][0], per_device[d][1] if stream == "shared" else None, work, size,
                      kinds, launches, capacity, None if seed is None else seed + 1000 * d + i)
              for i, d in enumerate(devices)]
        threads = [threading.Thread(target=_thread_main, args=(w, plan, barrier, lock, errors), daemon=True,
                                    name=f"cugraphlab-launcher-{w.index}") for w in ws]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise RuntimeError(_first_error(errors))
        evidence_rows = []
        if evidence:
            for d in sorted(opened):
                for kind in kinds:
                    recs = [r for w in ws if w.device.ordinal == d for r in w.records if r["probe"] and
                            r["kind"] == kind]
                    starts = np.concatenate([r["_starts"] for r in recs])
                    ends = np.concatenate([r["_ends"] for r in recs])
                    evidence_rows.append({"device": d, "kind": kind, **device_activity(starts, ends)})
        for w in ws:
            for r in w.records:
                r.pop("_starts", None)
                r.pop("_ends", None)
        return {"pid": os.getpid(), "devices": devices,
                "device_names": {str(d): dev.name for d, dev in opened.items()},
                "records": [r for w in ws for r in w.records], "evidence": evidence_rows}
    finally:
        for d in sorted(opened, reverse=True):
            try:
                opened[d].make_current()
                for obj in reversed(per_device.get(d, [])):
                    obj.close()
            finally:
                opened[d].close()
