"""Conditional graph nodes around the chain (graphs.conditional): loops and branches decided on the GPU.

    parent graph:  MEMSET (zero the loop state) -> CONDITIONAL (WHILE, handle h, default value 1)
    body graph:    KERNEL add -> KERNEL mul -> KERNEL sub -> KERNEL relu -> KERNEL conditional(h, state, N)

The last body kernel (kernels/conditional.cu) counts the iteration in device memory and sets the condition to
``count < N``, so one ``cuGraphLaunch`` runs the chain N times. ``build_while(N, fold=True)`` folds that decision
into the body's last kernel instead (kernels/cond_relu.cu: relu, then block 0's thread 0 counts and sets the
condition), so the body has four kernel nodes, not five::

    body graph (folded):  KERNEL add -> KERNEL mul -> KERNEL sub -> KERNEL cond_relu(out, t3, n, h, state, N)

``build_while(N, fold=True, pdl=True)`` builds that body from the -DCGL_PDL kernels joined by programmatic edges,
and ``every=K`` puts K chain iterations in one body with one decision counting K (experiment.while_pdl).

Correct because the WHILE node reads the condition only once the whole body graph has completed (every block of
cond_relu), a counted loop's decision reads no output, and exactly one thread sets it. The same WHILE graph can be made with stream capture
instead of node by node (graphs.capture_into): ``into="body"`` captures the chain's launches into the body the node
made (cuStreamBeginCaptureToGraph), ``into="parent"`` captures the parent too and adds the conditional node during
that capture (cuStreamGetCaptureInfo, cuGraphAddNode, cuStreamUpdateCaptureDependencies), as the CUDA Programming
Guide shows; both have the built graph's topology (``same_as_built``).

The threshold variant instead adds the sum of the first outputs to a running total and stops once it reaches a
threshold, a stopping point only the GPU's numbers decide; the host predicts it with NumPy float32 (``predict_until``)
and the tests compare. The IF graph runs the chain only when a device flag is set.

One small object per conditional kind over one shared state (``ConditionalState``: kernels, loop state, flag,
executables), as cuda.core has ``while_loop`` and ``if_cond``: ``WhileLoop`` and ``ThresholdLoop``
(experiment.conditional_while), ``CapturedWhile`` (experiment.conditional_capture), ``IfFlag``
(experiment.conditional_if). ``ConditionalGraphs`` is the shared state with one of each (``while_loop``,
``threshold_loop``, ``while_captured``, ``if_cond``) and the methods it always had, each handing over to its kind.
IF/ELSE and SWITCH, with several bodies, are experiment.branches.
"""
from __future__ import annotations

from ..core.errors import InvalidArgumentError
from ..graphs.exec import Graph, GraphExec
from .chain import Chain
from .conditional_capture import CapturedWhile
from .conditional_if import IfFlag
from .conditional_state import (
    CAPTURE_WAYS,
    ConditionalState,
    LoopCheck,
    LoopState,
    load_conditional_kernels,
    predict_until,
)
from .conditional_while import ThresholdLoop, WhileLoop
from .ops import DEFAULT_OPS
from .while_pdl import WHILE_FOLD_KERNEL

__all__ = [
    "load_conditional_kernels",
    "predict_until",
    "LoopState",
    "LoopCheck",
    "ConditionalGraphs",
    "conditional_graphs",
    "build_while_graph",
    "CAPTURE_WAYS",
    "WHILE_FOLD_KERNEL",
    "ConditionalState",
    "WhileLoop",
    "ThresholdLoop",
    "CapturedWhile",
    "IfFlag",
]


class ConditionalGraphs(ConditionalState):
    """Builds, runs and checks graphs with conditional nodes around one :class:`Chain` (same buffers, same kernels).

    The shared state (``ConditionalState``: the conditional kernels, the 16-byte loop state, the IF flag and every
    executable graph made) with one object per kind over it: ``while_loop`` (WhileLoop), ``threshold_loop``
    (ThresholdLoop), ``while_captured`` (CapturedWhile), ``if_cond`` (IfFlag). ``build_while(N)``,
    ``build_until(threshold)`` and ``build_if()`` return (Graph, info) for inspection; ``run_while``, ``run_until``
    and ``run_if`` run on fresh random inputs with poisoned outputs and check.
    """

    def __init__(self, chain: Chain, *, kernels=None):
        super().__init__(chain, kernels=kernels)
        self.while_loop = WhileLoop(self)
        self.threshold_loop = ThresholdLoop(self)
        self.while_captured = CapturedWhile(self)
        self.if_cond = IfFlag(self)

    # --- WHILE, counted ----------------------------------------------------------------------------------------------
    def build_while(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
                    how: str = "capture") -> tuple[Graph, dict]:
        """A graph whose WHILE node runs the chain exactly ``iterations`` times per launch (counted on the GPU).

        ``fold=False``: the body is the chain then a one-warp decision kernel node (5 kernel nodes); ``fold=True``:
        the decision is folded into the last kernel, cond_relu (4 kernel nodes; the chain must end in relu).
        With ``fold=True`` only: ``pdl=True`` builds the body from the -DCGL_PDL kernels joined by programmatic
        edges (``how``: "capture" into the body, or "nodes" with edge data; ProgrammaticEdgesRefused where the
        driver will not); ``every=K`` puts K chain iterations in the body with one decision counting K ("decision
        every K iterations"; ``iterations`` must be a multiple of K). info["body_edges"] lists the edge kinds."""
        return self.while_loop.build(iterations, fold, pdl, every, how)

    def folded_launches(self, handle, iterations: int):
        """The chain's launches with relu replaced by cond_relu deciding on ``handle`` (WhileLoop.folded_launches)."""
        return self.while_loop.folded_launches(handle, iterations)

    def while_exec(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
                   how: str = "capture") -> GraphExec:
        """The WHILE graph of ``build_while`` (same arguments), instantiated and uploaded once, then kept."""
        return self.while_loop.exec(iterations, fold, pdl, every, how)

    def run_while(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
                  how: str = "capture") -> LoopCheck:
        """One launch of the WHILE graph (``fold``: the folded body; ``pdl``, ``every``, ``how`` as in
        build_while) on fresh inputs; the body must run ``iterations`` times, bit-exact output."""
        return self.while_loop.run(iterations, fold, pdl, every, how)

    def step_exec(self) -> GraphExec:
        """The chain plus the counting kernel (not setting any condition): one iteration of the Python-driven loop."""
        return self.while_loop.step_exec()

    def run_host_loop(self, iterations: int) -> int:
        """The same loop driven from Python: per iteration, launch the step graph, copy the state back to pinned
        host memory, wait, and decide on the host. Returns the iterations run (enqueues and waits)."""
        return self.while_loop.run_host(iterations)

    # --- WHILE, stopped by the GPU's numbers -------------------------------------------------------------------------
    def build_until(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> tuple[Graph, dict]:
        """A WHILE graph that stops once the running total of the first ``probe`` outputs reaches ``threshold``."""
        return self.threshold_loop.build(threshold, max_iterations, probe)

    def until_exec(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> GraphExec:
        return self.threshold_loop.exec(threshold, max_iterations, probe)

    def run_until(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> LoopCheck:
        """One launch of the threshold loop; it must stop where NumPy predicts, with a bit-exact output."""
        return self.threshold_loop.run(threshold, max_iterations, probe)

    # --- WHILE, made by stream capture -------------------------------------------------------------------------------
    def build_while_captured(self, iterations: int, into: str = "body") -> tuple[Graph, dict]:
        """The WHILE graph of ``build_while`` made by stream capture: ``into="body"`` fills the body the node made
        (cuStreamBeginCaptureToGraph); ``into="parent"`` captures the parent and adds the node during the capture
        (cuStreamGetCaptureInfo + cuGraphAddNode + cuStreamUpdateCaptureDependencies), the body on a second
        stream. The caller owns the Graph; the body stays the node's."""
        return self.while_captured.build(iterations, into)

    def same_as_built(self, iterations: int, into: str = "body") -> tuple[bool, str]:
        """Whether the captured WHILE graph (parent and body) has the built one's topology, and the comparison."""
        return self.while_captured.same_as_built(iterations, into)

    def while_captured_exec(self, iterations: int, into: str = "body") -> GraphExec:
        return self.while_captured.exec(iterations, into)

    def run_while_captured(self, iterations: int, into: str = "body") -> LoopCheck:
        """One launch of the captured WHILE graph on fresh inputs: ``iterations`` body runs, bit-exact output."""
        return self.while_captured.run(iterations, into)

    # --- IF ----------------------------------------------------------------------------------------------------------
    def build_if(self) -> tuple[Graph, dict]:
        """A graph whose IF node runs the chain once when the device flag (``set_flag``) is non-zero."""
        return self.if_cond.build()

    def if_exec(self) -> GraphExec:
        return self.if_cond.exec()

    def run_if(self, flag: bool) -> LoopCheck:
        """One launch of the IF graph with the flag set or clear: the chain runs once, or its output stays poisoned."""
        return self.if_cond.run(flag)

    def __repr__(self) -> str:
        return f"<ConditionalGraphs over {self.chain.describe()}>"


def conditional_graphs(chain: Chain) -> ConditionalGraphs:
    """The ConditionalGraphs of ``chain``, made on first use and closed when the chain is closed (before its buffers,
    which its executables use by address). The chain keeps it as a dependent: the two refer to each other, and the
    garbage collector frees both together when both are forgotten."""
    for kit in chain.dependents:
        if isinstance(kit, ConditionalGraphs) and kit.chain is chain and not kit.closed:
            return kit
    chain.require_open()
    kit = ConditionalGraphs(chain)
    chain.add_dependent(kit)
    return kit


def build_while_graph(chain: Chain | None = None, iterations: int = 1, *, device=None, ops=DEFAULT_OPS,
                      size: int = 1 << 20, fold: bool = False, pdl: bool = False,
                      every: int = 1) -> tuple[Graph, dict]:
    """A new Graph (owned by the caller) whose WHILE node runs ``chain`` ``iterations`` times, and a description.

    The info dict (plain values) has "kind", "iterations", "parent" and "body" (node lists), "stop" and "header".
    After launching an instance, ``conditional_graphs(chain).read_state().count`` is the iterations that ran.
    Without a chain, pass ``device`` (and optionally ``ops``, ``size``): a Chain is made for the graph and closed
    with it. ``fold``: the decision folded into the body's last kernel; ``pdl``, ``every``: programmatic edges
    and K iterations per decision in the folded body (ConditionalGraphs.build_while).
    """
    if chain is not None:
        return conditional_graphs(chain).build_while(iterations, fold, pdl, every)
    if device is None:
        raise InvalidArgumentError("build_while_graph needs a chain, or a device to make one on")
    chain = Chain(device, ops, size)
    try:
        graph, info = conditional_graphs(chain).build_while(iterations, fold, pdl, every)
    except BaseException:
        chain.close()
        raise
    # The caller owns the graph only: closing it closes the chain made for it too.
    graph.adopt(chain)
    return graph, info
