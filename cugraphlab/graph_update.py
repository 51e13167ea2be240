"""Pointing an instantiated graph at new data without building it again.

An executable graph (CUgraphExec) keeps copies of every kernel's arguments. To run the same chain on other buffers
or with another scalar there are three ways, cheapest first:

1. ``cuGraphExecKernelNodeSetParams(exec, node, params)`` per kernel node: new argument values for one node of the
   executable graph. ``node`` is the node of the graph the exec was instantiated from.
2. Capture (or build) a new graph with the new arguments and ``cuGraphExecUpdate(exec, graph)``: the driver pairs the
   nodes of both graphs and copies the new parameters over. It refuses when the topology changed (another node
   count, other edges, another node type) and says why in a CUgraphExecUpdateResultInfo.
3. ``cuGraphInstantiate`` the new graph: always works, costs the most (tens of microseconds for a few nodes).

``ChainGraph`` holds one instantiated chain and does 1 or 2 (falling back to 3 when the driver refuses);
``measure_update_costs`` times all of them on the host clock.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .bench.stats import Summary, summarize
from .calls import driver_fn, driver_module
from .chain import OPS, Verification, compare_bits, parse_ops, reference
from .errors import InvalidArgumentError, check, positive_int
from .graph import Graph, GraphExec, _kernel_name, capture, node_kind
from .graph_build import add_kernel_node, kernel_node_params, kernel_nodes_in_order
from .launch import Launch, PackedArgs
from .resource import Resource

__all__ = [
    "Inputs",
    "fresh_inputs",
    "UpdateReport",
    "ChainGraph",
    "UpdateCosts",
    "measure_update_costs",
    "demonstrate_refused_update",
    "UPDATE_PATHS",
]

HOST_CLOCK = "time.perf_counter_ns around the driver calls (host)"
UPDATE_PATHS = ("set_params", "exec_update", "recapture_update", "reinstantiate", "recapture_instantiate")


@dataclass
class Inputs:
    """What a chain graph reads: x and y on the device, their host copies (for NumPy) and the scalar of mul."""

    x: object  # DeviceArray
    y: object
    x_host: np.ndarray
    y_host: np.ndarray
    scalar: float
    owned: bool = True

    def close(self) -> None:
        if self.owned:
            self.x.close()
            self.y.close()


def fresh_inputs(device, n: int, scalar: float, rng: np.random.Generator) -> Inputs:
    """New device buffers holding new standard-normal inputs (the caller closes them)."""
    xh = rng.standard_normal(n, dtype=np.float32)
    yh = rng.standard_normal(n, dtype=np.float32)
    x = device.to_device(xh)
    try:
        y = device.to_device(yh)
    except BaseException:
        x.close()
        raise
    return Inputs(x, y, xh, yh, float(scalar))


@dataclass(frozen=True)
class UpdateReport:
    """Which way an update went: ``path`` is "set_params", "exec_update" or "reinstantiate".

    ``result`` is the driver's CUgraphExecUpdateResult name for cuGraphExecUpdate (empty for set_params);
    ``error_node`` names the node the driver blamed; ``reason`` says it in words; ``host_us`` is the host time
    of the whole update (perf_counter_ns).
    """

    path: str
    result: str = ""
    error_node: str | None = None
    reason: str = ""
    host_us: float = 0.0

    @property
    def refused(self) -> bool:
        return self.path == "reinstantiate"

    def __str__(self) -> str:
        text = f"{self.path} ({self.host_us:.1f} us host)"
        if self.result:
            text += f": {self.result}"
        if self.error_node:
            text += f" at {self.error_node}"
        if self.reason:
            text += f" -- {self.reason}"
        return text


def _node_label(node) -> str:
    try:
        kind = node_kind(node)
        return f"KERNEL:{_kernel_name(node)}" if kind == "KERNEL" else kind
    except Exception:
        return f"node {int(node):#x}"


def _result_info_from_driver(exe_handle, graph_handle):
    """(result name, error node label) straight from libcuda, for bindings that drop the info on failure.

    cuda-bindings returns ``(CUresult, None)`` from a failing call, so the CUgraphExecUpdateResultInfo that the
    driver filled in is lost. Asking again through ctypes (the update fails the same way and changes nothing)
    recovers it. Returns None where libcuda cannot be opened this way.
    """
    import ctypes

    class ResultInfo(ctypes.Structure):
        _fields_ = [("result", ctypes.c_int), ("errorNode", ctypes.c_void_p), ("errorFromNode", ctypes.c_void_p)]

    try:
        lib = ctypes.CDLL("libcuda.so.1")
        fn = lib.cuGraphExecUpdate_v2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ResultInfo)]
    fn.restype = ctypes.c_int
    info = ResultInfo()
    fn(int(exe_handle), int(graph_handle), ctypes.byref(info))
    d = driver_module()
    try:
        name = d.CUgraphExecUpdateResult(info.result).name
    except ValueError:
        name = f"CUgraphExecUpdateResult {info.result}"
    node = _node_label(d.CUgraphNode(info.errorNode)) if info.errorNode else None
    return name, node


_REASONS = {
    "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED": "the new graph has other nodes or edges",
    "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED": "a node changed type",
    "CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED": "a kernel node's function changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE": "a kernel node's function changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED": "a node's parameters changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED": "a node's attributes changed in a way not allowed",
    "CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED": "a node cannot be updated at all",
}


def try_exec_update(exe: GraphExec, graph: Graph) -> tuple[bool, str, str | None, str]:
    """cuGraphExecUpdate; returns (updated, result name, error node label, reason). Other failures raise."""
    d = driver_module()
    r = driver_fn("cuGraphExecUpdate")(exe.handle, graph.handle)
    if r[0] == 0:
        return True, "CU_GRAPH_EXEC_UPDATE_SUCCESS", None, ""
    if r[0] != d.CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE:
        check(r, "cuGraphExecUpdate")
    info = r[1] if len(r) > 1 else None
    if info is not None:
        name = getattr(info.result, "name", str(info.result))
        node = _node_label(info.errorNode) if int(info.errorNode) else None
    else:
        asked = _result_info_from_driver(exe.handle, graph.handle)
        if asked is not None:
            name, node = asked
        else:  # no way to the driver's own account: the status code is all there is
            name, node = "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", None
    return False, name, node, _REASONS.get(name, "the driver refused the update")


class ChainGraph(Resource):
    """A chain's ops as one instantiated graph over inputs it can be re-pointed at.

    ``build`` is "explicit" (cuGraphAddKernelNode) or "capture". The outputs are the chain's own buffers; the
    result of the last op is ``out``. ``set_params`` and ``recapture`` change inputs and scalar (and, for
    recapture, the ops) of the instantiated graph; ``check`` runs it once on poisoned outputs against NumPy.
    Without ``inputs`` it reads the chain's x and y and takes the chain's host copies as they are now: call
    ``chain.randomize()`` before making it, not after.
    """

    def __init__(self, chain, build: str = "explicit", inputs: Inputs | None = None):
        if build not in ("explicit", "capture"):
            raise InvalidArgumentError(f"build must be 'explicit' or 'capture', got {build!r}")
        self.chain, self.build = chain, build
        self.inputs = inputs or Inputs(chain.x, chain.y, chain.x_host, chain.y_host, chain.scalar, owned=False)
        self.ops = chain.ops
        self.graph: Graph | None = None
        self.exec: GraphExec | None = None
        self._own(self._release)
        try:
            self.launches = self.make_launches(self.inputs, self.ops)
            self.graph, self.nodes = self._make_graph(self.launches)
            self.exec = self.graph.instantiate()
            self.exec.upload(chain.stream)
        except BaseException:
            self.close()
            raise

    def _release(self) -> None:
        if self.exec is not None:
            self.exec.close()
        if self.graph is not None:
            self.graph.close()

    # --- the pieces ----------------------------------------------------------------------------------------
    def make_launches(self, inputs: Inputs, ops) -> list[Launch]:
        """One Launch per op over ``inputs``, writing the chain's output buffers (arguments packed anew)."""
        ops = parse_ops(ops)
        c = self.chain
        if len(ops) > len(c.outs):
            raise InvalidArgumentError(f"the chain has {len(c.outs)} output buffers, {len(ops)} ops need more")
        launches, src = [], inputs.x
        for name, out in zip(ops, c.outs):
            op = OPS[name]
            if op.reads_y:
                args = (out, src, inputs.y, c.n)
            elif op.uses_scalar:
                args = (out, src, inputs.scalar, c.n)
            else:
                args = (out, src, c.n)
            launches.append(Launch(c.kernels[name], PackedArgs(op.signature, args), c.grid, c.block, c.stream))
            src = out
        return launches

    def _make_graph(self, launches) -> tuple[Graph, list]:
        if self.build == "capture":
            graph = self.capture(launches)
            try:
                return graph, kernel_nodes_in_order(graph)
            except BaseException:
                graph.close()
                raise
        graph = Graph(self.chain.device)
        try:
            nodes, deps = [], []
            for launch in launches:
                nodes.append(add_kernel_node(graph, launch, deps))
                deps = nodes[-1:]
            return graph, nodes
        except BaseException:
            graph.close()
            raise

    def capture(self, launches) -> Graph:
        """The launches captured on the chain's stream into a new Graph (owned by the caller)."""
        with capture(self.chain.stream) as cap:
            for launch in launches:
                launch()
        return cap.graph

    @property
    def out(self):
        """The buffer holding the result of the last op."""
        return self.chain.outs[len(self.ops) - 1]

    # --- updates ---------------------------------------------------------------------------------------------
    def set_params(self, inputs: Inputs) -> UpdateReport:
        """Point every kernel node at ``inputs`` with cuGraphExecKernelNodeSetParams (same ops)."""
        self._require_open()
        launches = self.make_launches(inputs, self.ops)
        fn = driver_fn("cuGraphExecKernelNodeSetParams")
        params = [kernel_node_params(l.kernel, l.args, l.grid, l.block, l.shared_bytes) for l in launches]
        t0 = time.perf_counter_ns()
        for node, p in zip(self.nodes, params):
            r = fn(self.exec.handle, node, p)
            if r[0]:
                check(r, "cuGraphExecKernelNodeSetParams")
        dt = time.perf_counter_ns() - t0
        self.launches, self.inputs = launches, inputs  # the packed arguments now live as long as the graph uses them
        return UpdateReport("set_params", host_us=dt / 1e3,
                            reason=f"{len(params)} kernel nodes given new arguments in place")

    def recapture(self, inputs: Inputs, ops=None) -> UpdateReport:
        """Capture the chain anew over ``inputs`` (and ``ops``) and cuGraphExecUpdate; re-instantiate if refused."""
        self._require_open()
        ops = self.ops if ops is None else parse_ops(ops)
        launches = self.make_launches(inputs, ops)
        t0 = time.perf_counter_ns()
        graph = self.capture(launches)
        try:
            updated, result, node, reason = try_exec_update(self.exec, graph)
            if updated:
                dt = time.perf_counter_ns() - t0
                graph.close()  # the exec keeps the nodes of the graph it was instantiated from
                self.launches, self.inputs, self.ops = launches, inputs, ops
                return UpdateReport("exec_update", result, host_us=dt / 1e3,
                                    reason="parameters copied from the re-captured graph")
            exe = graph.instantiate()
        except BaseException:
            graph.close()
            raise
        dt = time.perf_counter_ns() - t0
        self.exec.close()
        self.graph.close()
        # The new exec was made from the new graph: node handles for set_params now come from it.
        self.exec, self.graph = exe, graph
        self.nodes = kernel_nodes_in_order(graph)
        self.exec.upload(self.chain.stream)
        self.launches, self.inputs, self.ops = launches, inputs, ops
        return UpdateReport("reinstantiate", result, node, f"{reason}; instantiated the new graph instead",
                            host_us=dt / 1e3)

    # --- running ---------------------------------------------------------------------------------------------
    def launch(self) -> None:
        self.exec.launch(self.chain.stream)

    def expected(self) -> np.ndarray:
        return reference(self.ops, self.inputs.x_host, self.inputs.y_host, self.inputs.scalar)

    def check(self, label: str = "graph") -> Verification:
        """Poison the outputs, launch once, compare the last op's output with NumPy bit for bit."""
        self.chain.poison()
        self.launch()
        self.chain.stream.synchronize()
        return compare_bits(label, self.out.to_numpy(), self.expected())


@dataclass
class UpdateCosts:
    """Host time of each way to give an instantiated chain graph new arguments, and the checks after each."""

    config: dict
    costs: dict[str, Summary]  # path -> Summary in us (host clock)
    verified: dict[str, bool]
    clock: str = HOST_CLOCK
    env: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"config": self.config, "clock": self.clock, "costs": {k: v.to_dict() for k, v in self.costs.items()},
                "verified": self.verified, "env": self.env}


def _capture_launches(stream, launches) -> Graph:
    with capture(stream) as cap:
        for launch in launches:
            launch()
    return cap.graph


def measure_update_costs(chain, repeats: int = 200, warmup: int = 20, seed: int | None = None) -> UpdateCosts:
    """Time (host clock, one sample per update, median/p5/p95) every update path on ``chain``'s ops.

    Paths: "set_params" (cuGraphExecKernelNodeSetParams for every node), "exec_update" (cuGraphExecUpdate from a
    graph captured beforehand), "recapture_update" (capture + cuGraphExecUpdate + destroy), "reinstantiate"
    (cuGraphInstantiate + cuGraphExecDestroy) and "recapture_instantiate" (capture + instantiate + destroy both).
    Each path alternates between two input sets; after each, the graph is run and checked bit for bit.
    """
    positive_int("repeats", repeats)
    from .environment import collect

    rng = np.random.default_rng(seed)
    dev, stream = chain.device, chain.stream
    sets = [fresh_inputs(dev, chain.n, chain.scalar, rng), fresh_inputs(dev, chain.n, -1.5 * chain.scalar, rng)]
    perf = time.perf_counter_ns
    costs: dict[str, Summary] = {}
    verified: dict[str, bool] = {}
    try:
        with ChainGraph(chain, "capture", sets[0]) as cg:
            launch_sets = [cg.make_launches(s, cg.ops) for s in sets]
            params = [[kernel_node_params(l.kernel, l.args, l.grid, l.block) for l in ls] for ls in launch_sets]
            graphs = [_capture_launches(stream, ls) for ls in launch_sets]
            try:
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
                    g = _capture_launches(stream, launch_sets[k])
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
                    g = _capture_launches(stream, launch_sets[k])
                    r = inst_fn(g.handle, 0)
                    g.close()
                    if r[0]:
                        check(r, "cuGraphInstantiate")
                    r2 = xdestroy_fn(r[1])
                    if r2[0]:
                        check(r2, "cuGraphExecDestroy")

                paths = {"set_params": set_params, "exec_update": exec_update, "recapture_update": recapture_update,
                         "reinstantiate": reinstantiate, "recapture_instantiate": recapture_instantiate}
                for name, fn in paths.items():
                    for i in range(warmup):
                        fn(i % 2)
                    samples = []
                    for i in range(repeats):
                        t0 = perf()
                        fn(i % 2)
                        samples.append((perf() - t0) / 1e3)
                    costs[name] = summarize(samples, unit="us", clock=HOST_CLOCK)
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
    return UpdateCosts(config, costs, verified, env=collect(dev))


def _check_path(cg: ChainGraph, path: str, inputs: Inputs, graph: Graph, stream) -> bool:
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


def demonstrate_refused_update(chain, seed: int | None = None) -> tuple[UpdateReport, Verification]:
    """Re-capture the chain with its last op dropped and ask cuGraphExecUpdate to take it.

    The driver refuses (one node fewer: TOPOLOGY_CHANGED); ChainGraph falls back to instantiating the new graph,
    and the result is checked against NumPy for the shorter chain. Needs a chain of at least two ops.
    """
    if len(chain.ops) < 2:
        raise InvalidArgumentError("the refused-update demonstration drops one op: the chain needs two or more")
    rng = np.random.default_rng(seed)
    inputs = fresh_inputs(chain.device, chain.n, -chain.scalar, rng)
    try:
        with ChainGraph(chain, "capture") as cg:
            report = cg.recapture(inputs, ops=chain.ops[:-1])
            return report, cg.check("refused update, re-instantiated")
    finally:
        inputs.close()
