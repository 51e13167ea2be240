"""The IF node around the chain (experiment.conditional): the chain runs once when a device flag is set.

    parent graph:  KERNEL cond_if_flag(h, flag) -> CONDITIONAL (IF, handle h, no default value)
    body graph:    the chain's kernels

No default value: the setter kernel upstream of the IF node decides at every launch.
"""
from __future__ import annotations

import numpy as np

from ..core.memory import POISON_BITS
from ..graphs.exec import Graph, GraphExec
from .conditional_state import ConditionalState, LoopCheck
from .ops import compare_bits

__all__ = ["IfFlag"]


class IfFlag:
    """The IF graph over ``state``: built, kept as an executable, run with the flag set or clear, and checked."""

    def __init__(self, state: ConditionalState):
        self.state = state

    def build(self) -> tuple[Graph, dict]:
        """A graph whose IF node runs the chain once when the device flag (``state.set_flag``) is non-zero."""
        s = self.state
        graph = Graph(s.device)
        try:
            handle = s.new_handle(graph.handle, default=None)
            setter = s.decide_node(graph.handle, [], "cond_if_flag", ("u64", "ptr"), (int(handle), s.flag))
            _node, body = s.conditional_node(graph.handle, [setter], "IF", handle)
            s.chain_nodes(body)
        except BaseException:
            graph.close()
            raise
        return s.finish(graph, "IF", body, {"stop": "kernel `cond_if_flag` sets the condition from the flag"})

    def exec(self) -> GraphExec:
        return self.state.exec_of(("if",), self.build)

    def run(self, flag: bool) -> LoopCheck:
        """One launch with the flag set or clear: the chain runs once, or its output stays poisoned."""
        s = self.state
        exe = self.exec()
        s.chain.randomize()
        s.chain.poison()
        s.set_flag(flag)
        exe.launch(s.chain.stream)
        got = s.chain.result("graph")
        if flag:
            out = compare_bits("IF set", got, s.chain.expected())
        else:
            poison = np.full(s.chain.n, POISON_BITS, dtype=np.uint32).view(np.float32)
            out = compare_bits("IF clear (output untouched)", got, poison)
        ran = 0 if (got.view(np.uint32) == POISON_BITS).all() else 1
        return LoopCheck("IF set" if flag else "IF clear", 1 if flag else 0, ran, out)
