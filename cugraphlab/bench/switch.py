"""IF/ELSE and SWITCH conditional nodes measured (``cugraphlab switch``), every output checked.

Rows, each a graph launched ``iters`` times back to back between two CUDA events (device µs per launch) with
``perf_counter_ns`` around the enqueue loop (host µs per launch), interleaved over ``repeats`` on fresh random inputs
with every output poisoned, and checked after each timed loop (the chosen body bit-exact, every other body's output
untouched):

- "branches": the chain with no conditional node (floor); one IF node; a SWITCH over K bodies for each index and
  for an index that selects none; K IF nodes one after the other, each testing one index (what a SWITCH replaces).
- "sizes": one SWITCH graph whose body k is the chain at n >> k floats, against K separate graphs, one per size.

Then what K sizes cost to hold: instantiate µs (``perf_counter_ns`` around cuGraphInstantiate; the K graphs
summed), device memory (free memory from cuMemGetInfo before and after instantiate + upload) and executables: one
against K. Before any timing, the IF/ELSE graph (both branches forced), every SWITCH index, the sizes, and the WHILE
graph made by stream capture (into the body, and into the parent) are run once and checked, the captured ones also
against the built topology.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, ClassVar

from ..core.device import Device
from ..core.errors import InvalidArgumentError, check, positive_int
from ..core.memory import validate_size
from ..experiment.branches import MAX_BRANCHES, BranchGraphs
from ..experiment.chain import Chain
from ..experiment.conditional import CAPTURE_WAYS, conditional_graphs
from ..experiment.ops import DEFAULT_OPS, parse_ops
from ..graphs.conditional import require_conditional_branches
from .records import Record, clocks
from .stats import Summary, summarize

__all__ = ["SwitchRow", "ExecCost", "SwitchResult", "measure_switch", "timed_launches", "WHILE_ITERATIONS"]

WHILE_ITERATIONS = 25  # body runs of the captured WHILE graphs' checks


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
    memory_bytes: list[int]  # free-memory drop per repeat (cuMemGetInfo before/after instantiate + upload)
    instantiate_samples: list[float] = field(default_factory=list)  # µs per repeat, the set summed

    @property
    def memory_median(self) -> int:
        m = sorted(self.memory_bytes)
        return m[len(m) // 2] if m else 0


@dataclass(kw_only=True)
class SwitchResult(Record):
    """The ``cugraphlab switch`` record: rows, the K-sizes holding costs, the checks and the issue's goals."""

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

    def goals(self) -> dict:
        """The issue's goals, from the medians: SWITCH (index 0) no dearer than one IF node per launch (device
        µs); one SWITCH graph for K sizes cheaper to instantiate and to hold than K graphs."""
        k = self.config.get("branches", 0)
        out = {}
        try:
            sw, one = self.row("SWITCH, index 0").device_us.median, self.row("IF node").device_us.median
            out["switch_vs_one_if"] = {"switch_us": sw, "if_us": one, "ratio": sw / one if one else None,
                                       "met": sw <= one}
        except KeyError:
            pass
        if len(self.holding) == 2:
            s, g = self.holding
            out["sizes_instantiate"] = {"switch_us": s.instantiate_us.median, "graphs_us": g.instantiate_us.median,
                                        "met": s.instantiate_us.median < g.instantiate_us.median, "graphs": k}
            out["sizes_memory"] = {"switch_bytes": s.memory_median, "graphs_bytes": g.memory_median,
                                   "met": s.memory_median <= g.memory_median, "graphs": k}
        return out

    def _extra_dict(self) -> dict:
        return {"verified": self.verified, "goals": self.goals()}


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
    return (t1 - t0) / 1e3 / iters, start.elapsed_ms(end) * 1e3 / iters


@dataclass
class _Plan:
    name: str
    group: str
    graph: str
    index: int
    how: str
    check: Callable  # () -> BranchCheck, after a run
    key_k: int | None = None


def _branch_plans(kit: BranchGraphs) -> list[_Plan]:
    k = kit.count
    v0 = kit.variants[0].describe()
    plans = [_Plan("no conditional", "branches", "plain", 0, f"{v0}, no conditional node (floor)",
                   lambda: kit.check_bodies("no conditional", 0)),
             _Plan("IF node", "branches", "if", 0, f"cond_one_hot -> IF ({v0})",
                   lambda: kit.check_bodies("IF", 0))]
    for i in range(k + 1):
        want = i if i < k else None
        tail = f"index {i}" if i < k else f"index {k} (no body)"
        plans.append(_Plan(f"SWITCH, {tail}", "branches", "switch", i, f"cond_switch -> SWITCH ({k} bodies)",
                           lambda want=want: kit.check_bodies("SWITCH", want)))
    for i in range(k + 1):
        want = i if i < k else None
        tail = f"index {i}" if i < k else f"index {k} (no body)"
        plans.append(_Plan(f"{k} IF nodes, {tail}", "branches", "if_sequence", i,
                           f"cond_one_hot -> {k} IF nodes in sequence",
                           lambda want=want: kit.check_bodies(f"{k} IF nodes", want)))
    for i, n in enumerate(kit.sizes):
        plans.append(_Plan(f"SWITCH sizes, {n:,} floats", "sizes", "sizes_switch", i,
                           f"cond_switch -> SWITCH ({k} bodies, one per size)",
                           lambda i=i: kit.check_size("SWITCH sizes", i)))
        plans.append(_Plan(f"graph of {n:,} floats", "sizes", "size", i, "the chain alone at this size",
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
    from ..graphs.inspect import graph_nodes

    return len(graph_nodes(graph)) + sum(len(graph_nodes(b)) for b in bodies)


def _holding_costs(kit: BranchGraphs, dev, repeats: int) -> list[ExecCost]:
    """Instantiate µs and free-memory drop of the sizes SWITCH against the K size graphs, interleaved."""
    stream = kit.chain.stream
    switch_graph, info = kit.build_sizes_switch()
    graphs = [kit.build_size_graph(i)[0] for i in range(kit.count)]
    try:
        nodes = (_node_count(switch_graph, info["body_graphs"]), sum(_node_count(g) for g in graphs))
        samples = {"switch": ([], []), "graphs": ([], [])}
        for _ in range(repeats):
            for name, group in (("switch", [switch_graph]), ("graphs", graphs)):
                dev.synchronize()
                free0 = dev.memory_info()[0]
                execs, spent = [], 0
                try:
                    for g in group:
                        t0 = time.perf_counter_ns()
                        execs.append(g.instantiate())
                        spent += time.perf_counter_ns() - t0
                    for e in execs:
                        e.upload(stream)
                    stream.synchronize()
                    free1 = dev.memory_info()[0]
                finally:
                    for e in execs:
                        e.close()
                samples[name][0].append(spent / 1e3)
                samples[name][1].append(int(free0 - free1))
    finally:
        switch_graph.close()
        for g in graphs:
            g.close()
    clock = clocks("host_api")["host_api"]
    return [ExecCost("one SWITCH graph", 1, nodes[0], summarize(samples["switch"][0], unit="us", clock=clock),
                     samples["switch"][1], samples["switch"][0]),
            ExecCost(f"{kit.count} graphs", kit.count, nodes[1],
                     summarize(samples["graphs"][0], unit="us", clock=clock), samples["graphs"][1],
                     samples["graphs"][0])]


def measure_switch(device=0, size: int = 1 << 20, branches: int = 4, iters: int = 2000, repeats: int = 5, *,
                   ops=DEFAULT_OPS, scalar: float = 2.0, seed: int | None = None, holding_repeats: int = 20,
                   progress=None) -> SwitchResult:
    """Measure and check IF/ELSE and SWITCH nodes around the chain of ``ops`` on ``size`` float32 (module doc).

    ``branches``: K, the SWITCH's bodies (2..8); ``iters``: launches per timed loop; ``repeats``: timed loops per
    row, interleaved; ``holding_repeats``: instantiate/memory samples per set. Needs a CUDA 12.8+ driver
    (UnsupportedError, one line). Returns the SwitchResult record (kind "cugraphlab.switch").
    """
    from .environment import collect

    ops = parse_ops(ops)
    size = validate_size(size)
    k = positive_int("branches", branches, MAX_BRANCHES)
    if k < 2:
        raise InvalidArgumentError(f"branches must be 2..{MAX_BRANCHES}, got {k}")
    iters = positive_int("iters", iters)
    repeats = positive_int("repeats", repeats)
    holding_repeats = positive_int("holding_repeats", holding_repeats)
    own_device = not hasattr(device, "compute_capability")
    dev = Device(device) if own_device else device
    try:
        require_conditional_branches(dev)
        with Chain(dev, ops, size, scalar, seed=seed) as chain, BranchGraphs(chain, k) as kit, \
                dev.create_event() as start, dev.create_event() as end:
            env = collect(dev)
            checks = _checks(kit, conditional_graphs(chain))
            plans = _branch_plans(kit)
            for p in plans:  # warm-up: instantiate, upload, first launches
                kit.fresh(p.index)
                timed_launches(kit.exec_of(p.graph, p.key_k), chain.stream, min(iters, 50), start, end)
            host = {p.name: [] for p in plans}
            device_us = {p.name: [] for p in plans}
            bad = {p.name: 0 for p in plans}
            for r in range(repeats):
                for p in plans:
                    kit.fresh(p.index)
                    h, d = timed_launches(kit.exec_of(p.graph, p.key_k), chain.stream, iters, start, end)
                    host[p.name].append(h)
                    device_us[p.name].append(d)
                    c = p.check()
                    if not c.ok:
                        bad[p.name] += max(1, c.output.mismatches)
                    if progress:
                        progress(f"repeat {r + 1}/{repeats} {p.name}: {d:.2f} us/launch (device)")
            result = SwitchResult(
                config={"size": size, "branches": k, "iters": iters, "repeats": repeats,
                        "holding_repeats": holding_repeats, "ops": list(ops), "scalar": scalar,
                        "chain": chain.describe(), "grid": chain.grid, "block": chain.block,
                        "sizes": list(kit.sizes), "variants": [v.describe() for v in kit.variants],
                        "variant_names": [v.name for v in kit.variants], "probe": kit.probe,
                        "device": getattr(dev, "ordinal", device), "while_iterations": WHILE_ITERATIONS},
                env=env, clocks=clocks("device", "host_call", "host_api"), checks=checks)
            for p in plans:
                row = SwitchRow(p.name, p.group, p.graph, p.index, p.how,
                                summarize(device_us[p.name], unit="us", clock=result.clocks["device"]),
                                summarize(host[p.name], unit="us", clock=result.clocks["host_call"]),
                                bad[p.name] == 0, bad[p.name])
                result.rows.append(row)
                result.keep_samples(f"{p.name} | device", device_us[p.name], "us", "device")
                result.keep_samples(f"{p.name} | host", host[p.name], "us", "host_call")
            result.holding = _holding_costs(kit, dev, holding_repeats)
            for cost in result.holding:
                result.keep_samples(f"{cost.name} | instantiate", cost.instantiate_samples, "us", "host_api")
                result.keep_samples(f"{cost.name} | memory", cost.memory_bytes, "bytes")  # cuMemGetInfo deltas
            return result
    finally:
        if own_device:
            dev.close()
