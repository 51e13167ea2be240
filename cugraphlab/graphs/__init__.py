"""Floor 2, the CUDA graph API, one concept per module, in the order of the lessons in examples/:

exec (a graph, its executable form, cached executables), capture (stream capture, fork/join across streams),
doctor (which call broke a capture, from which line, and the fix),
build (explicit nodes), update (new parameters for an instantiated graph), conditional (WHILE/IF nodes),
pdl (programmatic dependent launch), inspect (topology, text view, DOT); handles (what every function accepts as a
graph: ``GraphLike``, ``as_handle``). No workload and no timer here.
"""
from .capture_into import (add_conditional_to_capture, capture_handle, capture_into, capturing_graph,
                           require_capture_into)
from .conditional import (MAX_SWITCH_BODIES, add_conditional_bodies, add_if_else_node, add_switch_node, bodies_of,
                          conditional_node_params, require_conditional_branches)
from .memory import (Allocation, GraphMemFootprint, GraphMemoryError, MemoryGraph, MemoryGraphExec, SecondExecError,
                     UnfreedAllocationError, add_alloc_node, add_free_node, alloc_async, alloc_node_info,
                     alloc_node_params, auto_free_flag, free_async, free_node_address, graph_mem_footprint,
                     require_graph_memory, reset_graph_mem_high, trim_graph_mem)
from .device_launch import (DEVICE_STREAMS, DeviceGraphError, DeviceGraphExec, DeviceLaunchError, check_device_graph,
                            instantiate_for_device_launch, require_device_launch)
from .update import DirectExecUpdate
from .child import add_child_graph_node, child_graph_of, clone_graph, find_in_clone
from .controls import (InstantiateError, instantiate_flags, instantiate_with_params, is_enabled, node_priority,
                       priority_range, set_enabled, set_node_priority)
from .events import add_event_record_node, add_event_wait_node, add_timed_sequence, segment_ms
from .host import HostCallback, add_host_node, launch_host_func
from .join import add_empty_node
from .build import add_copy_node, add_kernel_node, add_launch_sequence, add_memset_node, kernel_node_params
from .capture import capture, capture_launches, fork, join
from .doctor import MISTAKES, Diagnosis, Doctor, Finding, explain_all, explaining
from .doctor_cupti import CuptiBusyError, cupti_available
from .conditional import add_conditional_node, conditional_options, create_handle, cuda_include_dir, require_conditional
from .exec import ExecCache, Graph, GraphExec, ready_exec, run_once
from .handles import GraphLike, as_handle
from .inspect import (
    GraphView,
    Topology,
    edge_kinds,
    graph_view,
    kernel_nodes_in_order,
    node_kind,
    render_text,
    same_topology,
    write_dot,
)
from .pdl import PDL_OPTIONS, programmatic_edge_count, require_pdl
from .update import UpdateReport, set_kernel_params, try_exec_update

__all__ = [
    "DirectExecUpdate",
    "DEVICE_STREAMS", "DeviceGraphError", "DeviceGraphExec", "DeviceLaunchError", "check_device_graph",
    "instantiate_for_device_launch", "require_device_launch",
    "add_conditional_to_capture", "capture_handle", "capture_into", "capturing_graph", "require_capture_into",
    "MAX_SWITCH_BODIES", "add_conditional_bodies", "add_if_else_node", "add_switch_node", "bodies_of",
    "conditional_node_params", "require_conditional_branches",
    "Allocation", "GraphMemFootprint", "GraphMemoryError", "MemoryGraph", "MemoryGraphExec", "SecondExecError",
    "UnfreedAllocationError", "add_alloc_node", "add_free_node", "alloc_async", "alloc_node_info", "alloc_node_params",
    "auto_free_flag", "free_async", "free_node_address", "graph_mem_footprint", "require_graph_memory",
    "reset_graph_mem_high", "trim_graph_mem",
    "add_child_graph_node", "child_graph_of", "clone_graph", "find_in_clone",
    "InstantiateError", "instantiate_flags", "instantiate_with_params", "is_enabled", "node_priority",
    "priority_range", "set_enabled", "set_node_priority",
    "add_event_record_node", "add_event_wait_node", "add_timed_sequence", "segment_ms",
    "HostCallback", "add_host_node", "launch_host_func",
    "add_empty_node",
    "add_copy_node", "add_kernel_node", "add_launch_sequence", "add_memset_node", "kernel_node_params",
    "capture", "capture_launches", "fork", "join",
    "Diagnosis", "Doctor", "Finding", "MISTAKES", "explain_all", "explaining", "CuptiBusyError", "cupti_available",
    "add_conditional_node", "conditional_options", "create_handle", "cuda_include_dir", "require_conditional",
    "ExecCache", "Graph", "GraphExec", "ready_exec", "run_once",
    "GraphLike", "as_handle",
    "GraphView", "Topology", "edge_kinds", "graph_view", "kernel_nodes_in_order", "node_kind", "render_text",
    "same_topology", "write_dot",
    "PDL_OPTIONS", "programmatic_edge_count", "require_pdl",
    "UpdateReport", "set_kernel_params", "try_exec_update",
]
