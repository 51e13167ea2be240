"""Launch-shape studies of the floor (docs/studies/floor.md §2 and §4): the graph boundary without stamps, the gap
between kernels against the grid, and the fused kernel over launch shapes, warm and cold L2.

**Boundary** (``measure_boundary``): one Chain, its graph captured with 1, 10 and 50 iterations unrolled (one
cuGraphLaunch per graph), timed in rotated rounds with events. A graph of U iterations has U - 1 iteration-to-
iteration edges inside it and one graph boundary, so per iteration

    t(1) = W + B,    t(U) = W + ((U - 1) g + B) / U    =>    B - g = (t(1) - t(U)) * U / (U - 1)

(W: the four kernels and the three gaps of an iteration; B: a graph-to-graph boundary; g: an edge between
iterations inside a graph). ``boundary_excess`` is what a boundary costs beyond an edge, on the device clock, with
unstamped kernels.

**Gap against the grid** (``measure_gap_grid``): the empty kernel (kernels/empty.cu, no arguments) as a graph of 1
node and of 4 chained nodes, per graph launch and unrolled 25 times (25 and 100 nodes), at several launch shapes:
(t4 - t1) / 3 is one more node and its edge. Then the chain's own kernels at several grids (LaunchConfig(grid, 256)
over the same chain's buffers: the same arguments, only the grid differs), per iteration, each grid checked
bit-exact; and, where cheap, the %globaltimer gaps of the same shapes (``bench.timeline.measure_timeline`` with
``launch_config``; stamped kernels, one graph per iteration).

**Fused over launch shapes** (``measure_fused_shapes``): the chain's fused kernel re-launched with each (block,
blocks per SM) shape, warm (the chain's x, y, out: replayed from graphs of FUSED_PER_GRAPH launches) and cold L2
(experiment.cold_l2's rotation of input sets > 2 x L2, the same launches with the shape's LaunchConfig), rotated
rounds, every shape checked bit-exact warm and cold. GB/s counts the 12 bytes per float the kernel moves.
"""
from __future__ import annotations

import contextlib
import math

from studies.floor.record import FloorStudiesResult, iters_for, rotated_rounds, round_up

__all__ = ["boundary_excess", "per_node", "bandwidth", "float4_per_thread", "shape_grid", "measure_boundary", "measure_gap_grid",
           "measure_fused_shapes", "EMPTY_SHAPES", "CHAIN_GRIDS", "FUSED_BLOCKS", "FUSED_PER_SM", "GOAL_FUSED_US"]

#: The empty kernel's launch shapes (grid, block): the timeline probe's one block of 32, then the chain's grids.
EMPTY_SHAPES = ((1, 32), (1, 256), (132, 256), (264, 256), (1024, 256))
#: Grids of 256-thread blocks for the chain's kernels at 2^20 floats (1024: the default shape's grid).
CHAIN_GRIDS = (1, 132, 264, 1024)
FUSED_BLOCKS = (128, 256, 512)
FUSED_PER_SM = (1, 2, 4, 8, 32)
#: Issue 18's goal for the fused kernel at 2^20 floats, warm L2 (µs per iteration, device clock).
GOAL_FUSED_US = 2.1


def boundary_excess(per_iter_one: float, per_iter_unrolled: float, unroll: int) -> float:
    """B - g: what a graph boundary costs beyond an edge between iterations inside a graph (module text), from the
    per-iteration times of graphs of 1 and of ``unroll`` (> 1) iterations."""
    if unroll < 2:
        raise ValueError(f"unroll must be >= 2, got {unroll}")
    return (per_iter_one - per_iter_unrolled) * unroll / (unroll - 1)


def per_node(t_many: float, t_few: float, nodes_many: int, nodes_few: int) -> float:
    """Device time one more chained node adds: (t_many - t_few) / (nodes_many - nodes_few)."""
    if nodes_many <= nodes_few:
        raise ValueError(f"need nodes_many > nodes_few, got {nodes_many}, {nodes_few}")
    return (t_many - t_few) / (nodes_many - nodes_few)


def float4_per_thread(n: int, grid: int, block: int) -> int:
    """16-byte words each thread of a grid-stride float4 loop handles per array over ``n`` floats (at most)."""
    if grid < 1 or block < 1 or n < 1:
        raise ValueError(f"need n, grid, block >= 1, got {n}, {grid}, {block}")
    return -(-(-(-n // 4)) // (grid * block))


def shape_grid(n: int, block: int, blocks_per_sm: int, sm_count: int) -> int:
    """The chain's grid for a shape (experiment.chain.chain_grid: one float4 per thread, capped per SM)."""
    from cugraphlab.experiment.chain import chain_grid

    return chain_grid(n, sm_count, block, blocks_per_sm)


def bandwidth(nbytes: int, us: float, roof_gbps: float | None = None) -> dict:
    """GB/s of ``nbytes`` moved in ``us`` µs; with a roof, the time the same bytes take at it and the fraction of
    it reached."""
    if us <= 0:
        raise ValueError(f"need a positive time, got {us}")
    out = {"gbps": nbytes / us / 1e3}
    if roof_gbps:
        out.update(at_roof_us=nbytes / roof_gbps / 1e3, of_roof=out["gbps"] / roof_gbps)
    return out


def _timer(device, stack):
    from cugraphlab.bench.timing import timed_loop

    e0, e1 = stack.enter_context(device.create_event()), stack.enter_context(device.create_event())

    def device_us(stream, run, iters):
        return timed_loop(stream, run, iters, e0, e1)[1]

    return device_us


def measure_boundary(device, result: FloorStudiesResult, *, kernels, sizes=(1 << 20, 1024), ops=None,
                     unrolls=(1, 10, 50), iters: int = 1000, rounds: int = 15, seed: int = 0, say=print) -> None:
    """Graphs of 1 against graphs of U iterations of one chain per size (module text). Rows: per-iteration time of
    each unroll, and for each U > 1 the paired (per round) t(1) - t(U) and the boundary excess B - g."""
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.experiment.ops import DEFAULT_OPS

    ops = ops or DEFAULT_OPS
    if unrolls[0] != 1:
        raise ValueError("the first unroll must be 1 (the graph-per-iteration reference)")
    iters = round_up(iters, math.lcm(*unrolls))
    for n in sizes:
        with contextlib.ExitStack() as stack:
            device_us = _timer(device, stack)
            chain = stack.enter_context(Chain(device, ops, n, kernels=kernels, seed=seed))
            for u in unrolls:
                chain.run("graph", iters, u)  # capture, instantiate, upload, warm
            names = [f"x{u}" for u in unrolls]
            samples = rotated_rounds(names, rounds, lambda name: device_us(
                chain.stream, lambda k, u=int(name[1:]): chain.run("graph", k, u), iters))
            ok = {u: chain.verify("graph", 2 * u, u).ok for u in unrolls}
            for u in unrolls:
                result.add("boundary", f"x{u}_{n}", f"graph of {u} iteration{'s' * (u > 1)}, per iteration",
                           samples[f"x{u}"], size=n, verified=ok[u], unroll=u)
            one = samples["x1"]
            for u in unrolls[1:]:
                many = samples[f"x{u}"]
                result.add("boundary", f"diff_x{u}_{n}", f"t(1) - t({u}), per iteration (paired by round)",
                           [a - b for a, b in zip(one, many)], size=n, derived="paired difference",
                           verified=ok[1] and ok[u], unroll=u)
                row = result.add("boundary", f"excess_x{u}_{n}", f"graph boundary beyond an edge, B - g (from x{u})",
                                 [boundary_excess(a, b, u) for a, b in zip(one, many)], size=n,
                                 derived=f"(t(1) - t({u})) * {u} / {u - 1}, paired by round",
                                 verified=ok[1] and ok[u], unroll=u)
                say(f"boundary {n:,}: t(1) {result.row('boundary', f'x1_{n}').median:.3f} us, t({u}) "
                    f"{result.row('boundary', f'x{u}_{n}').median:.3f} us, B - g {row.median:.3f} us")


def measure_gap_grid(device, result: FloorStudiesResult, *, kernels, n: int = 1 << 20, ops=None,
                     empty_shapes=EMPTY_SHAPES, grids=CHAIN_GRIDS, block: int = 256, empty_unroll: int = 25,
                     empty_iters: int = 2000, target_ms: float = 8.0, rounds: int = 11, timeline_iters: int = 10,
                     timelines: bool = True, seed: int = 0, say=print) -> None:
    """The empty kernel's per-node cost at ``empty_shapes`` and the chain's kernels at ``grids`` (module text)."""
    from cugraphlab.bench.measure.timeline import measure_timeline
    from cugraphlab.core.launch import Launch, LaunchConfig, PackedArgs
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.experiment.ops import DEFAULT_OPS
    from cugraphlab.experiment.runners import Runner
    from studies.floor.measure import split_timeline

    ops = ops or DEFAULT_OPS
    empty_iters = round_up(empty_iters, empty_unroll)
    with contextlib.ExitStack() as stack:
        device_us = _timer(device, stack)
        stream = stack.enter_context(device.create_stream())
        empty = stack.enter_context(device.load_kernels(names=["empty"]))["empty"]
        # --- the empty kernel: 1 node against 4 chained nodes, per graph and unrolled -----------------------------
        runs = {}
        for grid, blk in empty_shapes:
            launch = Launch(empty, PackedArgs((), ()), LaunchConfig(grid, blk), stream)
            one = stack.enter_context(Runner([launch], stream))
            four = stack.enter_context(Runner([launch] * 4, stream))
            tag = f"{grid}x{blk}"
            runs[f"{tag} 1"] = lambda k, r=one: r.graphs(k, 1)
            runs[f"{tag} 4"] = lambda k, r=four: r.graphs(k, 1)
            runs[f"{tag} 1u"] = lambda k, r=one: r.graphs(k // empty_unroll, empty_unroll)
            runs[f"{tag} 4u"] = lambda k, r=four: r.graphs(k // empty_unroll, empty_unroll)
        for run in runs.values():
            run(empty_iters)
        samples = rotated_rounds(list(runs), rounds, lambda name: device_us(stream, runs[name], empty_iters))
        for grid, blk in empty_shapes:
            tag = f"{grid}x{blk}"
            u = empty_unroll
            for suffix, what in (("1", "1 node per graph"), ("4", "4 chained nodes per graph"),
                                 ("1u", f"{u} chained nodes per graph (1 x {u})"),
                                 ("4u", f"{4 * u} chained nodes per graph (4 x {u})")):
                result.add("gap_grid", f"empty_{tag}_{suffix}", f"empty {grid} x {blk}: {what}, per iteration",
                           samples[f"{tag} {suffix}"], size=None, grid=grid, block=blk,
                           note="the empty kernel computes nothing: nothing to check")
            for few, many, label in (("1", "4", "one graph per iteration"), ("1u", "4u", f"unrolled x{u}")):
                pairs = zip(samples[f"{tag} {many}"], samples[f"{tag} {few}"])
                row = result.add("gap_grid", f"empty_{tag}_node_{few}", f"empty {grid} x {blk}: one more chained "
                                 f"node ({label})", [per_node(a, b, 4, 1) for a, b in pairs], size=None,
                                 derived="(t4 - t1) / 3, paired by round", grid=grid, block=blk)
            say(f"gap_grid empty {tag}: +{row.median:.3f} us per chained node (unrolled)")
        # --- the chain's kernels at several grids, per iteration (device clock) ----------------------------------
        chain = stack.enter_context(Chain(device, ops, n, kernels=kernels, stream=stream, seed=seed))
        grid_runs, iters = {}, {}
        for grid in grids:
            cfg = LaunchConfig(grid, block)
            launches = [Launch(chain.kernels[name], PackedArgs(sig, args), cfg, stream)
                        for name, sig, args in chain.op_args()]
            runner = chain.adopt(Runner(launches, stream))
            grid_runs[grid] = lambda k, r=runner: r.graphs(k, 1)
            grid_runs[grid](2)
            probe = device_us(stream, grid_runs[grid], 3)
            iters[grid] = iters_for(probe, target_ms, lo=3, hi=2000)
        samples = rotated_rounds([str(g) for g in grids], rounds,
                                 lambda name: device_us(stream, grid_runs[int(name)], iters[int(name)]))
        for grid in grids:
            chain.randomize()
            chain.poison()
            grid_runs[grid](1)
            ok = chain.check_result("graph").ok
            row = result.add("gap_grid", f"chain_grid{grid}", f"chain at {grid} x {block}: graph per iteration",
                             samples[str(grid)], size=n, verified=ok, grid=grid, block=block, iters=iters[grid],
                             float4_per_thread=float4_per_thread(n, grid, block))
            say(f"gap_grid chain grid {grid}: {row.median:.3f} us per iteration ({iters[grid]} iterations per loop)")
    if not timelines:
        return
    # --- %globaltimer gaps at the same shapes (stamped kernels; one graph per iteration) ------------------------
    for grid in grids:
        tl = measure_timeline(device, ops=ops, size=n, iters=timeline_iters, modes=("graph",),
                             launch_config=LaunchConfig(grid, block))
        m = tl.mode("graph")
        parts = split_timeline(m.events, len(ops))
        busy = [v for values in parts["busy"].values() for v in values]
        result.add("gap_grid", f"tl_busy_grid{grid}", f"chain at {grid} x {block}: kernel busy (4 kernels pooled)",
                   busy, clock="globaltimer", size=n, verified=m.verified, grid=grid, block=block)
        row = result.add("gap_grid", f"tl_inside_grid{grid}", f"chain at {grid} x {block}: gap inside a graph",
                         parts["inside"], clock="globaltimer", size=n, verified=m.verified, grid=grid, block=block)
        if parts["boundary"]:
            result.add("gap_grid", f"tl_boundary_grid{grid}", f"chain at {grid} x {block}: gap across a boundary",
                       parts["boundary"], clock="globaltimer", size=n, verified=m.verified, grid=grid, block=block)
        say(f"gap_grid timeline grid {grid}: gap inside {row.median:.3f} us")
    for grid, blk in empty_shapes:
        tl = measure_timeline(device, ops=ops, size=1024, iters=timeline_iters, modes=("graph",), probe=True,
                             launch_config=LaunchConfig(grid, blk))
        m = tl.mode("graph")
        parts = split_timeline(m.events, len(ops))
        result.add("gap_grid", f"tl_empty_inside_{grid}x{blk}", f"empty {grid} x {blk}: gap inside a graph of 4",
                   parts["inside"], clock="globaltimer", size=None, verified=m.verified, grid=grid, block=blk,
                   note="verified: every stamp written, in order")


def measure_fused_shapes(device, result: FloorStudiesResult, *, kernels, n: int = 1 << 20, ops=None,
                         blocks=FUSED_BLOCKS, per_sm=FUSED_PER_SM, iters: int = 2000, rounds: int = 9,
                         dram_gbps: float | None = None, seed: int = 0, say=print) -> None:
    """The fused kernel over (block, blocks per SM) shapes, warm and cold L2 (module text)."""
    from cugraphlab.core.launch import LaunchConfig
    from cugraphlab.experiment.chain import BLOCK, BLOCKS_PER_SM, Chain
    from cugraphlab.experiment.cold_l2 import ColdFused, fused_bytes
    from cugraphlab.experiment.ops import DEFAULT_OPS, FUSED_PER_GRAPH
    from cugraphlab.experiment.runners import Runner

    ops = ops or DEFAULT_OPS
    nbytes = fused_bytes(n)
    with contextlib.ExitStack() as stack:
        device_us = _timer(device, stack)
        chain = stack.enter_context(Chain(device, ops, n, kernels=kernels, seed=seed))
        cold = chain.adopt(ColdFused.from_chain(chain, seed=seed + 1))
        warm_iters = round_up(iters, FUSED_PER_GRAPH)
        cold_iters = round_up(iters, cold.per_graph)
        shapes, runs, verify = [], {}, {}
        for blk in blocks:
            for bps in per_sm:
                grid = shape_grid(n, blk, bps, device.sm_count)
                cfg = LaunchConfig(grid, blk)
                warm = chain.adopt(Runner([chain.fused.with_config(cfg)], chain.stream))
                rot = chain.adopt(Runner([launch.with_config(cfg) for launch in cold.launches], chain.stream))
                tag = f"{blk}x{bps}"
                shapes.append((tag, blk, bps, grid))
                runs[f"warm {tag}"] = (lambda k, r=warm: r.graphs(k // FUSED_PER_GRAPH, FUSED_PER_GRAPH), warm_iters)
                runs[f"cold {tag}"] = (lambda k, r=rot: r.graphs(k // cold.per_graph, cold.unroll), cold_iters)
                verify[tag] = (warm, rot)
        for run, k in runs.values():
            run(k)  # capture, instantiate, upload, warm
        samples = rotated_rounds(list(runs), rounds, lambda name: device_us(chain.stream, *runs[name]))
        cold.randomize()
        for tag, blk, bps, grid in shapes:
            warm, rot = verify[tag]
            chain.randomize()
            chain.poison()
            warm.graphs(1, FUSED_PER_GRAPH)
            ok_warm = chain.check_result("fused").ok
            cold.poison()
            rot.graphs(1, cold.unroll)
            ok_cold = cold.mismatches() == 0
            default = blk == BLOCK and bps == BLOCKS_PER_SM
            common = {"grid": grid, "block": blk, "blocks_per_sm": bps, "default_shape": default,
                      "float4_per_thread": float4_per_thread(n, grid, blk), "bytes": nbytes}
            for kind, ok in (("warm", ok_warm), ("cold", ok_cold)):
                what = (f"fused {kind} L2, block {blk}, {bps}/SM cap (grid {grid})" +
                        (f", {cold.sets} rotating sets" if kind == "cold" else "") + (" [default]" if default else ""))
                row = result.add("fused_shapes", f"{kind}_{tag}", what, samples[f"{kind} {tag}"], size=n,
                                 verified=ok, **common)
                row.extra.update(bandwidth(nbytes, row.median, dram_gbps))
                if kind == "warm":
                    row.extra["meets_goal"] = row.median <= GOAL_FUSED_US
        best = min((r for r in result.section_rows("fused_shapes") if r.key.startswith("warm_")),
                   key=lambda r: r.median)
        say(f"fused shapes: best warm {best.median:.3f} us ({best.key}), goal <= {GOAL_FUSED_US} us "
            f"{'met' if best.median <= GOAL_FUSED_US else 'not met'}")
        result.sections["fused_shapes"] = {"cold": cold.describe(), "warm_iters": warm_iters,
                                           "cold_iters": cold_iters, "rounds": rounds, "goal_us": GOAL_FUSED_US,
                                           "dram_copy_gbps": dram_gbps}
