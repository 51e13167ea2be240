"""IF/ELSE and SWITCH conditional nodes measured (``cugraphlab switch``), every output checked.

Rows, each a graph launched ``iters`` times back to back between two CUDA events (device µs per launch) with
``perf_counter_ns`` around the enqueue loop (host µs per launch), interleaved over ``repeats`` on fresh random inputs
with every output poisoned, and checked after each timed loop (the chosen body bit-exact, every other body's output
untouched):

- "branches": the chain with no conditional node (floor); one IF node; a SWITCH over K bodies for each index and
  for an index that selects none; K IF nodes one after the other, each testing one index (what a SWITCH replaces).
- "sizes": one SWITCH graph whose body k is the chain at n >> k floats, against K separate graphs, one per size.
- "sweep" (``sweep=``, bench.graphs.switch_sweep): SWITCHes over 1, 2, 3, 4, 8 identical chain bodies at their first and
  last index, one IF node decided by either decision kernel, a SWITCH decided by cond_one_hot, and the 4-variant
  SWITCH with the chain moved last; its contrasts (A - B per round, bench.stats.paired_diff) say what the decision kernel,
  the node, the count of bodies and the chosen body's position each cost.

Rows run in rounds, every row once per round, the order rotated from round to round (paired_stats.round_order), so
two rows' samples of the same round form a pair.

Then what K sizes cost to hold, the two sets' order alternating from round to round:

- instantiate µs: ``holding_repeats`` rounds; in each, INSTANTIATE_COPIES copies of each set are instantiated
  (``perf_counter_ns`` around cuGraphInstantiate, the K graphs summed, averaged over the copies), uploaded, held,
  then freed;
- device memory: MEMORY_ROUNDS rounds; in each, ``holding_batch`` more copies of each set are instantiated and
  uploaded and kept until the end, and the drop of cuMemGetInfo's free memory over them, divided by the copies, is
  the round's bytes per set. cuMemGetInfo moves in whole pages (2 MiB on the H200: round 3 saw one 2 MiB drop, then
  0), far above one executable's use, and the driver may keep what a destroyed executable used; a total that only
  grows and many copies per step answer both: the resolution is 2 MiB / ``holding_batch`` per set, and sets whose
  free memory never moved are reported as below it ("not measurable"), never as 0 B. The driver reports no device
  memory per executable (cuDeviceGetGraphMemAttribute counts memory-node allocations only).

Three claims about these costs are read from paired per-round differences, "shown" only when the data show them
(bench.stats.paired_diff.claim_verdict); a goal set on them is benchmarks/switch.py's, not the record's.

Before any timing, the IF/ELSE graph (both branches forced), every SWITCH index, the sizes, and the WHILE
graph made by stream capture (into the body, and into the parent) are run once and checked, the captured ones also
against the built topology.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import ClassVar

from ...core.device import opened
from ...core.errors import CudaError, InvalidArgumentError, check, positive_int
from ...core.memory import validate_size
from ...experiment.branches import MAX_BRANCHES, BranchGraphs, identical_chains
from ...experiment.chain import Chain
from ...experiment.conditional import CAPTURE_WAYS, conditional_graphs
from ...experiment.ops import DEFAULT_OPS, parse_ops
from ...graphs.conditional import require_conditional_branches
from ..records.record import Record, clocks
from ..stats.paired_diff import claim_verdict, paired_difference
from ..stats.paired_stats import round_order
from ..stats.summary import Summary, summarize
from .switch_sweep import DEFAULT_SWEEP, Plan, sweep_checks, sweep_contrasts, sweep_ks, sweep_plans

__all__ = ["SwitchRow", "ExecCost", "SwitchResult", "measure_switch", "timed_launches", "WHILE_ITERATIONS",
           "MEMORY_STEP", "DEFAULT_SWEEP"]

WHILE_ITERATIONS = 25  # body runs of the captured WHILE graphs' checks
MEMORY_STEP = 2 << 20  # the step of cuMemGetInfo's free memory on the H200 (a page: 2 MiB), the resolution's base
INSTANTIATE_COPIES = 8  # copies of each set instantiated per instantiate round (their mean is the round's value)
MEMORY_ROUNDS = 8  # rounds of the memory measure, each adding ``holding_batch`` copies of each set


@dataclass
class SwitchRow:
    """One graph's launch cost: device and host µs per launch, and whether every run was right."""

    name: str
    group: str  # "branches" or "sizes"
    graph: str  # BranchGraphs.exec_of key
    index: int  # the SWITCH index (or the size index) the row ran with
    how: str  # what the graph is, in nodes
    device_us: Summary
    host_us: Summary
    verified: bool
    mismatches: int


@dataclass
class ExecCost:
    """What holding a set of executables costs: instantiate time (summed over the set) and device memory."""

    name: str
    execs: int
    nodes: int  # nodes in the set, bodies included
    instantiate_us: Summary
    memory_bytes: list[int]  # free-memory drop per round (cuMemGetInfo before/after instantiate + upload), all copies
    instantiate_samples: list[float] = field(default_factory=list)  # µs per round, the set summed, per copy
    batch: int = 1  # copies of the set added per memory round (all held to the end)
    note: str = ""  # why the memory rounds stopped early, if they did

    @property
    def memory_median(self) -> int:
        """The median free-memory drop of a round, all ``batch`` copies together."""
        m = sorted(self.memory_bytes)
        return m[len(m) // 2] if m else 0

    @property
    def memory_mean_per_set(self) -> float:
        """Bytes per copy over all rounds: the total drop over every copy made (the held total only grows, so the
        page steps of the rounds add up; one page of error in all, MEMORY_STEP / (rounds x batch) per copy)."""
        copies = self.batch * len(self.memory_bytes)
        return sum(self.memory_bytes) / copies if copies else 0.0

    @property
    def memory_per_set(self) -> list[float]:
        """Bytes per copy of the set, per round (the round's drop over the copies held)."""
        return [b / self.batch for b in self.memory_bytes]

    @property
    def memory_resolution(self) -> float:
        """The least memory per copy that one step of cuMemGetInfo shows: MEMORY_STEP / batch."""
        return MEMORY_STEP / self.batch

    @property
    def memory_seen(self) -> bool:
        """Whether any round's free memory moved at all."""
        return any(b != 0 for b in self.memory_bytes)


@dataclass(kw_only=True)
class SwitchResult(Record):
    """The ``cugraphlab switch`` record: rows, the K-sizes holding costs, the checks and what the data show of three
    claims (``claims()``)."""

    KIND: ClassVar[str] = "cugraphlab.switch"

    rows: list[SwitchRow] = field(default_factory=list)
    holding: list[ExecCost] = field(default_factory=list)  # [one SWITCH for K sizes, K graphs]
    checks: list[dict] = field(default_factory=list)

    def row(self, name: str) -> SwitchRow:
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(name)

    @property
    def verified(self) -> bool:
        return all(r.verified for r in self.rows) and all(c["ok"] for c in self.checks)

    def _values(self, label: str) -> list[float] | None:
        entry = self.samples.get(label)
        return None if entry is None else list(entry["values"])

    def paired(self, a: str, b: str, what: str = "device"):
        """The per-round difference of rows ``a`` - ``b`` (their kept ``what`` samples, same rounds), or None."""
        va, vb = self._values(f"{a} | {what}"), self._values(f"{b} | {what}")
        if va is None or vb is None or len(va) != len(vb):
            return None
        return paired_difference(va, vb)

    def contrasts(self) -> list[dict]:
        """The sweep's contrasts (config["contrasts"]: label, row A, row B), each A - B per round (device µs)."""
        out = []
        for label, a, b in self.config.get("contrasts", []):
            d = self.paired(a, b)
            if d is not None:
                out.append({"label": label, "a": a, "b": b, **d.to_dict()})
        return out

    def claims(self) -> dict:
        """Three claims read on paired per-round differences (bench.stats.paired_diff.claim_verdict): SWITCH (index 0)
        no dearer than one IF node per launch (device µs); one SWITCH graph for K sizes cheaper to instantiate and
        to hold than K graphs. "shown" only where the data show it; "not shown" with the reason otherwise."""
        k = self.config.get("branches", 0)
        out = {}
        try:
            sw, one = self.row("SWITCH, index 0").device_us.median, self.row("IF node").device_us.median
            d = self.paired("SWITCH, index 0", "IF node")
            word, why = claim_verdict(d, "no_more")
            out["switch_vs_one_if"] = {"switch_us": sw, "if_us": one, "ratio": sw / one if one else None,
                                       "difference": d.to_dict() if d else None, "verdict": word, "reason": why,
                                       "shown": word == "shown"}
        except KeyError:
            pass
        if len(self.holding) == 2:
            s, g = self.holding
            d = paired_difference(s.instantiate_samples, g.instantiate_samples) \
                if len(s.instantiate_samples) == len(g.instantiate_samples) else None
            word, why = claim_verdict(d, "less")
            out["sizes_instantiate"] = {"switch_us": s.instantiate_us.median, "graphs_us": g.instantiate_us.median,
                                        "difference": d.to_dict() if d else None, "verdict": word, "reason": why,
                                        "shown": word == "shown", "graphs": k}
            res = max(s.memory_resolution, g.memory_resolution)
            entry = {"switch_bytes": s.memory_median, "graphs_bytes": g.memory_median,
                     "switch_per_set": s.memory_mean_per_set, "graphs_per_set": g.memory_mean_per_set,
                     "batch": min(s.batch, g.batch), "resolution_bytes": res, "graphs": k}
            if not (s.memory_seen or g.memory_seen):
                entry.update(difference=None, verdict="not measurable",
                             reason=(f"its free memory did not move in any of {len(s.memory_bytes)} rounds with "
                                     f"{_copies(min(s.batch, g.batch))} of each set held: below {res / 1024:,.0f} "
                                     f"KiB per set ({MEMORY_STEP >> 20} MiB steps)"),
                             measurable=False, shown=False)
            else:
                dm = paired_difference(s.memory_per_set, g.memory_per_set) \
                    if len(s.memory_bytes) == len(g.memory_bytes) else None
                word, why = claim_verdict(dm, "less")
                entry.update(difference=dm.to_dict() if dm else None, verdict=word, reason=why, measurable=True,
                             shown=word == "shown")
            out["sizes_memory"] = entry
        return out

    def _extra_dict(self) -> dict:
        return {"verified": self.verified, "claims": self.claims(), "contrasts": self.contrasts()}


def _copies(n: int) -> str:
    return f"{n} cop{'y' if n == 1 else 'ies'}"


def timed_launches(exe, stream, iters: int, start, end) -> tuple[float, float]:
    """(host µs, device µs) per launch of ``iters`` back-to-back cuGraphLaunch calls of ``exe`` on ``stream``.

    Host: perf_counter_ns around the enqueue loop only (it does not wait; a full launch queue makes it wait, and then
    it approaches the device time). Device: CUDA events recorded before and after the loop.
    """
    launch, h, s = exe.fn, exe.handle, stream.handle
    stream.synchronize()
    start.record(stream)
    t0 = time.perf_counter_ns()
    for _ in range(iters):
        r = launch(h, s)
        if r[0]:
            check(r, "cuGraphLaunch")
    t1 = time.perf_counter_ns()
    end.record(stream)
    end.synchronize()
    return (t1 - t0) / 1e3 / iters, start.elapsed_us(end) / iters


def _branch_plans(kit: BranchGraphs) -> list[Plan]:
    k = kit.count
    v0 = kit.variants[0].describe()
    plans = [Plan("no conditional", "branches", "plain", 0, f"{v0}, no conditional node (floor)",
                   lambda: kit.check_bodies("no conditional", 0)),
             Plan("IF node", "branches", "if", 0, f"cond_one_hot -> IF ({v0})",
                   lambda: kit.check_bodies("IF", 0))]
    for i in range(k + 1):
        want = i if i < k else None
        tail = f"index {i}" if i < k else f"index {k} (no body)"
        plans.append(Plan(f"SWITCH, {tail}", "branches", "switch", i, f"cond_switch -> SWITCH ({k} bodies)",
                           lambda want=want: kit.check_bodies("SWITCH", want)))
    for i in range(k + 1):
        want = i if i < k else None
        tail = f"index {i}" if i < k else f"index {k} (no body)"
        plans.append(Plan(f"{k} IF nodes, {tail}", "branches", "if_sequence", i,
                           f"cond_one_hot -> {k} IF nodes in sequence",
                           lambda want=want: kit.check_bodies(f"{k} IF nodes", want)))
    for i, n in enumerate(kit.sizes):
        plans.append(Plan(f"SWITCH sizes, {n:,} floats", "sizes", "sizes_switch", i,
                           f"cond_switch -> SWITCH ({k} bodies, one per size)",
                           lambda i=i: kit.check_size("SWITCH sizes", i)))
        plans.append(Plan(f"graph of {n:,} floats", "sizes", "size", i, "the chain alone at this size",
                           lambda i=i: kit.check_size("size graph", i), key_k=i))
    return plans


def _checks(kit: BranchGraphs, loops) -> list[dict]:
    k = kit.count
    out = [kit.run_if_else(True), kit.run_if_else(False)]
    out += [kit.run_switch(i) for i in range(k + 1)]
    out += [kit.run_if_sequence(i) for i in range(k + 1)]
    out += [kit.run_if(0), kit.run_if(1)]
    for i in range(k):
        out += [kit.run_size(i, "switch"), kit.run_size(i, "graph")]
    dicts = [c.to_dict() for c in out]
    for into in CAPTURE_WAYS:
        c = loops.run_while_captured(WHILE_ITERATIONS, into)
        dicts.append({"kind": c.kind, "ok": c.ok, "text": str(c)})
        same, text = loops.same_as_built(WHILE_ITERATIONS, into)
        dicts.append({"kind": f"WHILE captured ({into}) topology", "ok": same, "text": text})
    return dicts


def _node_count(graph, bodies=()) -> int:
    """Nodes of a graph plus those of its conditional nodes' ``bodies``: the body graphs the driver wrote when each
    node was added (BranchGraphs' ``info["body_graphs"]``). Not read back from the nodes: that needs
    cuGraphNodeGetParams, which a CUDA 13.0 driver does not export (cuda-bindings 13.3 know it)."""
    from ...graphs.inspect import graph_nodes

    return len(graph_nodes(graph)) + sum(len(graph_nodes(b)) for b in bodies)


def _hold_batch(build, batch: int, stream, dev) -> tuple[float, int, list]:
    """``batch`` copies of the graphs ``build()`` returns, each copy built fresh, instantiated and uploaded, all held:
    (instantiate µs per copy, the graphs' times summed; the free-memory drop in bytes while they were made; the
    executables, for the caller to close). Fresh graphs, because a graph holding a conditional node cannot be
    instantiated again while an executable of it exists (CUDA_ERROR_NOT_SUPPORTED on the H200's 580 driver); the
    plain graphs are rebuilt alike so both sets pay the same. Each graph is closed once instantiated (the executable
    does not need it). cuGraphInstantiate, cuGraphUpload, cuMemGetInfo."""
    dev.synchronize()
    free0 = dev.memory_info()[0]
    execs, spent = [], 0
    try:
        for _ in range(batch):
            for g in build():
                try:
                    t0 = time.perf_counter_ns()
                    execs.append(g.instantiate())
                    spent += time.perf_counter_ns() - t0
                finally:
                    g.close()
        for e in execs:
            e.upload(stream)
        stream.synchronize()
        free1 = dev.memory_info()[0]
    except BaseException:
        for e in execs:
            e.close()
        raise
    return spent / 1e3 / batch, int(free0 - free1), execs


def _close_all(execs) -> None:
    for e in execs:
        e.close()


def _holding_costs(kit: BranchGraphs, dev, repeats: int, batch: int = 256,
                   memory_rounds: int = MEMORY_ROUNDS) -> list[ExecCost]:
    """Instantiate µs and device memory of the sizes SWITCH against the K size graphs (module doc).

    Instantiate: ``repeats`` rounds, in each INSTANTIATE_COPIES copies of each set made and held, then freed, the
    sets' order alternating. Memory: ``memory_rounds`` rounds, in each ``batch`` more copies of each set made and
    uploaded and kept until the end (the held total only grows, so memory the driver kept from a freed executable
    cannot hide a set's use), the drop of free memory over each set's copies recorded per round."""
    stream = kit.chain.stream
    switch_graph, info = kit.build_sizes_switch()
    graphs = [kit.build_size_graph(i)[0] for i in range(kit.count)]
    try:
        nodes = (_node_count(switch_graph, info["body_graphs"]), sum(_node_count(g) for g in graphs))
        sets = {"switch": lambda: [kit.build_sizes_switch()[0]],
                "graphs": lambda: [kit.build_size_graph(i)[0] for i in range(kit.count)]}
        for name in sets:  # first instantiates: whatever the driver makes once per context
            _close_all(_hold_batch(sets[name], 1, stream, dev)[2])
        times = {name: [] for name in sets}
        for r in range(repeats):
            held = []
            try:
                for name in round_order(list(sets), r):
                    us, _drop, execs = _hold_batch(sets[name], INSTANTIATE_COPIES, stream, dev)
                    held += execs
                    times[name].append(us)
            finally:
                _close_all(held)
        drops = {name: [] for name in sets}
        held, note = [], ""
        try:
            for r in range(memory_rounds):
                round_drops = {}
                try:
                    for name in round_order(list(sets), r):
                        _us, round_drops[name], execs = _hold_batch(sets[name], batch, stream, dev)
                        held += execs
                except CudaError as e:  # the driver refused more executables: keep the rounds that completed
                    note = f"memory rounds stopped after {r} of {memory_rounds}: {e}".splitlines()[0]
                    break
                for name, drop in round_drops.items():
                    drops[name].append(drop)
        finally:
            _close_all(held)
    finally:
        switch_graph.close()
        for g in graphs:
            g.close()
    clock = clocks("host_api")["host_api"]
    return [ExecCost("one SWITCH graph", 1, nodes[0], summarize(times["switch"], unit="us", clock=clock),
                     drops["switch"], times["switch"], batch, note),
            ExecCost(f"{kit.count} graphs", kit.count, nodes[1], summarize(times["graphs"], unit="us", clock=clock),
                     drops["graphs"], times["graphs"], batch, note)]


def measure_switch(device=0, size: int = 1 << 20, branches: int = 4, iters: int = 2000, repeats: int = 15, *,
                   ops=DEFAULT_OPS, scalar: float = 2.0, seed: int | None = None, holding_repeats: int = 30,
                   holding_batch: int = 256, sweep=DEFAULT_SWEEP, progress=None) -> SwitchResult:
    """Measure and check IF/ELSE and SWITCH nodes around the chain of ``ops`` (module docstring).

    Parameters
    ----------
    device : Device or int
        A Device (borrowed) or an ordinal (opened and closed here).
    size : int
        Floats per buffer.
    branches : int
        K, the SWITCH's bodies (2..8).
    iters : int
        Launches per timed loop.
    repeats : int
        Rounds, every row timed once per round in rotated order (at least 6 for a paired verdict).
    ops : sequence of str or str
        The chain's ops (``experiment.ops.parse_ops``).
    scalar : float
        The factor of ``mul``.
    seed : int or None
        Seed of the random inputs (drawn afresh when None).
    holding_repeats : int
        Instantiate rounds of the holding costs.
    holding_batch : int
        Copies of each set added per memory round (MEMORY_ROUNDS rounds, all held to the end: MEMORY_ROUNDS x
        holding_batch x (1 + K) executables; at most 1024).
    sweep : sequence of int
        Body counts of the identical-chains SWITCHes (``bench.graphs.switch_sweep``; empty: none).
    progress : callable or None
        ``progress(line)``, called with one line after each timed loop.

    Returns
    -------
    SwitchResult
        The ``cugraphlab switch`` record: the timed rows, the holding costs (one SWITCH for K sizes against K
        graphs), the checks (``claims()`` reads three claims from them), the samples kept and the environment.

    Raises
    ------
    InvalidArgumentError
        An unknown op, a size, ``iters``, ``repeats``, ``holding_repeats`` or ``holding_batch`` not a positive
        integer in range, or ``branches`` outside 2..8: before any GPU work.
    UnsupportedError
        A driver older than CUDA 12.8 (IF/ELSE and SWITCH nodes), in one line.
    NoDeviceError
        No driver or no device ``device``.
    CudaError
        A driver call failed.
    """
    from ..records.environment import collect

    ops = parse_ops(ops)
    size = validate_size(size)
    k = positive_int("branches", branches, MAX_BRANCHES)
    if k < 2:
        raise InvalidArgumentError(f"branches must be 2..{MAX_BRANCHES}, got {k}")
    iters = positive_int("iters", iters)
    repeats = positive_int("repeats", repeats)
    holding_repeats = positive_int("holding_repeats", holding_repeats)
    holding_batch = positive_int("holding_batch", holding_batch, 1024)
    ks = sweep_ks(sweep) if sweep else ()
    with opened(device) as dev:
        require_conditional_branches(dev)
        with Chain(dev, ops, size, scalar, seed=seed) as chain, BranchGraphs(chain, k) as kit, \
                dev.create_event() as start, dev.create_event() as end:
            same = BranchGraphs(chain, variants=identical_chains(chain.ops, max(*ks, 2)),
                                kernels=kit.kernels) if ks else None
            try:
                return _measure(dev, chain, kit, same, ks, start, end, iters, repeats, holding_repeats,
                                holding_batch, progress, device, scalar, collect)
            finally:
                if same is not None:
                    same.close()


def _measure(dev, chain, kit, same, ks, start, end, iters, repeats, holding_repeats, holding_batch, progress,
             device, scalar, collect) -> SwitchResult:
    k = kit.count
    env = collect(dev)
    checks = _checks(kit, conditional_graphs(chain))
    plans = _branch_plans(kit)
    contrasts = []
    if same is not None:
        checks += [c.to_dict() for c in sweep_checks(kit, same, ks)]
        plans += sweep_plans(kit, same, ks)
        contrasts = [list(c) for c in sweep_contrasts(ks, k)]
    for p in plans:  # warm-up: instantiate, upload, first launches
        on = p.kit or kit
        on.fresh(p.index)
        timed_launches(on.exec_of(p.graph, p.key_k), chain.stream, min(iters, 50), start, end)
    host = {p.name: [] for p in plans}
    device_us = {p.name: [] for p in plans}
    bad = {p.name: 0 for p in plans}
    for r in range(repeats):
        for p in round_order(plans, r):
            on = p.kit or kit
            on.fresh(p.index)
            h, d = timed_launches(on.exec_of(p.graph, p.key_k), chain.stream, iters, start, end)
            host[p.name].append(h)
            device_us[p.name].append(d)
            c = p.check()
            if not c.ok:
                bad[p.name] += max(1, c.output.mismatches)
            if progress:
                progress(f"round {r + 1}/{repeats} {p.name}: {d:.2f} us/launch (device)")
    result = SwitchResult(
        config={"size": chain.n, "branches": k, "iters": iters, "repeats": repeats,
                "holding_repeats": holding_repeats, "holding_batch": holding_batch,
                "instantiate_copies": INSTANTIATE_COPIES, "memory_rounds": MEMORY_ROUNDS, "ops": list(chain.ops),
                "scalar": scalar, "chain": chain.describe(), "grid": chain.grid, "block": chain.block,
                "sizes": list(kit.sizes), "variants": [v.describe() for v in kit.variants],
                "variant_names": [v.name for v in kit.variants], "probe": kit.probe,
                "device": getattr(dev, "ordinal", device), "while_iterations": WHILE_ITERATIONS,
                "sweep": list(ks), "contrasts": contrasts, "order": "rounds, rows rotated (paired_stats.round_order)"},
        env=env, clocks=clocks("device", "host_call", "host_api"), checks=checks)
    for p in plans:
        row = SwitchRow(p.name, p.group, p.graph, p.index, p.how,
                        summarize(device_us[p.name], unit="us", clock=result.clocks["device"]),
                        summarize(host[p.name], unit="us", clock=result.clocks["host_call"]),
                        bad[p.name] == 0, bad[p.name])
        result.rows.append(row)
        result.keep_samples(f"{p.name} | device", device_us[p.name], "us", "device")
        result.keep_samples(f"{p.name} | host", host[p.name], "us", "host_call")
    result.holding = _holding_costs(kit, dev, holding_repeats, holding_batch)
    for cost in result.holding:
        result.keep_samples(f"{cost.name} | instantiate", cost.instantiate_samples, "us", "host_api")
        result.keep_samples(f"{cost.name} | memory", cost.memory_bytes, "bytes")  # cuMemGetInfo drops, all copies
    return result
