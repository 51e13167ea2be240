"""What ``cugraphlab graph --mode host|events|child|join|memory|devlaunch`` looks at: the graph each node lesson
builds (experiment.nodes, experiment.memchain, experiment.device_loop), run once on fresh random inputs with poisoned
outputs and checked bit for bit against NumPy. Returns a graph_record.GraphReport (the text is report.graphs' job).

- host: add -> mul -> HOST -> sub -> relu, the host node a Python callback behind a ctypes trampoline
  (cuGraphAddHostNode); the same graph captured (cuLaunchHostFunc between the launches) has the same topology; each
  run once, the callback called exactly once per launch.
- events: graph 1 (add -> mul -> EVENT_RECORD) and graph 2 (WAIT_EVENT -> sub -> relu) on two streams
  (cuGraphAddEventRecordNode, cuGraphAddEventWaitNode); graph 1 is the view, graph 2 in the notes; run as a pair.
- child: the chain as one child graph node (cuGraphAddChildGraphNode) against the flat chain: the embedded copy
  (cuGraphChildGraphNodeGetGraph) has the flat graph's topology; both run.
- join: four memset nodes poisoning the outputs, one empty node joining them (cuGraphAddEmptyNode), then the chain;
  run after a run on other inputs left valid results in the outputs, with no poisoning by the host: the graph's
  memsets must do it.
- memory: the chain's intermediates allocated in the graph (cuGraphAddMemAllocNode / cuGraphAddMemFreeNode, shape
  "line": ten nodes), against the same chain captured (cuMemAllocAsync / cuMemFreeAsync); run once.
- devlaunch: the self-relaunching loop G (the chain -> dl_relaunch, instantiated for device launch) as the view;
  the work graph W and the host launcher L in the notes; the self loop, the scheduler loop, a fire-and-forget and
  a tail launch run once each. Device graph launch needs nvJitLink, libcudadevrt.a and a supported architecture:
  where one is missing, UnsupportedError (one line, exit 2).
"""
from __future__ import annotations

from pathlib import Path

from ..core.device import Device
from ..core.errors import InvalidArgumentError
from ..graphs.child import child_graph_of
from ..graphs.host import HostCallback
from ..graphs.inspect import edge_pairs, graph_view, render_text, same_topology, write_dot
from .chain import Chain
from .graph_record import GraphReport
from .ops import compare_bits

__all__ = ["NODE_VIEW_MODES", "inspect_node_mode", "companion_dot"]

NODE_VIEW_MODES = ("host", "events", "child", "join", "memory", "devlaunch")
_DEVICE_LOOP_ITERATIONS = 10  # the device-driven loops' iterations when --unroll is left at 1


def _dot(graph, dot) -> str | None:
    return str(write_dot(graph, dot)) if dot else None


def companion_dot(dot, tag: str) -> Path:
    """Where a mode's second graph's DOT goes beside ``dot``: graph.dot -> graph_<tag>.dot."""
    p = Path(dot)
    return p.with_name(f"{p.stem}_{tag}{p.suffix or '.dot'}")


def _line(check) -> str:
    return ("  ok   " if check.ok else "  FAIL ") + str(check)


def _fresh(chain) -> None:
    chain.randomize()
    chain.poison()


def _run_once(chain, graph):
    """One launch of ``graph`` (instantiated here) on fresh inputs with poisoned outputs; the bit-exact check."""
    with graph.instantiate() as exe:
        _fresh(chain)
        exe.launch(chain.stream)
        chain.stream.synchronize()
    return chain.out.to_numpy(stream=chain.stream)


# --- host ---------------------------------------------------------------------------------------------------------
def _host_report(chain, dot) -> GraphReport:
    from .nodes import host_chain_graph

    notes, ok = [], True
    with HostCallback.python() as cb:
        explicit = host_chain_graph(chain, cb, "explicit")
        with explicit:
            captured = host_chain_graph(chain, cb, "capture")
            with captured:
                same, text = same_topology(explicit, captured)
                ok = same
                notes.append(f"built (cuGraphAddHostNode) vs captured (cuLaunchHostFunc): {text}")
                for how, graph in (("explicit", explicit), ("captured", captured)):
                    before = cb.trampoline.calls
                    check = compare_bits(f"host node {how}", _run_once(chain, graph), chain.expected())
                    calls = cb.trampoline.calls - before
                    errors = list(cb.trampoline.errors)
                    ok = ok and check.ok and calls == 1 and not errors
                    notes += [_line(check), f"         the Python callback ran {calls} time(s) in one launch "
                                            f"(expected 1)" + (f"; it raised {errors[0]!r}" if errors else "")]
            title = (f"cugraphlab graph: host node between mul and sub, {chain.describe()}; a Python callback "
                     f"behind a ctypes trampoline (cuGraphAddHostNode)")
            notes.insert(0, "the graph keeps the trampoline alive: the callback may be closed once the node exists")
            return GraphReport("host", title, graph_view(explicit), notes, _dot(explicit, dot), ok)


# --- events -------------------------------------------------------------------------------------------------------
def _events_report(chain, dot) -> GraphReport:
    from .nodes import EventPair

    with EventPair(chain) as pair:
        first, second = pair.graphs
        notes = ["graph 2 (launched on a second stream after graph 1; its wait node waits for graph 1's record):",
                 render_text(graph_view(second))]
        if dot:
            notes.append(f"graph 2's DOT written to {write_dot(second, companion_dot(dot, 'wait'))}")
        checks = []
        for i in range(2):
            _fresh(chain)
            pair.run()
            checks.append(compare_bits(f"event pair, run {i + 1}", chain.out.to_numpy(stream=pair.other),
                                       chain.expected()))
        notes += ["run on fresh inputs with poisoned outputs (graph 1 on stream A, graph 2 on stream B):",
                  *[_line(c) for c in checks]]
        title = (f"cugraphlab graph: graph 1 of two synchronised by an event, {chain.describe()} "
                 f"(cuGraphAddEventRecordNode; graph 2: cuGraphAddEventWaitNode)")
        return GraphReport("events", title, graph_view(first), notes, _dot(first, dot), all(c.ok for c in checks))


# --- child --------------------------------------------------------------------------------------------------------
def _child_report(chain, dot) -> GraphReport:
    from .nodes import chain_graph_nodes, nested_chain_graph

    flat, _nodes = chain_graph_nodes(chain)
    with flat, nested_chain_graph(chain) as nested:
        (child,) = nested.nodes()
        same, text = same_topology(child_graph_of(child), flat)
        notes = [f"the embedded copy (cuGraphChildGraphNodeGetGraph) vs the flat chain: {text}",
                 "flat graph:", render_text(graph_view(flat))]
        if dot:
            notes.append(f"the flat graph's DOT written to {write_dot(flat, companion_dot(dot, 'flat'))}")
        checks = [compare_bits(f"{name} graph", _run_once(chain, g), chain.expected())
                  for name, g in (("flat", flat), ("nested", nested))]
        notes += ["run once each on fresh inputs with poisoned outputs:", *[_line(c) for c in checks]]
        title = (f"cugraphlab graph: {chain.describe()} as one child graph node (cuGraphAddChildGraphNode), "
                 f"flat vs nested")
        return GraphReport("child", title, graph_view(nested), notes, _dot(nested, dot),
                           same and all(c.ok for c in checks))


# --- join ---------------------------------------------------------------------------------------------------------
def _join_report(chain, dot) -> GraphReport:
    from .nodes import joined_chain_graph

    graph, join = joined_chain_graph(chain)
    with graph, graph.instantiate() as exe:
        into = sum(1 for _a, b in edge_pairs(graph) if int(b) == int(join))
        out_of = sum(1 for a, _b in edge_pairs(graph) if int(a) == int(join))
        chain.randomize()
        exe.launch(chain.stream)  # leaves valid results of other inputs in every output
        chain.stream.synchronize()
        chain.randomize()  # fresh inputs; the outputs are *not* poisoned by the host: the graph's memsets do it
        exe.launch(chain.stream)
        check = compare_bits("empty join", chain.out.to_numpy(stream=chain.stream), chain.expected())
        notes = [f"edges into the empty node: {into} (one per memset); out of it: {out_of} (the chain's first "
                 f"kernel). M groups above and K below need M x K edges joined directly, M + K through an "
                 f"empty node",
                 "run after a run on other inputs left valid results in the outputs (no host poisoning):",
                 _line(check)]
        title = (f"cugraphlab graph: memset nodes poisoning every output joined by one empty node "
                 f"(cuGraphAddEmptyNode), then {chain.describe()}")
        return GraphReport("join", title, graph_view(graph), notes, _dot(graph, dot),
                           check.ok and into == len({id(a) for a in chain.outs}) and out_of == 1)


# --- memory -------------------------------------------------------------------------------------------------------
def _memory_report(dev, ops, size, dot) -> GraphReport:
    from .memchain import MemChain

    with MemChain(dev, size, ops=ops, shape="line", how="explicit") as built, \
            MemChain(dev, size, ops=ops, shape="line", how="capture", kernels=built.kernels,
                     stream=built.stream) as captured:
        same, text = same_topology(built.graph, captured.graph)
        checks = [built.verify(), captured.verify()]
        reuse = built.address_reuse()
        notes = [f"built (cuGraphAddMemAllocNode / cuGraphAddMemFreeNode) vs captured (cuMemAllocAsync / "
                 f"cuMemFreeAsync): {text}",
                 f"virtual-address reuse inside the graph: {reuse}",
                 "run once each on fresh inputs with the output poisoned (x, y, out preallocated; the "
                 "intermediates exist only while the graph runs):", *[_line(c) for c in checks]]
        title = f"cugraphlab graph: graph memory nodes, {built.describe()}"
        return GraphReport("memory", title, graph_view(built.graph), notes, _dot(built.graph, dot),
                           same and all(c.ok for c in checks))


# --- device graph launch ------------------------------------------------------------------------------------------
def _devlaunch_report(chain, dot, iterations: int) -> GraphReport:
    from .device_loop import device_loop

    kit = device_loop(chain)  # UnsupportedError (one line) where device graph launch cannot work
    graph = kit.build_self(iterations)
    with graph:
        view = graph_view(graph)
        dot_path = _dot(graph, dot)
    work = kit.build_work()
    with work:
        work_text = render_text(graph_view(work))
    launcher = kit.build_launcher(kit.work_exec(), "tail")
    with launcher:
        launcher_text = render_text(graph_view(launcher))
    checks = [kit.run_loop("self", iterations), kit.run_loop("scheduler", iterations),
              kit.run_launch("fire_and_forget"), kit.run_launch("tail")]
    notes = [f"device graph launch: {kit.note}",
             "the work graph W (instantiated for device launch; what dl_schedule and dl_launch launch):", work_text,
             "the host graph L that launches W from its kernel (here as a tail launch):", launcher_text,
             f"run once each on fresh inputs with poisoned outputs ({iterations} iterations per loop):",
             *[_line(c) for c in checks]]
    title = (f"cugraphlab graph: a device-launched loop G over {chain.describe()}: the chain, then dl_relaunch "
             f"tail-launches G itself (cudaGetCurrentGraphExec) while fewer than {iterations} iterations ran")
    return GraphReport("devlaunch", title, view, notes, dot_path, all(c.ok for c in checks))


def inspect_node_mode(mode: str, ops, size: int, device: int = 0, dot: str | None = None,
                      unroll: int = 1) -> GraphReport:
    """The chain's graph in ``mode`` (one of NODE_VIEW_MODES), built by its lesson, run once and checked;
    ``dot``: also write the driver's DOT file (cuGraphDebugDotPrint) there (and a mode's second graph beside it,
    ``companion_dot``). ``unroll``: the device loops' iterations in devlaunch (10 when left at 1). Same shape as
    graph_report.inspect_chain_graph."""
    if mode not in NODE_VIEW_MODES:
        raise InvalidArgumentError(f"unknown graph mode {mode!r}; modes: {', '.join(NODE_VIEW_MODES)}")
    with Device(device) as dev:
        if mode == "memory":
            return _memory_report(dev, ops, size, dot)
        with Chain(dev, ops, n=size) as chain:
            if mode == "host":
                return _host_report(chain, dot)
            if mode == "events":
                return _events_report(chain, dot)
            if mode == "child":
                return _child_report(chain, dot)
            if mode == "join":
                return _join_report(chain, dot)
            return _devlaunch_report(chain, dot, unroll if unroll > 1 else _DEVICE_LOOP_ITERATIONS)
