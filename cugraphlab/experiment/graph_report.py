"""What ``cugraphlab graph`` looks at: the chain's graph made one way (captured, built, fork/join, WHILE loop),
compared with the other way where there is one, run once on fresh inputs and checked. Returns a record; the text is
report.graphs' job."""
from __future__ import annotations

from ..core.device import Device
from ..core.errors import InvalidArgumentError
from ..graphs.inspect import graph_view, same_topology
from .build import build_chain_graph
from .chain import Chain
from .conditional import build_while_graph
from .forkjoin import ForkJoin
from .graph_record import GraphReport, _dot, run_graph_once

__all__ = ["GRAPH_MODES", "GraphReport", "inspect_chain_graph", "run_graph_once"]

#: capture .. while-captured: the chain and its control flow; host .. devlaunch: the node lessons' graphs
#: (experiment.node_views: host nodes, event record/wait, child graph, empty join, graph memory nodes, device launch).
GRAPH_MODES = ("capture", "explicit", "forkjoin", "while", "ifelse", "switch", "while-captured",
               "host", "events", "child", "join", "memory", "devlaunch")
_NODE_MODES = ("host", "events", "child", "join", "memory", "devlaunch")  # experiment.node_views.NODE_VIEW_MODES


def inspect_chain_graph(mode: str, ops, size: int, device: int = 0, unroll: int = 1,
                        dot: str | None = None) -> GraphReport:
    """The chain's graph in ``mode`` (one of GRAPH_MODES), checked; ``dot``: also write the driver's DOT file there
    (cuGraphDebugDotPrint). ``unroll``: chain iterations in the graph (the loop's iterations for while; the device
    loops' for devlaunch). The node modes (host .. devlaunch) are experiment.node_views'; devlaunch raises
    UnsupportedError (one line) where device graph launch cannot work."""
    if mode not in GRAPH_MODES:
        raise InvalidArgumentError(f"unknown graph mode {mode!r}; modes: {', '.join(GRAPH_MODES)}")
    if mode in ("ifelse", "switch", "while-captured"):  # the conditional-branch lessons draw their own graphs
        from .switch_views import inspect_mode

        return inspect_mode(mode, ops, size, device, dot=dot)
    if mode in _NODE_MODES:  # the node lessons' graphs, each built by its lesson
        from .node_views import inspect_node_mode

        return inspect_node_mode(mode, ops, size, device, dot=dot, unroll=unroll)
    with Device(device) as dev:
        if mode == "forkjoin":
            with ForkJoin(dev, ops1=ops, n=size) as fj, fj.capture() as graph:
                check = fj.check(graph)
                title = (f"cugraphlab graph: fork/join of {fj.describe()}, {fj.n:,} float32; captured on two "
                         f"streams joined by events (cuEventRecord + cuStreamWaitEvent)")
                notes = [f"branches joined: the join node has {check.join_predecessors} predecessors",
                         f"run once on fresh inputs with poisoned outputs: {check.verification}"]
                return GraphReport(mode, title, graph_view(graph), notes, _dot(graph, dot), check.ok)
        if mode == "while":
            graph, info = build_while_graph(device=dev, ops=ops, size=size, iterations=unroll)
            with graph:
                title = f"cugraphlab graph: WHILE conditional node, {unroll} iterations"
                notes = ["  ".join(f"{k}: {v}" for k, v in info.items())]
                return GraphReport(mode, title, graph_view(graph), notes, _dot(graph, dot), True)
        with Chain(dev, ops, n=size) as chain, chain.capture(unroll) as captured, \
                build_chain_graph(chain, unroll=unroll) as built:
            shown = captured if mode == "capture" else built
            how = ("stream capture (cuStreamBeginCapture ... cuStreamEndCapture)" if mode == "capture"
                   else "explicit construction (cuGraphCreate + cuGraphAddKernelNode)")
            title = f"cugraphlab graph: {chain.describe()}, unroll {unroll}, built by {how}"
            same, diff = same_topology(captured, built)
            v = run_graph_once(chain, shown)
            notes = [f"captured vs explicitly built: {diff}",
                     f"run once on fresh inputs with poisoned outputs: {v}"]
            return GraphReport(mode, title, graph_view(shown), notes, _dot(shown, dot), same and v.ok)
