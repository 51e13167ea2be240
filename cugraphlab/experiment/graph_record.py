"""One graph shown by ``cugraphlab graph``: the record every graph mode returns (graph_report for the chain's
modes, node_views and switch_views for the node and branch lessons), and the one-launch check they share."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..graphs.exec import run_once
from ..graphs.inspect import GraphView, write_dot

__all__ = ["GraphReport", "run_graph_once"]


@dataclass
class GraphReport:
    """One graph shown: title, its view (nodes in dependency order, edges), what was checked, and the DOT path."""

    mode: str
    title: str
    view: GraphView
    notes: list[str] = field(default_factory=list)
    dot_path: str | None = None
    ok: bool = True


def run_graph_once(chain, graph):
    """Fresh inputs, poisoned outputs, one launch of ``graph`` on the chain's stream, bit-exact check."""
    chain.randomize()
    chain.poison()
    run_once(graph, chain.stream)
    return chain.check_result("graph")


def _dot(graph, dot) -> str | None:
    return str(write_dot(graph, dot)) if dot else None
