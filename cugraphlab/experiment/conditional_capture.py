"""The counted WHILE graph made by stream capture instead of node by node (experiment.conditional, graphs.capture_into).

``into="body"`` captures the chain's launches into the body the node made (cuStreamBeginCaptureToGraph);
``into="parent"`` captures the parent too and adds the conditional node during that capture (cuStreamGetCaptureInfo,
cuGraphAddNode, cuStreamUpdateCaptureDependencies), the body on a second stream, as the CUDA Programming Guide
shows. Both have the built graph's topology (``same_as_built``).
"""
from __future__ import annotations

from ..core._calls import cu
from ..core.errors import InvalidArgumentError, positive_int
from ..core.launch import Launch, PackedArgs
from ..graphs.capture import capture
from ..graphs.capture_into import add_conditional_to_capture, capture_handle, capture_into, require_capture_into
from ..graphs.exec import Graph, GraphExec
from ..graphs.inspect import same_topology
from .conditional_state import CAPTURE_WAYS, DECIDE, STATE_WORDS, ConditionalState, LoopCheck

__all__ = ["CapturedWhile"]


class CapturedWhile:
    """The WHILE graph of ``WhileLoop`` over ``state``, made by stream capture: built, compared, run and checked."""

    def __init__(self, state: ConditionalState):
        self.state = state

    def _capture_launches(self, stream, handle, n: int) -> list[Launch]:
        """The chain's launches and the counting decision on ``stream`` (the chain's own stream or a second one)."""
        s = self.state
        launches = [launch if launch.stream is stream else Launch(launch.kernel, launch.args, launch.config, stream)
                    for launch in s.chain.launches]
        decide = s.keep(Launch(s.kernels["conditional"], PackedArgs(("u64", "ptr", "u64", "i32"), (int(handle),
                               s.state, n, 1)), DECIDE, stream))
        return [*launches, decide]

    def _into_body(self, n: int) -> tuple[Graph, object]:
        s = self.state
        graph = Graph(s.device)
        try:
            handle, body = s.while_shell(graph)
            launches = self._capture_launches(s.chain.stream, handle, n)
            with capture_into(s.chain.stream, body):  # the body is the node's: ending the capture hands it back
                for launch in launches:
                    launch()
        except BaseException:
            graph.close()
            raise
        return graph, body

    def _into_parent(self, n: int) -> tuple[Graph, object]:
        s = self.state
        stream, ctx = s.chain.stream, s.device.context
        side = s.side_stream()
        with capture(stream) as cap:
            cu("cuMemsetD32Async", s.state.handle, 0, STATE_WORDS, stream.handle)  # captured: the reset node
            handle = capture_handle(stream, ctx, default=1)
            _node, (body,) = add_conditional_to_capture(stream, "WHILE", handle, ctx, 1)
            launches = self._capture_launches(side, handle, n)
            with capture_into(side, body):  # one stream, one capture: the body goes through a second stream
                for launch in launches:
                    launch()
        return cap.graph, body

    def graph(self, n: int, into: str) -> tuple[Graph, object]:
        """(graph, body) captured ``into`` the body or the parent."""
        if into not in CAPTURE_WAYS:
            raise InvalidArgumentError(f"capture into must be one of {', '.join(CAPTURE_WAYS)}, got {into!r}")
        require_capture_into()
        return self._into_body(n) if into == "body" else self._into_parent(n)

    def build(self, iterations: int, into: str = "body") -> tuple[Graph, dict]:
        """The captured WHILE graph; the caller owns the Graph, the body stays the node's."""
        n = positive_int("iterations", iterations)
        graph, body = self.graph(n, into)
        how = {"body": "the body captured into (cuStreamBeginCaptureToGraph)",
               "parent": "parent captured; node added during the capture; body captured on a second stream"}[into]
        return self.state.finish(graph, "WHILE captured", body, {"iterations": n, "captured": into, "how": how})

    def same_as_built(self, iterations: int, into: str = "body") -> tuple[bool, str]:
        """Whether the captured WHILE graph (parent and body) has the built one's topology, and the comparison."""
        s = self.state
        n = positive_int("iterations", iterations)
        built, built_body = s.decided_while("conditional", ("ptr", "u64", "i32"), (s.state, n, 1))
        try:
            captured, captured_body = self.graph(n, into)
            try:
                same_parent, parent_text = same_topology(built, captured)
                same_body, body_text = same_topology(built_body, captured_body)
            finally:
                captured.close()
        finally:
            built.close()
        return same_parent and same_body, f"parent: {parent_text}; body: {body_text}"

    def exec(self, iterations: int, into: str = "body") -> GraphExec:
        return self.state.exec_of(("while-captured", into, int(iterations)), lambda: self.build(iterations, into))

    def run(self, iterations: int, into: str = "body") -> LoopCheck:
        """One launch on fresh inputs: ``iterations`` body runs, bit-exact output."""
        s = self.state
        exe = self.exec(iterations, into)
        s.fresh()
        exe.launch(s.chain.stream)
        got = s.read_state().count
        return LoopCheck(f"WHILE captured ({into})", int(iterations), got, s.chain.check_result("graph"))
