"""What ``cugraphlab graph --mode ifelse|switch|while-captured`` looks at: the graph made, its bodies, every branch
run once on fresh inputs and checked. Returns a graph_record.GraphReport (the text is report.graphs' job).

- ifelse: cond_sign -> IF node with two bodies (the chain; the chain without relu), both branches forced.
- switch: cond_switch -> SWITCH node with 4 bodies (the chain, without relu, without sub, fused), every index run,
  and index 4, which runs none.
- while-captured: the WHILE graph made by stream capture, into the body and into the parent, each against the built
  one's topology, and each run (a counted loop of ``iterations``).
"""
from __future__ import annotations

from ..core.device import Device
from ..core.errors import InvalidArgumentError
from ..graphs.inspect import graph_view, write_dot
from .branches import BranchGraphs
from .chain import Chain
from .conditional import CAPTURE_WAYS, conditional_graphs
from .graph_record import GraphReport

__all__ = ["SWITCH_VIEW_MODES", "inspect_mode"]

SWITCH_VIEW_MODES = ("ifelse", "switch", "while-captured")
_SWITCH_BRANCHES = 4
_WHILE_ITERATIONS = 10


def _dot(graph, dot) -> str | None:
    return str(write_dot(graph, dot)) if dot else None


def _branch_report(mode: str, kit: BranchGraphs, dot) -> GraphReport:
    if mode == "ifelse":
        graph, info = kit.build_if_else()
        checks = [kit.run_if_else(True), kit.run_if_else(False)]
        title = (f"cugraphlab graph: IF/ELSE conditional node over {kit.chain.describe()} "
                 f"(two bodies, CUDA 12.8+); {info['decide']}")
    else:
        graph, info = kit.build_switch()
        checks = [kit.run_switch(i) for i in range(kit.count + 1)]
        title = (f"cugraphlab graph: SWITCH conditional node, {kit.count} bodies over {kit.chain.describe()} "
                 f"(CUDA 12.8+); {info['decide']}")
    with graph:
        notes = [*info["bodies"], "run once on fresh inputs with every output poisoned:",
                 *[("  ok   " if c.ok else "  FAIL ") + str(c) for c in checks]]
        return GraphReport(mode, title, graph_view(graph), notes, _dot(graph, dot), all(c.ok for c in checks))


def _captured_report(chain: Chain, dot, iterations: int) -> GraphReport:
    loops = conditional_graphs(chain)
    graph, info = loops.build_while_captured(iterations, "body")
    with graph:
        notes = [f"body ({info['how']}):", info["body"]]
        ok = True
        for into in CAPTURE_WAYS:
            same, text = loops.same_as_built(iterations, into)
            run = loops.run_while_captured(iterations, into)
            ok = ok and same and run.ok
            notes += [f"captured into the {into} vs built node by node: {text}",
                      ("  ok   " if run.ok else "  FAIL ") + str(run)]
        title = (f"cugraphlab graph: WHILE conditional node, {iterations} iterations, its body filled by stream "
                 f"capture (cuStreamBeginCaptureToGraph)")
        return GraphReport("while-captured", title, graph_view(graph), notes, _dot(graph, dot), ok)


def inspect_mode(mode: str, ops, size: int, device: int = 0, dot: str | None = None,
                 iterations: int = _WHILE_ITERATIONS) -> GraphReport:
    """The chain's graph in ``mode`` (ifelse, switch, while-captured), every branch checked once; ``dot``: also
    write the driver's DOT file (cuGraphDebugDotPrint). IF/ELSE and SWITCH need a CUDA 12.8+ driver
    (UnsupportedError, one line). Same shape as graph_report.inspect_chain_graph."""
    if mode not in SWITCH_VIEW_MODES:
        raise InvalidArgumentError(f"unknown graph mode {mode!r}; modes: {', '.join(SWITCH_VIEW_MODES)}")
    with Device(device) as dev, Chain(dev, ops, n=size) as chain:
        if mode == "while-captured":
            return _captured_report(chain, dot, iterations)
        with BranchGraphs(chain, 2 if mode == "ifelse" else _SWITCH_BRANCHES) as kit:
            return _branch_report(mode, kit, dot)
