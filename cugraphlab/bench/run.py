"""The classic experiment behind ``cugraphlab run``: the chain eager, as a graph and fused, timed and verified.

Each repeat, for each mode in turn (interleaved, so drift hits every mode alike): fresh random inputs, poisoned
outputs, then ``iters`` iterations timed two ways: the host wall clock (``perf_counter_ns`` from before the first
launch until ``cuEventSynchronize`` on the end event returns) and the device clock (CUDA events recorded on the
chain's stream around the loop). The mode's output is then compared bit for bit with NumPy.

With ``cold_l2=True`` one more mode, "fused (cold L2)", runs the fused kernel on input sets in rotation whose bytes
exceed twice the L2 (``experiment.cold_l2``: the launch loop stays pure), and the record's ``roof`` gives the bytes
each fused launch moves, both fused rows' bytes/s and the device copy bandwidth (``bench.probes.copy_roof``), so that a warm
fused figure above the copy roof reads as L2, not as HBM beaten.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core.device import Device, opened
from ..core.errors import InvalidArgumentError, positive_int
from ..core.memory import validate_size
from ..core.renamed import renamed_function
from ..experiment.chain import Chain
from ..experiment.ops import DEFAULT_OPS, FUSED_PER_GRAPH, parse_ops
from .records.environment import collect
from .records.record import Record, clocks
from .stats.summary import Summary
from .timing import CHUNKS, DEVICE_CLOCK, WALL_CLOCK, Variant, interleave, time_mode  # time_mode: 0.1.0's home

__all__ = ["ModeResult", "RunResult", "measure_run", "run_experiment", "time_mode", "WALL_CLOCK", "DEVICE_CLOCK",
           "COLD_MODE", "roof_entry"]

COLD_MODE = "fused (cold L2)"



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


@dataclass(kw_only=True)
class RunResult(Record):
    """``cugraphlab run``: one ModeResult per mode; ``compare``: the ``run --compare`` baselines' record, if asked."""

    KIND: ClassVar[str] = "cugraphlab.run"

    modes: list[ModeResult]
    compare: dict | None = None
    roof: dict | None = None  # with cold_l2: bytes per fused launch, fused warm/cold GB/s, copy roof (roof_entry)

    def mode(self, name: str) -> ModeResult:
        for m in self.modes:
            if m.mode == name:
                return m
        raise KeyError(name)

    def to_dict(self) -> dict:
        d = super().to_dict()
        for m, md in zip(self.modes, d["modes"]):
            md["us_per_kernel"] = m.us_per_kernel
        return d


def _mode_name(mode: str, unroll: int) -> str:
    return mode if unroll == 1 else f"graph x{unroll}"


def roof_entry(*, bytes_per_iter: int, warm_us: float, cold_us: float, copy, l2_bytes: int, sets: int,
               rotation_bytes: int, method: str) -> dict:
    """The ``roof`` of a run record: GB/s of the warm and cold fused rows (bytes really moved / device µs per
    iteration) beside the copy roof (``copy_roof.CopyBandwidth``: bytes read + written per second)."""
    roof_gbps = copy.gbps.median
    warm = bytes_per_iter / warm_us / 1e3
    cold = bytes_per_iter / cold_us / 1e3
    return {"bytes_per_iter": bytes_per_iter, "l2_bytes": l2_bytes, "sets": sets, "rotation_bytes": rotation_bytes,
            "method": method, "fused_gbps": warm, "fused_cold_gbps": cold, "copy_gbps": roof_gbps,
            "copy": copy.to_dict(), "fused_vs_roof": warm / roof_gbps, "fused_cold_vs_roof": cold / roof_gbps,
            "clock": "bytes / device us per iteration (cuEventElapsedTime); roof: copy clock"}


def measure_run(device=0, *, size: int = 1 << 20, iters: int = 5000, ops=DEFAULT_OPS, scalar: float = 2.0,
                repeats: int = 5, unroll: int = 1, seed: int | None = None, progress=None, cold_l2: bool = False,
                chunks: int = CHUNKS) -> RunResult:
    """Time the chain eager, as a graph and fused (what ``cugraphlab run`` does), verify each mode, return the record.

    Each repeat runs every mode in turn (interleaved), on fresh random inputs with poisoned outputs, ``iters``
    iterations timed by the host wall clock (``perf_counter_ns``) and the device clock (CUDA events); each mode's
    output is then compared bit for bit with NumPy. The figures are the whole loops'; each loop is also cut into
    ``chunks`` chunks (``timing.timed_chunks``) whose samples the record keeps for ``cugraphlab diff``.

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    size : int
        Floats per buffer.
    iters : int
        Chain iterations per timed loop.
    ops : sequence of str or str
        The chain's ops (``experiment.ops.parse_ops``: names from ``OPS``, or one comma-separated string).
    scalar : float
        The factor of ``mul``.
    repeats : int
        Timed loops per mode.
    unroll : int
        Above 1, one more mode with that many iterations captured per graph (``iters`` must be a multiple of it).
    seed : int or None
        Seed of the random inputs (drawn afresh when None).
    progress : callable or None
        ``progress(line)``, called with one line after each timed loop.
    cold_l2 : bool
        Add the mode "fused (cold L2)" (input sets in rotation whose bytes exceed twice the L2,
        ``experiment.cold_l2``) and the record's ``roof`` (bytes per launch, GB/s beside the copy roof).
    chunks : int
        Chunks each timed loop is cut into for the kept samples (10 x ``repeats`` per row by default).

    Returns
    -------
    RunResult
        One ModeResult per mode (eager, graph, graph xN, fused, fused (cold L2)): wall and device µs per iteration
        (median with spread), verified or the count of mismatches, speed-up over eager; with the environment.

    Raises
    ------
    InvalidArgumentError
        An unknown op, a size, ``iters``, ``repeats``, ``unroll`` or ``chunks`` that is not a positive integer, or
        ``iters`` not a multiple of ``unroll``: before any GPU work.
    NoDeviceError
        No driver or no device ``device``.
    CompileError
        A chain kernel did not compile (NVRTC).
    CudaError
        A driver call failed.
    """
    ops = parse_ops(ops)
    size = validate_size(size)
    plan = _plan(iters, repeats, unroll, chunks, cold_l2)
    with opened(device) as dev, Chain(dev, ops, size, scalar, seed=seed) as chain, \
            dev.create_event() as start, dev.create_event() as end:
        env = collect(dev)
        cold = _adopt_cold(chain, seed) if cold_l2 else None
        warm = max(unroll, min(iters, 200) // unroll * unroll)
        for mode, k in plan:  # warm-up: graph instantiate + upload, module load, clocks up
            cold.run(warm) if mode == COLD_MODE else chain.run(mode, warm, k)
        chain.stream.synchronize()
        # an untimed lead-in of the same mode before each timed loop: the GPU's clocks settle at this mode's load
        timings = interleave([_variant(chain, cold, m, k) for m, k in plan], iters, repeats, start, end,
                             lead_in=warm, progress=progress, chunks=chunks)
        results = _mode_results(plan, timings, iters, len(ops))
        config = {"size": size, "iters": iters, "ops": list(ops), "scalar": scalar,
                  "device": getattr(dev, "ordinal", device),
                  "repeats": repeats, "unroll": unroll, "chunks": chunks, "grid": chain.grid, "block": chain.block,
                  "chain": chain.describe()}
        roof = None if cold is None else _cold_roof(dev, cold, results, config)
        result = RunResult(config=config, modes=results, env=env, roof=roof,
                           clocks=clocks("wall", "device", *(("copy",) if roof else ())))
        for mode, k in plan:
            timings[_mode_name(mode, k)].keep(result, _mode_name(mode, k))
        return result


def _plan(iters: int, repeats: int, unroll: int, chunks: int, cold_l2: bool) -> list[tuple[str, int]]:
    """The run's modes as (mode, iterations per graph), after checking the counts (before any GPU work)."""
    for name, v in (("iters", iters), ("repeats", repeats), ("unroll", unroll), ("chunks", chunks)):
        positive_int(name, v)
    plan = [("eager", 1), ("graph", 1)] + ([("graph", unroll)] if unroll > 1 else []) + [("fused", 1)]
    if cold_l2:
        plan.append((COLD_MODE, 1))
    if unroll > 1 and iters % unroll:
        raise InvalidArgumentError(f"iters ({iters}) must be a multiple of unroll ({unroll})",
                                   params=("iters", "unroll"))
    return plan


def _adopt_cold(chain: Chain, seed: int | None):
    """The cold-L2 input sets in rotation (``experiment.cold_l2.ColdFused``), owned by ``chain``."""
    from ..experiment.cold_l2 import ColdFused

    return chain.adopt(ColdFused.from_chain(chain, seed=seed))


def _variant(chain: Chain, cold, mode: str, k: int) -> Variant:
    """One mode of the run as a timed Variant (randomize + poison before each loop, mismatches after)."""
    if mode == COLD_MODE:
        return Variant(COLD_MODE, chain.stream, cold.run, lambda: (cold.randomize(), cold.poison()),
                       cold.mismatches, grain=cold.per_graph)
    # chunk boundaries on whole graphs: the chunks enqueue exactly the launches the whole loop would
    grain = FUSED_PER_GRAPH if mode == "fused" else k
    return Variant(_mode_name(mode, k), chain.stream, lambda n: chain.run(mode, n, k),
                   lambda: (chain.randomize(), chain.poison()),
                   lambda: chain.check_result(mode).mismatches, grain=grain)


def _mode_results(plan, timings, iters: int, n_ops: int) -> list[ModeResult]:
    """The ModeResult of each mode of ``plan`` from its Timings, with its speed-up over eager (the first)."""
    results = []
    for (mode, k) in plan:
        t = timings[_mode_name(mode, k)]
        w, d = t.wall(WALL_CLOCK), t.device(DEVICE_CLOCK)
        kernels = 1 if mode in ("fused", COLD_MODE) else n_ops
        results.append(ModeResult(_mode_name(mode, k), kernels, w, d, w.median * iters / 1e6,
                                  t.verified, t.mismatches, unroll=k))
    eager = results[0].wall_us_per_iter.median
    for m in results:
        m.speedup_vs_eager = eager / m.wall_us_per_iter.median
    return results


def _cold_roof(dev: Device, cold, results: list[ModeResult], config: dict) -> dict:
    """The record's ``roof`` for a run with the cold-L2 mode (notes the cold sets in ``config``)."""
    from ..experiment.cold_l2 import COLD_METHOD
    from .probes.copy_roof import copy_bandwidth

    config.update({"cold_l2": True, "cold_sets": cold.sets})
    by = {m.mode: m for m in results}
    return roof_entry(bytes_per_iter=cold.set_bytes, warm_us=by["fused"].device_us_per_iter.median,
                      cold_us=by[COLD_MODE].device_us_per_iter.median, copy=copy_bandwidth(dev),
                      l2_bytes=cold.l2_bytes, sets=cold.sets, rotation_bytes=cold.rotation_bytes,
                      method=COLD_METHOD)

#: the old name of measure_run (warns, then calls it): core.renamed.renamed_function
run_experiment = renamed_function("run_experiment", measure_run)
