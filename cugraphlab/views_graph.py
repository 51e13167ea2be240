"""What ``cugraphlab graph`` and ``cugraphlab update`` print, built from the graph modules' results.

Each function returns ``(text, ok)``: ``ok`` is False when a result was not bit-exact (or two graphs that must
match did not), so the command can exit non-zero.
"""
from __future__ import annotations

import importlib
import inspect

from .report import format_table

__all__ = ["GRAPH_MODES", "render_graph", "render_update", "run_graph_once"]

GRAPH_MODES = ("capture", "explicit", "forkjoin", "while")


def run_graph_once(chain, graph):
    """Fresh inputs, poisoned outputs, one launch of ``graph`` on the chain's stream, bit-exact check."""
    chain.randomize()
    chain.poison()
    with graph.instantiate() as exe:
        exe.upload(chain.stream)
        exe.launch(chain.stream)
        chain.stream.synchronize()
    return chain.check_result("graph")


def _dot_lines(graph, dot) -> list[str]:
    if not dot:
        return []
    from .graph_views import render_svg, write_dot

    path = write_dot(graph, dot)
    _, note = render_svg(path)
    return [f"DOT written to {path} (cuGraphDebugDotPrint)", note]


def render_graph(mode: str, ops, size: int, device: int = 0, unroll: int = 1, dot: str | None = None):
    """The text view of the chain's graph in ``mode`` (capture, explicit, forkjoin, while) and its checks."""
    from .chain import Chain
    from .driver import Device
    from .graph_views import graph_view, render_text

    if mode not in GRAPH_MODES:
        from .errors import InvalidArgumentError

        raise InvalidArgumentError(f"unknown graph mode {mode!r}; modes: {', '.join(GRAPH_MODES)}")
    with Device(device) as dev:
        if mode == "forkjoin":
            return _render_forkjoin(dev, ops, size, dot)
        if mode == "while":
            return _render_while(dev, ops, size, unroll, dot)
        from .graph_build import build_chain_graph, same_topology

        with Chain(dev, ops, n=size) as chain:
            captured = chain.capture(unroll)
            try:
                built = build_chain_graph(chain, unroll=unroll)
                try:
                    shown = captured if mode == "capture" else built
                    how = ("stream capture (cuStreamBeginCapture ... cuStreamEndCapture)" if mode == "capture"
                           else "explicit construction (cuGraphCreate + cuGraphAddKernelNode)")
                    title = f"cugraphlab graph: {chain.describe()}, unroll {unroll}, built by {how}"
                    same, diff = same_topology(captured, built)
                    v = run_graph_once(chain, shown)
                    lines = [render_text(graph_view(shown), title), "",
                             f"captured vs explicitly built: {diff}",
                             f"run once on fresh inputs with poisoned outputs: {v}"]
                    lines += _dot_lines(shown, dot)
                    return "\n".join(lines), same and v.ok
                finally:
                    built.close()
            finally:
                captured.close()


def _render_forkjoin(dev, ops, size, dot):
    from .graph_forkjoin import ForkJoin
    from .graph_views import graph_view, render_text

    with ForkJoin(dev, ops1=ops, n=size) as fj:
        with fj.capture() as graph:
            check = fj.check(graph)
            title = (f"cugraphlab graph: fork/join of {fj.describe()}, {fj.n:,} float32; captured on two streams "
                     f"joined by events (cuEventRecord + cuStreamWaitEvent)")
            lines = [render_text(graph_view(graph), title), "",
                     f"branches joined: the join node has {check.join_predecessors} predecessors",
                     f"run once on fresh inputs with poisoned outputs: {check.verification}"]
            lines += _dot_lines(graph, dot)
            return "\n".join(lines), check.ok


def _render_while(dev, ops, size, unroll, dot):
    """Ask cugraphlab.graph_conditional (written separately) for its WHILE graph, if that module exists."""
    try:
        mod = importlib.import_module("cugraphlab.graph_conditional")
        build = mod.build_while_graph
    except (ImportError, AttributeError):
        return "cugraphlab graph --mode while: not available (cugraphlab.graph_conditional is missing)", True
    from .graph_views import graph_view, render_text

    # Pass what the builder asks for by name; its exact signature belongs to that module.
    offer = {"device": dev, "dev": dev, "ops": ops, "n": size, "size": size, "iterations": unroll}
    params = inspect.signature(build).parameters
    kwargs = {k: v for k, v in offer.items() if k in params}
    missing = [k for k, p in params.items()
               if k not in kwargs and p.default is inspect.Parameter.empty
               and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if missing:
        return (f"cugraphlab graph --mode while: not available (build_while_graph needs {', '.join(missing)}, "
                f"which this command does not know how to give)"), True
    result = build(**kwargs)
    graph, info = getattr(result, "graph", result), None
    if isinstance(graph, tuple):  # (Graph, info dict)
        graph, info = graph[0], (graph[1] if len(graph) > 1 else None)
    try:
        lines = [render_text(graph_view(graph), f"cugraphlab graph: WHILE conditional node, "
                                                f"{kwargs.get('iterations', '?')} iterations (graph_conditional)")]
        if isinstance(info, dict):
            lines.append("  ".join(f"{k}: {v}" for k, v in info.items()))
        lines += _dot_lines(graph, dot)
        return "\n".join(lines), True
    finally:
        for obj in (result, graph):
            close = getattr(obj, "close", None)
            if callable(close):
                close()


def render_update(size: int, repeats: int, device: int = 0, ops="add,mul,sub,relu", seed: int | None = None):
    """The update cost table (host clock) and the demonstrations of each update path, checked against NumPy."""
    import numpy as np

    from .chain import Chain
    from .driver import Device
    from .environment import versions_line
    from .graph_update import ChainGraph, demonstrate_refused_update, fresh_inputs, measure_update_costs

    with Device(device) as dev, Chain(dev, ops, n=size, seed=seed) as chain:
        rng = np.random.default_rng(seed)
        lines = [f"cugraphlab update: {chain.describe()}, {len(chain.ops)} kernel nodes", ""]
        ok = True
        # The two in-place paths, once each, on new inputs and a new scalar.
        demo = []
        a = fresh_inputs(dev, chain.n, -3.0 * chain.scalar, rng)
        b = fresh_inputs(dev, chain.n, 0.25 * chain.scalar, rng)
        try:
            with ChainGraph(chain, "explicit") as cg:
                first = cg.check("as built")
                r1 = cg.set_params(a)
                v1 = cg.check("after set_params")
                r2 = cg.recapture(b)
                v2 = cg.check("after re-capture + update")
                demo += [f"built explicitly: {first}",
                         f"new inputs and scalar {a.scalar:g} via cuGraphExecKernelNodeSetParams: {r1}", f"  {v1}",
                         f"new inputs and scalar {b.scalar:g} via re-capture + cuGraphExecUpdate: {r2}", f"  {v2}"]
                ok &= first.ok and v1.ok and v2.ok
        finally:
            a.close()
            b.close()
        if len(chain.ops) >= 2:
            report, v3 = demonstrate_refused_update(chain, seed)
            demo += [f"re-capture with the last op dropped ({len(chain.ops) - 1} nodes): {report}", f"  {v3}"]
            ok &= v3.ok and report.refused
        costs = measure_update_costs(chain, repeats, seed=seed)
        rows = []
        names = {"set_params": "cuGraphExecKernelNodeSetParams x nodes",
                 "exec_update": "cuGraphExecUpdate (graph captured before)",
                 "recapture_update": "capture + cuGraphExecUpdate",
                 "reinstantiate": "cuGraphInstantiate + cuGraphExecDestroy",
                 "recapture_instantiate": "capture + instantiate + destroy"}
        for key, s in costs.costs.items():
            rows.append([key, names.get(key, key), f"{s.median:.2f}", f"{s.p5:.2f}-{s.p95:.2f}", s.n,
                         "bit-exact" if costs.verified[key] else "FAILED"])
        ok &= all(costs.verified.values())
        lines += demo + ["", format_table(["path", "driver calls", "us (median)", "p5-p95", "samples", "vs NumPy"],
                                          rows, align="llrrrl"), "",
                         versions_line(costs.env),
                         f"clock: {costs.clock}; one sample per update, alternating two input sets, "
                         f"after {costs.config['warmup']} warm-up updates."]
        return "\n".join(lines), ok
