"""What every conditional graph around one chain shares (experiment.conditional): the kernels, the loop state, the IF
flag, the executables, and the pieces each kind's graph is made of.

    parent graph:  MEMSET (zero the loop state) -> CONDITIONAL (WHILE, handle h, default value 1)   (while_shell)
    body graph:    the chain's kernels (chain_nodes) -> a one-warp decision kernel (decide_node)

Each conditional kind is a small object over one ``ConditionalState`` (experiment.conditional_while: the counted
and the threshold WHILE; experiment.conditional_capture: the WHILE made by stream capture; experiment.conditional_if:
the IF on a device flag), as cuda.core has ``while_loop``, ``if_cond``, ``if_else`` and ``switch``;
``ConditionalGraphs`` gathers them.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from ..core._calls import cu
from ..core._resource import Resource
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..graphs.build import add_kernel_node, add_launch_sequence, add_memset_node
from ..graphs.conditional import (
    add_conditional_node,
    conditional_options,
    create_handle,
    cuda_include_dir,
    require_conditional,
)
from ..graphs.exec import ExecCache, Graph, GraphExec
from ..graphs.inspect import topology
from .chain import Chain
from .ops import Verification
from .while_pdl import STEP_KERNEL, WHILE_FOLD_KERNEL

__all__ = ["load_conditional_kernels", "predict_until", "LoopState", "LoopCheck", "ConditionalState", "CAPTURE_WAYS"]

CAPTURE_WAYS = ("body", "parent")  # what stream capture fills: the WHILE node's body, or the parent and the body

# The one-thread decision kernels: one warp, only thread 0 works.
DECIDE = LaunchConfig(1, 32)
NO_LIMIT = (1 << 63) - 1
STATE_WORDS = 4  # struct CglLoopState: u64 count, f32 acc, u32 keep_going


def load_conditional_kernels(device, cache=None):
    """kernels/conditional.cu and kernels/cond_relu.cu compiled for ``device`` and loaded; ``ks["cond_until"]``,
    ``ks["cond_relu"]`` etc. work as well."""
    ks = device.load_kernels(names=["conditional", WHILE_FOLD_KERNEL], options=conditional_options(), cache=cache)
    module = ks.modules["conditional"]
    for name in ("cond_until", "cond_if_flag"):
        ks.kernels[name] = module.kernel(name)
    ks.kernels[STEP_KERNEL] = ks.modules[WHILE_FOLD_KERNEL].kernel(STEP_KERNEL)  # the decision counting K iterations
    return ks


def predict_until(out: np.ndarray, threshold: float, probe: int, limit: int) -> tuple[int, float]:
    """(iterations, total) the threshold loop stops at, computed on the host exactly as cond_until rounds.

    Each iteration adds s = out[0] + ... + out[probe-1] (summed in order in float32) to a float32 total; the loop
    goes on while total < threshold and fewer than ``limit`` iterations ran.
    """
    s = np.float32(0)
    for v in np.asarray(out[:probe], dtype=np.float32):
        s = np.float32(s + v)
    t = np.float32(threshold)
    acc, count = np.float32(0), 0
    while True:
        acc = np.float32(acc + s)
        count += 1
        if not (acc < t and count < limit):
            return count, float(acc)


# --- results of one loop ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LoopState:
    """What the decision kernels left in device memory after a loop."""

    count: int  # body iterations that ran
    acc: float  # running total of the threshold loop
    keep_going: int  # the last decision


@dataclass(frozen=True)
class LoopCheck:
    """A conditional graph's run checked: how often the body ran against the expectation, and the output's bits."""

    kind: str  # "WHILE", "WHILE threshold", "IF set", "IF clear"
    expected_iterations: int
    iterations: int
    output: Verification

    @property
    def ok(self) -> bool:
        return self.iterations == self.expected_iterations and self.output.ok

    def __str__(self) -> str:
        runs = f"body ran {self.iterations}x (expected {self.expected_iterations})"
        return f"{self.kind}: {runs}; {self.output}"


class _PinnedWords(Resource):
    """A few page-locked host words (cuMemAllocHost), so the loop driven from Python copies back at full speed."""

    def __init__(self, device, words: int):
        self._live_in(device)  # page-locked memory belongs to the context
        self.nbytes = 4 * words
        self.ptr = int(cu("cuMemAllocHost", self.nbytes))  # page-locked: the copy back runs at full speed
        ptr = self.ptr
        self._own(lambda: cu("cuMemFreeHost", ptr))
        self.words = np.ctypeslib.as_array((ctypes.c_uint32 * words).from_address(ptr))
        self.count = (ctypes.c_uint64 * 1).from_address(ptr)


class ConditionalState(Resource):
    """The state every conditional kind around one :class:`Chain` shares (same buffers, same kernels).

    Owns the conditional kernels, the 16-byte loop state, the IF flag, the pinned words the Python-driven loop reads,
    and every executable graph made from it; the kinds own nothing.
    """

    def __init__(self, chain: Chain, *, kernels=None):
        self.chain = chain
        self.device = device = chain.device
        require_conditional(device)
        self._keep: list[PackedArgs] = []
        try:
            self.header_dir = cuda_include_dir()
            if kernels is None:
                kernels = self.adopt(load_conditional_kernels(device))
            self.kernels = kernels
            self.state = self.adopt(device.array(STATE_WORDS, "uint32"))
            self.flag = self.adopt(device.array(1, "uint32"))
            self.state.fill_bits(0)
            self.flag.fill_bits(0)
            self._host = self.adopt(_PinnedWords(device, STATE_WORDS))
            self.execs = self.adopt(ExecCache(chain.stream))  # adopted last: closed first, before what they use
        except BaseException:
            self.close()
            raise

    # --- the state in device memory ------------------------------------------------------------------------------
    def read_state(self) -> LoopState:
        """The loop state in device memory (waits for the device)."""
        w = self.state.to_numpy()
        return LoopState(int(w[:2].view(np.uint64)[0]), float(w[2:3].view(np.float32)[0]), int(w[3]))

    def set_flag(self, value: bool) -> None:
        """Set the device flag the IF graph tests."""
        self.chain.stream.synchronize()
        self.flag.copy_from(np.array([1 if value else 0], dtype=np.uint32))

    def fresh(self) -> None:
        """Fresh random inputs, poisoned outputs, and a poisoned loop state (the reset node must clear it)."""
        self.chain.randomize()
        self.chain.poison()
        self.state.poison()  # the graph's memset node must clear it: a stale count cannot pass

    def keep(self, launch: Launch) -> Launch:
        """``launch``, its packed arguments kept as long as the graphs (a node copies them; kept anyway)."""
        self._keep.append(launch.args)
        return launch

    # --- the pieces of every kind's graph ------------------------------------------------------------------------
    def decide_node(self, graph, deps: list, kernel_name: str, signature, values):
        """A one-warp decision kernel node (the packed arguments are copied into the node, and kept anyway)."""
        launch = self.keep(Launch(self.kernels[kernel_name], PackedArgs(signature, values), DECIDE,
                                  self.chain.stream))
        return add_kernel_node(graph, launch, deps, ctx=self.device.context)

    def chain_nodes(self, body) -> list:
        # every node of a conditional body must run in the handle's context
        return add_launch_sequence(body, self.chain.launches, ctx=self.device.context)

    def new_handle(self, graph, default: int | None):
        return create_handle(graph, self.device.context, default)

    def conditional_node(self, graph, deps: list, kind: str, handle):
        return add_conditional_node(graph, deps, kind, handle, self.device.context)

    def while_shell(self, graph: Graph):
        """(handle, body) of a new WHILE node in ``graph`` after a node zeroing the loop state; the handle's default
        value 1 runs the body at least once per launch. The body is empty: the kind fills it."""
        reset = add_memset_node(graph.handle, self.state, 0, ctx=self.device.context)
        handle = self.new_handle(graph.handle, default=1)
        _node, body = self.conditional_node(graph.handle, [reset], "WHILE", handle)
        return handle, body

    def decided_while(self, decide: str, signature, values) -> tuple[Graph, object]:
        """(graph, body): the WHILE shell whose body is the chain then the decision kernel ``decide``, called with
        (handle, *values)."""
        graph = Graph(self.device)
        try:
            handle, body = self.while_shell(graph)
            last = self.chain_nodes(body)[-1]
            self.decide_node(body, [last], decide, ("u64", *signature), (int(handle), *values))
        except BaseException:
            graph.close()
            raise
        return graph, body

    def finish(self, graph: Graph, kind: str, body, extra: dict) -> tuple[Graph, dict]:
        """(graph, info): the plain-values description every build returns."""
        info = {
            "kind": kind,
            "parent": graph.topology().describe(),
            "body": topology(body).describe(),
            "chain": self.chain.describe(),
            "header": self.header_dir or "none found: declarations built into kernels/conditional.cu",
        }
        info.update(extra)
        return graph, info

    def exec_of(self, key: tuple, build) -> GraphExec:
        """The executable of ``build()[0]``, instantiated and uploaded once under ``key``, then kept."""
        return self.execs.get(key, lambda: build()[0])

    def pdl_parts(self):
        """The chain's kernels and cond_relu built with -DCGL_PDL, and the executables made with them
        (experiment.while_pdl.PdlWhileParts), loaded on first use. UnsupportedError before sm_90 or CUDA 12.3."""
        parts = getattr(self, "_pdl_parts", None)
        if parts is None or parts.closed:
            from .while_pdl import PdlWhileParts

            self.require_open()
            parts = self._pdl_parts = self.adopt(PdlWhileParts(self.chain))  # adopted last: closed first
        return parts

    def side_stream(self):
        """A second stream for capturing a body while the parent's capture runs on the chain's stream (made once,
        before any capture: creating a stream is no business of a capture)."""
        side = getattr(self, "_side", None)
        if side is None:
            side = self._side = self.adopt(self.device.create_stream())
        return side
