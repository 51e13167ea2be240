"""Floor 2, the CUDA graph API, one concept per module, in the order of the examples (examples/NN_*.py; each names
the course notebook that teaches the same, in the course's own order):

exec (a graph, its executable form, cached executables), capture (stream capture, fork/join across streams),
doctor/ (which call broke a capture, from which line, and the fix; doctor.stacks: the same for the captures PyTorch,
CuPy and cuda.core make; field_gallery: the mistakes of public threads, one script each),
build (explicit nodes), update (new parameters for an instantiated graph), conditional (WHILE/IF nodes),
pdl (programmatic dependent launch), inspect (topology, text view, DOT); handles (what every function accepts as a
graph: ``GraphLike``, ``as_handle``). No workload and no timer here.
"""
from __future__ import annotations

from .._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "capture_into": ("add_conditional_to_capture", "capture_handle", "capture_into", "capturing_graph",
        "require_capture_into"),
    "conditional": ("MAX_SWITCH_BODIES", "add_conditional_bodies", "add_if_else_node", "add_switch_node",
        "bodies_of", "conditional_node_params", "require_conditional_branches", "add_conditional_node",
        "conditional_options", "create_handle", "cuda_include_dir", "require_conditional"),
    "memory": ("Allocation", "GraphMemFootprint", "GraphMemoryError", "MemoryGraph", "MemoryGraphExec",
        "SecondExecError", "UnfreedAllocationError", "add_alloc_node", "add_free_node", "alloc_async",
        "alloc_node_info", "alloc_node_params", "auto_free_flag", "free_async", "free_node_address",
        "graph_mem_footprint", "require_graph_memory", "reset_graph_mem_high", "trim_graph_mem"),
    "device_launch": ("DEVICE_STREAMS", "DeviceGraphError", "DeviceGraphExec", "DeviceLaunchError",
        "check_device_graph", "instantiate_for_device_launch", "require_device_launch"),
    "update": ("DirectExecUpdate", "UpdateReport", "set_kernel_params", "try_exec_update"),
    "child": ("add_child_graph_node", "child_graph_of", "clone_graph", "find_in_clone"),
    "controls": ("InstantiateError", "instantiate_flags", "instantiate_with_params", "is_enabled", "node_priority",
        "priority_range", "set_enabled", "set_node_priority"),
    "events": ("add_event_record_node", "add_event_wait_node", "add_timed_sequence", "segment_us"),
    "host": ("HostCallback", "add_host_node", "launch_host_func"),
    "join": ("add_empty_node",),
    "build": ("add_copy_node", "add_kernel_node", "add_launch_sequence", "add_memset_node", "kernel_node_params"),
    "capture": ("capture", "capture_launches", "fork", "join"),
    "doctor": ("MISTAKES", "Diagnosis", "Doctor", "Finding", "explain_all", "explaining"),
    "doctor.cupti": ("CuptiBusyError", "cupti_available"),
    "doctor.stacks": ("explain_events",),
    "doctor.watch": ("watching_stacks",),
    "field_gallery": ("field_case", "recorded_events"),
    "exec": ("ExecCache", "Graph", "GraphExec", "ready_exec", "run_once"),
    "handles": ("GraphLike", "as_handle"),
    "inspect": ("GraphView", "Topology", "edge_kinds", "graph_view", "kernel_nodes_in_order", "node_kind",
        "render_text", "same_topology", "write_dot"),
    "pdl": ("PDL_OPTIONS", "programmatic_edge_count", "require_pdl"),
})
