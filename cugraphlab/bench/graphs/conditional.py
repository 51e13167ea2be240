"""Conditional nodes measured: a WHILE node deciding on the GPU against the same loop decided in Python."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...core.device import opened
from ...core.errors import InvalidArgumentError, positive_int
from ...core.memory import validate_size
from ...core.renamed import renamed_kwargs
from ...experiment.chain import Chain
from ...experiment.conditional import LoopCheck, conditional_graphs
from ...experiment.ops import DEFAULT_OPS, parse_ops
from ...graphs.conditional import require_conditional
from ..records.record import Record, clocks
from ..stats.summary import Summary
from ..timing import DEVICE_CLOCK, WALL_CLOCK, Variant, interleave

__all__ = ["REPEATS", "LoopVariant", "WhileResult", "measure_while", "WALL_CLOCK", "DEVICE_CLOCK", "WHILE_FOLDED",
           "WHILE_PDL", "unrolled_name", "every_name"]

#: Timed loops per way by default. Each loop is one call that runs all its iterations (the WHILE node decides on
#: the device), so it cannot be cut into chunks: one sample per loop. 10 (it was 5) so that ``cugraphlab diff`` has
#: the 6 samples per side it needs; the 5 more loops cost about 0.7 s at the defaults (estimated,
#: docs/diff.md).
REPEATS = 10


@dataclass
class LoopVariant:
    name: str
    how: str  # the driver calls that drive it
    wall_us_per_iter: Summary
    device_us_per_iter: Summary
    iterations_ok: bool  # the body ran exactly the asked number of times in every repeat
    verified: bool  # output bit-exact in every repeat
    mismatches: int


@dataclass(kw_only=True)
class WhileResult(Record):
    KIND: ClassVar[str] = "cugraphlab.conditional"

    variants: list[LoopVariant]
    checks: list[dict]  # threshold loop and IF node, each {"kind", "expected_iterations", "iterations", "ok", ...}

    def variant(self, name: str) -> LoopVariant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def verified(self) -> bool:
        return all(v.verified and v.iterations_ok for v in self.variants) and all(c["ok"] for c in self.checks)



def _check_dict(c: LoopCheck) -> dict:
    return {"kind": c.kind, "expected_iterations": c.expected_iterations, "iterations": c.iterations,
            "output_ok": c.output.ok, "mismatches": c.output.mismatches, "ok": c.ok, "text": str(c)}


WHILE_FOLDED = "WHILE node, decision folded"
WHILE_PDL = "WHILE, folded, PDL edges"


def every_name(every: int, pdl: bool) -> str:
    """The row of the folded body holding ``every`` chain iterations with one decision counting them."""
    return f"WHILE, folded{', PDL edges' if pdl else ''}, decision every {every} iterations"


def unrolled_name(unroll: int) -> str:
    return f"unrolled graph x{unroll}"


@renamed_kwargs(iterations="iters")
def measure_while(device=0, size: int = 1 << 20, iters: int = 1000, repeats: int = REPEATS, *, ops=DEFAULT_OPS,
                  scalar: float = 2.0, threshold: float = 1000.0, seed: int | None = None,
                  progress=None, unroll: int = 0, pdl: bool = False, decide_every: int = 0) -> WhileResult:
    """µs per loop iteration: a WHILE node deciding on the GPU vs the same loop decided in Python each iteration.

    Variants, interleaved per repeat on fresh inputs with poisoned outputs and each checked (count and bits):
    "WHILE node" (one cuGraphLaunch for all iterations; the body is the chain then a one-warp decision kernel
    node), "WHILE node, decision folded" (the decision folded into the body's last kernel, cond_relu: four kernel
    nodes instead of five; only for chains ending in relu), "Python loop" (per iteration: cuGraphLaunch of chain +
    counting kernel, cuMemcpyDtoHAsync of the counter, cuStreamSynchronize, host decision) and, as the floor
    without any decision, "graphs, no decision" (the chain graph launched ``iters`` times back to back). A driver
    that refuses programmatic edges in a conditional body drops the PDL rows and leaves its one line in
    config["pdl_refused"]. Then the threshold loop and the IF node are run once each and checked.

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    size : int
        Floats per buffer.
    iters : int
        Loop iterations per timed launch (``iterations=`` before; still accepted, with a DeprecationWarning).
    repeats : int
        Timed rounds over the variants.
    ops : sequence of str or str
        The chain's ops (``experiment.ops.parse_ops``).
    scalar : float
        The factor of ``mul``.
    threshold : float
        The threshold loop's bound (it runs until the data's sum passes it).
    seed : int or None
        Seed of the random inputs (drawn afresh when None).
    progress : callable or None
        ``progress(line)``, called with one line after each timed loop.
    unroll : int
        Above 0, adds "unrolled graph xU" (``iters`` / U launches of one graph holding U chains; U divides
        ``iters``).
    pdl : bool
        Adds "WHILE, folded, PDL edges" (the folded body from the -DCGL_PDL kernels joined by programmatic edges;
        sm_90+).
    decide_every : int
        K > 1 adds the folded body holding K chain iterations with one decision counting K (K divides ``iters``;
        with ``pdl``, PDL edges too).

    Returns
    -------
    WhileResult
        One LoopVariant per row (wall and device µs per iteration, checked), the threshold-loop and IF-node checks,
        the graphs' shapes in ``config``, the samples kept and the environment.

    Raises
    ------
    InvalidArgumentError
        An unknown op, a size, ``iters`` or ``repeats`` not a positive integer, ``unroll`` or ``decide_every`` that
        does not divide ``iters``, or an old keyword given with its new one: before any GPU work.
    UnsupportedError
        A driver or device without conditional nodes (CUDA 12.4+), or ``pdl`` where PDL is not available.
    NoDeviceError
        No driver or no device ``device``.
    CudaError
        A driver call failed.
    """
    ops = parse_ops(ops)
    size = validate_size(size)
    n, unroll, every = _checked_counts(iters, repeats, unroll, decide_every)
    with opened(device) as dev:
        require_conditional(dev)
        with Chain(dev, ops, size, scalar, seed=seed) as chain, \
                dev.create_event() as start, dev.create_event() as end:
            return _measure_loops(dev, chain, start, end, size=size, scalar=scalar, n=n, repeats=repeats,
                                  threshold=threshold,
                                  progress=progress, unroll=unroll, pdl=pdl, every=every,
                                  device=getattr(dev, "ordinal", device))


def _measure_loops(dev, chain: Chain, start, end, *, size: int, scalar: float, n: int, repeats: int,
                   threshold: float, progress, unroll: int, pdl: bool, every: int, device) -> WhileResult:
    """``measure_while``'s work on an open device and chain: the variants timed, the checks, the record."""
    from ..records.environment import collect

    ops = chain.ops
    kit = conditional_graphs(chain)
    env = collect(dev)
    fold = ops[-1] == "relu"  # the folded body replaces relu
    kit.while_exec(n)  # instantiated before the PDL bodies' (kept: the plan takes them from the cache)
    if fold:
        kit.while_exec(n, fold=True)
    extra, pdl_refused, pdl_body = _folded_extras(dev, kit, n, fold, bool(pdl), every)
    plan = _plan(kit, n, fold, extra, unroll)
    variants, timings = _timed(plan, kit, n, repeats, start, end, progress)
    checks = [_check_dict(kit.run_until(threshold)), _check_dict(kit.run_if(True)),
              _check_dict(kit.run_if(False))]
    _graph, info = kit.build_while(n)
    _graph.close()
    if fold:
        _graph, folded = kit.build_while(n, fold=True)
        _graph.close()
    config = {"size": size, "iterations": n, "repeats": repeats, "ops": list(ops), "scalar": scalar,
              "unroll": unroll,
              "while_folded_body": folded["body"] if fold else None,
              "pdl": bool(pdl), "decide_every": every, "while_pdl_body": pdl_body,
              "pdl_refused": pdl_refused,
              "threshold": threshold, "chain": chain.describe(), "grid": chain.grid, "block": chain.block,
              "device": device, "header": info["header"],
              "while_parent": info["parent"], "while_body": info["body"]}
    result = WhileResult(config=config, variants=variants, checks=checks, env=env,
                         clocks=clocks("wall", "device"))
    for name, _how, _run, _counted in plan:
        timings[name].keep(result, name)
    return result

def _checked_counts(iterations, repeats, unroll, decide_every) -> tuple[int, int, int]:
    """(iterations, unroll, decide_every) checked before any GPU work: ``unroll`` 0 or a divisor of the
    iterations, ``decide_every`` 0 or a K > 1 that divides them."""
    n = positive_int("iters", iterations)
    positive_int("repeats", repeats)
    unroll = int(unroll)
    if unroll < 0 or (unroll and n % unroll):
        raise InvalidArgumentError(f"unroll must be 0 (off) or divide iters ({n}), got {unroll}")
    every = int(decide_every)
    if every < 0 or every == 1 or (every and n % every):
        raise InvalidArgumentError(f"decide_every must be 0 (off) or a K > 1 that divides iters ({n}): a "
                                   f"body of K iterations is exact only then; got {decide_every}")
    return n, unroll, every


def _plan(kit, n: int, fold: bool, extra: list, unroll: int) -> list[tuple]:
    """The timed rows, (name, the driver calls that drive it, run, whether the loop state counts), in order."""
    chain = kit.chain
    stream = chain.stream
    exe = kit.while_exec(n)

    def while_node():
        exe.launch(stream)

    folded_exe = kit.while_exec(n, fold=True) if fold else None

    def while_folded():
        folded_exe.launch(stream)

    def host_loop():
        kit.run_host_loop(n)

    def no_decision():
        chain.run("graph", n)

    return [
        ("WHILE node", "1 cuGraphLaunch; the GPU decides after every iteration", while_node, True),
        *([(WHILE_FOLDED, "1 cuGraphLaunch; the body's relu kernel decides (4 kernel nodes, not 5)",
            while_folded, True)] if fold else []),
        *extra,
        ("Python loop", "per iteration: cuGraphLaunch + cuMemcpyDtoHAsync + cuStreamSynchronize", host_loop,
         True),
        ("graphs, no decision", "per iteration: cuGraphLaunch, nothing read back (floor)", no_decision,
         False),
        *([(unrolled_name(unroll), f"{n // unroll} cuGraphLaunch of {unroll} iterations each (no decision)",
            lambda: chain.run("graph", n, unroll), False)] if unroll else []),
    ]


def _timed(plan: list[tuple], kit, n: int, repeats: int, start, end, progress) -> tuple[list[LoopVariant], dict]:
    """Each row of ``plan`` warmed up, then timed interleaved per repeat on fresh inputs, its count and bits checked
    after every loop: (LoopVariant rows, the timings by name)."""
    chain = kit.chain
    stream = chain.stream
    # Warm-up (instantiate, upload, first-launch work), one loop at a time: under compute-sanitizer memcheck
    # and initcheck a WHILE graph enqueued while an earlier conditional graph still runs on the stream
    # ends in CUDA_ERROR_ILLEGAL_ADDRESS with no access error reported (H200, sanitizer 2025.3.1; without
    # the sanitizer it is bit-exact). The timed loops below already wait after each loop for its check.
    for _name, _how, run, _counted in plan:
        run()
        stream.synchronize()
    count_ok = {p[0]: True for p in plan}

    def checker(name: str, counted: bool):
        def check() -> int:
            if counted and kit.read_state().count != n:
                count_ok[name] = False
            return chain.check_result("graph").mismatches
        return check

    # each variant runs its whole loop of n iterations per call; times come out per loop iteration
    variants = [Variant(name, stream, lambda _k, run=run: run(), kit.fresh, checker(name, counted))
                for name, _how, run, counted in plan]
    timings = interleave(variants, n, repeats, start, end, progress=progress)
    rows = [
        LoopVariant(name, how, timings[name].wall(WALL_CLOCK), timings[name].device(DEVICE_CLOCK),
                    count_ok[name], timings[name].verified, timings[name].mismatches)
        for name, how, _run, _counted in plan
    ]
    return rows, timings


def _folded_extras(dev, kit, n: int, fold: bool, pdl: bool, every: int):
    """(plan rows, refusal line or None, the PDL body with its edge kinds or None) for the PDL and every-K bodies.

    Each body is built, instantiated and run once, checked, before it joins the plan; a driver that refuses
    programmatic edges in the body (ProgrammaticEdgesRefused) leaves its line instead of the PDL rows."""
    from ...experiment.while_pdl import BUILD_WAYS
    from ...graphs.pdl import require_pdl
    from ...graphs.pdl_edges import ProgrammaticEdgesRefused

    if not fold or not (pdl or every):
        return [], None, None
    if pdl:
        require_pdl(dev, graphs=True)  # the GPU or driver lacks PDL: one line, as any UnsupportedError
    stream = kit.chain.stream
    wanted = ([(WHILE_PDL, True, 1)] if pdl else []) + ([(every_name(every, pdl), pdl, every)] if every else [])
    rows, refused, body = [], None, None
    for name, with_pdl, k in wanted:
        try:  # built, instantiated and run once; its count and bits are checked in every timed repeat
            kit.run_while(n, fold=True, pdl=with_pdl, every=k, how=BUILD_WAYS[0])
        except ProgrammaticEdgesRefused as e:
            refused = str(e)
            continue
        exe = kit.while_exec(n, True, with_pdl, k)
        if with_pdl and body is None:
            g, info = kit.build_while(n, fold=True, pdl=True, every=1)
            g.close()
            body = info["body_edges"]
        edges = "programmatic edges between the kernels" if with_pdl else "full edges"
        how = (f"1 cuGraphLaunch; -DCGL_PDL kernels, {edges}" if k == 1 else
               f"1 cuGraphLaunch; {k} chains per body, one decision counting {k} ({edges})")
        rows.append((name, how, lambda exe=exe: exe.launch(stream), True))
    return rows, refused, body
