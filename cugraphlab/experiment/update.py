"""The chain's graph pointed at new inputs without building it again (graphs.update shows the three ways).

``ChainGraph`` holds one instantiated chain over inputs it can be re-pointed at: ``set_params`` (new arguments per
kernel node of the executable), ``recapture`` (a new graph and cuGraphExecUpdate, instantiating anew when the driver
refuses). ``demonstrate_updates`` and ``demonstrate_refused_update`` run each path once and check the bits.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError
from ..core.launch import Launch, PackedArgs
from ..graphs.build import add_launch_sequence
from ..graphs.capture import capture_launches
from ..graphs.exec import Graph, GraphExec
from ..graphs.inspect import kernel_nodes_in_order
from ..graphs.update import UpdateReport, set_kernel_params, try_exec_update
from .chain_buffers import random_inputs
from .ops import Verification, compare_bits, op_arguments, parse_ops, reference

__all__ = ["Inputs", "fresh_inputs", "ChainGraph", "demonstrate_updates", "demonstrate_refused_update",
           "UpdateDemo"]


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
    """New device buffers holding new standard-normal inputs (``chain_buffers.random_inputs``; the caller closes
    them)."""
    xh, yh = random_inputs(rng, n)
    x = device.to_device(xh)
    try:
        y = device.to_device(yh)
    except BaseException:
        x.close()
        raise
    return Inputs(x, y, xh, yh, float(scalar))


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
        try:
            self.launches = self.make_launches(self.inputs, self.ops)
            graph, self.nodes = self._make_graph(self.launches)
            self.graph = self.adopt(graph)
            self.exec = self.adopt(self.graph.instantiate())
            self.exec.upload(chain.stream)
        except BaseException:
            self.close()
            raise

    # --- the pieces ----------------------------------------------------------------------------------------
    def make_launches(self, inputs: Inputs, ops) -> list[Launch]:
        """One Launch per op over ``inputs``, writing the chain's output buffers (arguments packed anew)."""
        ops = parse_ops(ops)
        c = self.chain
        if len(ops) > len(c.outs):
            raise InvalidArgumentError(f"the chain has {len(c.outs)} output buffers, {len(ops)} ops need more")
        return [Launch(c.kernels[name], PackedArgs(sig, args), c.config, c.stream)
                for name, sig, args in op_arguments(ops, inputs.x, inputs.y, c.outs, inputs.scalar, c.n)]

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
            return graph, add_launch_sequence(graph, launches)
        except BaseException:
            graph.close()
            raise

    def capture(self, launches) -> Graph:
        """The launches captured on the chain's stream into a new Graph (owned by the caller)."""
        return capture_launches(self.chain.stream, launches)

    @property
    def out(self):
        """The buffer holding the result of the last op."""
        return self.chain.outs[len(self.ops) - 1]

    # --- updates ---------------------------------------------------------------------------------------------
    def set_params(self, inputs: Inputs) -> UpdateReport:
        """Point every kernel node at ``inputs`` with cuGraphExecKernelNodeSetParams (same ops)."""
        self.require_open()
        launches = self.make_launches(inputs, self.ops)
        host_us = set_kernel_params(self.exec, self.nodes, launches)
        self.launches, self.inputs = launches, inputs  # the packed arguments now live as long as the graph uses them
        return UpdateReport("set_params", host_us=host_us,
                            reason=f"{len(launches)} kernel nodes given new arguments in place")

    def recapture(self, inputs: Inputs, ops=None) -> UpdateReport:
        """Capture the chain anew over ``inputs`` (and ``ops``) and cuGraphExecUpdate; re-instantiate if refused."""
        self.require_open()
        ops = self.ops if ops is None else parse_ops(ops)
        launches = self.make_launches(inputs, ops)
        t0 = time.perf_counter_ns()
        graph = self.capture(launches)
        try:
            tried = try_exec_update(self.exec, graph)
            if tried.updated:
                dt = time.perf_counter_ns() - t0
                graph.close()  # the exec keeps the nodes of the graph it was instantiated from
                self.launches, self.inputs, self.ops = launches, inputs, ops
                return UpdateReport("exec_update", tried.result, host_us=dt / 1e3,
                                    reason="parameters copied from the re-captured graph")
            exe = graph.instantiate()
        except BaseException:
            graph.close()
            raise
        dt = time.perf_counter_ns() - t0
        self.exec.close()
        self.graph.close()
        # The new exec was made from the new graph: node handles for set_params now come from it.
        self.exec, self.graph = self.adopt(exe), self.adopt(graph)
        self.nodes = kernel_nodes_in_order(graph)
        self.exec.upload(self.chain.stream)
        self.launches, self.inputs, self.ops = launches, inputs, ops
        return UpdateReport("reinstantiate", tried.result, tried.error_node,
                            f"{tried.reason}; instantiated the new graph instead",
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


@dataclass(frozen=True)
class UpdateDemo:
    """One update path run once: what was done, how the driver answered, and the bit-exact check after it."""

    label: str
    report: UpdateReport | None
    verification: Verification


def demonstrate_updates(chain, seed: int | None = None) -> list[UpdateDemo]:
    """Build the chain explicitly, then point it at new inputs and scalars through set_params and through re-capture
    + cuGraphExecUpdate, and (for two ops or more) show a refused update; each step checked against NumPy."""
    rng = np.random.default_rng(seed)
    out: list[UpdateDemo] = []
    a = fresh_inputs(chain.device, chain.n, -3.0 * chain.scalar, rng)
    try:
        b = fresh_inputs(chain.device, chain.n, 0.25 * chain.scalar, rng)
    except BaseException:
        a.close()
        raise
    try:
        with ChainGraph(chain, "explicit") as cg:
            out.append(UpdateDemo("built explicitly", None, cg.check("as built")))
            r1 = cg.set_params(a)
            out.append(UpdateDemo(f"new inputs and scalar {a.scalar:g} via cuGraphExecKernelNodeSetParams", r1,
                                  cg.check("after set_params")))
            r2 = cg.recapture(b)
            out.append(UpdateDemo(f"new inputs and scalar {b.scalar:g} via re-capture + cuGraphExecUpdate", r2,
                                  cg.check("after re-capture + update")))
    finally:
        a.close()
        b.close()
    if len(chain.ops) >= 2:
        report, v = demonstrate_refused_update(chain, seed)
        out.append(UpdateDemo(f"re-capture with the last op dropped ({len(chain.ops) - 1} nodes)", report, v))
    return out
