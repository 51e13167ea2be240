"""Floor 3, the experiment: the add/mul/sub/relu chain on core and graphs.

ops (op table, NumPy reference, fused source, bit-exact verification), runners (the one hot loop and the executable
cache), chain (buffers, inputs, launches), then the chain in each graph lesson: build (explicit nodes), update,
forkjoin, pdl, conditional; graph_report (what ``cugraphlab graph`` shows); doctor_gallery (capture mistakes the
doctor names, one per case); scaling (graphs of a given shape, line or fork/join, for ``cugraphlab scaling``).
"""
from .build import build_chain_graph, build_chain_graph_nodes
from .chain import Chain, chain_kernels
from .conditional import ConditionalGraphs, LoopCheck, LoopState, build_while_graph, conditional_graphs, predict_until
from .forkjoin import ForkJoin, ForkJoinCheck
from .graph_report import GRAPH_MODES, GraphReport, inspect_chain_graph
from .kernel_set import CompileReport, compile_kernel_set
from .branches import BranchCheck, BranchGraphs, ChainVariant, branch_graphs, chain_variants, predict_sign, sizes_for
from .branches import load_branch_kernels
from .conditional import CAPTURE_WAYS
from .memchain import (AddressReuse, MemChain, PhysicalReuse, UnfreedDemo, demonstrate_unfreed, physical_reuse,
                       topology_check)
from .switch_views import SWITCH_VIEW_MODES, inspect_mode
from .doctor_gallery import CASES, run_gallery
from .scaling import ScalingWorkload
from .scaling import Shape as ScalingShape
from .device_loop import DeviceLoop, DeviceLoopCheck, DeviceLoopState, device_loop, load_devlaunch_kernels, predict_loop
from .cold_l2 import ColdFused
from .memchain import MEMCHAIN_SHAPES, SHAPE_TEXT
from .nodes import (EventPair, NodeCheck, ToggleChain, check_clone, check_events, check_host, check_join,
                    check_nested, check_priority, check_toggle, refused_instantiate)
from .ops import (
    CHAIN_KERNELS,
    DEFAULT_OPS,
    FUSED_PER_GRAPH,
    MODES,
    OPS,
    Verification,
    compare_bits,
    fused_source,
    parse_ops,
    reference,
)
from .pdl import PdlChain, load_pdl_kernels
from .runners import Runner
from .update import ChainGraph, Inputs, UpdateDemo, demonstrate_refused_update, demonstrate_updates, fresh_inputs

__all__ = [
    "CASES", "run_gallery",
    "ScalingShape", "ScalingWorkload",
    "ColdFused", "MEMCHAIN_SHAPES", "SHAPE_TEXT",
    "DeviceLoop", "DeviceLoopCheck", "DeviceLoopState", "device_loop", "load_devlaunch_kernels", "predict_loop",
    "BranchCheck", "BranchGraphs", "ChainVariant", "branch_graphs", "chain_variants", "predict_sign", "sizes_for",
    "load_branch_kernels", "CAPTURE_WAYS",
    "AddressReuse", "MemChain", "PhysicalReuse", "UnfreedDemo", "demonstrate_unfreed", "physical_reuse",
    "topology_check", "SWITCH_VIEW_MODES", "inspect_mode",
    "EventPair", "NodeCheck", "ToggleChain", "check_clone", "check_events", "check_host", "check_join",
    "check_nested", "check_priority", "check_toggle", "refused_instantiate",
    "build_chain_graph", "build_chain_graph_nodes",
    "Chain", "chain_kernels",
    "ConditionalGraphs", "LoopCheck", "LoopState", "build_while_graph", "conditional_graphs", "predict_until",
    "ForkJoin", "ForkJoinCheck",
    "GRAPH_MODES", "GraphReport", "inspect_chain_graph",
    "CompileReport", "compile_kernel_set",
    "CHAIN_KERNELS", "DEFAULT_OPS", "FUSED_PER_GRAPH", "MODES", "OPS", "Verification", "compare_bits", "fused_source", "parse_ops",
    "reference",
    "PdlChain", "load_pdl_kernels",
    "Runner",
    "ChainGraph", "Inputs", "UpdateDemo", "demonstrate_refused_update", "demonstrate_updates", "fresh_inputs",
]
