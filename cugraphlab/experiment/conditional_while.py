"""The WHILE node around the chain (experiment.conditional): a counted loop, and a loop the GPU's numbers stop.

    parent graph:  MEMSET (zero the loop state) -> CONDITIONAL (WHILE, handle h, default value 1)
    body graph:    KERNEL add -> KERNEL mul -> KERNEL sub -> KERNEL relu -> KERNEL conditional(h, state, N)

``WhileLoop`` counts: the last body kernel counts the iteration in device memory and sets the condition to
``count < N``; folded (``fold=True``), relu itself decides (cond_relu), with PDL edges and K iterations per decision
as experiment.while_pdl builds them; and the same loop driven from Python (``run_host``), one graph launch, one
copy back and one wait per iteration. ``ThresholdLoop`` adds the sum of the first outputs to a running total and
stops once it reaches a threshold, a stopping point only the GPU's numbers decide; NumPy predicts it
(``predict_until``).
"""
from __future__ import annotations

import numpy as np

from ..core._calls import cu, driver_fn
from ..core.errors import InvalidArgumentError, check, positive_int
from ..core.launch import Launch, PackedArgs
from ..graphs.build import add_launch_sequence
from ..graphs.capture import capture_launches
from ..graphs.exec import Graph, GraphExec
from .conditional_state import DECIDE, NO_LIMIT, STATE_WORDS, ConditionalState, LoopCheck, predict_until
from .ops import Verification
from .while_pdl import STEP_KERNEL, WHILE_FOLD_KERNEL

__all__ = ["WhileLoop", "ThresholdLoop"]


class WhileLoop:
    """The counted WHILE graph over ``state``: built, kept as an executable, run and checked; and its twin driven
    from Python."""

    def __init__(self, state: ConditionalState):
        self.state = state

    def counted_graph(self, n: int) -> tuple[Graph, object]:
        """(graph, body) of the plain counted loop: the chain then `conditional` counting to ``n``."""
        return self.state.decided_while("conditional", ("ptr", "u64", "i32"), (self.state.state, n, 1))

    def folded_launches(self, handle, iterations: int) -> list[Launch]:
        """The chain's launches with the last one, relu, replaced by cond_relu: relu plus the counted loop's
        decision (count < ``iterations``) on handle ``handle``, same grid and block. The chain must end in relu."""
        s = self.state
        n = positive_int("iterations", iterations)
        name, signature, args = s.chain.op_args()[-1]
        if name != "relu":
            raise InvalidArgumentError(f"the folded WHILE body needs a chain ending in relu, got "
                                       f"{','.join(s.chain.ops)}")
        fold = s.keep(Launch(s.kernels[WHILE_FOLD_KERNEL], PackedArgs((*signature, "u64", "ptr", "u64"),
                                                                      (*args, int(handle), s.state, n)),
                             s.chain.config, s.chain.stream))
        return [*s.chain.launches[:-1], fold]

    def _shell_filled(self, fill) -> tuple[Graph, object]:
        """(graph, body): the WHILE shell, its body filled by ``fill(handle, body)``."""
        graph = Graph(self.state.device)
        try:
            handle, body = self.state.while_shell(graph)
            fill(handle, body)
        except BaseException:
            graph.close()
            raise
        return graph, body

    def _folded_graph(self, n: int) -> tuple[Graph, object]:
        """(graph, body): reset node -> WHILE node whose body is add -> mul -> sub -> cond_relu."""
        ctx = self.state.device.context
        return self._shell_filled(lambda handle, body: add_launch_sequence(body, self.folded_launches(handle, n),
                                                                           ctx=ctx))

    def _folded_variant(self, n: int, pdl: bool, every: int, how: str) -> tuple[Graph, dict]:
        """The folded body with ``every`` chains per decision, ``pdl``: joined by programmatic edges."""
        from .while_pdl import body_launches, body_text, check_every, fill_body, while_label

        s = self.state
        n, every = check_every(n, every)
        graph, body = self._shell_filled(
            lambda handle, body: fill_body(s, body, body_launches(s, handle, n, every, pdl), pdl, how))
        try:
            text = body_text(body, pdl)
        except BaseException:
            graph.close()
            raise
        step = WHILE_FOLD_KERNEL if every == 1 else STEP_KERNEL
        info = s.finish(graph, while_label(pdl, every), body, {
            "iterations": n, "fold": True, "pdl": pdl, "every": every, "how": how, "body_edges": text,
            "stop": f"the body's last kernel `{step}` does relu, then block 0 counts {every} iteration"
                    f"{'s' if every > 1 else ''} in device memory and sets the condition; stops at {n}"
                    + (f" (decision every {every} iterations: exact only for multiples of {every})"
                       if every > 1 else ""),
        })[1]
        return graph, info

    def build(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
              how: str = "capture") -> tuple[Graph, dict]:
        """A graph whose WHILE node runs the chain exactly ``iterations`` times per launch (counted on the GPU);
        the arguments as ``ConditionalGraphs.build_while``."""
        n = positive_int("iterations", iterations)
        if (pdl or every != 1) and not fold:
            raise InvalidArgumentError("PDL edges and a decision every K iterations are built for the folded body "
                                       "only: pass fold=True")
        if fold and (pdl or every != 1):
            return self._folded_variant(n, bool(pdl), every, how)
        if fold:
            graph, body = self._folded_graph(n)
            return self.state.finish(graph, "WHILE folded", body, {
                "iterations": n, "fold": True,
                "stop": f"the body's last kernel `{WHILE_FOLD_KERNEL}` does relu, then block 0 counts iterations in "
                        f"device memory and sets the condition; stops at {n}",
            })
        graph, body = self.counted_graph(n)
        return self.state.finish(graph, "WHILE", body, {
            "iterations": n, "fold": False,
            "stop": f"decide kernel `conditional` counts iterations in device memory; stops at {n}",
        })

    def exec(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
             how: str = "capture") -> GraphExec:
        """The graph of ``build`` (same arguments), instantiated and uploaded once, then kept."""
        s = self.state
        if not (pdl or every != 1):
            return s.exec_of(("while", int(iterations), bool(fold)), lambda: self.build(iterations, fold))
        build = lambda: self.build(iterations, fold, pdl, every, how)  # noqa: E731
        key = ("while", int(iterations), bool(fold), bool(pdl), int(every), how)
        if not pdl:
            return s.exec_of(key, build)
        from ..graphs.pdl_edges import refused_as

        execs = s.pdl_parts().execs
        with refused_as("a WHILE node's body"):  # cuGraphInstantiate / cuGraphUpload may be where it is refused
            return execs.get(key, lambda: build()[0])

    def run(self, iterations: int, fold: bool = False, pdl: bool = False, every: int = 1,
            how: str = "capture") -> LoopCheck:
        """One launch on fresh inputs; the body must run ``iterations`` times, bit-exact output."""
        s = self.state
        exe = self.exec(iterations, fold, pdl, every, how)
        s.fresh()
        exe.launch(s.chain.stream)
        got = s.read_state().count
        if pdl or every != 1:
            from .while_pdl import while_label

            kind = while_label(bool(pdl), int(every))
        else:
            kind = "WHILE folded" if fold else "WHILE"
        return LoopCheck(kind, int(iterations), got, s.chain.check_result("graph"))

    # --- the same loop driven from Python --------------------------------------------------------------------------
    def step_exec(self) -> GraphExec:
        """The chain plus the counting kernel (not setting any condition): one iteration of the Python-driven loop."""
        s = self.state

        def build():
            step = s.keep(Launch(s.kernels["conditional"],
                                 PackedArgs(("u64", "ptr", "u64", "i32"), (0, s.state, NO_LIMIT, 0)),
                                 DECIDE, s.chain.stream))
            return capture_launches(s.chain.stream, [*s.chain.launches, step]), {}

        return s.exec_of(("step",), build)

    def run_host(self, iterations: int) -> int:
        """Per iteration, launch the step graph, copy the state back to pinned host memory, wait, and decide on the
        host. Returns the iterations run (enqueues and waits)."""
        s = self.state
        n = positive_int("iterations", iterations)
        exe = self.step_exec()
        launch, copy, sync = driver_fn("cuGraphLaunch"), driver_fn("cuMemcpyDtoHAsync"), driver_fn(
            "cuStreamSynchronize")
        h, st = exe.handle, s.chain.stream.handle
        dst, src, nbytes, counter = s._host.ptr, s.state.handle, s._host.nbytes, s._host.count
        cu("cuMemsetD32Async", src, 0, STATE_WORDS, st)
        count = 0
        while count < n:  # the host's decision, from the counter the GPU wrote
            r = launch(h, st)
            if r[0]:
                check(r, "cuGraphLaunch")
            r = copy(dst, src, nbytes, st)
            if r[0]:
                check(r, "cuMemcpyDtoHAsync")
            r = sync(st)
            if r[0]:
                check(r, "cuStreamSynchronize")
            count = counter[0]
        return count


class ThresholdLoop:
    """The WHILE graph over ``state`` that stops once the running total of the first outputs reaches a threshold."""

    def __init__(self, state: ConditionalState):
        self.state = state

    def build(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> tuple[Graph, dict]:
        """A WHILE graph that stops once the running total of the first ``probe`` outputs reaches ``threshold``."""
        s = self.state
        limit = positive_int("max_iterations", max_iterations)
        probe = min(positive_int("probe", probe), s.chain.n)
        thr = np.float32(threshold)
        if not np.isfinite(thr):
            raise InvalidArgumentError(f"threshold must be a finite float32, got {threshold!r}")
        graph, body = s.decided_while("cond_until", ("ptr", "ptr", "u64", "f32", "u64", "i32"),
                                      (s.state, s.chain.out, probe, float(thr), limit, 1))
        return s.finish(graph, "WHILE threshold", body, {
            "threshold": float(thr), "probe": probe, "max_iterations": limit,
            "stop": f"decide kernel `cond_until` adds sum(out[:{probe}]) to a total; stops once it reaches "
                    f"{float(thr):g} (or after {limit} iterations)",
        })

    def exec(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> GraphExec:
        key = ("until", float(np.float32(threshold)), int(max_iterations), int(probe))
        return self.state.exec_of(key, lambda: self.build(threshold, max_iterations, probe))

    def run(self, threshold: float, max_iterations: int = 100_000, probe: int = 32) -> LoopCheck:
        """One launch; it must stop where NumPy predicts, with a bit-exact output."""
        s = self.state
        exe = self.exec(threshold, max_iterations, probe)
        s.fresh()
        exe.launch(s.chain.stream)
        got = s.read_state()
        want, want_acc = predict_until(s.chain.expected(), threshold, min(probe, s.chain.n), max_iterations)
        out = s.chain.check_result("graph")
        if out.ok and got.count == want and np.float32(got.acc).view(np.uint32) != np.float32(want_acc).view(
                np.uint32):
            out = Verification("WHILE threshold total", 1, 1, 0, got.acc, want_acc)
        return LoopCheck("WHILE threshold", want, got.count, out)
