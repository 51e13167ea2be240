"""Programmatic dependent launch measured: µs per chain iteration, plain vs PDL, eager and as a graph.

Five ways, interleaved per repeat: plain eager, PDL eager, plain graph, PDL graph (kernels with ``-DCGL_PDL``: trigger
and wait at the top) and "PDL early graph" (kernels with ``-DCGL_PDL_EARLY``: the operand no kernel writes loaded
before ``griddepcontrol.wait``, the next launch triggered once the loads are issued; kernels/elementwise.cuh).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...core.device import opened
from ...core.errors import InvalidArgumentError, positive_int
from ...core.memory import validate_size
from ...experiment.chain import Chain
from ...experiment.ops import DEFAULT_OPS, parse_ops
from ...experiment.pdl import PDL_MODES, PdlChain
from ...graphs.pdl import programmatic_edge_count, require_pdl
from ..records.record import Record, clocks
from ..stats.summary import Summary
from ..timing import CHUNKS, DEVICE_CLOCK, WALL_CLOCK, Variant, interleave

__all__ = ["PdlVariant", "PdlResult", "measure_pdl", "WALL_CLOCK", "DEVICE_CLOCK", "EARLY_GRAPH"]

EARLY_GRAPH = "PDL early graph"



@dataclass
class PdlVariant:
    """One way of running the chain: how it launches, its µs per iteration on both clocks, and its check."""

    name: str  # "plain eager", "PDL eager", "plain graph", "PDL graph", "PDL early graph"
    launch: str  # the driver call per kernel or per graph
    wall_us_per_iter: Summary
    device_us_per_iter: Summary
    verified: bool
    mismatches: int


@dataclass(kw_only=True)
class PdlResult(Record):
    KIND: ClassVar[str] = "cugraphlab.pdl"

    variants: list[PdlVariant]
    programmatic_edges: int  # in the captured PDL graph (of `unroll` iterations)
    plain_graph_edges: int

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

    def early_saving(self) -> float | None:
        """Plain graph minus PDL early graph median wall µs/iteration (None in a record without that row)."""
        try:
            early = self.variant(EARLY_GRAPH)
        except KeyError:
            return None
        return self.variant("plain graph").wall_us_per_iter.median - early.wall_us_per_iter.median

    def _extra_dict(self) -> dict:
        return {"saving_us": {m: self.saving(m) for m in PDL_MODES}, "early_graph_saving_us": self.early_saving()}


def measure_pdl(device=0, size: int = 1 << 20, iters: int = 5000, repeats: int = 5, *, ops=DEFAULT_OPS,
                scalar: float = 2.0, unroll: int = 1, seed: int | None = None, progress=None) -> PdlResult:
    """µs per chain iteration: plain vs PDL, eager and graph, interleaved per repeat, each run verified bit-exactly.

    "plain" uses the ordinary kernel set and cuLaunchKernel / a captured graph; "PDL" uses the ``-DCGL_PDL``
    kernels through cuLaunchKernelEx with programmatic stream serialization / the graph captured from those
    launches ("PDL early graph": the same with the wait placed late, ``PdlChain(early=True)``). Every timed loop
    is also cut into ``CHUNKS`` chunks whose samples the record keeps.

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    size : int
        Floats per buffer.
    iters : int
        Chain iterations per timed loop, a multiple of ``unroll``.
    repeats : int
        Timed loops per way.
    ops : sequence of str or str
        The chain's ops (``experiment.ops.parse_ops``).
    scalar : float
        The factor of ``mul``.
    unroll : int
        Chain iterations held by each graph launch.
    seed : int or None
        Seed of the random inputs (drawn afresh when None).
    progress : callable or None
        ``progress(line)``, called with one line after each timed loop.

    Returns
    -------
    PdlResult
        One PdlVariant per way (wall and device µs per iteration, verified), the programmatic edges counted in the
        PDL graph and in the plain one, the samples kept and the environment.

    Raises
    ------
    InvalidArgumentError
        An unknown op, a size, ``iters``, ``repeats`` or ``unroll`` not a positive integer, or ``iters`` not a
        multiple of ``unroll``: before any GPU work.
    UnsupportedError
        A device below sm_90, or bindings without cuLaunchKernelEx (``graphs.pdl.require_pdl``).
    NoDeviceError
        No driver or no device ``device``.
    CudaError
        A driver call failed.
    """
    from ..records.environment import collect

    ops = parse_ops(ops)
    size = validate_size(size)
    for name, v in (("iterations", iters), ("repeats", repeats), ("unroll", unroll)):
        positive_int(name, v)
    if iters % unroll:
        raise InvalidArgumentError(f"iterations ({iters}) must be a multiple of unroll ({unroll})")
    with opened(device) as dev:
        require_pdl(dev)
        with Chain(dev, ops, size, scalar, seed=seed) as plain, \
                PdlChain(dev, ops, size, scalar, stream=plain.stream, seed=seed) as pdl, \
                PdlChain(dev, ops, size, scalar, stream=plain.stream, seed=seed, early=True) as early, \
                dev.create_event() as start, dev.create_event() as end:
            env = collect(dev)
            plan = _plan(plain, pdl, early, unroll)
            timings = _timed(plan, plain.stream, iters, repeats, unroll, start, end, progress)
            rows = [PdlVariant(name, launch, timings[name].wall(WALL_CLOCK), timings[name].device(DEVICE_CLOCK),
                               timings[name].verified, timings[name].mismatches)
                    for name, launch, _chain, _run, _grain in plan]
            config = {"size": size, "iters": iters, "repeats": repeats, "chunks": CHUNKS, "unroll": unroll,
                      "ops": list(ops),
                      "scalar": scalar, "grid": plain.grid, "block": plain.block, "chain": plain.describe(),
                      "device": getattr(dev, "ordinal", device)}
            result = PdlResult(config=config, variants=rows, env=env, programmatic_edges=_edges(pdl, unroll),
                               plain_graph_edges=_edges(plain, unroll), clocks=clocks("wall", "device"))
            for name, _launch, _chain, _run, _grain in plan:
                timings[name].keep(result, name)
            return result


def _plan(plain, pdl, early, unroll: int) -> list[tuple]:
    """The timed ways: (name, how it launches, the chain it checks, run(k), grain)."""
    return [
        ("plain eager", "cuLaunchKernel per kernel", plain, lambda k: plain.run("eager", k), 1),
        ("PDL eager", "cuLaunchKernelEx (programmatic serialization) per kernel", pdl.chain,
         lambda k: pdl.run("eager", k), 1),
        ("plain graph", f"cuGraphLaunch per {unroll} iteration(s)", plain,
         lambda k: plain.run("graph", k, unroll), unroll),
        ("PDL graph", f"cuGraphLaunch per {unroll} iteration(s), programmatic edges", pdl.chain,
         lambda k: pdl.run("graph", k, unroll), unroll),
        (EARLY_GRAPH, f"cuGraphLaunch per {unroll} iteration(s), programmatic edges, late wait",
         early.chain, lambda k: early.run("graph", k, unroll), unroll),
    ]


def _timed(plan: list[tuple], stream, iters: int, repeats: int, unroll: int, start, end, progress) -> dict:
    """Every way of ``plan`` warmed up, then timed interleaved on fresh inputs with poisoned outputs: its Timings."""
    warm = max(unroll, min(iters, 200) // unroll * unroll)
    for _name, _launch, _chain, run, _grain in plan:  # warm-up: module load, instantiate + upload, clocks
        run(warm)
    stream.synchronize()
    variants = [Variant(name, stream, run, lambda c=chain: (c.randomize(), c.poison()),
                        lambda c=chain: c.check_result("eager").mismatches, grain=grain)
                for name, _launch, chain, run, grain in plan]
    # each timed loop also cut into CHUNKS chunks (on whole graphs): the record keeps their samples
    return interleave(variants, iters, repeats, start, end, progress=progress, chunks=CHUNKS)


def _edges(chain, unroll: int) -> int:
    """Programmatic edges in the graph ``chain`` captures of ``unroll`` iterations (the graph closed after)."""
    g = chain.capture(unroll)
    try:
        return programmatic_edge_count(g)
    finally:
        g.close()
