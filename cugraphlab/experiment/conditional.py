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
and the tests compare. The IF graph runs the chain only when a
device flag is set.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from ..core._calls import cu, driver_fn
from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, check, positive_int
from ..core.launch import Launch, LaunchConfig, PackedArgs
from ..core.memory import POISON_BITS
from ..graphs.build import add_kernel_node, add_launch_sequence, add_memset_node
from ..graphs.capture import capture, capture_launches
from ..graphs.capture_into import add_conditional_to_capture, capture_handle, capture_into, require_capture_into
from ..graphs.conditional import (
    add_conditional_node,
    conditional_options,
    create_handle,
    cuda_include_dir,
    require_conditional,
)
from ..graphs.exec import ExecCache, Graph, GraphExec
from ..graphs.inspect import same_topology, topology
from .chain import Chain
from .ops import DEFAULT_OPS, Verification, compare_bits
from .while_pdl import STEP_KERNEL, WHILE_FOLD_KERNEL

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
]

CAPTURE_WAYS = ("body", "parent")  # what stream capture fills: the WHILE node's body, or the parent and the body

# The one-thread decision kernels: one warp, only thread 0 works.
_DECIDE = LaunchConfig(1, 32)
_NO_LIMIT = (1 << 63) - 1
_STATE_WORDS = 4  # struct CglLoopState: u64 count, f32 acc, u32 keep_going


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


class ConditionalGraphs(Resource):
    """Builds, runs and checks graphs with conditional nodes around one :class:`Chain` (same buffers, same kernels).

    Owns the conditional kernels, the 16-byte loop state, the IF flag and every executable graph it made.
    ``build_while(N)``, ``build_until(threshold)`` and ``build_if()`` return (Graph, info) for inspection;
    ``run_while``, ``run_until`` and ``run_if`` run on fresh random inputs with poisoned outputs and check.
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
            self.state = self.adopt(device.array(_STATE_WORDS, "uint32"))
            self.flag = self.adopt(device.array(1, "uint32"))
            self.state.fill_bits(0)
            self.flag.fill_bits(0)
            self._host = self.adopt(_PinnedWords(device, _STATE_WORDS))
            self.execs = self.adopt(ExecCache(chain.stream))  # adopted last: closed first, before what they use
        except BaseException:
            self.close()
            raise

    # --- state ---------------------------------------------------------------------------------------------------
    def read_state(self) -> LoopState:
        """The loop state in device memory (waits for the device)."""
        w = self.state.to_numpy()
        return LoopState(int(w[:2].view(np.uint64)[0]), float(w[2:3].view(np.float32)[0]), int(w[3]))

    def set_flag(self, value: bool) -> None:
        """Set the device flag the IF graph tests."""
        self.chain.stream.synchronize()
        self.flag.copy_from(np.array([1 if value else 0], dtype=np.uint32))

    # --- graph construction ----------------------------------------------------------------------------------
    def _decide_node(self, graph, deps: list, kernel_name: str, signature, values):
        """A one-warp decision kernel node (the packed arguments are copied into the node, and kept anyway)."""
        launch = Launch(self.kernels[kernel_name], PackedArgs(signature, values), _DECIDE, self.chain.stream)
        self._keep.append(launch.args)
        return add_kernel_node(graph, launch, deps, ctx=self.device.context)

    def _chain_nodes(self, body) -> list:
        # every node of a conditional body must run in the handle's context
        return add_launch_sequence(body, self.chain.launches, ctx=self.device.context)

    def _reset_node(self, graph):
        return add_memset_node(graph, self.state, 0, ctx=self.device.context)

    def _handle(self, graph, default: int | None):
        return create_handle(graph, self.device.context, default)

    def _conditional_node(self, graph, deps: list, kind: str, handle):
        return add_conditional_node(graph, deps, kind, handle, self.device.context)

    def _finish(self, graph: Graph, kind: str, body, extra: dict) -> tuple[Graph, dict]:
        info = {
            "kind": kind,
            "parent": graph.topology().describe(),
            "body": topology(body).describe(),
            "chain": self.chain.describe(),
            "header": self.header_dir or "none found: declarations built into kernels/conditional.cu",
        }
        info.update(extra)
        return graph, info

    def _while_graph(self, decide: str, signature, values) -> tuple[Graph, object]:
        """(graph, body): reset node -> WHILE node whose body is the chain then the decision kernel ``decide``,
        called with (handle, *values)."""
        graph = Graph(self.device)
        try:
            reset = self._reset_node(graph.handle)
            handle = self._handle(graph.handle, default=1)  # the body runs at least once per launch
            _node, body = self._conditional_node(graph.handle, [reset], "WHILE", handle)
            last = self._chain_nodes(body)[-1]
            self._decide_node(body, [last], decide, ("u64", *signature), (int(handle), *values))
        except BaseException:
            graph.close()
            raise
        return graph, body

    def folded_launches(self, handle, iterations: int) -> list[Launch]:
        """The chain's launches with the last one, relu, replaced by cond_relu: relu plus the counted loop's
        decision (count < ``iterations``) on handle ``handle``, same grid and block. The chain must end in relu."""
        n = positive_int("iterations", iterations)
        name, signature, args = self.chain.op_args()[-1]
        if name != "relu":
            raise InvalidArgumentError(f"the folded WHILE body needs a chain ending in relu, got "
                                       f"{','.join(self.chain.ops)}")
        fold = Launch(self.kernels[WHILE_FOLD_KERNEL], PackedArgs((*signature, "u64", "ptr", "u64"),
                                                            (*args, int(handle), self.state, n)),
                      self.chain.config, self.chain.stream)
        self._keep.append(fold.args)
        return [*self.chain.launches[:-1], fold]

    def _while_folded_graph(self, n: int) -> tuple[Graph, object]:
        """(graph, body): reset node -> WHILE node whose body is add -> mul -> sub -> cond_relu."""
        graph = Graph(self.device)
        try:
            reset = self._reset_node(graph.handle)
            handle = self._handle(graph.handle, default=1)
            _node, body = self._conditional_node(graph.handle, [reset], "WHILE", handle)
            add_launch_sequence(body, self.folded_launches(handle, n), ctx=self.device.context)
        except BaseException:
            graph.close()
            raise
        return graph, body

    def pdl_parts(self):
        """The chain's kernels and cond_relu built with -DCGL_PDL, and the executables made with them
        (experiment.while_pdl.PdlWhileParts), loaded on first use. UnsupportedError before sm_90 or CUDA 12.3."""
        parts = getattr(self, "_pdl_parts", None)
        if parts is None or parts.closed:
            from .while_pdl import PdlWhileParts

            self.require_open()
            parts = self._pdl_parts = self.adopt(PdlWhileParts(self.chain))  # adopted last: closed first
        return parts

    def _while_body_graph(self, n: int, pdl: bool, every: int, how: str) -> tuple[Graph, object]:
        """(graph, body): reset node -> WHILE node whose body is ``every`` chains with the folded decision last;
        ``pdl``: PDL kernels joined by programmatic edges (experiment.while_pdl)."""
        from .while_pdl import body_launches, fill_body

        graph = Graph(self.device)
        try:
            reset = self._reset_node(graph.handle)
            handle = self._handle(graph.handle, default=1)
            _node, body = self._conditional_node(graph.handle, [reset], "WHILE", handle)
            fill_body(self, body, body_launches(self, handle, n, every, pdl), pdl, how)
        except BaseException:
            graph.close()
            raise
        return graph, body

    def _build_folded_variant(self, n: int, pdl: bool, every: int, how: str) -> tuple[Graph, dict]:
        from .while_pdl import body_text, check_every, while_label

        n, every = check_every(n, every)
        graph, body = self._while_body_graph(n, pdl, every, how)
        try:
            text = body_text(body, pdl)
        except BaseException:
            graph.close()
            raise
        step = WHILE_FOLD_KERNEL if every == 1 else STEP_KERNEL
        info = self._finish(graph, while_label(pdl, every), body, {
            "iterations": n, "fold": True, "pdl": pdl, "every": every, "how": how, "body_edges": text,
            "stop": f"the body's last kernel `{step}` does relu, then block 0 counts {every} iteration"
                    f"{'s' if every > 1 else ''} in device memory and sets the condition; stops at {n}"
                    + (f" (decision every {every} iterations: exact only for multiples of {every})"
                       if every > 1 else ""),
        })[1]
        return graph, info

    def build_while(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
                    how: str = "capture") -> tuple[Graph, dict]:
        """A graph whose WHILE node runs the chain exactly ``iterations`` times per launch (counted on the GPU).

        ``fold=False``: the body is the chain then a one-warp decision kernel node (5 kernel nodes); ``fold=True``:
        the decision is folded into the last kernel, cond_relu (4 kernel nodes; the chain must end in relu).
        With ``fold=True`` only: ``pdl=True`` builds the body from the -DCGL_PDL kernels joined by programmatic
        edges (``how``: "capture" into the body, or "nodes" with edge data; ProgrammaticEdgesRefused where the
        driver will not); ``every=K`` puts K chain iterations in the body with one decision counting K ("decision
        every K iterations"; ``iterations`` must be a multiple of K). info["body_edges"] lists the edge kinds."""
        n = positive_int("iterations", iterations)
        if (pdl or every != 1) and not fold:
            raise InvalidArgumentError("PDL edges and a decision every K iterations are built for the folded body "
                                       "only: pass fold=True")
        if fold and (pdl or every != 1):
            return self._build_folded_variant(n, bool(pdl), every, how)
        if fold:
            graph, body = self._while_folded_graph(n)
            return self._finish(graph, "WHILE folded", body, {
                "iterations": n, "fold": True,
                "stop": f"the body's last kernel `{WHILE_FOLD_KERNEL}` does relu, then block 0 counts iterations in "
                        f"device memory and sets the condition; stops at {n}",
            })
        graph, body = self._while_graph("conditional", ("ptr", "u64", "i32"), (self.state, n, 1))
        return self._finish(graph, "WHILE", body, {
            "iterations": n, "fold": False,
            "stop": f"decide kernel `conditional` counts iterations in device memory; stops at {n}",
        })

    def build_until(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> tuple[Graph, dict]:
        """A WHILE graph that stops once the running total of the first ``probe`` outputs reaches ``threshold``."""
        limit = positive_int("max_iterations", max_iterations)
        probe = min(positive_int("probe", probe), self.chain.n)
        thr = np.float32(threshold)
        if not np.isfinite(thr):
            raise InvalidArgumentError(f"threshold must be a finite float32, got {threshold!r}")
        graph, body = self._while_graph("cond_until", ("ptr", "ptr", "u64", "f32", "u64", "i32"),
                                        (self.state, self.chain.out, probe, float(thr), limit, 1))
        return self._finish(graph, "WHILE threshold", body, {
            "threshold": float(thr), "probe": probe, "max_iterations": limit,
            "stop": f"decide kernel `cond_until` adds sum(out[:{probe}]) to a total; stops once it reaches "
                    f"{float(thr):g} (or after {limit} iterations)",
        })

    # --- the WHILE graph made by stream capture ------------------------------------------------------------------
    def _capture_launches(self, stream, handle, n: int) -> list[Launch]:
        """The chain's launches and the counting decision on ``stream`` (the chain's own stream or a second one)."""
        launches = [launch if launch.stream is stream else Launch(launch.kernel, launch.args, launch.config, stream)
                    for launch in self.chain.launches]
        decide = Launch(self.kernels["conditional"], PackedArgs(("u64", "ptr", "u64", "i32"), (int(handle),
                        self.state, n, 1)), _DECIDE, stream)
        self._keep.append(decide.args)
        return [*launches, decide]

    def _side_stream(self):
        """A second stream for capturing a body while the parent's capture runs on the chain's stream (made once,
        before any capture: creating a stream is no business of a capture)."""
        side = getattr(self, "_side", None)
        if side is None:
            side = self._side = self.adopt(self.device.create_stream())
        return side

    def _while_captured_graph(self, n: int, into: str) -> tuple[Graph, object]:
        if into not in CAPTURE_WAYS:
            raise InvalidArgumentError(f"capture into must be one of {', '.join(CAPTURE_WAYS)}, got {into!r}")
        require_capture_into()
        stream, ctx = self.chain.stream, self.device.context
        if into == "body":
            graph = Graph(self.device)
            try:
                reset = self._reset_node(graph.handle)
                handle = self._handle(graph.handle, default=1)
                _node, body = self._conditional_node(graph.handle, [reset], "WHILE", handle)
                launches = self._capture_launches(stream, handle, n)
                with capture_into(stream, body):  # the body is the node's: ending the capture hands it back
                    for launch in launches:
                        launch()
            except BaseException:
                graph.close()
                raise
            return graph, body
        side = self._side_stream()
        with capture(stream) as cap:
            cu("cuMemsetD32Async", self.state.handle, 0, _STATE_WORDS, stream.handle)  # captured: the reset node
            handle = capture_handle(stream, ctx, default=1)
            _node, (body,) = add_conditional_to_capture(stream, "WHILE", handle, ctx, 1)
            launches = self._capture_launches(side, handle, n)
            with capture_into(side, body):  # one stream, one capture: the body goes through a second stream
                for launch in launches:
                    launch()
        return cap.graph, body

    def build_while_captured(self, iterations: int, into: str = "body") -> tuple[Graph, dict]:
        """The WHILE graph of ``build_while`` made by stream capture: ``into="body"`` fills the body the node made
        (cuStreamBeginCaptureToGraph); ``into="parent"`` captures the parent and adds the node during the capture
        (cuStreamGetCaptureInfo + cuGraphAddNode + cuStreamUpdateCaptureDependencies), the body on a second
        stream. The caller owns the Graph; the body stays the node's."""
        n = positive_int("iterations", iterations)
        graph, body = self._while_captured_graph(n, into)
        how = {"body": "the body captured into (cuStreamBeginCaptureToGraph)",
               "parent": "parent captured; node added during the capture; body captured on a second stream"}[into]
        return self._finish(graph, "WHILE captured", body, {"iterations": n, "captured": into, "how": how})

    def same_as_built(self, iterations: int, into: str = "body") -> tuple[bool, str]:
        """Whether the captured WHILE graph (parent and body) has the built one's topology, and the comparison."""
        n = positive_int("iterations", iterations)
        built, built_body = self._while_graph("conditional", ("ptr", "u64", "i32"), (self.state, n, 1))
        try:
            captured, captured_body = self._while_captured_graph(n, into)
            try:
                same_parent, parent_text = same_topology(built, captured)
                same_body, body_text = same_topology(built_body, captured_body)
            finally:
                captured.close()
        finally:
            built.close()
        return same_parent and same_body, f"parent: {parent_text}; body: {body_text}"

    def while_captured_exec(self, iterations: int, into: str = "body") -> GraphExec:
        return self._exec(("while-captured", into, int(iterations)),
                          lambda: self.build_while_captured(iterations, into))

    def run_while_captured(self, iterations: int, into: str = "body") -> LoopCheck:
        """One launch of the captured WHILE graph on fresh inputs: ``iterations`` body runs, bit-exact output."""
        exe = self.while_captured_exec(iterations, into)
        self.fresh()
        exe.launch(self.chain.stream)
        got = self.read_state().count
        return LoopCheck(f"WHILE captured ({into})", int(iterations), got, self.chain.check_result("graph"))

    def build_if(self) -> tuple[Graph, dict]:
        """A graph whose IF node runs the chain once when the device flag (``set_flag``) is non-zero."""
        graph = Graph(self.device)
        try:
            # No default value: the setter kernel upstream of the IF node decides at every launch.
            handle = self._handle(graph.handle, default=None)
            setter = self._decide_node(graph.handle, [], "cond_if_flag", ("u64", "ptr"), (int(handle), self.flag))
            _node, body = self._conditional_node(graph.handle, [setter], "IF", handle)
            self._chain_nodes(body)
        except BaseException:
            graph.close()
            raise
        return self._finish(graph, "IF", body, {"stop": "kernel `cond_if_flag` sets the condition from the flag"})

    def _exec(self, key: tuple, build) -> GraphExec:
        return self.execs.get(key, lambda: build()[0])

    def while_exec(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
                   how: str = "capture") -> GraphExec:
        """The WHILE graph of ``build_while`` (same arguments), instantiated and uploaded once, then kept."""
        if not (pdl or every != 1):
            return self._exec(("while", int(iterations), bool(fold)), lambda: self.build_while(iterations, fold))
        build = lambda: self.build_while(iterations, fold, pdl, every, how)  # noqa: E731
        key = ("while", int(iterations), bool(fold), bool(pdl), int(every), how)
        if not pdl:
            return self._exec(key, build)
        from ..graphs.pdl_edges import refused_as

        execs = self.pdl_parts().execs
        with refused_as("a WHILE node's body"):  # cuGraphInstantiate / cuGraphUpload may be where it is refused
            return execs.get(key, lambda: build()[0])

    def until_exec(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> GraphExec:
        key = ("until", float(np.float32(threshold)), int(max_iterations), int(probe))
        return self._exec(key, lambda: self.build_until(threshold, max_iterations, probe))

    def if_exec(self) -> GraphExec:
        return self._exec(("if",), self.build_if)

    def step_exec(self) -> GraphExec:
        """The chain plus the counting kernel (not setting any condition): one iteration of the Python-driven loop."""
        def build():
            step = Launch(self.kernels["conditional"],
                          PackedArgs(("u64", "ptr", "u64", "i32"), (0, self.state, _NO_LIMIT, 0)),
                          _DECIDE, self.chain.stream)
            self._keep.append(step.args)
            return capture_launches(self.chain.stream, [*self.chain.launches, step]), {}

        return self._exec(("step",), build)

    # --- running and checking ----------------------------------------------------------------------------------
    def fresh(self) -> None:
        """Fresh random inputs, poisoned outputs, and a poisoned loop state (the reset node must clear it)."""
        self.chain.randomize()
        self.chain.poison()
        self.state.poison()  # the graph's memset node must clear it: a stale count cannot pass

    def run_while(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
                  how: str = "capture") -> LoopCheck:
        """One launch of the WHILE graph (``fold``: the folded body; ``pdl``, ``every``, ``how`` as in
        build_while) on fresh inputs; the body must run ``iterations`` times, bit-exact output."""
        exe = self.while_exec(iterations, fold, pdl, every, how)
        self.fresh()
        exe.launch(self.chain.stream)
        got = self.read_state().count
        if pdl or every != 1:
            from .while_pdl import while_label

            kind = while_label(bool(pdl), int(every))
        else:
            kind = "WHILE folded" if fold else "WHILE"
        return LoopCheck(kind, int(iterations), got, self.chain.check_result("graph"))

    def run_until(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> LoopCheck:
        """One launch of the threshold loop; it must stop where NumPy predicts, with a bit-exact output."""
        exe = self.until_exec(threshold, max_iterations, probe)
        self.fresh()
        exe.launch(self.chain.stream)
        got = self.read_state()
        want, want_acc = predict_until(self.chain.expected(), threshold, min(probe, self.chain.n), max_iterations)
        out = self.chain.check_result("graph")
        if out.ok and got.count == want and np.float32(got.acc).view(np.uint32) != np.float32(want_acc).view(
                np.uint32):
            out = Verification("WHILE threshold total", 1, 1, 0, got.acc, want_acc)
        return LoopCheck("WHILE threshold", want, got.count, out)

    def run_if(self, flag: bool) -> LoopCheck:
        """One launch of the IF graph with the flag set or clear: the chain runs once, or its output stays poisoned."""
        exe = self.if_exec()
        self.chain.randomize()
        self.chain.poison()
        self.set_flag(flag)
        exe.launch(self.chain.stream)
        got = self.chain.result("graph")
        if flag:
            out = compare_bits("IF set", got, self.chain.expected())
        else:
            poison = np.full(self.chain.n, POISON_BITS, dtype=np.uint32).view(np.float32)
            out = compare_bits("IF clear (output untouched)", got, poison)
        ran = 0 if (got.view(np.uint32) == POISON_BITS).all() else 1
        return LoopCheck("IF set" if flag else "IF clear", 1 if flag else 0, ran, out)

    def run_host_loop(self, iterations: int) -> int:
        """The same loop driven from Python: per iteration, launch the step graph, copy the state back to pinned
        host memory, wait, and decide on the host. Returns the iterations run (enqueues and waits)."""
        n = positive_int("iterations", iterations)
        exe = self.step_exec()
        launch, copy, sync = driver_fn("cuGraphLaunch"), driver_fn("cuMemcpyDtoHAsync"), driver_fn(
            "cuStreamSynchronize")
        h, s = exe.handle, self.chain.stream.handle
        dst, src, nbytes, counter = self._host.ptr, self.state.handle, self._host.nbytes, self._host.count
        cu("cuMemsetD32Async", src, 0, _STATE_WORDS, s)
        count = 0
        while count < n:  # the host's decision, from the counter the GPU wrote
            r = launch(h, s)
            if r[0]:
                check(r, "cuGraphLaunch")
            r = copy(dst, src, nbytes, s)
            if r[0]:
                check(r, "cuMemcpyDtoHAsync")
            r = sync(s)
            if r[0]:
                check(r, "cuStreamSynchronize")
            count = counter[0]
        return count

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
