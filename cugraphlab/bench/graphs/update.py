"""What each way of giving an instantiated chain graph new arguments costs on the host (graphs.update).

Paths: "set_params" (cuGraphExecKernelNodeSetParams for every node), "exec_update" (cuGraphExecUpdate from a graph
captured beforehand), "exec_update (ctypes)" (the same call straight into libcuda through ctypes, arguments and
result info prepared once: graphs.update.DirectExecUpdate says where the binding's time goes), "recapture_update" (capture + cuGraphExecUpdate + destroy), "reinstantiate"
(cuGraphInstantiate + cuGraphExecDestroy) and "recapture_instantiate" (capture + instantiate + destroy both).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core._calls import driver_fn
from ...core.errors import UnsupportedError, check, positive_int
from ...experiment.ops import compare_bits, reference
from ...experiment.update import ChainGraph, Inputs, fresh_inputs
from ...graphs.build import kernel_node_params
from ...graphs.capture import capture_launches
from ...graphs.update import DirectExecUpdate
from ..native.loops import raise_for_status
from ..records.record import CLOCKS, Record, clocks
from ..stats.summary import Summary, summarize

__all__ = ["UpdateCosts", "measure_update", "measure_update_costs", "UPDATE_PATHS", "HOST_CLOCK", "CTYPES_PATH"]

HOST_CLOCK = CLOCKS["host_api"]
CTYPES_PATH = "exec_update (ctypes)"
UPDATE_PATHS = ("set_params", "exec_update", CTYPES_PATH, "recapture_update", "reinstantiate",
                "recapture_instantiate")


@dataclass(kw_only=True)
class UpdateCosts(Record):
    """Host time of each way to give an instantiated chain graph new arguments, the checks after each, and the
    demonstrations run first (label, the driver's answer, the bit-exact check), as plain dicts."""

    KIND: ClassVar[str] = "cugraphlab.update"

    costs: dict[str, Summary]  # path -> Summary in us (host clock)
    verified: dict[str, bool]
    demos: list[dict] = field(default_factory=list)

    @property
    def clock(self) -> str:
        return self.clocks.get("host_api", HOST_CLOCK)

    @property
    def ok(self) -> bool:
        """Every path and demonstration bit-exact, and every update meant to be refused refused."""
        return all(self.verified.values()) and all(d["ok"] for d in self.demos)


def measure_update(device: int, ops, size: int, repeats: int = 200, seed: int | None = None) -> UpdateCosts:
    """``cugraphlab update``: the demonstrations (experiment.update.demonstrate_updates), then the cost of every
    path (``measure_update_costs``), on one chain; one record."""
    from ...core.device import Device
    from ...experiment.chain import Chain
    from ...experiment.update import demonstrate_updates

    with Device(device) as dev, Chain(dev, ops, n=size, seed=seed) as chain:
        demos = demonstrate_updates(chain, seed)
        costs = measure_update_costs(chain, repeats, seed=seed)
        costs.config["chain_text"] = chain.describe()
    for d in demos:
        must_refuse = d.report is not None and "dropped" in d.label
        costs.demos.append({"label": d.label, "report": None if d.report is None else str(d.report),
                            "verification": str(d.verification),
                            "ok": d.verification.ok and (not must_refuse or d.report.refused)})
    return costs


def measure_update_costs(chain, repeats: int = 200, warmup: int = 20, seed: int | None = None) -> UpdateCosts:
    """Time (host clock, one sample per update, median/p5/p95) every update path on ``chain``'s ops.

    Paths: "set_params" (cuGraphExecKernelNodeSetParams for every node), "exec_update" (cuGraphExecUpdate from a
    graph captured beforehand), "exec_update (ctypes)" (the same through ctypes, graphs.update.DirectExecUpdate;
    left out where libcuda cannot be loaded through ctypes), "recapture_update" (capture + cuGraphExecUpdate +
    destroy), "reinstantiate" (cuGraphInstantiate + cuGraphExecDestroy) and "recapture_instantiate" (capture +
    instantiate + destroy both). Each path alternates between two input sets; after each, the graph is run and
    checked bit for bit.

    Parameters
    ----------
    chain : Chain
        The chain whose graph is updated (its device, stream, ops and size are used).
    repeats : int
        Timed updates per path.
    warmup : int
        Untimed updates per path before them.
    seed : int or None
        Seed of the two input sets (drawn afresh when None).

    Returns
    -------
    UpdateCosts
        Each path's host µs per update (Summary, samples kept) and whether its last update checked bit-exactly.

    Raises
    ------
    InvalidArgumentError
        ``repeats`` not a positive integer.
    CudaError
        A driver call failed (an update the driver refuses is a failure here: these paths update like for like).
    """
    positive_int("repeats", repeats)
    from ..records.environment import collect

    rng = np.random.default_rng(seed)
    dev, stream = chain.device, chain.stream
    sets = [fresh_inputs(dev, chain.n, chain.scalar, rng), fresh_inputs(dev, chain.n, -1.5 * chain.scalar, rng)]
    costs: dict[str, Summary] = {}
    verified: dict[str, bool] = {}
    samples_by_path: dict[str, list[float]] = {}
    try:
        with ChainGraph(chain, "capture", sets[0]) as cg:
            launch_sets = [cg.make_launches(s, cg.ops) for s in sets]
            params = [[kernel_node_params(launch) for launch in ls] for ls in launch_sets]
            graphs = [capture_launches(stream, ls) for ls in launch_sets]
            try:
                paths = _update_paths(cg, params, graphs, launch_sets)
                for name, fn in paths.items():
                    samples = _timed_path(fn, warmup, repeats)
                    costs[name] = summarize(samples, unit="us", clock=HOST_CLOCK)
                    samples_by_path[name] = samples
                    # Check what the path left: the last update used set (repeats - 1) % 2.
                    last = (repeats - 1) % 2
                    verified[name] = _check_path(cg, name, sets[last], graphs[last], stream)
            finally:
                for g in graphs:
                    g.close()
    finally:
        for s in sets:
            s.close()
    config = {"chain": chain.describe(), "ops": list(chain.ops), "n": chain.n, "repeats": repeats,
              "warmup": warmup, "kernel_nodes": len(chain.ops)}
    result = UpdateCosts(config=config, costs=costs, verified=verified, env=collect(dev), clocks=clocks("host_api"))
    for name in costs:
        result.keep_samples(name, samples_by_path[name], clock="host_api")
    return result


def _update_paths(cg: ChainGraph, params: list, graphs: list, launch_sets: list) -> dict:
    """name -> fn(k): each update path applying input set ``k`` (0 or 1) to ``cg``'s executable, every driver result
    checked; "exec_update (ctypes)" only where libcuda opens through ctypes."""
    stream = cg.chain.stream
    set_fn = driver_fn("cuGraphExecKernelNodeSetParams")
    upd_fn = driver_fn("cuGraphExecUpdate")
    inst_fn = driver_fn("cuGraphInstantiate")
    xdestroy_fn = driver_fn("cuGraphExecDestroy")
    exe_h = cg.exec.handle

    def set_params(k):
        for node, p in zip(cg.nodes, params[k]):
            r = set_fn(exe_h, node, p)
            if r[0]:
                check(r, "cuGraphExecKernelNodeSetParams")

    def exec_update(k):
        r = upd_fn(exe_h, graphs[k].handle)
        if r[0]:
            check(r, "cuGraphExecUpdate")

    def recapture_update(k):
        g = capture_launches(stream, launch_sets[k])
        r = upd_fn(exe_h, g.handle)
        g.close()
        if r[0]:
            check(r, "cuGraphExecUpdate")

    def reinstantiate(k):
        r = inst_fn(graphs[k].handle, 0)
        if r[0]:
            check(r, "cuGraphInstantiate")
        r2 = xdestroy_fn(r[1])
        if r2[0]:
            check(r2, "cuGraphExecDestroy")

    def recapture_instantiate(k):
        g = capture_launches(stream, launch_sets[k])
        r = inst_fn(g.handle, 0)
        g.close()
        if r[0]:
            check(r, "cuGraphInstantiate")
        r2 = xdestroy_fn(r[1])
        if r2[0]:
            check(r2, "cuGraphExecDestroy")

    paths = {"set_params": set_params, "exec_update": exec_update}
    try:
        direct = DirectExecUpdate(cg.exec)
    except UnsupportedError:  # no libcuda through ctypes: the row is left out
        direct = None
    if direct is not None:
        direct_calls = [direct.bind(g) for g in graphs]

        def exec_update_ctypes(k):
            status = direct_calls[k]()
            if status:
                raise_for_status(status, "cuGraphExecUpdate (ctypes)", 0)

        paths[CTYPES_PATH] = exec_update_ctypes
    paths.update({"recapture_update": recapture_update, "reinstantiate": reinstantiate,
                  "recapture_instantiate": recapture_instantiate})
    return paths


def _timed_path(fn, warmup: int, repeats: int) -> list[float]:
    """µs per call of ``fn`` (host clock, perf_counter_ns), alternating the two input sets, after ``warmup``."""
    perf = time.perf_counter_ns
    for i in range(warmup):
        fn(i % 2)
    samples = []
    for i in range(repeats):
        t0 = perf()
        fn(i % 2)
        samples.append((perf() - t0) / 1e3)
    return samples


def _check_path(cg: ChainGraph, path: str, inputs: Inputs, graph, stream) -> bool:
    """Run what ``path`` produced on poisoned outputs and compare with NumPy on ``inputs``."""
    expected = reference(cg.ops, inputs.x_host, inputs.y_host, inputs.scalar)
    cg.chain.poison()
    if path in ("reinstantiate", "recapture_instantiate"):
        with graph.instantiate() as exe:  # the timed loop destroyed its execs: make one more the same way
            exe.launch(stream)
            stream.synchronize()
    else:
        cg.launch()  # the exec itself was updated in place
        stream.synchronize()
    return compare_bits(path, cg.out.to_numpy(), expected).ok
