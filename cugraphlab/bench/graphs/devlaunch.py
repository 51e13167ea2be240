"""Device graph launch measured: loops the GPU drives against the WHILE node, Python and an unrolled graph, the
latency of a launch from a kernel against one from the host, and where a device loop's time goes.

Loops (one table per size; every loop runs ``iterations`` iterations of the chain; µs per iteration from CUDA events
around the whole loop, the host wall clock beside it; interleaved repeats on fresh inputs with poisoned outputs, each
checked: iterations counted on the GPU, output bit-exact):

    device loop, self relaunch   1 cuMemsetD32Async + 1 cuGraphLaunch; the graph's last kernel tail-launches its own
                                 graph (cudaGetCurrentGraphExec) until the counter reaches N
    device loop, scheduler       the same, the scheduler graph tail-launching the chain's graph, then itself
    device loop, self relaunch,  the same with no decision node: the chain's relu kernel (dl_relu_relaunch) decides
      folded                     in its last block to finish and tail-launches the graph
    device loop, self relaunch,  the folded loop's graph holding U iterations of the chain: one decision and one
      decision every U iterations   tail launch per U iterations (count += U; N must be a multiple of U)
    WHILE node                   1 cuGraphLaunch; a conditional node whose body is the chain + cudaGraphSetConditional
    Python, 1 cuGraphLaunch/iter the chain's graph launched N times, nothing read back (no decision at all)
    Python, host decides         per iteration cuGraphLaunch + cuMemcpyDtoHAsync + cuStreamSynchronize
    unrolled graph xU            N/U launches of one graph holding U iterations (no decision; the reference the loops are read against)

Latency (%globaltimer, one clock): a kernel stamps just before its cudaGraphLaunch and the launched graph's kernel
stamps when it starts (fire-and-forget, tail); beside it, host cuGraphLaunch of the same one-kernel graph: host µs
per call, and start-to-start on the GPU when launched back to back; and a one-kernel graph relaunching itself.

Timeline (%globaltimer): a stamped self loop (a marker kernel first, the relaunch kernel stamping at its start and
after its cudaGraphLaunch) splits each iteration into chain, decision + launch call, and relaunch gap.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.device import opened
from ...core.errors import InvalidArgumentError, check, positive_int
from ...core.memory import validate_size
from ...core.renamed import renamed_kwargs
from ...experiment.chain import Chain
from ...experiment.conditional import conditional_graphs
from ...experiment.device_loop import device_loop, every_label
from ...experiment.ops import DEFAULT_OPS, parse_ops
from ..records.record import Record, clocks
from ..stats.summary import Summary, summarize
from ..timing import Variant, interleave

__all__ = ["REPEATS", "LoopRow", "LatencyRow", "SegmentRow", "DevlaunchResult", "measure_devlaunch",
           "timeline_segments", "latency_rows", "FOLDED", "every_name", "PER_ITERATION_DECISION"]

#: Timed loops per way by default. Each loop is one call that runs all its iterations (a device-side loop), so it
#: cannot be cut into chunks: one sample per loop. 10 (it was 5) so that ``cugraphlab diff`` has the 6 samples per
#: side it needs; the 5 more loops cost about 1.5 s at the defaults (estimated, docs/diff.md).
REPEATS = 10

DEFAULT_SIZES = (1024, 1 << 20)


@dataclass
class LoopRow:
    size: int
    name: str
    how: str
    wall: Summary  # µs per iteration, host wall clock
    device: Summary  # µs per iteration, CUDA events
    iterations_ok: bool | None  # None: the loop counts nothing
    verified: bool
    mismatches: int


@dataclass
class LatencyRow:
    name: str
    how: str
    us: Summary


@dataclass
class SegmentRow:
    size: int
    loop: str
    segment: str
    us: Summary


@dataclass(kw_only=True)
class DevlaunchResult(Record):
    KIND: ClassVar[str] = "cugraphlab.devlaunch"
    SCHEMA: ClassVar[int] = 1

    loops: list[LoopRow] = field(default_factory=list)
    latency: list[LatencyRow] = field(default_factory=list)
    timeline: list[SegmentRow] = field(default_factory=list)
    checks: list[dict] = field(default_factory=list)
    against_unrolled: dict = field(default_factory=dict)  # the loops read against the unrolled graph (_conclude)
    notes: list[str] = field(default_factory=list)

    def loop(self, size: int, name: str) -> LoopRow:
        for r in self.loops:
            if r.size == size and r.name == name:
                return r
        raise KeyError((size, name))

    @property
    def verified(self) -> bool:
        return (all(r.verified and r.iterations_ok is not False for r in self.loops)
                and all(c["ok"] for c in self.checks))

    def _extra_dict(self) -> dict:
        return {"verified": self.verified}


SELF, SCHED, WHILE, PY_GRAPH, PY_HOST = ("device loop, self relaunch", "device loop, scheduler", "WHILE node",
                                         "Python, 1 cuGraphLaunch/iter", "Python, host decides")


FOLDED = "device loop, self relaunch, folded"
#: The loops that decide after every iteration (read against the unrolled graph); "decision every K iterations" decides less often.
PER_ITERATION_DECISION = (SELF, FOLDED, SCHED)


def every_name(every: int) -> str:
    """The loop row of the folded loop whose graph holds ``every`` iterations."""
    return f"device loop, self relaunch, {every_label(every)}"


def _unrolled(unroll: int) -> str:
    return f"unrolled graph x{unroll}"


def _check_dict(c) -> dict:
    return {"kind": c.kind, "expected_iterations": c.expected_iterations, "iterations": c.iterations,
            "status": c.status, "output_ok": c.output.ok, "mismatches": c.output.mismatches, "ok": c.ok,
            "text": str(c)}


def _us(ns) -> np.ndarray:
    return np.asarray(ns, dtype=np.float64) / 1e3


def timeline_segments(slots: np.ndarray, shape: str) -> dict[str, np.ndarray]:
    """µs per iteration of each segment of a stamped loop, from its (rows, 4) %globaltimer slots.

    self, folded: chain (+ marker)  = c1 - c0;  decision + relaunch call = c2 - c1;  relaunch gap = next c0 - c2
               (folded: c1 is stamped by relu's last block to finish, so "chain" holds the whole relu)
    scheduler: decision + 2 launch calls = c2 - c1;  tail launch to work start = c0 - c2;
               work (+ marker) to next scheduler start = next c1 - c0
    plus "iteration" (start to next start). Rows with a missing stamp are dropped.
    """
    s = np.asarray(slots, dtype=np.int64)
    ok = (s[:, :3] > 0).all(axis=1)
    rows = int(np.argmin(ok)) if not ok.all() else len(s)  # stamped rows come first
    s = s[:rows]
    if rows < 2:
        return {}
    c0, c1, c2 = s[:, 0], s[:, 1], s[:, 2]
    if shape in ("self", "folded"):
        return {"chain (+ marker kernel)": _us(c1[:-1] - c0[:-1]),
                "decision + cudaGraphLaunch call": _us(c2[:-1] - c1[:-1]),
                "relaunch: call returned -> next graph's first kernel": _us(c0[1:] - c2[:-1]),
                "iteration (start to start)": _us(c0[1:] - c0[:-1])}
    return {"scheduler: decision + 2 cudaGraphLaunch calls": _us(c2[:-1] - c1[:-1]),
            "tail launch -> work graph's first kernel": _us(c0[:-1] - c2[:-1]),
            "work (+ marker) -> next scheduler start": _us(c1[1:] - c0[:-1]),
            "iteration (start to start)": _us(c1[1:] - c1[:-1])}


def latency_rows(slots_by_case: dict[str, np.ndarray], host_call_us: list[float]) -> dict[str, np.ndarray]:
    """µs samples of each latency case from its slots: launch call -> target start (c3 - c1) for device launches,
    start to start (c3 or c1 differences) for back-to-back launches, and the host µs per call."""
    out: dict[str, np.ndarray] = {}
    for case, s in slots_by_case.items():
        s = np.asarray(s, dtype=np.int64)
        if case in ("fire_and_forget", "tail", "sibling"):
            good = (s[:, 1] > 0) & (s[:, 3] > 0)
            out[case] = _us(s[good, 3] - s[good, 1])
            out[case + " call"] = _us(s[good, 2] - s[good, 1])
        elif case == "host":
            t = s[s[:, 3] > 0, 3]
            out[case] = _us(np.diff(t))
        elif case == "self":
            t = s[s[:, 1] > 0, 1]
            out[case] = _us(np.diff(t))
    out["host call"] = np.asarray(host_call_us, dtype=np.float64)
    return out


_LATENCY_TEXT = {
    "fire_and_forget": ("device fire-and-forget", "kernel stamp before cudaGraphLaunch -> child graph's kernel start"),
    "fire_and_forget call": ("device fire-and-forget: the call", "cudaGraphLaunch call on the device, stamp to stamp"),
    "tail": ("device tail launch", "kernel stamp before cudaGraphLaunch -> tail graph's kernel start"),
    "tail call": ("device tail launch: the call", "cudaGraphLaunch call on the device, stamp to stamp"),
    "self": ("device self relaunch, 1 kernel", "start to start of a one-kernel graph tail-launching itself"),
    "host": ("host cuGraphLaunch, back to back", "start to start on the GPU of the same one-kernel graph"),
    "host call": ("host cuGraphLaunch: the call", "perf_counter_ns around R calls / R (host)"),
}


def _measure_latency(result, kit, samples: int) -> tuple[list[LatencyRow], list[dict]]:
    stream = kit.chain.stream
    rows = min(samples, kit.capacity)
    slots: dict[str, np.ndarray] = {}
    checks = []
    for mode in ("fire_and_forget", "tail"):
        exe = kit.launcher_exec(mode, target="probe", stamped=True)
        exe.launch(stream)  # warm-up
        stream.synchronize()
        kit.clear_slots()
        kit.reset()
        for _ in range(rows):
            exe.launch(stream)
        st = kit.read_state()
        checks.append({"kind": f"latency probe, {mode}", "expected_iterations": rows, "iterations": st.count,
                       "status": st.status, "output_ok": True, "mismatches": 0,
                       "ok": st.count == rows and st.status == 0,
                       "text": f"{mode}: the probe graph ran {st.count}x of {rows}, status {st.status_name}"})
        slots[mode] = kit.read_slots(rows)
    target = kit.probe_exec()
    target.launch(stream)
    stream.synchronize()
    kit.clear_slots()
    kit.reset()
    stream.synchronize()
    fn, h, s = target.fn, target.handle, stream.handle
    t0 = time.perf_counter_ns()
    for _ in range(rows):
        r = fn(h, s)
        if r[0]:
            check(r, "cuGraphLaunch")
    t1 = time.perf_counter_ns()
    slots["host"] = kit.read_slots(rows)
    host_call = [(t1 - t0) / 1e3 / rows]
    one = kit.self_exec(rows, stamped=True, with_chain=False)
    kit.clear_slots()
    kit.enqueue(one)
    st = kit.read_state()
    checks.append({"kind": "self relaunch, 1 kernel", "expected_iterations": rows, "iterations": st.count,
                   "status": st.status, "output_ok": True, "mismatches": 0, "ok": st.count == rows and st.status == 0,
                   "text": f"one-kernel self relaunch: {st.count} of {rows} iterations, status {st.status_name}"})
    slots["self"] = kit.read_slots(rows)
    out = []
    for key, values in latency_rows(slots, host_call).items():
        if len(values) == 0:
            continue
        name, how = _LATENCY_TEXT[key]
        clock = "host_call" if key == "host call" else "globaltimer"
        out.append(LatencyRow(name, how, summarize(values, unit="us", clock=clock)))
        result.keep_samples(f"latency {name}", values, "us", clock)
    return out, checks


@renamed_kwargs(iterations="iters")
def measure_devlaunch(device=0, sizes=DEFAULT_SIZES, iters: int = 1000, repeats: int = REPEATS, *,
                      unroll: int = 50, seed: int | None = None, ops=DEFAULT_OPS, scalar: float = 2.0,
                      timeline_rows: int = 200, latency_samples: int = 200, progress=None) -> DevlaunchResult:
    """Every loop of the module docstring at each size, the latency probes and the timelines, in one record.

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    sizes : int or sequence of int
        Floats per buffer, one size or several.
    iters : int
        Loop iterations per timed loop, a multiple of ``unroll`` (``iterations=`` before; still accepted, with a
        DeprecationWarning).
    repeats : int
        Timed loops per way.
    unroll : int
        Chain iterations per graph in the unrolled ways.
    seed : int or None
        Seed of the random inputs (drawn afresh when None).
    ops : sequence of str or str
        The chain's ops (``experiment.ops.parse_ops``).
    scalar : float
        The factor of ``mul``.
    timeline_rows : int
        Kernels kept per timeline.
    latency_samples : int
        Samples of the latency probes (at the first size only).
    progress : callable or None
        ``progress(line)``, called with one line after each timed loop.

    Returns
    -------
    DevlaunchResult
        The loops' rows per size, the latency probes, the timeline segments, the checks, the loops read against
        the unrolled graph, the notes, the samples kept and the environment.

    Raises
    ------
    InvalidArgumentError
        An unknown op, a size, ``iters``, ``unroll``, ``repeats`` or ``timeline_rows`` not a positive integer,
        ``iters`` not a multiple of ``unroll``, or an old keyword given with its new one: before any GPU work.
    UnsupportedError
        Device graph launch or conditional nodes cannot run here (one line).
    NoDeviceError
        No driver or no device ``device``.
    CudaError
        A driver call failed.
    """
    from ...graphs.conditional import require_conditional
    from ..records.environment import collect

    ops = parse_ops(ops)
    sizes = [validate_size(s) for s in (sizes if not isinstance(sizes, int) else [sizes])]
    n = positive_int("iters", iters)
    unroll = positive_int("unroll", unroll)
    if n % unroll:
        raise InvalidArgumentError(f"iters ({n}) must be a multiple of unroll ({unroll})")
    positive_int("repeats", repeats)
    timeline_rows = positive_int("timeline_rows", timeline_rows)
    with opened(device) as dev:
        require_conditional(dev)
        result = DevlaunchResult(
            config={"sizes": sizes, "iterations": n, "repeats": repeats, "unroll": unroll, "ops": list(ops),
                    "scalar": scalar, "seed": seed, "device": getattr(dev, "ordinal", device),
                    "timeline_rows": timeline_rows, "latency_samples": latency_samples},
            env=collect(dev), clocks=clocks("wall", "device", "host_call", "globaltimer"))
        for size in sizes:
            _measure_size(result, dev, size, n, repeats, unroll, seed, ops, scalar, timeline_rows,
                          latency_samples if size == sizes[0] else 0, progress)
        _conclude(result, sizes, unroll)
        return result


def _measure_size(result, dev, size, n, repeats, unroll, seed, ops, scalar, timeline_rows, latency_samples,
                  progress):
    with Chain(dev, ops, size, scalar, seed=seed) as chain, dev.create_event() as start, \
            dev.create_event() as end:
        kit = device_loop(chain, capacity=max(timeline_rows, latency_samples, 2) + 1)
        ckit = conditional_graphs(chain)
        stream = chain.stream
        self_exe, sched_exe, while_exe = kit.self_exec(n), kit.scheduler_exec(n), ckit.while_exec(n)
        folded_exe, every_exe = kit.folded_exec(n), kit.folded_exec(n, every=unroll)
        chain.graph_exec(1), chain.graph_exec(unroll)
        if kit.note:
            result.notes.append(kit.note)
        plan = [
            (SELF, "1 cuGraphLaunch; the graph's last kernel tail-launches its own graph",
             lambda: kit.enqueue(self_exe), "device"),
            (SCHED, "1 cuGraphLaunch; a scheduler kernel tail-launches the chain's graph, then itself",
             lambda: kit.enqueue(sched_exe), "device"),
            (FOLDED, "1 cuGraphLaunch; relu's last block decides and tail-launches its graph (no decision node)",
             lambda: kit.enqueue(folded_exe), "device"),
            (every_name(unroll), f"1 cuGraphLaunch; a graph of {unroll} iterations whose last relu decides and "
                                 f"tail-launches it", lambda: kit.enqueue(every_exe), "device"),
            (WHILE, "1 cuGraphLaunch; conditional node, cudaGraphSetConditional", lambda: while_exe.launch(stream),
             "while"),
            (PY_GRAPH, "per iteration: cuGraphLaunch (no decision)", lambda: chain.run("graph", n), None),
            (PY_HOST, "per iteration: cuGraphLaunch + cuMemcpyDtoHAsync + cuStreamSynchronize",
             lambda: ckit.run_host_loop(n), "while"),
            (_unrolled(unroll), f"{n // unroll} cuGraphLaunch of {unroll} iterations each (no decision)",
             lambda: chain.run("graph", n, unroll), None),
        ]
        _loop_rows(result, plan, kit, ckit, n, size, repeats, start, end, progress)
        _stop_checks(result, kit, n, unroll, size)
        _timeline_rows(result, kit, size, timeline_rows)
        if latency_samples:
            lat, lat_checks = _measure_latency(result, kit, latency_samples)
            result.latency.extend(lat)
            result.checks.extend(lat_checks)


def _loop_rows(result, plan, kit, ckit, n, size, repeats, start, end, progress) -> None:
    """Each way of ``plan`` warmed up, then timed interleaved on fresh inputs, its count and bits checked after every
    loop: the result's loop rows and their samples."""
    chain = kit.chain
    stream = chain.stream
    # Warm-up (first launches, uploads), one loop at a time: compute-sanitizer's memcheck fails a conditional
    # graph queued behind a running one (bench.graphs.conditional says more).
    for _name, _how, run, _counter in plan:
        run()
        stream.synchronize()
    count_ok = {p[0]: (True if p[3] else None) for p in plan}

    def prepare():
        kit.fresh()
        ckit.state.poison(stream)

    def checker(name, counter):
        def check() -> int:
            if counter == "device":
                st = kit.read_state()
                if st.count != n or st.status:
                    count_ok[name] = False
            elif counter == "while" and ckit.read_state().count != n:
                count_ok[name] = False
            return chain.check_result("graph").mismatches
        return check

    variants = [Variant(name, stream, lambda _k, run=run: run(), prepare, checker(name, counter))
                for name, _how, run, counter in plan]
    timings = interleave(variants, n, repeats, start, end, progress=progress)
    for name, how, _run, _counter in plan:
        t = timings[name]
        label = f"{size} {name}"
        result.keep_samples(label + " device", t.device_us, "us", "device")
        result.keep_samples(label + " wall", t.wall_us, "us", "wall")
        result.loops.append(LoopRow(size, name, how, t.wall(), t.device(), count_ok[name], t.verified,
                                    t.mismatches))


def _stop_checks(result, kit, n, unroll, size) -> None:
    """Checks with data-dependent stops and feedback (the output is the chain applied k times)."""
    chain = kit.chain
    feedback_n = min(n, 40)  # 2^k growth: stay finite
    every_feedback = unroll * max(1, 100 // unroll)  # about 2^100 at most: finite in float32
    limit = 10_000 - 10_000 % unroll or unroll
    for chk in (kit.run_launch("fire_and_forget"), kit.run_launch("tail"), kit.run_launch("sibling"),
                kit.run_loop("self", feedback_n, feedback=True), kit.run_loop("scheduler", feedback_n,
                                                                              feedback=True),
                kit.run_loop("folded", feedback_n, feedback=True),
                kit.run_loop("folded", every_feedback, feedback=True, every=unroll),
                kit.run_loop("self", 10_000, threshold=_threshold(chain), probe=32),
                kit.run_loop("scheduler", 10_000, threshold=_threshold(chain), probe=32),
                kit.run_loop("folded", 10_000, threshold=_threshold(chain), probe=32),
                kit.run_loop("folded", limit, threshold=_threshold(chain), probe=32, every=unroll)):
        d = _check_dict(chk)
        d["size"] = size
        result.checks.append(d)


def _timeline_rows(result, kit, size, timeline_rows) -> None:
    """Where the time goes: stamped loops of each shape, their segments (globaltimer) and checks."""
    rows = min(timeline_rows, kit.capacity - 1)
    for shape in ("self", "scheduler", "folded"):
        kit.clear_slots()
        chk = kit.run_loop(shape, rows, stamped=True)
        d = _check_dict(chk)
        d["size"] = size
        d["kind"] += " (stamped)"
        result.checks.append(d)
        label = "self, folded" if shape == "folded" else shape
        for seg, values in timeline_segments(kit.read_slots(rows), shape).items():
            if len(values):
                result.timeline.append(SegmentRow(size, label, seg,
                                                  summarize(values, unit="us", clock="globaltimer")))
                result.keep_samples(f"{size} {label} timeline {seg}", values, "us", "globaltimer")


def _threshold(chain) -> float:
    """A threshold the running total of 32 outputs crosses after a few hundred iterations (about half are 0)."""
    s = float(np.abs(chain.expected()[:32]).sum()) or 1.0
    return s * 250.0


def _conclude(result: DevlaunchResult, sizes, unroll: int) -> None:
    size = 1024 if 1024 in sizes else sizes[0]
    per_iteration = {name: result.loop(size, name).device.median for name in PER_ITERATION_DECISION}
    best = min(per_iteration, key=per_iteration.get)
    dev_loop = per_iteration[best]
    unrolled = result.loop(size, _unrolled(unroll)).device.median
    every = result.loop(size, every_name(unroll)).device.median
    gap = dev_loop - unrolled
    result.against_unrolled = {"size": size, "device_loop": best, "device_loop_us": dev_loop,
                               "unrolled_us": unrolled, "gap_us": gap, "clock": "device",
                               "self_relaunch_us": per_iteration[SELF], "folded_us": per_iteration[FOLDED],
                               "every_k": unroll, "every_k_us": every, "every_k_gap_us": every - unrolled}
    seg = {r.segment: r.us.median for r in result.timeline if r.size == size and r.loop == "self"}
    fold = {r.segment: r.us.median for r in result.timeline if r.size == size and r.loop == "self, folded"}
    fold_chain, fold_call, fold_relaunch = (fold.get(k, math.nan) for k in (
        "chain (+ marker kernel)", "decision + cudaGraphLaunch call",
        "relaunch: call returned -> next graph's first kernel"))
    chain_us = seg.get("chain (+ marker kernel)", math.nan)
    call_us = seg.get("decision + cudaGraphLaunch call", math.nan)
    relaunch_us = seg.get("relaunch: call returned -> next graph's first kernel", math.nan)
    lat = {r.name: r.us.median for r in result.latency}
    result.notes += [
        (f"The device loop against the unrolled graph at {size:,} floats: the best loop deciding every iteration "
         f"({best}) {dev_loop:.2f} against {unrolled:.2f} us/iter (device clock), {gap:+.2f} us (self relaunch "
         f"{per_iteration[SELF]:.2f}, folded {per_iteration[FOLDED]:.2f})."),
        (f"With the {every_label(unroll)} (the folded loop's graph holding {unroll} iterations, one tail launch "
         f"per {unroll}): {every:.2f} us/iter, {every - unrolled:+.2f} us against the unrolled graph x{unroll}; "
         f"it decides {unroll}x less "
         f"often (a counted loop's count must be a multiple of {unroll}; a threshold loop stops at the first "
         f"multiple of {unroll} past its threshold, up to {unroll - 1} iterations late)."),
        (f"Where a folded iteration goes at {size:,} floats (stamped, %globaltimer medians): "
         f"{fold_chain:.2f} us marker + add, mul, sub and relu until its last block decides, {fold_call:.2f} us "
         f"decision + cudaGraphLaunch call, {fold_relaunch:.2f} us relaunch until the next graph's first kernel."),
        (f"Where a self-relaunch iteration goes at {size:,} floats (stamped run, %globaltimer medians): "
         f"{chain_us:.2f} us in the chain (with one marker kernel), {call_us:.2f} us in the decision kernel up "
         f"to its cudaGraphLaunch returning, {relaunch_us:.2f} us from there until the relaunched graph's "
         f"first kernel starts."),
        ("Why: a tail launch starts only when the launching graph's whole execution environment is complete "
         "(its last kernel retired, its children done); then the device runtime launches the graph anew, as a "
         "fresh grid-launch sequence. Inside one graph, consecutive kernel nodes are already queued on the GPU "
         "(about 0.5-0.6 us node to node); between two graphs nothing is queued ahead, so each iteration pays the "
         "graph-to-graph dispatch. The WHILE node re-runs its body inside one graph launch instead."),
        (f"Latency (%globaltimer): fire-and-forget {lat.get('device fire-and-forget', math.nan):.2f} us and tail "
         f"{lat.get('device tail launch', math.nan):.2f} us from the kernel's stamp to the launched kernel's "
         f"start; a one-kernel graph relaunching itself {lat.get('device self relaunch, 1 kernel', math.nan):.2f} "
         f"us start to start; host cuGraphLaunch {lat.get('host cuGraphLaunch: the call', math.nan):.2f} us per "
         f"call, {lat.get('host cuGraphLaunch, back to back', math.nan):.2f} us start to start back to back."),
    ]
