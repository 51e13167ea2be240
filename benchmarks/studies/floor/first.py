"""The floor's graph table alone: plain, PDL and PDL-early graphs per iteration, measured before anything else.

``studies.floor.measure.measure_floor`` reads these rows after the copy roofs, a stamped timeline and (in
``benchmarks/studies/floor/run.py``) the PDL-early checks and the update costs have run in the same process, and its
plain graph reads 9-12% slower than ``cugraphlab run`` in a fresh process (docs/studies/floor.md §2).
``measure_graph_table`` measures only the table, so that a script can run it first: per size one Chain (its graph
captured, instantiated and uploaded), the PDL and PDL-early chains on its stream
(``studies.floor.measure._open_pdl``), and at ``unroll_sizes`` the graphs of ``unroll`` iterations; every way timed in
rotated rounds (cuEventElapsedTime around ``iters`` iterations), then each checked bit-exact; rows and keys as
``measure_floor``'s (a FloorResult without roofs).
"""
from __future__ import annotations

from cugraphlab.bench.records.record import clocks
from cugraphlab.bench.stats.summary import summarize
from studies.floor.measure import DEFAULT_SIZES, FloorResult, FloorRow, _open_pdl, _pdl_plan, _pdl_rows, time_mode_like
from studies.floor.record import rotated_rounds

__all__ = ["measure_graph_table"]


def measure_graph_table(device, *, sizes=DEFAULT_SIZES, ops=None, iters: int = 2000, rounds: int = 7,
                        seed: int | None = 0, pdl: bool = True, unroll: int = 50, unroll_sizes=(1024,),
                        progress=None) -> FloorResult:
    """The plain / PDL / PDL-early graph rows of the floor table (module text) on ``device``; ``iters`` is rounded
    up to a multiple of ``unroll`` where the unrolled rows are measured."""
    from cugraphlab.bench.records.environment import collect
    from cugraphlab.core.memory import validate_size
    from cugraphlab.experiment.chain import Chain
    from cugraphlab.experiment.ops import DEFAULT_OPS, parse_ops

    ops = parse_ops(ops or DEFAULT_OPS)
    sizes = [validate_size(n) for n in sizes]
    say = progress or (lambda _m: None)
    rows: list[FloorRow] = []

    def add(size, key, what, values, clock, nbytes=None, verified=None, note=""):
        s = summarize(values, unit="us", clock="")
        rows.append(FloorRow(size, key, what, s.median, s.p5, s.p95, clock, verified=verified, note=note))
        say(f"{size:,} {what}: {s.median:.3f} us")

    for n in sizes:
        un = unroll if (n in unroll_sizes and unroll > 1) else None
        k = -(-iters // un) * un if un else iters
        with Chain(device, ops, n, seed=seed) as chain, device.create_event() as e0, device.create_event() as e1:
            pdls, why = _open_pdl(device, ops, n, chain, seed) if pdl else ({}, "")
            plan = [("graph", lambda i: chain.run("graph", i))] + _pdl_plan(chain, pdls, un)
            runs = dict(plan)
            for run in runs.values():
                run(k)  # capture, instantiate, upload, warm
            dev_us = rotated_rounds(list(runs), rounds, lambda name: time_mode_like(chain, runs[name], k, e0, e1))
            add(n, "graph_iter", f"graph, {len(ops)} kernels, per iteration", dev_us["graph"], "device",
                verified=chain.verify("graph").ok)
            if pdl:  # with PDL chains, _pdl_rows also writes the unrolled plain graph's row
                _pdl_rows(add, rows, n, len(ops), chain, pdls, why, un, dev_us)
            if un and not pdls:
                add(n, f"graph_x{un}_iter", f"graph of {un} iterations, {len(ops)} kernels, per iteration",
                    dev_us[f"graph_x{un}"], "device", verified=chain.verify("graph", 2 * un, un).ok)
    config = {"sizes": sizes, "ops": list(ops), "iters": iters, "rounds": rounds, "pdl": pdl, "pdl_unroll": unroll,
              "pdl_unroll_sizes": list(unroll_sizes), "order": "rotated rounds"}
    return FloorResult(config=config, rows=rows, roofs={}, env=collect(device), clocks=clocks("device"))
