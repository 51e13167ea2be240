"""Event nodes: a graph records an event, or waits for one, as a step of its own.

An event record node does what ``cuEventRecord`` does on a stream, each time the graph reaches it; an event wait node
does what ``cuStreamWaitEvent`` does: the nodes after it wait for the work the event last captured. So two graphs
launched on two streams can hand work to each other without the host in between::

    ev = cuEventCreate(CU_EVENT_DISABLE_TIMING)            # or timing, to read elapsed times (below)
    cuGraphAddEventRecordNode(graph1, [mul_node], 1, ev)   # graph 1: add -> mul -> record(ev)
    cuGraphAddEventWaitNode(graph2, [], 0, ev)             # graph 2: wait(ev) -> sub -> relu
    cuGraphLaunch(exec1, stream_a); cuGraphLaunch(exec2, stream_b)   # graph 2's sub waits for graph 1's mul

Launch order matters as it does for streams: the wait refers to the record that was enqueued last when graph 2 is
launched, so launch graph 1 first.

Event record nodes with timing events also time a graph from the inside: a record node before and after each kernel
(``add_timed_sequence``), one launch, then ``cuEventElapsedTime`` between consecutive events gives each kernel's
device time as the graph ran it. Events are not owned by the graph: the caller (``core.stream.Event``) keeps them
open as long as the graph or an exec of it exists (``Graph.keep_alive`` does that here). CUDA Driver API, "Graph
Management" and "Event Management".
"""
from __future__ import annotations

from ..core._calls import cu
from .build import add_kernel_node
from .handles import as_handle

__all__ = ["add_event_record_node", "add_event_wait_node", "add_timed_sequence", "segment_us", "event_of_node"]


def _keep(graph, event) -> None:
    keep = getattr(graph, "keep_alive", None)
    if keep is not None:
        keep(event)


def add_event_record_node(graph, event, deps=()):
    """Add a node recording ``event`` after ``deps`` (cuGraphAddEventRecordNode). A Graph keeps the Event open
    while it (or an exec of it) exists.

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph the node is added to.
    event : Event
        The event to record (core.stream.Event).
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).

    Returns
    -------
    CUgraphNode
        The new node.

    Raises
    ------
    CudaError
        cuGraphAddEventRecordNode failed.

    See Also
    --------
    cuGraphAddEventRecordNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1ga7f6dcb109f4b7470ce6b067d39974a4
    """
    deps = list(deps)
    node = cu("cuGraphAddEventRecordNode", as_handle(graph), deps or None, len(deps), event.handle)
    _keep(graph, event)
    return node


def add_event_wait_node(graph, event, deps=()):
    """Add a node waiting for ``event`` after ``deps`` (cuGraphAddEventWaitNode).

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph the node is added to.
    event : Event
        The event to wait for (core.stream.Event).
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).

    Returns
    -------
    CUgraphNode
        The new node.

    Raises
    ------
    CudaError
        cuGraphAddEventWaitNode failed.

    See Also
    --------
    cuGraphAddEventWaitNode : CUDA Driver API,
        https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__GRAPH.html#group__CUDA__GRAPH_1g7306f3bcbec3406d80e110cd13405c5e
    """
    deps = list(deps)
    node = cu("cuGraphAddEventWaitNode", as_handle(graph), deps or None, len(deps), event.handle)
    _keep(graph, event)
    return node


def event_of_node(node):
    """The event handle of an event record or wait node (cuGraphEventRecordNodeGetEvent / ...WaitNodeGetEvent).

    Parameters
    ----------
    node : CUgraphNode
        An event record or event wait node.

    Returns
    -------
    CUevent
        The event the node records or waits for.

    Raises
    ------
    ValueError
        Not an event node.
    CudaError
        The query failed.
    """
    from .inspect import node_kind

    kind = node_kind(node)
    if kind == "EVENT_RECORD":
        return cu("cuGraphEventRecordNodeGetEvent", node)
    if kind == "WAIT_EVENT":
        return cu("cuGraphEventWaitNodeGetEvent", node)
    raise ValueError(f"not an event node: {kind}")


def add_timed_sequence(graph, launches, events, deps=()) -> tuple[list, list]:
    """Kernel nodes for ``launches`` in order, with an event record node before the first and after each one.

    After a launch has finished, ``segment_us(events)`` gives each kernel's device time.

    Parameters
    ----------
    graph : Graph or CUgraph
        The graph the node is added to.
    launches : sequence of Launch
        In the order they run.
    events : sequence of Event
        len(launches) + 1 timing Events.
    deps : sequence of CUgraphNode, optional
        The nodes it depends on (none: a root node).

    Returns
    -------
    tuple of list
        (kernel nodes, record nodes): record[i] -> kernel[i] -> record[i + 1].

    Raises
    ------
    ValueError
        Not one more event than launches.
    CudaError
        Adding a node failed.
    """
    launches = list(launches)
    if len(events) != len(launches) + 1:
        raise ValueError(f"{len(launches)} launches need {len(launches) + 1} events, got {len(events)}")
    records = [add_event_record_node(graph, events[0], deps)]
    kernels = []
    for launch, event in zip(launches, events[1:]):
        kernels.append(add_kernel_node(graph, launch, [records[-1]]))
        records.append(add_event_record_node(graph, event, [kernels[-1]]))
    return kernels, records


def segment_us(events) -> list[float]:
    """Device microseconds between consecutive events (cuEventElapsedTime, which the driver gives in ms with about
    0.5 µs resolution), once the last one has completed.

    Parameters
    ----------
    events : sequence of Event
        Recorded in this order (by a launch of ``add_timed_sequence``'s graph).

    Returns
    -------
    list of float
        len(events) - 1 device times in µs.

    Raises
    ------
    CudaError
        An event was never recorded, or a timing=False event.
    """
    events[-1].synchronize()
    return [a.elapsed_us(b) for a, b in zip(events, events[1:])]
