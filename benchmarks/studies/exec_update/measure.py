"""What one ``cuGraphExecUpdate`` costs from C and from Python, paired: one process, one executable, one set of
source graphs, every way interleaved round by round.

Cases (what the driver is asked to do; the executable always starts a block holding input set A):

* ``own graph``: update from the very graph the executable was instantiated from (nothing to copy);
* ``same parameters``: from another graph captured from the same launches (same kernels, same argument values);
* ``changed parameters``: alternately from a graph over input set B and one over set A, so every call copies new
  arguments into all four kernel nodes (what ``bench.graphs.update``'s "exec_update" row times).

Ways, each a block of K calls (K even: every block ends where it began):

* ``C``: cuGraphExecUpdate_v2 in a C loop (``studies.exec_update.c_loop``), CLOCK_MONOTONIC in C around the block;
* ``bindings``: ``cuda.bindings.driver.cuGraphExecUpdate(exe, graph)`` with the handle objects taken once, the
  status tested (the binding makes a CUgraphExecUpdateResultInfo per call);
* ``bindings, each call timed``: the same with ``perf_counter_ns`` read before and after every call, as
  ``bench.graphs.update`` samples it (what the per-call timer itself adds);
* ``ctypes, argtypes``: libcuda's prototyped function called from a loop body, ready ``c_void_p`` arguments, one
  reused result info (``DirectExecUpdate`` before this change);
* ``ctypes, bound partial``: ``graphs.update.DirectExecUpdate.bind``: the same function as a ``functools.partial``
  over the ready arguments;
* ``try_exec_update``: cugraphlab's one-shot call (``graphs.update.try_exec_update``), what a user calls;
* ``native``: ``native_update.NativeExecUpdate.fire()``, a builtin whose C body is the one driver call, and
  ``native set params, all nodes``: one ``NativeKernelNodeSetParams.fire()`` per kernel node to the case's
  arguments (``studies.exec_update.native``; only where the C loop is, on its entry points).

Python blocks are timed with ``perf_counter_ns`` around the K calls; each sample is µs per call; "minus C" is the
way's sample minus the C sample of the same case and round. After the rounds every way updates the executable once
to set B and once back to A, and each result is launched and compared bit for bit with NumPy (poisoned outputs):
a way that did not really update fails.
"""
from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from cugraphlab.bench.native.loops import raise_for_status
from cugraphlab.bench.records.record import Record, clocks
from cugraphlab.bench.stats.paired_stats import round_order
from cugraphlab.bench.stats.summary import Summary, summarize
from cugraphlab.core._calls import driver_fn
from cugraphlab.core.errors import (
    CugraphlabError,
    InvalidArgumentError,
    NoDeviceError,
    UnsupportedError,
    check,
    positive_int,
)
from studies.exec_update.c_loop import UPDATE_C_CLOCK
from studies.exec_update.native import NATIVE_WAYS, close_ways, open_native_ways

__all__ = ["UPDATE_CASES", "UPDATE_WAYS", "C_WAY", "PairedUpdateRow", "ExecUpdatePaired", "measure_exec_update",
           "python_ways"]

UPDATE_CASES = {
    "own graph": "from the graph the executable was instantiated from",
    "same parameters": "from another capture of the same launches (same argument values)",
    "changed parameters": "alternately from graphs over input sets B and A (new arguments every call)",
}
C_WAY = "C"
UPDATE_WAYS = {
    C_WAY: "cuGraphExecUpdate_v2 in a C loop, timed in C",
    "bindings": "cuda.bindings cuGraphExecUpdate(exe, graph), handles taken once",
    "bindings, each call timed": "the same, perf_counter_ns before and after every call (as bench.graphs.update "
                                 "samples)",
    "ctypes, argtypes": "libcuda via ctypes, argtypes set, c_void_p args and result info made once",
    "ctypes, bound partial": "DirectExecUpdate.bind: functools.partial over ready c_void_p args (prototyped)",
    "try_exec_update": "cugraphlab.graphs.try_exec_update(exe, graph)",
}
_CLOCK_KEYS = {C_WAY: "c_monotonic", "bindings, each call timed": "host_api"}


@dataclass
class PairedUpdateRow:
    """One way on one case: µs per call (its own clock), the paired difference to C, and the bit-exact check."""

    case: str
    way: str
    us: Summary | None
    minus_c: Summary | None = None
    verified: bool | None = None
    note: str = ""


@dataclass(kw_only=True)
class ExecUpdatePaired(Record):
    KIND: ClassVar[str] = "cugraphlab.study.exec_update.paired"

    rows: list[PairedUpdateRow]

    def row(self, case: str, way: str) -> PairedUpdateRow:
        return next(r for r in self.rows if r.case == case and r.way == way)

    @property
    def verified(self) -> bool:
        return all(r.verified is not False for r in self.rows)


def _perf_block(body: Callable[[int], None]) -> Callable[[int], int]:
    perf = time.perf_counter_ns

    def run(k: int) -> int:
        t0 = perf()
        body(k)
        return perf() - t0

    return run


def python_ways(exe, graphs, direct_factory=None) -> dict[str, Callable[[int], int]]:
    """``way -> run(k) -> ns``: k updates of ``exe`` from ``graphs[i % 2]`` (two Graphs) each Python way, timed with
    perf_counter_ns (the "each call timed" way: the sum of per-call readings). ``direct_factory(exe)`` makes the
    DirectExecUpdate (default: graphs.update's, on libcuda); where it raises UnsupportedError the ctypes ways are
    left out."""
    from cugraphlab.graphs.update import DirectExecUpdate, ResultInfo, try_exec_update

    if len(graphs) != 2:
        raise InvalidArgumentError("python_ways alternates between exactly two source graphs")
    fn = driver_fn("cuGraphExecUpdate")
    eh, hs = exe.handle, [g.handle for g in graphs]
    perf = time.perf_counter_ns

    def bindings(k):
        for i in range(k):
            r = fn(eh, hs[i & 1])
            if r[0]:
                check(r, "cuGraphExecUpdate")

    def each_timed(k) -> int:
        total = 0
        for i in range(k):
            t0 = perf()
            r = fn(eh, hs[i & 1])
            total += perf() - t0
            if r[0]:
                check(r, "cuGraphExecUpdate")
        return total

    def one_shot(k):
        for i in range(k):
            report = try_exec_update(exe, graphs[i & 1])
            if report.refused:
                raise CugraphlabError(f"cuGraphExecUpdate refused: {report.result} ({report.reason})")

    ways: dict[str, Callable[[int], int]] = {"bindings": _perf_block(bindings), "bindings, each call timed": each_timed}
    try:
        direct = (direct_factory or DirectExecUpdate)(exe)
    except UnsupportedError:
        direct = None
    if direct is not None:
        typed = direct.fn
        info = ResultInfo()
        ce, cs = ctypes.c_void_p(int(eh)), [ctypes.c_void_p(int(h)) for h in hs]
        ci = ctypes.byref(info)  # holds the struct the driver writes into as long as the ways live
        calls = [direct.bind(g) for g in graphs]

        def with_argtypes(k):
            for i in range(k):
                s = typed(ce, cs[i & 1], ci)
                if s:
                    raise_for_status(s, "cuGraphExecUpdate (ctypes)", i)

        def bound(k):
            for i in range(k):
                s = calls[i & 1]()
                if s:
                    raise_for_status(s, "cuGraphExecUpdate (ctypes)", i)

        ways["ctypes, argtypes"] = _perf_block(with_argtypes)
        ways["ctypes, bound partial"] = _perf_block(bound)
        ways["_keep"] = (info, calls, direct)  # type: ignore[assignment]  - alive with the ways
    ways["try_exec_update"] = _perf_block(one_shot)
    return ways


def _check_exec(cg, expected, which: int, label: str) -> bool:
    """Poison the chain's outputs, launch the executable once, compare its last output with ``expected`` (the NumPy
    result of input set ``which``: 0 is A, 1 is B) bit for bit."""
    from cugraphlab.experiment.ops import compare_bits

    cg.chain.poison()
    cg.exec.launch(cg.chain.stream)
    cg.chain.stream.synchronize()
    return compare_bits(label, cg.out.to_numpy(), expected).ok


def _open_update_floor(factory):
    if factory is None:
        from studies.exec_update.c_loop import UpdateFloor as factory
    try:
        return factory(), ""
    except (UnsupportedError, NoDeviceError) as e:
        return None, str(e).splitlines()[0]
    except CugraphlabError as e:
        return None, f"the C loop did not build: {str(e).splitlines()[0]}"


def measure_exec_update(chain, *, k: int = 50, rounds: int = 300, warmup: int = 20, seed: int | None = 0,
                        floor_factory=None, direct_factory=None, native_factories=None,
                        progress=None) -> ExecUpdatePaired:
    """Every way on every case (module text), interleaved per round, on ``chain``'s ops (an open Chain).

    Parameters: ``k`` calls per block (even), ``rounds`` timed rounds after ``warmup`` untimed ones, ``seed`` of
    the input sets, ``floor_factory`` / ``direct_factory`` replace the C loop and DirectExecUpdate (tests),
    ``native_factories`` the (update, set params) factories of ``studies.exec_update.native.open_native_ways``.
    Returns an ExecUpdatePaired (µs per call per case and way, minus C paired, checks). CUDA Driver API, "Graph
    Management": cuGraphExecUpdate.
    """
    from cugraphlab.bench.records.environment import collect
    from cugraphlab.experiment.ops import reference
    from cugraphlab.experiment.update import ChainGraph, fresh_inputs

    for name, v in (("k", k), ("rounds", rounds)):
        positive_int(name, v)
    if k % 2:
        raise InvalidArgumentError(f"k must be even (each block must end on the set it began with), got {k}")
    say = progress or (lambda _m: None)
    rng = np.random.default_rng(seed)
    dev, stream = chain.device, chain.stream
    sets = [fresh_inputs(dev, chain.n, chain.scalar, rng), fresh_inputs(dev, chain.n, -1.5 * chain.scalar, rng)]
    floor, why = _open_update_floor(floor_factory)
    native, native_why = open_native_ways(floor, *(native_factories or (None, None)))
    natives: list = []
    rows: list[PairedUpdateRow] = []
    result_samples: dict[str, list[float]] = {}
    try:
        with ChainGraph(chain, "capture", sets[0]) as cg:
            same = cg.capture(cg.launches)  # identical argument values, another CUgraph
            launches_b = cg.make_launches(sets[1], cg.ops)
            changed = cg.capture(launches_b)
            try:
                cases = {"own graph": [cg.graph, cg.graph], "same parameters": [same, same],
                         "changed parameters": [changed, same]}
                launches_of = {int(g.handle): cg.launches for g in (cg.graph, same)}
                launches_of[int(changed.handle)] = launches_b

                def native_ways(gs):
                    if native is None:
                        return {}
                    made = native(cg.exec, gs, launches_of, cg.nodes)
                    natives.extend(made.pop("_keep"))
                    return made

                runs = {case: python_ways(cg.exec, gs, direct_factory) for case, gs in cases.items()}
                keep = [r.pop("_keep", None) for r in runs.values()]
                for case, gs in cases.items():
                    runs[case].update(native_ways(gs))
                if floor is not None:
                    for case, gs in cases.items():
                        runs[case] = {C_WAY: floor.update_loop(cg.exec, gs), **runs[case]}
                ways = list(next(iter(runs.values())))
                stream.synchronize()
                values = {(c, w): [] for c in cases for w in ways}
                for r in range(warmup + rounds):
                    for case in round_order(list(cases), r):
                        for way in round_order(ways, r):
                            ns = runs[case][way](k)
                            if r >= warmup:
                                values[(case, way)].append(ns / 1e3 / k)
                    if r == warmup:
                        say(f"{rounds} rounds of {len(cases)} cases x {len(ways)} ways")
                # --- checks: each way to set B, launched and compared; then back to A, compared ---------------
                expected = [reference(cg.ops, s.x_host, s.y_host, s.scalar) for s in sets]
                verified: dict[str, bool] = {}
                def one_way(way, graph):
                    if way == C_WAY:
                        return floor.update_loop(cg.exec, [graph])
                    if way in NATIVE_WAYS:
                        return native_ways([graph, graph])[way]
                    return python_ways(cg.exec, [graph, graph], direct_factory)[way]

                for way in ways:
                    to_b, to_a = one_way(way, changed), one_way(way, same)
                    to_b(1)
                    ok_b = _check_exec(cg, expected[1], 1, f"{way}: set B")
                    to_a(1)
                    verified[way] = _check_exec(cg, expected[0], 0, f"{way}: set A") and ok_b
                del keep
            finally:
                close_ways(natives)
                same.close()
                changed.close()
    finally:
        for s in sets:
            s.close()
    for case in cases:
        c_vals = values.get((case, C_WAY))
        for way in ways:
            vals = values[(case, way)]
            clock = _CLOCK_KEYS.get(way, "host_call")
            minus = None
            if c_vals and way != C_WAY:
                minus = summarize([a - b for a, b in zip(vals, c_vals)], unit="us", clock=f"{clock} - c_monotonic")
            rows.append(PairedUpdateRow(case, way, summarize(vals, unit="us", clock=clock), minus, verified[way]))
            result_samples[f"{case} | {way}"] = vals
        if floor is None:
            rows.append(PairedUpdateRow(case, C_WAY, None, note=why))
    config = {"chain": chain.describe(), "ops": list(chain.ops), "n": chain.n, "k": k, "rounds": rounds,
              "warmup": warmup, "kernel_nodes": len(chain.ops), "cases": dict(UPDATE_CASES),
              "ways": {w: {**UPDATE_WAYS, **NATIVE_WAYS}[w] for w in ways}, "native": why or "built",
              "native_ways": native_why or "built"}
    clk = {**clocks("host_call", "host_api"), "c_monotonic": UPDATE_C_CLOCK}
    result = ExecUpdatePaired(config=config, rows=rows, env=collect(dev), clocks=clk)
    for label, vals in result_samples.items():
        way = label.split(" | ", 1)[1]
        result.keep_samples(label, vals, clock=_CLOCK_KEYS.get(way, "host_call"))
    return result
