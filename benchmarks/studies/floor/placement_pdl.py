"""Issue 18's device-bound goals read over placements, not over one set of buffers (docs/studies/floor.md §9.2).

Where a chain's buffers land moves its graph by up to 0.3 µs (§9.2), more than the margins of the PDL goals (3.88
against 3.8 µs at 1,024 floats, 9.40 against 9.3 at 2^20, measured on one chain each). So each way here runs on
``chains`` fresh Chains per size (fresh buffers each, one stream, the way's kernels shared), every chain of every way
timed once per round in an order rotated by the round (paired_stats.round_order), each checked bit-exact after:

    plain       graph of the 4 kernels, one per iteration (the chain's own kernels)
    pdl         the same built from -DCGL_PDL kernels, launched programmatic: captured into programmatic edges
    pdl_early   -DCGL_PDL_EARLY kernels (y loaded before the wait, the trigger after the loads)
    plain_x50, pdl_x50   (1,024 floats only) graphs of 50 iterations, plain and PDL

Per way: the median over chains of each chain's median ("the median placement"), the range over chains, and how
many placements meet the goal. Clock: cuEventElapsedTime around ``iters`` iterations / iters (device).
"""
from __future__ import annotations

import contextlib

import numpy as np

from studies.floor.placement import add_chain_row
from studies.floor.record import FloorStudiesResult, rotated_rounds

__all__ = ["PDL_WAYS", "GOALS", "ways_for", "placement_verdict", "measure_placement_pdl"]

#: (key, what, kernels: None the chain's own, "pdl" or "early", unroll)
PDL_WAYS = (("plain", "graph, 4 kernels", None, 1), ("pdl", "PDL graph", "pdl", 1),
            ("pdl_early", "PDL early graph", "early", 1), ("plain_x50", "graph of 50 iterations", None, 50),
            ("pdl_x50", "PDL graph of 50 iterations", "pdl", 50))
#: Issue 18's goals, µs per iteration (device): (way, size) -> goal.
GOALS = {("pdl", 1 << 20): 9.3, ("pdl_early", 1 << 20): 9.3, ("pdl", 1024): 3.8, ("pdl_early", 1024): 3.8,
         ("pdl_x50", 1024): 2.2, ("plain", 1024): 4.75}


def ways_for(n: int) -> tuple:
    """The ways timed at ``n`` floats: graphs of 50 iterations only at 1,024 (the goal's size)."""
    return tuple(w for w in PDL_WAYS if w[3] == 1 or n == 1024)


def placement_verdict(medians, goal: float | None) -> dict:
    """The median placement, the range, and how many placements meet ``goal`` (None: no goal)."""
    m = [float(v) for v in medians]
    out = {"median": float(np.median(m)), "low": min(m), "high": max(m), "placements": len(m)}
    if goal is not None:
        out.update(goal=goal, meeting=sum(v <= goal for v in m), met=out["median"] <= goal)
    return out


def measure_placement_pdl(device, result: FloorStudiesResult, *, kernels, sizes=(1 << 20, 1024), ops=None,
                          chains: int = 8, iters: int = 2000, rounds: int = 9, seed: int = 100, say=print) -> None:
    """The study (module text); rows "WAY_I_N" in section "placement_pdl", verdicts in
    ``result.sections["placement_pdl"][N][WAY]``. ``kernels``: the chain's own KernelSet (the plain ways)."""
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.experiment.ops import DEFAULT_OPS
    from cugraphlab.experiment.pdl import load_pdl_kernels
    from cugraphlab.graphs.pdl import require_pdl
    from studies.floor.measure import time_mode_like

    ops = ops or DEFAULT_OPS
    if chains < 2:
        raise ValueError("the placement study needs at least 2 chains per way")
    require_pdl(device, graphs=True)
    notes = result.sections.setdefault("placement_pdl", {})
    with contextlib.ExitStack() as stack:
        sets = {None: kernels,
                "pdl": stack.enter_context(load_pdl_kernels(device, ops)),
                "early": stack.enter_context(load_pdl_kernels(device, ops, early=True))}
        for n in sizes:
            with contextlib.ExitStack() as inner:
                e0, e1 = inner.enter_context(device.create_event()), inner.enter_context(device.create_event())
                stream = inner.enter_context(device.create_stream())
                made = {}
                for key, _what, kset, unroll in ways_for(n):
                    for i in range(chains):
                        c = inner.enter_context(Chain(device, ops, n, kernels=sets[kset], stream=stream,
                                                      seed=seed + i, programmatic=kset is not None))
                        c.run("graph", unroll * 20, unroll)  # capture, instantiate, upload, warm
                        made[f"{key}_{i}"] = (c, unroll)
                loops = {name: max(unroll, iters // unroll * unroll) for name, (_c, unroll) in made.items()}
                samples = rotated_rounds(list(made), rounds, lambda name: time_mode_like(
                    made[name][0], lambda k, c=made[name][0], u=made[name][1]: c.run("graph", k, u), loops[name],
                    e0, e1))
                verdicts = {}
                for key, what, _kset, unroll in ways_for(n):
                    medians = []
                    for i in range(chains):
                        name = f"{key}_{i}"
                        c = made[name][0]
                        c.randomize()
                        c.poison()
                        c.run("graph", unroll, unroll)
                        add_chain_row(result, "placement_pdl", f"{name}_{n}", f"{what}, placement {i}, per iteration",
                                      samples[name], c, size=n, verified=c.check_result("graph").ok, way=key, chain=i)
                        medians.append(float(np.median(samples[name])))
                    v = verdicts[key] = placement_verdict(medians, GOALS.get((key, n)))
                    goal = "" if "goal" not in v else (
                        f"; goal <= {v['goal']} us: {'met' if v['met'] else 'NOT met'} in the median placement, "
                        f"by {v['meeting']} of {v['placements']} placements")
                    say(f"placement_pdl {n:,} {what}: median placement {v['median']:.3f} us "
                        f"(range {v['low']:.3f}-{v['high']:.3f} over {v['placements']}){goal}")
                notes[str(n)] = {"verdicts": verdicts, "iters": iters, "rounds": rounds, "chains": chains}
