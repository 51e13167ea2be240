"""Floor 3, the experiment: the add/mul/sub/relu chain on core and graphs.

ops (op table, NumPy reference, fused source, bit-exact verification), runners (the one hot loop and the executable
cache), chain_buffers (fresh inputs, poison, reference and bit-exact check: the base of every chain variant that owns
its buffers), chain (buffers, inputs, launches), then the chain in each graph lesson: build (explicit nodes), update,
forkjoin, pdl, conditional; graph_report (what ``cugraphlab graph`` shows); doctor_gallery (capture mistakes the
doctor names, one per case); scaling (graphs of a given shape, line or fork/join, for ``cugraphlab scaling``).
"""
from __future__ import annotations

from .._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "build": ("build_chain_graph", "build_chain_graph_nodes"),
    "chain": ("Chain", "chain_kernels"),
    "chain_buffers": ("ChainBuffers", "random_inputs"),
    "conditional": ("ConditionalGraphs", "LoopCheck", "LoopState", "build_while_graph", "conditional_graphs",
        "predict_until", "CAPTURE_WAYS"),
    "forkjoin": ("ForkJoin", "ForkJoinCheck"),
    "graph_report": ("GRAPH_MODES", "GraphReport", "inspect_chain_graph"),
    "kernel_set": ("CompileReport", "compile_kernel_set"),
    "branches": ("BranchCheck", "BranchGraphs", "ChainVariant", "branch_graphs", "chain_variants", "predict_sign",
        "sizes_for", "load_branch_kernels"),
    "memchain": ("AddressReuse", "MemChain", "topology_check", "MEMCHAIN_SHAPES", "SHAPE_TEXT"),
    "graph_pool_lessons": ("PhysicalReuse", "UnfreedDemo", "demonstrate_unfreed", "physical_reuse"),
    "switch_views": ("SWITCH_VIEW_MODES", "inspect_mode"),
    "doctor_gallery": ("CASES", "run_gallery"),
    "doctor_gallery_field": ("run_field_gallery",),
    "scaling": ("ScalingWorkload", "ScalingShape"),
    "device_loop": ("DeviceLoop", "DeviceLoopCheck", "DeviceLoopState", "device_loop", "load_devlaunch_kernels",
        "predict_loop"),
    "cold_l2": ("ColdFused",),
    "nodes": ("EventPair", "NodeCheck", "ToggleChain", "check_clone", "check_events", "check_host", "check_join",
        "check_nested", "check_priority", "check_toggle", "refused_instantiate"),
    "ops": ("CHAIN_KERNELS", "DEFAULT_OPS", "FUSED_PER_GRAPH", "MODES", "OPS", "Verification", "compare_bits",
        "fused_source", "parse_ops", "reference"),
    "pdl": ("PdlChain", "load_pdl_kernels"),
    "runners": ("Runner",),
    "update": ("ChainGraph", "Inputs", "UpdateDemo", "demonstrate_refused_update", "demonstrate_updates",
        "fresh_inputs"),
})
