"""The floor of the chain on one GPU, measured in one process: what each kernel costs on the device, what the gaps
between them cost, what the host pays per launch, and how far each op is from the L2 and DRAM roofs.

For each size (default 2^20 and 1,024 floats):

    measure_timeline(..., modes=("graph",))      # %globaltimer stamps, one graph per iteration (bench.timeline)
        -> per kernel busy time (end - start), the gap inside a graph, the graph-to-graph boundary
    chain.run("graph") / ("fused") timed with events            # µs per iteration, device clock
    ColdFused (experiment.cold_l2): fused on rotating sets > 2 x L2  # the same kernel from DRAM
    PdlChain (experiment.pdl) "PDL" and "PDL early", graphs timed with events, interleaved with the plain graph
        -> µs per iteration, and the saving per programmatic edge: (plain - PDL) / programmatic edges per iteration
        (edges counted in the captured graph); at ``pdl_unroll_sizes`` also graphs of ``pdl_unroll`` iterations
    Python vs C per launch (bench.latency_native, paired):  Launch() and GraphExec.launch vs the C loops

Roofs, measured the same way (bench.probes.copy_roof, cuMemcpyDtoDAsync between events, bytes read + written): DRAM
with a 256 MiB copy, L2 with a copy whose source and destination fit in L2 together (a quarter of the L2 each). Bytes
an op really moves: add and sub read two arrays and write one (12 MiB at 2^20), mul and relu read one and write one (8
MiB), fused reads x and y and writes out (12 MiB); "at roof" is bytes / roof.

PDL variants (kernels/elementwise.cuh): "PDL" (``-DCGL_PDL``) triggers the next launch and waits for the predecessor
at the top of each kernel; "PDL early" (``-DCGL_PDL_EARLY``) loads the operand no kernel writes (y) before its wait
and triggers the next launch only once its own loads are issued. Where the GPU or driver lacks PDL the rows say why.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from cugraphlab.bench.records.record import Record, clocks
from cugraphlab.bench.stats.summary import summarize
from cugraphlab.core.memory import validate_size
from cugraphlab.experiment.ops import DEFAULT_OPS, OPS, parse_ops

__all__ = ["FloorRow", "FloorResult", "measure_floor", "split_timeline", "op_bytes", "DEFAULT_SIZES"]

DEFAULT_SIZES = (1 << 20, 1024)
#: The most rotating sets the cold-L2 row may use (below, a set is so small the rotation would be launches only).
MAX_COLD_SETS = 64


def op_bytes(op: str, n: int) -> int:
    """Bytes one launch of ``op`` ("fused" too) over ``n`` float32 reads and writes."""
    if op == "fused":
        return 3 * 4 * n
    return (3 if OPS[op].reads_y else 2) * 4 * n


def split_timeline(events: list[dict], per_iter: int) -> dict:
    """From one-graph-per-iteration events (launch order): busy µs per kernel name, the gaps inside an iteration's
    graph and the gaps across a graph boundary (next start - previous end, µs)."""
    busy: dict[str, list[float]] = {}
    inside, boundary = [], []
    for i, e in enumerate(events):
        busy.setdefault(e["kernel"], []).append((e["end_ns"] - e["start_ns"]) / 1e3)
        if i + 1 < len(events):
            gap = (events[i + 1]["start_ns"] - e["end_ns"]) / 1e3
            (boundary if (i + 1) % per_iter == 0 else inside).append(gap)
    return {"busy": busy, "inside": inside, "boundary": boundary}


@dataclass
class FloorRow:
    """One line of the floor table: a figure at one size, its clock, the bytes behind it and the roofs' floors."""

    size: int
    key: str
    what: str
    us: float | None
    p5: float | None = None
    p95: float | None = None
    clock: str = ""
    nbytes: int | None = None
    gbps: float | None = None
    at_l2_us: float | None = None
    at_dram_us: float | None = None
    verified: bool | None = None
    note: str = ""


@dataclass(kw_only=True)
class FloorResult(Record):
    KIND: ClassVar[str] = "cugraphlab.study.floor.result"

    rows: list[FloorRow]
    roofs: dict = field(default_factory=dict)  # l2_gbps, dram_gbps, l2_bytes, copy bytes

    def row(self, size: int, key: str) -> FloorRow:
        return next(r for r in self.rows if r.size == size and r.key == key)

    @property
    def verified(self) -> bool:
        return all(r.verified is not False for r in self.rows)


def _s(values):
    return summarize(values, unit="us", clock="")


def measure_floor(device, *, sizes=DEFAULT_SIZES, ops=DEFAULT_OPS, iters: int = 2000, repeats: int = 5,
                  timeline_iters: int = 25, host_k: int = 200, host_samples: int = 40, seed: int | None = 0,
                  pdl: bool = True, pdl_unroll: int = 50, pdl_unroll_sizes=(1024,), progress=None) -> FloorResult:
    """Every row of the floor table on ``device`` (an open Device), for each of ``sizes``. See the module text.

    ``pdl``: add the PDL rows (plain, PDL and PDL early graphs interleaved); ``pdl_unroll`` iterations per graph for
    the unrolled rows at the sizes in ``pdl_unroll_sizes`` (left out unless ``iters`` is a multiple of it)."""
    from cugraphlab.bench.measure.latency_native import c_per_call, open_native_floor, paired_excess
    from cugraphlab.bench.measure.timeline import measure_timeline
    from cugraphlab.bench.probes.copy_roof import CopyProbe, copy_bandwidth
    from cugraphlab.bench.records.environment import collect
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.experiment.cold_l2 import ColdFused, fused_bytes, sets_for

    ops = parse_ops(ops)
    sizes = [validate_size(n) for n in sizes]
    say = progress or (lambda _m: None)
    l2 = int(device.attribute("L2_CACHE_SIZE"))
    dram = copy_bandwidth(device)
    with CopyProbe(device, max(l2 // 4, 1 << 20) // 16 * 16, copies=100) as probe:
        l2_roof = probe.summary([probe.sample() for _ in range(5)])
    l2_gbps, dram_gbps = l2_roof.gbps.median, dram.gbps.median
    say(f"roofs: L2 copy {l2_gbps:,.0f} GB/s, DRAM copy {dram_gbps:,.0f} GB/s")
    rows: list[FloorRow] = []

    def add(size, key, what, values, clock, nbytes=None, verified=None, note=""):
        s = _s(values)
        gbps = nbytes / s.median / 1e3 if nbytes and s.median > 0 else None
        rows.append(FloorRow(size, key, what, s.median, s.p5, s.p95, clock, nbytes, gbps,
                             nbytes / l2_gbps / 1e3 if nbytes else None,
                             nbytes / dram_gbps / 1e3 if nbytes else None, verified, note))
        say(f"{size:,} {what}: {s.median:.3f} us")
        return values

    floor, why = open_native_floor()
    for n in sizes:
        tl = measure_timeline(device, ops=ops, size=n, iters=timeline_iters, modes=("graph",))
        m = tl.mode("graph")
        parts = split_timeline(m.events, len(ops))
        for op in dict.fromkeys(ops):
            add(n, f"busy_{op}", f"{op} busy (one kernel, in a graph)", parts["busy"][op], "globaltimer",
                op_bytes(op, n), m.verified)
        add(n, "gap_inside", "gap between kernels inside a graph", parts["inside"], "globaltimer",
            verified=m.verified)
        if parts["boundary"]:
            add(n, "gap_boundary", "gap across a graph-to-graph boundary", parts["boundary"], "globaltimer",
                verified=m.verified)
        with Chain(device, ops, n, seed=seed) as chain, device.create_event() as e0, device.create_event() as e1:
            exe = chain.graph_exec()
            for mode in ("graph", "fused"):
                chain.run(mode, iters)
            cold = None
            k = sets_for(l2, fused_bytes(n))
            if k <= MAX_COLD_SETS:
                cold = chain.adopt(ColdFused.from_chain(chain, seed=seed))
                cold.run(iters)
            plan = [("graph", lambda i: chain.run("graph", i)), ("fused", lambda i: chain.run("fused", i))]
            if cold is not None:
                plan.append(("fused_cold", cold.run))
            unroll = pdl_unroll if (n in pdl_unroll_sizes and pdl_unroll > 1 and iters % pdl_unroll == 0) else None
            pdls, pdl_why = _open_pdl(device, ops, n, chain, seed) if pdl else ({}, "")
            extra = _pdl_plan(chain, pdls, unroll)
            for _name, run in extra:
                run(iters)  # warm-up: modules, graph instantiate + upload
            plan += extra
            dev_us: dict[str, list[float]] = {name: [] for name, _ in plan}
            for _ in range(repeats):  # interleaved
                for name, run in plan:
                    dev_us[name].append(time_mode_like(chain, run, iters, e0, e1))
            ok_graph = chain.verify("graph").ok
            ok_fused = chain.verify("fused").ok
            add(n, "graph_iter", f"graph, {len(ops)} kernels, per iteration", dev_us["graph"], "device",
                verified=ok_graph)
            add(n, "fused_warm", "fused, warm L2, per iteration", dev_us["fused"], "device", fused_bytes(n), ok_fused)
            if cold is not None:
                cold.randomize()
                cold.poison()
                cold.run(iters)
                add(n, "fused_cold", f"fused, cold L2 ({cold.sets} rotating sets), per iteration",
                    dev_us["fused_cold"], "device", fused_bytes(n), cold.mismatches() == 0)
            else:
                rows.append(FloorRow(n, "fused_cold", "fused, cold L2", None, note=(
                    f"not measured: {k:,} sets of {fused_bytes(n):,} bytes would be needed to exceed 2 x L2")))
            if pdl:
                _pdl_rows(add, rows, n, len(ops), chain, pdls, pdl_why, unroll, dev_us)
            # --- host cost per launch, Python vs C, paired (the launch shape of this size) ---------------------------
            launch, sync = chain.launches[0], chain.stream.synchronize
            py = _per_call_samples(launch, host_k, sync, host_samples)
            add(n, "host_launch_py", f"host: Launch() ({launch.kernel.name})", py, "host_call")
            py_g = _per_call_samples(lambda: exe.launch(chain.stream), 50, sync, host_samples)
            add(n, "host_graph_py", "host: GraphExec.launch", py_g, "host_call")
            if floor is None:
                for key, what in (("host_launch_c", "host: C cuLaunchKernel"), ("host_graph_c", "host: C cuGraphLaunch")):
                    rows.append(FloorRow(n, key, what, None, note=why))
            else:
                c_loop = floor.launch_loop(launch)
                add(n, "host_launch_c", "host: C cuLaunchKernel", _repeat(c_per_call(c_loop, host_k, sync),
                                                                          host_samples), "host (C clock)")
                add(n, "host_launch_adds", "host: Python adds per launch (paired)",
                    _repeat(paired_excess(launch, c_loop, host_k, sync), host_samples), "host_call - C clock")
                g_loop = floor.graph_loop(exe, chain.stream)
                add(n, "host_graph_c", "host: C cuGraphLaunch", _repeat(c_per_call(g_loop, 50, sync), host_samples),
                    "host (C clock)")
                add(n, "host_graph_adds", "host: Python adds per cuGraphLaunch (paired)",
                    _repeat(paired_excess(lambda: exe.launch(chain.stream), g_loop, 50, sync), host_samples),
                    "host_call - C clock")
    config = {"sizes": sizes, "ops": list(ops), "iters": iters, "repeats": repeats, "timeline_iters": timeline_iters,
              "host_k": host_k, "host_samples": host_samples, "native": why or "built", "pdl": pdl,
              "pdl_unroll": pdl_unroll, "pdl_unroll_sizes": list(pdl_unroll_sizes)}
    roofs = {"l2_gbps": l2_gbps, "dram_gbps": dram_gbps, "l2_bytes": l2, "l2_copy_bytes": l2_roof.nbytes,
             "dram_copy_bytes": dram.nbytes, "l2_copy": l2_roof.to_dict(), "dram_copy": dram.to_dict()}
    result = FloorResult(config=config, rows=rows, roofs=roofs, env=collect(device),
                         clocks=clocks("globaltimer", "device", "host_call", "copy"))
    return result


#: PDL variant -> (kernel option set, what the row says).
PDL_VARIANTS = {"pdl": (False, "PDL graph (trigger and wait at the top)"),
                "pdl_early": (True, "PDL early graph (y loaded before the wait, trigger after the loads)")}


def _open_pdl(device, ops, n, chain, seed) -> tuple[dict, str]:
    """{"pdl": PdlChain, "pdl_early": PdlChain} on the chain's stream (adopted by the chain), or ({}, why not)."""
    from cugraphlab.core.errors import UnsupportedError
    from cugraphlab.experiment.pdl import PdlChain
    from cugraphlab.graphs.pdl import require_pdl

    try:
        require_pdl(device, graphs=True)
    except UnsupportedError as e:
        return {}, str(e).splitlines()[0]
    return {key: chain.adopt(PdlChain(device, ops, n, stream=chain.stream, seed=seed, early=early))
            for key, (early, _what) in PDL_VARIANTS.items()}, ""


def _pdl_plan(chain, pdls: dict, unroll: int | None) -> list:
    """(name, run(iters)) of the PDL variants, and of the unrolled plain and PDL graphs when ``unroll``."""
    plan = []
    for key, p in pdls.items():
        plan.append((f"{key}_graph", lambda i, p=p: p.run("graph", i)))
    if unroll:
        plan.append((f"graph_x{unroll}", lambda i: chain.run("graph", i, unroll)))
        for key, p in pdls.items():
            plan.append((f"{key}_graph_x{unroll}", lambda i, p=p: p.run("graph", i, unroll)))
    return plan


def _pdl_rows(add, rows, n, kernels, chain, pdls, why, unroll, dev_us) -> None:
    """The PDL rows of one size from the interleaved device samples ``dev_us`` (see the module text)."""
    from cugraphlab.graphs.pdl import programmatic_edge_count

    if not pdls:
        for key, (_early, what) in PDL_VARIANTS.items():
            rows.append(FloorRow(n, f"{key}_graph_iter", f"{what}, per iteration", None, note=f"not measured: {why}"))
        return
    shapes = [(1, "", "graph")]
    if unroll:
        ok = chain.verify("graph", 2 * unroll, unroll).ok
        add(n, f"graph_x{unroll}_iter", f"graph of {unroll} iterations, {kernels} kernels, per iteration",
            dev_us[f"graph_x{unroll}"], "device", verified=ok)
        shapes.append((unroll, f"_x{unroll}", f"graph of {unroll} iterations"))
    for u, suffix, label in shapes:
        for key, p in pdls.items():
            what = PDL_VARIANTS[key][1]
            if u > 1:
                what = what.replace("PDL graph", f"PDL {label}").replace("PDL early graph", f"PDL early {label}")
            ok = p.verify("graph", 2 * u, u).ok
            samples = dev_us[f"{key}_graph{suffix}"]
            add(n, f"{key}_graph{suffix}_iter", f"{what}, per iteration", samples, "device", verified=ok)
            g = p.capture(u)
            try:
                edges = programmatic_edge_count(g)
            finally:
                g.close()
            plain = dev_us["graph" + suffix]
            if edges:
                saving = [(a - b) * u / edges for a, b in zip(plain, samples)]
                add(n, f"{key}_saving{suffix}", f"{what.split(' (')[0]}: saved per programmatic edge "
                    f"({edges / u:g} per iteration)", saving, "device (paired difference / edges)", verified=ok)
            else:
                rows.append(FloorRow(n, f"{key}_saving{suffix}", f"{what}: saved per programmatic edge", None,
                                     note="not measured: the captured graph has no programmatic edge"))


def time_mode_like(chain, run, iters, e0, e1) -> float:
    """Device µs per iteration of ``run(iters)`` on the chain's stream (events around the loop)."""
    from cugraphlab.bench.timing import timed_loop

    return timed_loop(chain.stream, run, iters, e0, e1)[1]


def _per_call_samples(fn, k: int, sync, samples: int) -> list[float]:
    import time

    out = []
    sync()
    for _ in range(samples + 3):
        t0 = time.perf_counter_ns()
        for _ in range(k):
            fn()
        out.append((time.perf_counter_ns() - t0) / 1e3 / k)
        sync()
    return out[3:]


def _repeat(sample, samples: int) -> list[float]:
    values = [sample() for _ in range(samples + 3)]
    return values[3:]
