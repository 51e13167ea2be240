"""Placement: does the same chain graph run at a different speed on other buffers? (docs/studies/floor.md §2)

The plain graph per iteration reads 0.2-1.1 µs apart between processes and between chains of the same launch shape
(11.32 against 10.22 µs at 2^20 floats; 4.95-5.23 µs at 1,024). Here one process makes ``chains`` fresh Chains
per size: the same kernels (one KernelSet), the same stream, only the buffers (cuMemAlloc each) and the graphs
captured over them differ. In order:

    chain 0 made, its graph instantiated, timed alone (``solo``: the first chain of the size, nothing else alive)
    chains 1..K-1 made (cuMemAlloc x, y, one output per op, the fused output), each graph instantiated + uploaded
    R rounds; in round r every chain's graph loop is timed once, in an order rotated by r (paired_stats.round_order)
    every chain verified bit-exact (fresh inputs, poisoned outputs, one graph iteration)

Clock: cuEventElapsedTime around ``iters`` cuGraphLaunch calls / iters. ``placement_spread`` sets the spread
between chains (range of their medians) against the spread within one (p5-p95 of its rounds), and says whether the
fastest and slowest chains' ~95% median intervals are apart. Each chain's buffer addresses are kept (hex, and the
offset inside a 2 MiB page: the granularity the driver maps device memory in).
"""
from __future__ import annotations

import contextlib
import math
from typing import Sequence

import numpy as np

from studies.floor.record import FloorStudiesResult, rotated_rounds

__all__ = ["PAGE_BYTES", "page_offset", "format_address", "chain_buffers", "median_bounds", "placement_spread",
           "add_chain_row", "measure_placement"]

#: Device memory is mapped in 2 MiB pages on this GPU's driver (cuMemGetAllocationGranularity's usual answer).
PAGE_BYTES = 2 << 20


def page_offset(ptr: int, page: int = PAGE_BYTES) -> int:
    """Where ``ptr`` sits inside its ``page``-byte page."""
    if ptr < 0 or page < 1:
        raise ValueError(f"need ptr >= 0 and page >= 1, got {ptr}, {page}")
    return ptr % page


def format_address(ptr: int, page: int = PAGE_BYTES) -> str:
    """``0x7f2a40200000 (+0x000000)``: the address in hex and its offset inside its page (6 hex digits for 2 MiB)."""
    digits = max(1, math.ceil(math.log2(page) / 4)) if page > 1 else 1
    return f"{ptr:#x} (+{page_offset(ptr, page):#0{digits + 2}x})"


def chain_buffers(chain) -> dict[str, int]:
    """Device address of each of a chain's buffers: x, y, each op's output (named by op, with its index when an op
    repeats), the fused output."""
    out = {"x": chain.x.ptr, "y": chain.y.ptr}
    for i, (op, buf) in enumerate(zip(chain.ops, chain.outs)):
        name = f"out_{op}" if chain.ops.count(op) == 1 else f"out{i}_{op}"
        out[name] = buf.ptr
    out["out_fused"] = chain.out_fused.ptr
    return out


def add_chain_row(result: FloorStudiesResult, section: str, key: str, what: str, samples, of, *, size: int,
                  verified: bool | None, **extra) -> dict[str, int]:
    """The row of the chain ``of`` with its buffers' addresses (hex) and their offsets in a 2 MiB page; returns the
    addresses."""
    addrs = chain_buffers(of)
    result.add(section, key, what, samples, size=size, verified=verified,
               addresses={k: hex(v) for k, v in addrs.items()},
               page_offsets={k: page_offset(v) for k, v in addrs.items()}, **extra)
    return addrs


def median_bounds(values: Sequence[float]) -> tuple[float, float]:
    """A distribution-free ~95% interval of the median: the order statistics at ranks n/2 -+ 0.98 sqrt(n)
    (the ranks ``stats.median_ci_halfwidth`` uses); (nan, nan) below 6 values."""
    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    if n < 6:
        return math.nan, math.nan
    delta = 0.98 * math.sqrt(n)
    lo = max(1, math.floor(n / 2 - delta))
    hi = min(n, math.ceil(n / 2 + delta))
    return float(x[lo - 1]), float(x[hi - 1])


def placement_spread(per_chain: Sequence[Sequence[float]]) -> dict:
    """Between-chain against within-chain spread of per-chain samples (one list per chain, the same unit).

    Returns: ``medians`` (per chain), ``between`` (max - min of the medians), ``within`` (median over chains of
    each chain's p95 - p5), ``within_max``, ``ratio`` (between / within; inf when within is 0 and between is not),
    ``fastest`` / ``slowest`` (chain indices), ``separated`` (the slowest chain's median interval lies wholly above
    the fastest's: the chains differ by more than their rounds' noise; None when either interval is undefined)."""
    groups = [np.asarray(g, dtype=float) for g in per_chain]
    if not groups or any(g.size == 0 for g in groups):
        raise ValueError("every chain needs at least one sample")
    medians = [float(np.median(g)) for g in groups]
    widths = [float(np.percentile(g, 95) - np.percentile(g, 5)) for g in groups]
    between = max(medians) - min(medians)
    within = float(np.median(widths))
    fastest, slowest = int(np.argmin(medians)), int(np.argmax(medians))
    f_lo, f_hi = median_bounds(groups[fastest])
    s_lo, s_hi = median_bounds(groups[slowest])
    separated = None if math.isnan(f_hi) or math.isnan(s_lo) else bool(s_lo > f_hi)
    ratio = between / within if within > 0 else (math.inf if between > 0 else 0.0)
    return {"medians": medians, "between": between, "within": within, "within_max": max(widths), "ratio": ratio,
            "fastest": fastest, "slowest": slowest, "separated": separated,
            "fastest_interval": [f_lo, f_hi], "slowest_interval": [s_lo, s_hi]}


def measure_placement(device, result: FloorStudiesResult, *, kernels, sizes=(1 << 20, 1024), ops=None,
                      chains: int = 12, iters: int = 2000, rounds: int = 15, solo_rounds: int = 5, seed: int = 0,
                      say=print) -> None:
    """The placement study (module text) at each of ``sizes``; rows "chainI" per size, spreads and addresses in
    ``result.sections["placement"][size]``. ``kernels``: the chain's KernelSet, shared by every chain."""
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.experiment.ops import DEFAULT_OPS
    from studies.floor.measure import time_mode_like

    ops = ops or DEFAULT_OPS
    if chains < 2:
        raise ValueError("the placement study needs at least 2 chains")
    notes = result.sections.setdefault("placement", {})
    for n in sizes:
        with contextlib.ExitStack() as stack:
            e0, e1 = stack.enter_context(device.create_event()), stack.enter_context(device.create_event())
            stream = stack.enter_context(device.create_stream())
            made: list = []

            def make(i):
                c = stack.enter_context(Chain(device, ops, n, kernels=kernels, stream=stream, seed=seed + i))
                c.run("graph", iters)  # capture, instantiate, upload, warm
                made.append(c)
                return c

            first = make(0)
            solo = [time_mode_like(first, lambda k: first.run("graph", k), iters, e0, e1)
                    for _ in range(solo_rounds)]
            for i in range(1, chains):
                make(i)
            names = [f"chain{i}" for i in range(chains)]
            by_name = dict(zip(names, made))
            samples = rotated_rounds(names, rounds, lambda name: time_mode_like(
                by_name[name], lambda k, c=by_name[name]: c.run("graph", k), iters, e0, e1))
            addresses = {}
            for i, (name, c) in enumerate(by_name.items()):
                addresses[name] = add_chain_row(result, "placement", f"{name}_{n}", f"chain {i}: graph per iteration",
                                                samples[name], c, size=n, verified=c.verify("graph").ok, chain=i)
            result.add("placement", f"solo_{n}", "chain 0 alone, before the other chains were made", solo, size=n,
                       verified=None, note="same graph as chain 0; verified with chain 0")
            spread = placement_spread([samples[name] for name in names])
            notes[str(n)] = {"spread": spread, "iters": iters, "rounds": rounds, "chains": chains,
                             "addresses": {name: {k: hex(v) for k, v in a.items()} for name, a in addresses.items()}}
            say(f"placement {n:,}: medians {min(spread['medians']):.3f}-{max(spread['medians']):.3f} us, between "
                f"{spread['between']:.3f} us, within {spread['within']:.3f} us, separated {spread['separated']}")
