"""The classic experiment behind ``cugraphlab run``: the chain eager, as a graph and fused, timed and verified.

Each repeat, for each mode in turn (interleaved, so drift hits every mode alike): fresh random inputs, poisoned
outputs, then ``iters`` iterations timed two ways: the host wall clock (``perf_counter_ns`` from before the first
launch until ``cuEventSynchronize`` on the end event returns) and the device clock (CUDA events recorded on the
chain's stream around the loop). The mode's output is then compared bit for bit with NumPy.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from ..chain import DEFAULT_OPS, Chain, parse_ops
from ..driver import Device
from ..environment import collect
from ..errors import InvalidArgumentError, positive_int
from ..memory import validate_size
from .stats import Summary, summarize

__all__ = ["ModeResult", "RunResult", "run_experiment", "time_mode", "WALL_CLOCK", "DEVICE_CLOCK"]

WALL_CLOCK = "perf_counter_ns (host wall clock, loop start to end-event sync)"
DEVICE_CLOCK = "cuEventElapsedTime (CUDA events on the chain's stream around the loop)"


@dataclass
class ModeResult:
    mode: str
    kernels_per_iter: int
    wall_us_per_iter: Summary
    device_us_per_iter: Summary
    total_s: float  # median wall seconds for all iterations of one repeat
    verified: bool
    mismatches: int
    speedup_vs_eager: float | None = None
    unroll: int = 1

    @property
    def us_per_kernel(self) -> float:
        return self.wall_us_per_iter.median / self.kernels_per_iter


@dataclass
class RunResult:
    config: dict
    modes: list[ModeResult]
    env: dict
    clocks: dict = field(default_factory=lambda: {"wall": WALL_CLOCK, "device": DEVICE_CLOCK})
    kind: str = "cugraphlab.run"

    def mode(self, name: str) -> ModeResult:
        for m in self.modes:
            if m.mode == name:
                return m
        raise KeyError(name)

    def to_dict(self) -> dict:
        d = asdict(self)
        for m, md in zip(self.modes, d["modes"]):
            md["us_per_kernel"] = m.us_per_kernel
        return d


def time_mode(chain: Chain, mode: str, iters: int, start, end, unroll: int = 1) -> tuple[float, float]:
    """(wall µs, device µs) per iteration for one timed loop of ``iters`` iterations of ``mode``."""
    chain.stream.synchronize()
    t0 = time.perf_counter_ns()
    start.record(chain.stream)
    chain.run(mode, iters, unroll)
    end.record(chain.stream)
    end.synchronize()
    t1 = time.perf_counter_ns()
    return (t1 - t0) / 1e3 / iters, start.elapsed_ms(end) * 1e3 / iters


def _mode_name(mode: str, unroll: int) -> str:
    return mode if unroll == 1 else f"graph x{unroll}"


def run_experiment(*, size: int = 1 << 20, iters: int = 5000, ops=DEFAULT_OPS, scalar: float = 2.0,
                   device: int = 0, repeats: int = 5, unroll: int = 1, seed: int | None = None,
                   progress=None) -> RunResult:
    """Run the experiment and return its record. ``unroll`` > 1 adds a mode with that many iterations per graph."""
    ops = parse_ops(ops)
    size = validate_size(size)
    for name, v in (("iterations", iters), ("repeats", repeats), ("unroll", unroll)):
        positive_int(name, v)
    plan = [("eager", 1), ("graph", 1)] + ([("graph", unroll)] if unroll > 1 else []) + [("fused", 1)]
    if unroll > 1 and iters % unroll:
        raise InvalidArgumentError(f"iterations ({iters}) must be a multiple of --unroll ({unroll})")
    with Device(device) as dev, Chain(dev, ops, size, scalar, seed=seed) as chain, \
            dev.create_event() as start, dev.create_event() as end:
        env = collect(dev)
        warm = max(unroll, min(iters, 200) // unroll * unroll)
        for mode, k in plan:  # warm-up: graph instantiate + upload, module load, clocks up
            chain.run(mode, warm, k)
        chain.stream.synchronize()
        samples = {p: ([], []) for p in plan}
        bad = {p: 0 for p in plan}
        for r in range(repeats):
            for p in plan:
                mode, k = p
                chain.randomize()
                chain.poison()
                # untimed lead-in of the same mode: the GPU's clocks settle at this mode's load before timing
                chain.run(mode, warm, k)
                wall, dev_us = time_mode(chain, mode, iters, start, end, k)
                samples[p][0].append(wall)
                samples[p][1].append(dev_us)
                bad[p] += chain.check_result(mode).mismatches
                if progress:
                    progress(f"repeat {r + 1}/{repeats} {_mode_name(mode, k)}: {wall:.2f} us/iter")
        results = []
        for (mode, k) in plan:
            w = summarize(samples[(mode, k)][0], unit="us", clock=WALL_CLOCK)
            d = summarize(samples[(mode, k)][1], unit="us", clock=DEVICE_CLOCK)
            kernels = 1 if mode == "fused" else len(ops)
            results.append(ModeResult(_mode_name(mode, k), kernels, w, d, w.median * iters / 1e6,
                                      bad[(mode, k)] == 0, bad[(mode, k)], unroll=k))
        eager = results[0].wall_us_per_iter.median
        for m in results:
            m.speedup_vs_eager = eager / m.wall_us_per_iter.median
        config = {"size": size, "iters": iters, "ops": list(ops), "scalar": scalar, "device": device,
                  "repeats": repeats, "unroll": unroll, "grid": chain.grid, "block": chain.block,
                  "chain": chain.describe()}
        return RunResult(config, results, env)
