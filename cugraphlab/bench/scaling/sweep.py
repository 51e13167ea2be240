"""What a graph costs as it grows: every step of a graph's life timed against its node count (``cugraphlab scaling``).

For each Shape of the plan (experiment.scaling: a line of L nodes, or a fork/join of W branches), with the empty
kernel or the chain as the work, all on stream 0 of one ScalingWorkload:

    once:      capture it and build it explicitly; both have the expected nodes and edges (cuGraphGetNodes,
               cuGraphGetEdges); with the chain, both run bit-exact against NumPy on poisoned outputs
    lifecycle  (one fresh graph per sample)
               t capture (cuStreamBeginCapture ... cuStreamEndCapture)      explicit build (cuGraphAddKernelNode x N)
               t cuGraphInstantiate     first cuGraphLaunch of that exec, not uploaded: API time, and until
               cuStreamSynchronize returns; a second launch the same way (repeat launch, idle stream)
               free memory (cuMemGetInfo) before and after instantiate + cuGraphUpload of C copies: bytes per exec;
               the upload of the first copy: API time and until complete; its first launch (API)
    paired     (line points, and the fork/joins from 4 to 128 nodes) each sample: one fresh capture, then
               Python cuGraphInstantiate and the C one (bench.native.instantiate) back to back, twice (P C C P, the
               next sample C P P C), each exec destroyed outside the timing (bench.scaling.paired reads the pairs)
    steady     R eager iterations of the same work (the calls capture records, issued directly) and R graph
               replays, each timed from before the first call until the stream's sync returns: µs per iteration

    held       after every point's sets, in ROUNDS over all the points (round r rotated by r * points / rounds,
               so each point sits at a different place each time), so a point's figure does not depend on where
               it sits in the sweep: per
               visit, K cuGraphLaunch (K <= 64) while a spinning kernel holds the stream (bench.probes.hold), from Python
               and from C (bench.native.loops NativeFloor.graph_loop) behind the same hold, alternating which goes first:
               host µs per launch; device µs per graph from %globaltimer (hold released -> stamp after the K graphs)

Each set is sampled adaptively (``bench.stats.summary.sample_adaptively``: until the median's ~95% interval is within 2%, or a time cap
per set, at least ``repeats`` samples); raw samples are kept per point and cost (``keep_samples``, labels
``<series>:L<length>:<cost>``, series ``line`` or ``forkjoin:w<W>``; at most ``KEPT_SAMPLES``, evenly thinned, µs
to the nanosecond, so a default record stays well under 1 MB), and every point keeps its raw Python/C pairs in full
(``point["paired"]``). The C loops are built once (``_native_floors``; where there is no C compiler or no
libcuda.so.1 the Python figures stand alone and ``native["unavailable"]`` says why). Then
``analysis.analyze`` reads the record (fits, the launch series against NVIDIA's model, break-even,
unrolling, the paired figures and goals). The plan and its costs: bench.scaling.plan.
Module loading: the record keeps ``CUDA_MODULE_LOADING`` and the cold first launch of the empty kernel against a
warm one (with lazy loading, the default since CUDA 12.2, a kernel loads at its first launch; every kernel is
launched before any timing here).
"""
from __future__ import annotations

import math
import os
import statistics
import time
from typing import Callable

from ...core._calls import cu
from ...experiment.scaling import ScalingWorkload, Shape, scaling_kernel_names
from ..probes.hold import HOLD_KERNEL, MAX_HELD_GRAPH_LAUNCHES, DeviceHold
from ..records.record import clocks
from ..stats.paired_stats import round_order
from ..stats.summary import summarize
from .analysis import ScalingResult, analyze, break_even, unroll_payoff
from .paired import PAIRED_RANGE, evaluate_goals
from .plan import (
    DEFAULT_LENGTHS,
    DEFAULT_WIDTHS,
    HELD_PAIRS,
    HELD_ROUNDS,
    HELD_SHARE,
    KEPT_SAMPLES,
    MEASURES,
    PAIR_MAX_SAMPLES,
    PAIR_MIN_SAMPLES,
    PAIRED_COSTS,
    QUICK_HELD_ROUNDS,
    QUICK_LENGTHS,
    QUICK_WIDTHS,
    ScalingPlan,
    kept_samples,
    make_plan,
    sample_label,
    series_key,
)
from .point import _Point, _us

# the names of the plan and the analysis stay reachable from here, where they lived before the split
__all__ = ["ScalingPlan", "ScalingResult", "make_plan", "measure_scaling", "analyze",
           "MEASURES", "series_key",
           "break_even", "unroll_payoff", "evaluate_goals", "DEFAULT_LENGTHS", "DEFAULT_WIDTHS", "QUICK_LENGTHS",
           "QUICK_WIDTHS", "PAIRED_RANGE", "KEPT_SAMPLES", "kept_samples", "HELD_ROUNDS",
           "QUICK_HELD_ROUNDS", "HELD_PAIRS", "PAIR_MIN_SAMPLES", "PAIR_MAX_SAMPLES"]


# --- measuring -------------------------------------------------------------------------------------------------
def _held_batch(nodes: int) -> int:
    # about 20 ms of device work queued per hold, at least 4 launches, at most 64
    return int(min(MAX_HELD_GRAPH_LAUNCHES, max(4, 20000 // (nodes * 0.6 + 3))))


def _native_floors(entry: dict | None = None, cache=None) -> tuple[object | None, object | None, dict]:
    """The C loops the Python calls are paired with: (InstantiateFloor or None, NativeFloor or None, a note:
    ``{"source", "clock"}`` and ``"unavailable"`` where they cannot be built or have no driver library)."""
    from ...core.errors import CugraphlabError
    from ..native.instantiate import NATIVE_CLOCK, InstantiateFloor
    from ..native.loops import NativeFloor

    note = {"source": "C loops: bench.native.instantiate (cuGraphInstantiateWithFlags), bench.native.loops (cuGraphLaunch), "
                      "paired with the Python calls on the same graph, stream and hold", "clock": NATIVE_CLOCK}
    try:
        return InstantiateFloor(entry=entry, cache=cache), NativeFloor(entry=entry, cache=cache), note
    except CugraphlabError as e:  # UnsupportedError (no compiler), NoDeviceError (no libcuda)
        note["unavailable"] = f"{type(e).__name__}: {e}".splitlines()[0]
        return None, None, note


class _Held:
    """One point's ready executable and its held launches, filled round by round."""

    def __init__(self, index: int, series: str, shape: Shape, nodes: int, graph, exe, c_loop):
        self.index, self.series, self.shape, self.nodes = index, series, shape, nodes
        self.graph, self.exe, self.c_loop = graph, exe, c_loop
        self.k = _held_batch(nodes)
        self.python, self.device, self.c, self.round, self.python_first = [], [], [], [], []
        self.timed_out = 0
        self.released = True

    def close(self) -> None:
        self.exe.close()
        self.graph.close()


def _held_rounds(states: list[_Held], hold: DeviceHold, plan: ScalingPlan, progress=None) -> dict:
    """Held launches in rounds over every point: round r visits the points rotated by r * n / rounds (so a point
    takes a different place in each round, spread evenly over the sweep); per visit ``plan.held_pairs`` pairs of holds (Python K launches, C K launches, alternating
    which goes first; Python alone without a C loop). A pair whose hold let go by its timeout is dropped and the
    point's K halved. After two rounds the rest stop once ``HELD_SHARE`` of the budget is spent. Returns facts."""
    n = len(states)
    t0 = time.perf_counter()
    budget = plan.budget_s * HELD_SHARE
    done = 0
    for r in range(plan.held_rounds):
        order = round_order(list(range(n)), (r * n) // max(1, plan.held_rounds))
        for pos, i in enumerate(order):
            st = states[i]
            h = st.exe.handle
            for j in range(plan.held_pairs):
                python_first = (r + j + i) % 2 == 0
                ways = ("python", "c") if python_first else ("c", "python")
                if st.c_loop is None:
                    ways = ("python",)
                for _attempt in range(3):
                    got = {}
                    for way in ways:
                        got[way] = hold.time_graph_launches(h, st.k, loop=None if way == "python" else st.c_loop)
                        st.released = st.released and hold.was_released
                    if not any(g.timed_out for g in got.values()):
                        break
                    st.timed_out += 1
                    st.k = max(1, st.k // 2)  # the queue may have filled: fewer launches behind the next hold
                else:
                    continue
                st.python.append(round(got["python"].host_us, 4))
                st.device.append(got["python"].device_us)
                st.c.append(round(got["c"].host_us, 4) if "c" in got else None)
                st.round.append(r)
                st.python_first.append(python_first if "c" in got else True)
        done = r + 1
        if progress:
            progress(f"held launches, round {done}/{plan.held_rounds}: {n} points, "
                     f"{time.perf_counter() - t0:.1f} s")
        if done >= 2 and time.perf_counter() - t0 > budget:
            break
    return {"rounds": done, "planned_rounds": plan.held_rounds, "pairs_per_round": plan.held_pairs,
            "seconds": round(time.perf_counter() - t0, 3), "order": "rotated by round_index * points / rounds"}


def _first_launches(workload: ScalingWorkload) -> dict:
    """The cold first launch of the empty kernel in this process (module loading included where lazy) against
    warm ones: API time and until complete, µs."""
    perf = time.perf_counter_ns
    s = workload.stream
    launch = workload.empty[0]
    t0 = perf()
    launch()
    t1 = perf()
    s.synchronize()
    t2 = perf()
    warm_api, warm_total = [], []
    for _ in range(20):
        a = perf()
        launch()
        b = perf()
        s.synchronize()
        c = perf()
        warm_api.append(_us(a, b))
        warm_total.append(_us(a, c))
    warm_api.sort()
    warm_total.sort()
    return {"cold_launch_api_us": _us(t0, t1), "cold_launch_total_us": _us(t0, t2),
            "warm_launch_api_us": warm_api[len(warm_api) // 2],
            "warm_launch_total_us": warm_total[len(warm_total) // 2]}


def _first_instantiate(workload: ScalingWorkload) -> dict:
    perf = time.perf_counter_ns
    out = []
    for _ in range(3):
        with workload.capture(Shape("line", 1)) as g:
            t0 = perf()
            h = cu("cuGraphInstantiate", g.handle, 0)
            t1 = perf()
            cu("cuGraphExecDestroy", h)
        out.append(_us(t0, t1))
    return {"first_instantiate_us": out[0], "later_instantiate_us": min(out[1:])}


def _module_loading(first: dict, instantiate: dict) -> dict:
    env = os.environ.get("CUDA_MODULE_LOADING")
    effective = env.upper() if env else "LAZY (the driver's default since CUDA 12.2; variable not set)"
    shift = first["cold_launch_total_us"] - first["warm_launch_total_us"]
    lazy = env is None or env.upper() == "LAZY"
    note = (f"first launch of the empty kernel in this process: {first['cold_launch_total_us']:.1f} µs until "
            f"complete against {first['warm_launch_total_us']:.1f} µs warm ({shift:+.1f} µs)"
            + ("; with lazy loading a kernel is loaded at its first launch, so a program's first launch carries "
               "it: every kernel here is launched before any timing, and the sweep's 'first launch' figures are "
               "a graph's first launch, not a module's" if lazy else "; eager loading: modules load whole at "
                                                                       "cuModuleLoadData"))
    return {"CUDA_MODULE_LOADING": env, "effective": effective, **first, **instantiate, "note": note}


def _paired_eligible(shape: Shape, nodes: int) -> bool:
    """Paired instantiation: every straight line (the per-node slope), and the fork/joins in ``PAIRED_RANGE``
    (cheap: under 130 nodes)."""
    lo, hi = PAIRED_RANGE
    return shape.topology == "line" or lo <= nodes <= hi


def measure_scaling(device=0, plan: ScalingPlan | None = None, *, seed: int | None = None,
                    progress: Callable[[str], None] | None = None, native: bool = True,
                    native_entry: dict | None = None, native_cache=None) -> ScalingResult:
    """Measure every point of ``plan`` (default: ``make_plan()``) on ``device``: how graph costs grow with size.

    Per point (in the plan's order): the checks, the lifecycle, eager and graph replays, the paired instantiation
    (Python and C on the same capture); then the held launches, Python and C paired, in rounds over every point.

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    plan : ScalingPlan or None
        The checked plan (``make_plan``); None: ``make_plan()``.
    seed : int or None
        Seed of the chain work's inputs (drawn afresh when None).
    progress : callable or None
        ``progress(line)``, called with one line per point and round.
    native : bool
        False measures the Python side alone (no C loop is built).
    native_entry : dict or None
        The driver entry points the C loops call (default libcuda's; a test gives ctypes callbacks).
    native_cache : path or None
        Where the built C libraries are kept.

    Returns
    -------
    ScalingResult
        Every point's figures (samples kept) and checks, analysed: fits, verdict, break-even, unrolling, the paired
        Python/C ratios and goals; the environment and the time the sweep took.

    Raises
    ------
    NoDeviceError
        No driver or no device ``device``.
    CompileError
        A kernel of the workload did not compile (NVRTC).
    CudaError
        A driver call failed.
    """
    from ...core.device import opened

    plan = plan or make_plan()
    t_start = time.perf_counter()
    with opened(device) as dev:
        states: list[_Held] = []
        try:
            names = [*scaling_kernel_names(plan.work), HOLD_KERNEL]
            with dev.load_kernels(names=names) as kernels, \
                    ScalingWorkload(dev, plan.work, max_width=plan.max_width, n=plan.size, kernels=kernels,
                                    seed=seed) as workload, \
                    DeviceHold(dev, kernels, workload.stream) as hold:
                result, inst_floor, launch_floor = _new_result(dev, device, plan, seed, names, workload, native,
                                                               native_entry, native_cache)
                note = result.native
                if "unavailable" not in note:
                    result.clocks["c_monotonic"] = note["clock"]
                elif progress:
                    progress(f"native C loops: {note['unavailable']}; the Python figures stand alone")
                for i, shape in enumerate(plan.shapes):
                    point, state = _measure_point(result, workload, hold, shape, plan, dev, inst_floor, launch_floor,
                                                  i)
                    result.points.append(point)
                    states.append(state)
                    if progress:
                        progress(_point_line(point, shape, i, len(plan.shapes)))
                held = _held_rounds(states, hold, plan, progress)
                result.config["held"] = held
                for point, st in zip(result.points, states):
                    _finish_held(result, point, st)
        finally:
            for st in states:
                st.close()
    result.elapsed_s = time.perf_counter() - t_start
    return analyze(result)


def _new_result(dev, device, plan: ScalingPlan, seed, names: list[str], workload, native: bool, native_entry,
                native_cache) -> tuple[ScalingResult, object, object]:
    """The sweep's record before any point (config, environment, first launches, the native note) and the C
    floors of instantiation and launch (None without ``native``)."""
    from ..records.environment import collect

    first = _first_launches(workload)
    inst0 = _first_instantiate(workload)
    env = collect(dev)
    env["driver"]["version_int"] = cu("cuDriverGetVersion")
    env["CUDA_MODULE_LOADING"] = os.environ.get("CUDA_MODULE_LOADING")
    if native:
        inst_floor, launch_floor, note = _native_floors(native_entry, native_cache)
    else:
        inst_floor, launch_floor, note = None, None, {"unavailable": "not asked for (native=False)"}
    result = ScalingResult(
        config={**plan.to_dict(), "device": getattr(dev, "ordinal", device), "seed": seed,
                "kernels": names, "per_unit_nodes": workload.per_unit, "kept_samples": KEPT_SAMPLES,
                "fork_join_nodes": "an empty-kernel fork node before the branches and a join node after",
                "pair_samples": [PAIR_MIN_SAMPLES, PAIR_MAX_SAMPLES]},
        env=env, clocks=clocks("host_api", "host_call", "wall", "globaltimer"),
        module_loading=_module_loading(first, inst0), native=note)
    return result, inst_floor, launch_floor


def _point_line(point: dict, shape, i: int, count: int) -> str:
    """The progress line of a point measured."""
    sm = point["summaries"]
    ratio = point["stop"].get("paired_ratio_median")
    return (f"[{i + 1}/{count}] {shape.label}: {point['nodes']} nodes, instantiate "
            f"{sm['instantiate_us']['median']:.1f} µs"
            + (f", python/C paired x{ratio:.3f}" if ratio else "")
            + ("" if point["ok"] else "  CHECK FAILED"))


def _summaries(result: ScalingResult, series: str, length: int, costs: dict, reasons: dict) -> dict:
    """Keep each cost's raw samples and return its Summary (a short dict) by cost."""
    out = {}
    for cost, values in costs.items():
        _title, unit, clock = MEASURES[cost]
        finite = [v for v in values if v is not None and math.isfinite(v)]
        if not finite:
            continue
        kept = kept_samples(finite, unit, None if cost in PAIRED_COSTS else KEPT_SAMPLES)
        result.keep_samples(sample_label(series, length, cost), kept, unit, clock)
        out[cost] = _short(summarize(finite, unit=unit, clock=clock or "cuMemGetInfo",
                                     stop_reason=reasons.get(cost, "fixed")).to_dict())
    return out


def _measure_point(result: ScalingResult, workload, hold, shape: Shape, plan: ScalingPlan, device, inst_floor,
                   launch_floor, index: int) -> tuple[dict, _Held]:
    pt = _Point(workload, hold, shape, plan, device)
    checks = pt.check()
    life, life_reasons = pt.lifecycle()
    series = series_key(shape.topology, shape.width)
    graph = workload.capture(shape)
    try:
        exe = graph.instantiate()
    except BaseException:
        graph.close()
        raise
    state = _Held(index, series, shape, pt.nodes, graph, exe, None)
    exe.upload(workload.stream)
    for _ in range(3):
        exe.launch(workload.stream)
    workload.stream.synchronize()
    steady, info, steady_reasons = pt.steady(exe)
    paired: dict = {}
    pair_reason = None
    if inst_floor is not None and _paired_eligible(shape, pt.nodes):
        paired["instantiate"], pair_reason = pt.paired_instantiate(inst_floor)
    if launch_floor is not None:
        state.c_loop = launch_floor.graph_loop(exe, workload.stream)
    costs = {**life, **steady}
    if "instantiate" in paired:
        raw = paired["instantiate"]
        costs["pair_instantiate_python_us"] = raw["python_us"]
        costs["pair_instantiate_c_us"] = raw["c_us"]
        # the values live in the record's samples (kept whole); the point keeps how they pair up
        paired["instantiate"] = {"python": sample_label(series, shape.length, "pair_instantiate_python_us"),
                                 "c": sample_label(series, shape.length, "pair_instantiate_c_us"),
                                 "group": raw["group"], "python_first": [int(v) for v in raw["python_first"]]}
        point_ratio = [a / b for a, b in zip(raw["python_us"], raw["c_us"]) if b > 0]
    else:
        point_ratio = []
    reasons = {**life_reasons, **steady_reasons, "pair_instantiate_python_us": pair_reason,
               "pair_instantiate_c_us": pair_reason}
    summaries = _summaries(result, series, shape.length, costs, reasons)
    ok = checks["ok"] and checks["verified"] is not False
    point = {"topology": shape.topology, "length": shape.length, "width": shape.width, "work": plan.work,
             "nodes": pt.nodes, "edges": shape.edges(workload.per_unit), "series": series,
             "structure": {k: checks[k] for k in ("expected", "capture", "explicit")},
             "verified": checks["verified"], "mismatches": checks["mismatches"], "failures": checks["failures"],
             "iterations": {"eager": info["eager_iterations"], "graph": info["graph_iterations"]},
             "stop": {"lifecycle": life_reasons.get("instantiate_us"), "eager": steady_reasons.get("eager_us_per_iter"),
                      "graph": steady_reasons.get("graph_us_per_iter"), "paired_instantiate": pair_reason},
             "summaries": summaries, "paired": paired, "ok": bool(ok)}
    if point_ratio:
        point["stop"]["paired_ratio_median"] = round(statistics.median(point_ratio), 4)
    return point, state


def _finish_held(result: ScalingResult, point: dict, st: _Held) -> None:
    """A point's held launches (all rounds) into its summaries, raw samples and raw pairs."""
    costs = {"held_launch_us": st.python, "device_us": st.device,
             "held_launch_c_us": [v for v in st.c if v is not None]}
    point["summaries"].update(_summaries(result, st.series, st.shape.length, costs,
                                         {k: "fixed" for k in costs}))  # fixed: the rounds' count
    has_c = any(v is not None for v in st.c)
    point["paired"]["launch"] = {"python": sample_label(st.series, st.shape.length, "held_launch_us"),
                                 "c": sample_label(st.series, st.shape.length, "held_launch_c_us") if has_c else None,
                                 "group": st.round, "python_first": [int(v) for v in st.python_first],
                                 "launches": st.k}
    point["held"] = {"held_launches": st.k, "held_timed_out": st.timed_out, "held_released": st.released,
                     "pairs": len(st.python)}
    point["stop"]["held"] = "rounds"
    point["ok"] = bool(point["ok"] and st.released and st.timed_out == 0 and st.python)


def _short(summary: dict) -> dict:
    """A summary's floats to 6 significant digits (far below its spread): the record's size, not its meaning."""
    return {k: float(f"{v:.6g}") if isinstance(v, float) and math.isfinite(v) else v for k, v in summary.items()}
