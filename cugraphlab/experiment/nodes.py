"""The chain on the other node families: host nodes, event nodes, child graphs, empty joins, node controls.

Each builder takes a ``Chain`` and returns a Graph the caller owns (and the nodes a lesson needs); each ``check_*``
runs it on fresh random inputs with poisoned outputs and compares bit for bit with NumPy:

* ``host_chain_graph``: add -> mul -> HOST -> sub -> relu, the host node a Python or C callback (explicit node, or
  ``cuLaunchHostFunc`` captured between the launches); the callback must have run once per launch.
* ``event_pair``: graph 1 (add -> mul -> record ev) on one stream, graph 2 (wait ev -> sub -> relu) on another.
* ``timed_chain_graph``: an event record node around every kernel; each kernel's device time from one launch.
* ``nested_chain_graph``: the chain as a child graph node of a parent; ``check_clone``: a clone of the chain whose
  mul node (found with cuGraphNodeFindInClone) gets another scalar, beside the untouched original.
* ``joined_chain_graph``: memset nodes poisoning every output, joined by one empty node before the chain.
* ``toggle_chain_graph``: the chain with mul *in place* (t1 *= s), so with mul disabled (cuGraphNodeSetEnabled) the
  graph computes relu((x + y) - y): NumPy of the chain without mul, checked as such; enabled again, the full chain.
* ``priority_chain_graph``: kernel nodes with a priority attribute, instantiated with USE_NODE_PRIORITY.
* ``refused_instantiate``: the host-node chain instantiated for device launch, which the driver refuses: the error
  names the host node and CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core._calls import cu
from ..core.errors import InvalidArgumentError
from ..core.launch import Launch, PackedArgs
from ..graphs.build import add_launch_sequence, add_memset_node, kernel_node_params
from ..graphs.capture import capture
from ..graphs.child import add_child_graph_node, child_graph_of, clone_graph, find_in_clone
from ..graphs.controls import (
    InstantiateError,
    instantiate_flags,
    instantiate_with_params,
    is_enabled,
    node_priority,
    priority_range,
    set_enabled,
    set_node_priority,
)
from ..graphs.events import add_event_record_node, add_event_wait_node, add_timed_sequence, segment_us
from ..graphs.exec import Graph
from ..graphs.host import HostCallback, add_host_node, launch_host_func
from ..graphs.join import add_empty_node
from .ops import DEFAULT_OPS, OPS, Verification, compare_bits, reference

__all__ = ["NodeCheck", "make_callback", "host_chain_graph", "check_host", "EventPair", "check_events",
           "timed_chain_graph", "chain_segments", "nested_chain_graph", "check_nested", "check_clone",
           "joined_chain_graph", "check_join", "toggle_chain_graph", "toggle_launches", "toggle_expected", "ToggleChain",
           "check_toggle", "chain_graph_nodes",
           "priority_chain_graph", "check_priority", "refused_instantiate", "CALLBACK_KINDS", "LESSONS"]

CALLBACK_KINDS = ("python", "c")
LESSONS = ("host", "event", "child", "controls")


@dataclass
class NodeCheck:
    """What one lesson's run showed: its checks (bit-exact or not) and facts worth printing."""

    lesson: str
    checks: list[Verification] = field(default_factory=list)
    facts: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks) and not self.facts.get("problems")

    def __str__(self) -> str:
        lines = [f"{self.lesson}: {'ok' if self.ok else 'FAILED'}"] + [f"  {c}" for c in self.checks]
        lines += [f"  {k}: {v}" for k, v in self.facts.items()]
        return "\n".join(lines)


def _graph(chain, build) -> Graph:
    graph = Graph(chain.device)
    try:
        build(graph)
        return graph
    except BaseException:
        graph.close()
        raise


def _run(chain, exe, launches: int = 1) -> None:
    for _ in range(launches):
        exe.launch(chain.stream)
    chain.stream.synchronize()


def _fresh(chain) -> None:
    chain.randomize()
    chain.poison()


def _require_default(chain) -> None:
    if tuple(chain.ops) != DEFAULT_OPS:
        raise InvalidArgumentError(f"this lesson needs the chain {','.join(DEFAULT_OPS)}, got {','.join(chain.ops)}")


# --- host nodes ---------------------------------------------------------------------------------------------------
def make_callback(kind: str, fn=None) -> HostCallback:
    """A HostCallback of ``kind``: "python" (a trampoline calling ``fn``) or "c" (the compiled C counter)."""
    if kind == "python":
        return HostCallback.python(fn)
    if kind == "c":
        return HostCallback.c_counter()
    raise InvalidArgumentError(f"callback kind must be one of {', '.join(CALLBACK_KINDS)}, got {kind!r}")


def host_chain_graph(chain, callback: HostCallback, how: str = "explicit", after: int = 1) -> Graph:
    """The chain with a host node calling ``callback`` after op ``after`` (default 1: between mul and sub).

    ``how``: "explicit" (cuGraphAddKernelNode / cuGraphAddHostNode) or "capture" (the launches and
    cuLaunchHostFunc on the chain's stream, captured). The Graph keeps the callback alive.
    """
    launches = list(chain.launches)
    if not 0 <= after < len(launches) - 1:
        raise InvalidArgumentError(f"the host node goes between two ops: after must be 0..{len(launches) - 2}")
    if how == "capture":
        with capture(chain.stream) as cap:
            for i, launch in enumerate(launches):
                launch()
                if i == after:
                    launch_host_func(chain.stream, callback, owner=cap)
        return cap.graph
    if how != "explicit":
        raise InvalidArgumentError(f"how must be 'explicit' or 'capture', got {how!r}")

    def build(graph):
        first = add_launch_sequence(graph, launches[: after + 1])
        host = add_host_node(graph, callback, [first[-1]])
        add_launch_sequence(graph, launches[after + 1:], [host])

    return _graph(chain, build)


def check_host(chain, kinds=CALLBACK_KINDS, hows=("explicit", "capture"), launches: int = 3) -> NodeCheck:
    """Each callback kind, as an explicit host node and captured: bit-exact, and called once per launch."""
    result = NodeCheck("host")
    problems = []
    for kind in kinds:
        for how in hows:
            with make_callback(kind) as cb:
                graph = host_chain_graph(chain, cb, how)
            # the callback object is closed: the graph (and the exec after it) keep its trampoline alive
            with graph, graph.instantiate() as exe:
                trampoline = exe.kept[0]
                _fresh(chain)
                _run(chain, exe, launches)
                result.checks.append(compare_bits(f"host {kind} {how}", chain.out.to_numpy(stream=chain.stream),
                                                  chain.expected()))
                result.facts[f"{kind} {how} calls"] = f"{trampoline.calls} of {launches}"
                if trampoline.calls != launches:
                    problems.append(f"{kind} {how}: {trampoline.calls} calls for {launches} launches")
                if trampoline.errors:
                    problems.append(f"{kind} {how}: the callback raised {trampoline.errors[0]!r}")
    if problems:
        result.facts["problems"] = problems
    return result


# --- event nodes --------------------------------------------------------------------------------------------------
class EventPair:
    """Two graphs on two streams, synchronised by one event: graph 1 = add -> mul -> record(ev) on the chain's
    stream, graph 2 = wait(ev) -> sub -> relu on ``other`` (a stream this object owns unless given)."""

    def __init__(self, chain, other=None):
        _require_default(chain)
        self.chain = chain
        self._owned = []
        self.event = self._own(chain.device.create_event(timing=False))
        self.other = other or self._own(chain.device.create_stream())
        launches = list(chain.launches)
        try:
            def first(graph):
                nodes = add_launch_sequence(graph, launches[:2])
                add_event_record_node(graph, self.event, [nodes[-1]])

            def second(graph):
                wait = add_event_wait_node(graph, self.event)
                add_launch_sequence(graph, launches[2:], [wait])

            self.graphs = (_graph(chain, first), _graph(chain, second))
            self.execs = tuple(self._own(g.instantiate()) for g in self.graphs)
        except BaseException:
            self.close()
            raise

    def _own(self, resource):
        self._owned.append(resource)
        return resource

    def run(self) -> None:
        """Launch graph 1 on the chain's stream, then graph 2 on the other stream, and wait for the other."""
        self.execs[0].launch(self.chain.stream)
        self.execs[1].launch(self.other)
        self.other.synchronize()

    def close(self) -> None:
        for r in reversed(getattr(self, "graphs", ())):
            r.close()
        while self._owned:
            self._owned.pop().close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def timed_chain_graph(chain, events) -> Graph:
    """The chain with an event record node before the first kernel and after each (graphs.events)."""
    return _graph(chain, lambda graph: add_timed_sequence(graph, chain.launches, events))


def chain_segments(chain) -> dict[str, float]:
    """Each op's device microseconds in one launch of the chain's graph, read from event record nodes."""
    events = [chain.device.create_event() for _ in range(len(chain.launches) + 1)]
    try:
        with timed_chain_graph(chain, events) as graph, graph.instantiate() as exe:
            exe.upload(chain.stream)
            _run(chain, exe)  # a warm-up launch: the first one pays for loading
            _run(chain, exe)
            us = segment_us(events)
        return {f"{i}:{name}": v for i, (name, v) in enumerate(zip(chain.ops, us))}
    finally:
        for e in events:
            e.close()


def check_events(chain) -> NodeCheck:
    """The two-graph event hand-off bit-exact, and the per-kernel segment times of a timed graph."""
    result = NodeCheck("event")
    with EventPair(chain) as pair:
        for i in range(2):
            _fresh(chain)
            pair.run()
            result.checks.append(compare_bits(f"event pair #{i + 1}", chain.out.to_numpy(stream=pair.other),
                                              chain.expected()))
    _fresh(chain)
    segments = chain_segments(chain)
    result.checks.append(compare_bits("timed graph", chain.out.to_numpy(stream=chain.stream), chain.expected()))
    result.facts["segments us"] = ", ".join(f"{k} {v:.2f}" for k, v in segments.items())
    return result


# --- child graphs and clones --------------------------------------------------------------------------------------
def chain_graph_nodes(chain) -> tuple[Graph, list]:
    """The chain built explicitly; (Graph, kernel nodes in order)."""
    nodes = []
    graph = _graph(chain, lambda g: nodes.extend(add_launch_sequence(g, chain.launches)))
    return graph, nodes


def nested_chain_graph(chain, depth: int = 1) -> Graph:
    """The chain ``depth`` levels deep in child graph nodes: parent -> child -> ... -> the chain's kernels."""
    inner, _ = chain_graph_nodes(chain)
    try:
        for _ in range(depth):
            outer = Graph(chain.device)
            try:
                add_child_graph_node(outer, inner)  # the driver copies inner into the node
            except BaseException:
                outer.close()
                raise
            inner.close()
            inner = outer
        return inner
    except BaseException:
        inner.close()
        raise


def check_nested(chain) -> NodeCheck:
    """Flat and nested chain graphs, both bit-exact; the embedded graph read back has the chain's four kernels."""
    result = NodeCheck("child")
    flat, _ = chain_graph_nodes(chain)
    with flat, nested_chain_graph(chain) as nested:
        child = nested.nodes()[0]
        inner = child_graph_of(child)
        from ..graphs.inspect import graph_nodes, node_kind

        result.facts["child node kind"] = node_kind(child)
        result.facts["kernels in the embedded graph"] = len(graph_nodes(inner))
        if len(graph_nodes(inner)) != len(chain.launches):
            result.facts["problems"] = ["the embedded graph does not hold the chain's kernels"]
        for name, graph in (("flat", flat), ("nested", nested)):
            with graph.instantiate() as exe:
                _fresh(chain)
                _run(chain, exe)
                result.checks.append(compare_bits(f"child {name}", chain.out.to_numpy(stream=chain.stream),
                                                  chain.expected()))
    return result


def _scalar_launch(chain, op_index: int, scalar: float) -> Launch:
    name, sig, args = chain.op_args()[op_index]
    args = tuple(scalar if kind == "f32" else v for kind, v in zip(sig, args))
    return Launch(chain.kernels[name], PackedArgs(sig, args), chain.config, chain.stream)


def check_clone(chain, scalar: float = 3.0) -> NodeCheck:
    """cuGraphClone of the chain; the clone's mul node, found with cuGraphNodeFindInClone, gets ``scalar``
    (cuGraphKernelNodeSetParams): the clone computes the chain with ``scalar``, the original still with its own."""
    _require_default(chain)
    result = NodeCheck("clone")
    original, nodes = chain_graph_nodes(chain)
    with original, clone_graph(original) as clone:
        twin = find_in_clone(nodes[1], clone)
        launch = _scalar_launch(chain, 1, scalar)
        cu("cuGraphKernelNodeSetParams", twin, kernel_node_params(launch))  # copied now: launch may go
        result.facts["twin differs from the original node"] = int(twin) != int(nodes[1])
        for name, graph, s in (("clone", clone, scalar), ("original", original, chain.scalar)):
            with graph.instantiate() as exe:
                _fresh(chain)
                _run(chain, exe)
                expected = reference(chain.ops, chain.x_host, chain.y_host, s)
                result.checks.append(compare_bits(f"{name} (mul {s:g})", chain.out.to_numpy(stream=chain.stream),
                                                  expected))
    return result


# --- empty nodes as join points -----------------------------------------------------------------------------------
def joined_chain_graph(chain) -> tuple[Graph, object]:
    """Memset nodes poisoning every output (roots), one empty node joining them, then the chain; (Graph, join)."""
    out = {}

    def build(graph):
        memsets = [add_memset_node(graph, a) for a in {id(a): a for a in [*chain.outs]}.values()]
        out["join"] = add_empty_node(graph, memsets)
        add_launch_sequence(graph, chain.launches, [out["join"]])

    graph = _graph(chain, build)
    return graph, out["join"]


def check_join(chain) -> NodeCheck:
    """The joined graph bit-exact with inputs fresh and outputs *not* poisoned by the host (the graph does it),
    after the outputs were left holding a previous run's correct values for other inputs."""
    result = NodeCheck("join")
    graph, join = joined_chain_graph(chain)
    with graph, graph.instantiate() as exe:
        chain.randomize()
        _run(chain, exe)  # leaves valid results of other inputs in the outputs
        chain.randomize()
        _run(chain, exe)
        result.checks.append(compare_bits("empty join", chain.out.to_numpy(stream=chain.stream), chain.expected()))
        from ..graphs.inspect import edge_pairs

        into = sum(1 for a, b in edge_pairs(graph) if int(b) == int(join))
        result.facts["edges into the join"] = into
    return result


# --- node controls ------------------------------------------------------------------------------------------------
def _op_launch(chain, name: str, dst, src) -> Launch:
    op = OPS[name]
    if op.reads_y:
        args = (dst, src, chain.y, chain.n)
    elif op.uses_scalar:
        args = (dst, src, chain.scalar, chain.n)
    else:
        args = (dst, src, chain.n)
    return Launch(chain.kernels[name], PackedArgs(op.signature, args), chain.config, chain.stream)


def toggle_launches(chain) -> list[Launch]:
    """add -> t1; mul t1 *= s in place; sub t1 - y -> t3; relu -> out: mul can be switched off."""
    _require_default(chain)
    t1, t3, out = chain.outs[0], chain.outs[2], chain.outs[3]
    return [_op_launch(chain, "add", t1, chain.x), _op_launch(chain, "mul", t1, t1),
            _op_launch(chain, "sub", t3, t1), _op_launch(chain, "relu", out, t3)]


def toggle_chain_graph(chain) -> tuple[Graph, list, list]:
    """(Graph, kernel nodes, the launches they hold) of the in-place-mul chain."""
    launches = toggle_launches(chain)
    nodes = []
    graph = _graph(chain, lambda g: nodes.extend(add_launch_sequence(g, launches)))
    return graph, nodes, launches


def toggle_expected(chain, mul_enabled: bool) -> np.ndarray:
    """NumPy of the chain on the chain's current inputs, with or without its mul."""
    ops = DEFAULT_OPS if mul_enabled else tuple(op for op in DEFAULT_OPS if op != "mul")
    return reference(ops, chain.x_host, chain.y_host, chain.scalar)


class ToggleChain:
    """The in-place-mul chain instantiated, with its mul node to switch off and on."""

    def __init__(self, chain):
        self.chain = chain
        self.graph, self.nodes, self.launches = toggle_chain_graph(chain)
        try:
            self.exe = self.graph.instantiate()
        except BaseException:
            self.graph.close()
            raise
        self.mul = self.nodes[1]

    def set_mul(self, enabled: bool) -> None:
        set_enabled(self.exe, self.mul, enabled)

    def expected(self, mul_enabled: bool) -> np.ndarray:
        return toggle_expected(self.chain, mul_enabled)

    def close(self) -> None:
        self.exe.close()
        self.graph.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def check_toggle(chain) -> NodeCheck:
    """Enabled, disabled, enabled again: each bit-exact against NumPy of the chain it should compute."""
    result = NodeCheck("controls")
    with ToggleChain(chain) as t:
        for step, enabled in (("enabled", True), ("mul disabled", False), ("re-enabled", True)):
            t.set_mul(enabled)
            result.facts[f"cuGraphNodeGetEnabled ({step})"] = int(is_enabled(t.exe, t.mul))
            _fresh(chain)
            _run(chain, t.exe)
            got = chain.out.to_numpy(stream=chain.stream)
            result.checks.append(compare_bits(f"toggle {step}", got, t.expected(enabled)))
        # the disabled run is not the full chain (a check that could not fail would prove nothing)
        t.set_mul(False)
        _fresh(chain)
        _run(chain, t.exe)
        differs = compare_bits("x", chain.out.to_numpy(stream=chain.stream), t.expected(True)).mismatches
        result.facts["elements where mul-disabled differs from the full chain"] = differs
        if differs == 0:
            result.facts["problems"] = ["disabling mul changed nothing"]
        t.set_mul(True)
    return result


def priority_chain_graph(chain, priority: int) -> tuple[Graph, list]:
    """The chain with every kernel node's priority attribute set to ``priority``."""
    graph, nodes = chain_graph_nodes(chain)
    try:
        for node in nodes:
            set_node_priority(node, priority)
    except BaseException:
        graph.close()
        raise
    return graph, nodes


def check_priority(chain) -> NodeCheck:
    """Nodes at the greatest priority, instantiated with USE_NODE_PRIORITY (+ UPLOAD in the same call)."""
    result = NodeCheck("priority")
    least, greatest = priority_range()
    graph, nodes = priority_chain_graph(chain, greatest)
    with graph:
        result.facts["priority range (least, greatest)"] = (least, greatest)
        result.facts["node priorities"] = [node_priority(n) for n in nodes]
        flags = instantiate_flags("use_node_priority")
        with instantiate_with_params(graph, flags, upload_stream=chain.stream) as exe:
            _fresh(chain)
            _run(chain, exe)
            result.checks.append(compare_bits("priority graph", chain.out.to_numpy(stream=chain.stream),
                                              chain.expected()))
    return result


def refused_instantiate(chain) -> InstantiateError | None:
    """The host-node chain instantiated for device launch: the InstantiateError the driver's refusal raises (None
    if it was accepted, which would be a surprise worth reporting)."""
    with HostCallback.python() as cb, host_chain_graph(chain, cb) as graph:
        try:
            exe = instantiate_with_params(graph, instantiate_flags("device_launch"))
        except InstantiateError as e:
            return e
        exe.close()
        return None
