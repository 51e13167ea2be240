"""Programmatic dependent launch (PDL): let the next kernel of the chain start launching before the last one ends.

Normally a kernel on a stream begins only after its predecessor has fully finished and flushed memory; the gap costs
about half a microsecond per kernel on an H200. With the launch attribute
``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` (set through ``cuLaunchKernelEx``) the driver may start the
next grid as soon as every block of the current one has executed ``griddepcontrol.launch_dependents``; the next grid
then blocks in ``griddepcontrol.wait`` until its predecessor has completed and its writes are visible. The chain's
kernels compiled with ``-DCGL_PDL`` do exactly that (see kernels/elementwise.cuh): trigger first, wait before the
first memory access. So results are as if fully serialized; only the launch latency overlaps.

Captured into a graph, the same launches become kernel nodes joined by programmatic edges
(``CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC``), so a replayed graph keeps the overlap. Needs sm_90 or newer.

    with Device(0) as dev, PdlChain(dev, n=1 << 20) as pdl:
        print(pdl.verify("graph"))   # bit-exact against NumPy
        pdl.run("graph", 5000)
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from .bench.stats import Summary, summarize
from .calls import cu, driver_fn, driver_module
from .chain import DEFAULT_OPS, Chain, Verification, compare_bits, fused_source, parse_ops
from .errors import InvalidArgumentError, UnsupportedError, check, positive_int
from .graph import Graph, GraphExec, capture, ready_exec
from .memory import validate_size
from .resource import Resource

__all__ = [
    "PDL_OPTIONS",
    "PDL_MODES",
    "require_pdl",
    "load_pdl_kernels",
    "launch_config",
    "PdlLaunch",
    "PdlChain",
    "edge_kinds",
    "programmatic_edge_count",
    "PdlVariant",
    "PdlResult",
    "measure_pdl",
    "WALL_CLOCK",
    "DEVICE_CLOCK",
]

PDL_OPTIONS = ("-DCGL_PDL",)
PDL_MODES = ("eager", "graph")
WALL_CLOCK = "perf_counter_ns (host wall clock, loop start to end-event sync)"
DEVICE_CLOCK = "cuEventElapsedTime (CUDA events on the chain's stream around the loop)"


def require_pdl(device) -> None:
    """UnsupportedError unless ``device`` (and the bindings) can do programmatic dependent launch."""
    major, _minor = device.compute_capability
    if major < 9:
        raise UnsupportedError(
            f"programmatic dependent launch needs sm_90 or newer; this device is {device.arch}")
    d = driver_module()
    if not hasattr(d, "cuLaunchKernelEx") or not hasattr(
            d.CUlaunchAttributeID, "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION"):
        raise UnsupportedError("these cuda-bindings lack cuLaunchKernelEx or the programmatic launch attribute: "
                               "pip install -U 'cuda-bindings[all]'")


def load_pdl_kernels(device, ops=DEFAULT_OPS, cache=None):
    """The chain's kernels (and its fused kernel) compiled with ``-DCGL_PDL`` for ``device``, as a KernelSet."""
    ops = parse_ops(ops)
    extra = {} if ops == DEFAULT_OPS else {"fused": fused_source(ops)}
    return device.load_kernels(names=sorted({*ops, "fused"}), extra_sources=extra, options=PDL_OPTIONS, cache=cache)


def launch_config(grid, block, stream, shared_bytes: int = 0, programmatic: bool = True):
    """A ``CUlaunchConfig`` for cuLaunchKernelEx, with the programmatic-stream-serialization attribute when asked.

    Built once and reused by every launch of the same shape on the same stream: the binding reads it at each call,
    so nothing is converted per launch.
    """
    from .launch import _dims

    d = driver_module()
    gx, gy, gz = _dims(grid)
    bx, by, bz = _dims(block)
    cfg = d.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = gx, gy, gz
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = bx, by, bz
    cfg.sharedMemBytes = int(shared_bytes)
    cfg.hStream = stream.handle
    if programmatic:
        attr = d.CUlaunchAttribute()
        attr.id = d.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attr.value.programmaticStreamSerializationAllowed = 1
        cfg.attrs = [attr]
        cfg.numAttrs = 1
    else:
        cfg.numAttrs = 0
    return cfg


class PdlLaunch:
    """One kernel launch through ``cuLaunchKernelEx`` with a shared launch config; call it to enqueue it."""

    def __init__(self, kernel, args, config):
        self.kernel, self.args, self.config = kernel, args, config  # args: PackedArgs, kept alive with the launch
        self.call_args = (config, kernel.handle, args.address, 0)
        self._fn = driver_fn("cuLaunchKernelEx")

    def __call__(self) -> None:
        r = self._fn(*self.call_args)
        if r[0]:
            check(r, "cuLaunchKernelEx")

    def __repr__(self) -> str:
        return f"<PdlLaunch {self.kernel.name}>"


class PdlChain(Resource):
    """The chain with PDL kernels launched through ``cuLaunchKernelEx`` and the programmatic attribute.

    Owns (unless given) a KernelSet compiled with ``-DCGL_PDL`` and a :class:`Chain` over it (buffers, stream,
    reference); ``chain`` is that Chain, so ``chain.run("eager"/"graph")`` gives the same kernels launched plainly.
    ``run(mode, iters)`` enqueues ``iters`` iterations ("eager" or "graph") with PDL.
    """

    def __init__(self, device, ops=DEFAULT_OPS, n: int = 1 << 20, scalar: float = 2.0, *, kernels=None,
                 stream=None, block: int = 256, seed: int | None = None):
        require_pdl(device)
        self.device = device
        self._owned: list[Resource] = []
        self._graphs: dict[int, GraphExec] = {}
        self._own(self._release)
        try:
            if kernels is None:
                kernels = load_pdl_kernels(device, ops)
                self._owned.append(kernels)
            self.kernels = kernels
            self.chain = Chain(device, ops, n, scalar, kernels=kernels, stream=stream, block=block, seed=seed)
            self._owned.append(self.chain)
            self.stream = self.chain.stream
            self.config = launch_config(self.chain.grid, self.chain.block, self.stream)
            # The Chain's packed arguments are reused: same buffers, same order, only the launch call differs.
            self.launches = [PdlLaunch(l.kernel, l.args, self.config) for l in self.chain.launches]
        except BaseException:
            self.close()
            raise

    def _release(self) -> None:
        for exe in list(self._graphs.values()):
            exe.close()
        self._graphs.clear()
        for r in reversed(self._owned):
            r.close()

    # --- running (the timed paths: nothing but the binding call and a status test) ---------------------------
    def run_eager(self, iters: int) -> None:
        """One cuLaunchKernelEx per op per iteration, each allowed to overlap its predecessor's tail."""
        fn = driver_fn("cuLaunchKernelEx")
        calls = tuple(launch.call_args for launch in self.launches)
        for _ in range(iters):
            for c in calls:
                r = fn(*c)
                if r[0]:
                    check(r, "cuLaunchKernelEx")

    def capture(self, unroll: int = 1) -> Graph:
        """Capture ``unroll`` iterations of the PDL launches into a new Graph (owned by the caller).

        Stream capture turns each programmatic launch into a kernel node whose edge from the previous node is
        programmatic, so the overlap survives into the graph.
        """
        with capture(self.stream) as cap:
            for _ in range(unroll):
                for launch in self.launches:
                    launch()
        return cap.graph

    def graph_exec(self, unroll: int = 1) -> GraphExec:
        """The PDL graph of ``unroll`` iterations, instantiated and uploaded once, then kept."""
        positive_int("unroll", unroll)
        exe = self._graphs.get(unroll)
        if exe is None:
            exe = self._graphs[unroll] = ready_exec(self.capture(unroll), self.stream)
        return exe

    def run_graph(self, launches: int, unroll: int = 1) -> None:
        """``launches`` cuGraphLaunch calls of the PDL graph (``unroll`` iterations each)."""
        exe = self.graph_exec(unroll)
        fn = driver_fn("cuGraphLaunch")
        h, s = exe.handle, self.stream.handle
        for _ in range(launches):
            r = fn(h, s)
            if r[0]:
                check(r, "cuGraphLaunch")

    def run(self, mode: str, iters: int, unroll: int = 1) -> None:
        """Enqueue ``iters`` iterations of ``mode`` ("eager" or "graph") with programmatic launches."""
        positive_int("iterations", iters)
        if mode == "eager":
            self.run_eager(iters)
        elif mode == "graph":
            if iters % unroll:
                raise InvalidArgumentError(f"iterations ({iters}) must be a multiple of unroll ({unroll})")
            self.run_graph(iters // unroll, unroll)
        else:
            raise InvalidArgumentError(f"unknown PDL mode {mode!r}; modes: {', '.join(PDL_MODES)}")

    # --- checking ---------------------------------------------------------------------------------------------
    def check_result(self, mode: str) -> Verification:
        """Compare what the last PDL run left in the chain's output with NumPy on the current inputs."""
        return compare_bits(f"pdl {mode}", self.chain.result("eager"), self.chain.expected())

    def verify(self, mode: str, iters: int = 1, unroll: int = 1) -> Verification:
        """Fresh random inputs, poisoned outputs, ``iters`` PDL iterations of ``mode``, bit-exact comparison."""
        self.chain.randomize()
        self.chain.poison()
        self.run(mode, iters, unroll)
        return self.check_result(mode)

    def describe(self) -> str:
        return "PDL " + self.chain.describe()

    def __repr__(self) -> str:
        return f"<PdlChain {self.chain.describe()}>"


# --- graph inspection ---------------------------------------------------------------------------------------------
def edge_kinds(graph: Graph) -> list[tuple[int, int, int]]:
    """(type, from_port, to_port) of every edge of ``graph``; type 1 is CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC."""
    graph._require_open()
    count = cu("cuGraphGetEdges", graph.handle, 0)[-1]
    if not count:
        return []
    r = cu("cuGraphGetEdges", graph.handle, count)
    data = r[2]
    return [(int(e.type), int(e.from_port), int(e.to_port)) for e in list(data)[:count]]


def programmatic_edge_count(graph: Graph) -> int:
    """How many edges of ``graph`` are programmatic (not a full completion-and-flush dependency)."""
    d = driver_module()
    programmatic = int(d.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
    return sum(1 for t, from_port, _ in edge_kinds(graph) if t == programmatic or from_port != 0)


# --- measurement --------------------------------------------------------------------------------------------------
@dataclass
class PdlVariant:
    """One way of running the chain: how it launches, its µs per iteration on both clocks, and its check."""

    name: str  # "plain eager", "PDL eager", "plain graph", "PDL graph"
    launch: str  # the driver call per kernel or per graph
    wall_us_per_iter: Summary
    device_us_per_iter: Summary
    verified: bool
    mismatches: int


@dataclass
class PdlResult:
    config: dict
    variants: list[PdlVariant]
    env: dict
    programmatic_edges: int  # in the captured PDL graph (of `unroll` iterations)
    plain_graph_edges: int
    clocks: dict = field(default_factory=lambda: {"wall": WALL_CLOCK, "device": DEVICE_CLOCK})
    kind: str = "cugraphlab.pdl"

    def variant(self, name: str) -> PdlVariant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    def saving(self, mode: str) -> float:
        """Plain minus PDL median wall µs/iteration for ``mode`` ("eager" or "graph")."""
        return (self.variant(f"plain {mode}").wall_us_per_iter.median
                - self.variant(f"PDL {mode}").wall_us_per_iter.median)

    @property
    def verified(self) -> bool:
        return all(v.verified for v in self.variants)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["saving_us"] = {m: self.saving(m) for m in PDL_MODES}
        return d


def _timed(stream, run, iters: int, start, end) -> tuple[float, float]:
    stream.synchronize()
    t0 = time.perf_counter_ns()
    start.record(stream)
    run(iters)
    end.record(stream)
    end.synchronize()
    t1 = time.perf_counter_ns()
    return (t1 - t0) / 1e3 / iters, start.elapsed_ms(end) * 1e3 / iters


def measure_pdl(device=0, size: int = 1 << 20, iters: int = 5000, repeats: int = 5, *, ops=DEFAULT_OPS,
                scalar: float = 2.0, unroll: int = 1, seed: int | None = None, progress=None) -> PdlResult:
    """µs per chain iteration: plain vs PDL, eager and graph, interleaved per repeat, each run verified bit-exactly.

    ``device`` is a Device or a device index. "plain" uses the ordinary kernel set and cuLaunchKernel / a captured
    graph; "PDL" uses the ``-DCGL_PDL`` kernels through cuLaunchKernelEx with programmatic stream serialization /
    the graph captured from those launches. Both graphs hold ``unroll`` iterations per launch.
    """
    from .driver import Device
    from .environment import collect

    ops = parse_ops(ops)
    size = validate_size(size)
    for name, v in (("iterations", iters), ("repeats", repeats), ("unroll", unroll)):
        positive_int(name, v)
    if iters % unroll:
        raise InvalidArgumentError(f"iterations ({iters}) must be a multiple of unroll ({unroll})")
    own_device = not hasattr(device, "compute_capability")
    dev = Device(device) if own_device else device
    try:
        require_pdl(dev)
        with Chain(dev, ops, size, scalar, seed=seed) as plain, \
                PdlChain(dev, ops, size, scalar, stream=plain.stream, seed=seed) as pdl, \
                dev.create_event() as start, dev.create_event() as end:
            env = collect(dev)
            plan = [
                ("plain eager", "cuLaunchKernel per kernel", plain, lambda k: plain.run("eager", k)),
                ("PDL eager", "cuLaunchKernelEx (programmatic serialization) per kernel", pdl.chain,
                 lambda k: pdl.run("eager", k)),
                ("plain graph", f"cuGraphLaunch per {unroll} iteration(s)", plain,
                 lambda k: plain.run("graph", k, unroll)),
                ("PDL graph", f"cuGraphLaunch per {unroll} iteration(s), programmatic edges", pdl.chain,
                 lambda k: pdl.run("graph", k, unroll)),
            ]
            warm = max(unroll, min(iters, 200) // unroll * unroll)
            for _name, _launch, _chain, run in plan:  # warm-up: module load, graph instantiate + upload, clocks
                run(warm)
            plain.stream.synchronize()
            samples = {p[0]: ([], []) for p in plan}
            bad = {p[0]: 0 for p in plan}
            for r in range(repeats):
                for name, _launch, chain, run in plan:
                    chain.randomize()
                    chain.poison()
                    wall, dev_us = _timed(plain.stream, run, iters, start, end)
                    samples[name][0].append(wall)
                    samples[name][1].append(dev_us)
                    bad[name] += chain.check_result("eager").mismatches
                    if progress:
                        progress(f"repeat {r + 1}/{repeats} {name}: {wall:.2f} us/iter")
            variants = [
                PdlVariant(name, launch, summarize(samples[name][0], unit="us", clock=WALL_CLOCK),
                           summarize(samples[name][1], unit="us", clock=DEVICE_CLOCK), bad[name] == 0, bad[name])
                for name, launch, _chain, _run in plan
            ]
            g = pdl.capture(unroll)
            try:
                prog_edges = programmatic_edge_count(g)
            finally:
                g.close()
            g = plain.capture(unroll)
            try:
                plain_edges = programmatic_edge_count(g)
            finally:
                g.close()
            config = {"size": size, "iters": iters, "repeats": repeats, "unroll": unroll, "ops": list(ops),
                      "scalar": scalar, "grid": plain.grid, "block": plain.block, "chain": plain.describe(),
                      "device": getattr(dev, "ordinal", device)}
            return PdlResult(config, variants, env, prog_edges, plain_edges)
    finally:
        if own_device:
            dev.close()
