"""Where things went: every public name and module that left the place a user imported it from, since 0.1.0.

One table (``moves()``: old dotted name -> what to use now), read only when a look-up fails:

- ``cugraphlab.X`` and ``cugraphlab.SUB.X`` (a package's ``__getattr__``, ``_lazy.missing``) raise
  ``AttributeError("cugraphlab.resolve_arch moved to cugraphlab.core.resolve_arch")``;
- ``import cugraphlab.compiler`` and ``from cugraphlab import resolve_arch`` (``_lazy.MovedFinder``, last on
  ``sys.meta_path``, asked only for what no other finder found) raise ImportError with the same sentence.

CHANGELOG.md names every entry (tests/package/test_moves.py keeps the two in step). A value that starts with
``cugraphlab.`` is the new home ("moved to"); any other value is the rest of the sentence ("was removed ...").
"""
from __future__ import annotations

import functools

__all__ = ["TOP_LEVEL", "MODULES", "NAMES", "moves", "moved"]

#: 0.1.0 exported everything of core, graphs, experiment and bench at the top level; 0.2.0 keeps 34 names there
#: (``cugraphlab.__all__``). The others, by the subpackage that holds each now (``cugraphlab.core.resolve_arch``).
TOP_LEVEL: dict[str, str] = {
    "core": """
        ARG_KINDS bindings_major BLOCKS_PER_SM Cache Compiled default_cache device_count driver_version init
        KernelSet NativeGraphLaunch NativeLaunch nvrtc_version POISON_BITS RawBits resolve_arch Struct Tracer
    """,
    "graphs": """
        add_alloc_node add_child_graph_node add_conditional_bodies add_conditional_node
        add_conditional_to_capture add_copy_node add_empty_node add_event_record_node add_event_wait_node
        add_free_node add_host_node add_if_else_node add_kernel_node add_launch_sequence add_memset_node
        add_switch_node add_timed_sequence alloc_async alloc_node_info alloc_node_params Allocation as_handle
        auto_free_flag bodies_of capture_handle capture_into capture_launches capturing_graph check_device_graph
        child_graph_of clone_graph conditional_node_params conditional_options create_handle cuda_include_dir
        cupti_available CuptiBusyError DEVICE_STREAMS DeviceGraphError DeviceGraphExec DeviceLaunchError
        Diagnosis DirectExecUpdate Doctor edge_kinds ExecCache explain_all explaining find_in_clone Finding fork
        free_async free_node_address graph_mem_footprint graph_view GraphLike GraphMemFootprint GraphMemoryError
        GraphView HostCallback instantiate_flags instantiate_for_device_launch instantiate_with_params
        InstantiateError is_enabled join kernel_node_params kernel_nodes_in_order launch_host_func
        MAX_SWITCH_BODIES MemoryGraph MemoryGraphExec MISTAKES node_kind node_priority PDL_OPTIONS
        priority_range programmatic_edge_count ready_exec render_text require_capture_into require_conditional
        require_conditional_branches require_device_launch require_graph_memory require_pdl reset_graph_mem_high
        run_once same_topology SecondExecError set_enabled set_kernel_params set_node_priority Topology
        trim_graph_mem try_exec_update UnfreedAllocationError UpdateReport write_dot
    """,
    "experiment": """
        AddressReuse branch_graphs BranchCheck BranchGraphs build_chain_graph build_chain_graph_nodes
        build_while_graph CAPTURE_WAYS CASES CHAIN_KERNELS chain_kernels chain_variants ChainGraph ChainVariant
        check_clone check_events check_host check_join check_nested check_priority check_toggle ColdFused
        compile_kernel_set CompileReport conditional_graphs ConditionalGraphs DEFAULT_OPS
        demonstrate_refused_update demonstrate_unfreed demonstrate_updates device_loop DeviceLoop
        DeviceLoopCheck DeviceLoopState EventPair ForkJoin ForkJoinCheck fresh_inputs FUSED_PER_GRAPH
        fused_source GRAPH_MODES GraphReport Inputs inspect_chain_graph inspect_mode load_branch_kernels
        load_devlaunch_kernels load_pdl_kernels LoopCheck LoopState MemChain MEMCHAIN_SHAPES MODES NodeCheck OPS
        parse_ops PdlChain physical_reuse PhysicalReuse predict_loop predict_sign predict_until
        refused_instantiate run_gallery Runner ScalingShape ScalingWorkload SHAPE_TEXT sizes_for
        SWITCH_VIEW_MODES ToggleChain topology_check UnfreedDemo UpdateDemo Verification
    """,
    "bench": """
        CLOCKS collect compare_samples copy_bandwidth CopyBandwidth DeviceHold DiffResult DoctorResult
        fit_linear Flatness flatness HeldSample interleave LatencyResult LinearFit
        mann_whitney measure_latency measure_memnodes measure_nodes measure_pdl measure_scaling measure_switch
        measure_update_costs measure_while median_ci_halfwidth MemnodesResult ModeResult NodesResult PdlResult
        ratio_of_medians record_class record_from_dict record_timeline RecordError run_doctor run_experiment
        run_sweep RunResult ScalingResult STOP_REASONS summarize Summary SweepResult SwitchResult system_info
        timed_loop TimelineResult Timings UpdateCosts Variant WhileResult
    """,
}

_STUDY = "was removed from the package in 0.2.0: the study is benchmarks/{} in the repository"
_SEGMENT = "is now cugraphlab.graphs.segment_us, which returns microseconds (segment_ms returned milliseconds)"
_SAMPLER = "(the adaptive sampler) is now cugraphlab.bench.sample_adaptively"

#: Names that moved between subpackages, were renamed, or left the package.
NAMES: dict[str, str] = {
    # left the top level for a module deeper than their subpackage, or for another name
    "cugraphlab.CompareResult": "cugraphlab.bench.compare.CompareResult",
    "cugraphlab.StackRow": "cugraphlab.bench.compare.StackRow",
    "cugraphlab.CompareRow": "was replaced by cugraphlab.bench.compare.StackRow (one row per stack and way)",
    "cugraphlab.segment_ms": _SEGMENT,
    "cugraphlab.FloorResult": _STUDY.format("studies/floor/measure.py"),
    "cugraphlab.measure_floor": _STUDY.format("studies/floor/measure.py"),
    "cugraphlab.ExecUpdatePaired": _STUDY.format("studies/exec_update/measure.py"),
    "cugraphlab.measure_exec_update": _STUDY.format("studies/exec_update/measure.py"),
    # between subpackages
    "cugraphlab.report.check_output": "cugraphlab.core.check_output",
    "cugraphlab.report.read_csv": "cugraphlab.core.read_csv",
    "cugraphlab.report.read_json": "cugraphlab.core.read_json",
    "cugraphlab.report.stem_path": "cugraphlab.core.stem_path",
    "cugraphlab.report.to_jsonable": "cugraphlab.core.to_jsonable",
    "cugraphlab.report.write_csv": "cugraphlab.core.write_csv",
    "cugraphlab.report.write_json": "cugraphlab.core.write_json",
    "cugraphlab.report.write_text": "cugraphlab.core.write_text",
    "cugraphlab.report.Tee": "cugraphlab.core.Tee",
    "cugraphlab.core.CompileReport": "cugraphlab.experiment.CompileReport",
    "cugraphlab.core.compile_kernel_set": "cugraphlab.experiment.compile_kernel_set",
    "cugraphlab.graphs.segment_ms": _SEGMENT,
    "cugraphlab.graphs.NativeExecUpdate": _STUDY.format("studies/exec_update/native_update.py"),
    "cugraphlab.graphs.NativeKernelNodeSetParams": _STUDY.format("studies/exec_update/native_update.py"),
    "cugraphlab.bench.CompareResult": "cugraphlab.bench.compare.CompareResult",
    "cugraphlab.bench.StackRow": "cugraphlab.bench.compare.StackRow",
    "cugraphlab.bench.CompareRow": "was replaced by cugraphlab.bench.compare.StackRow (one row per stack and way)",
    "cugraphlab.bench.FloorResult": _STUDY.format("studies/floor/measure.py"),
    "cugraphlab.bench.measure_floor": _STUDY.format("studies/floor/measure.py"),
    "cugraphlab.bench.ExecUpdatePaired": _STUDY.format("studies/exec_update/measure.py"),
    "cugraphlab.bench.measure_exec_update": _STUDY.format("studies/exec_update/measure.py"),
    "cugraphlab.bench.stacks.STACKS": "cugraphlab.bench.compare.STACKS",
    "cugraphlab.bench.stacks.BASELINE_STACKS": "cugraphlab.bench.compare.BASELINE_STACKS",
    "cugraphlab.bench.stacks.StackSpec": "cugraphlab.bench.compare.StackSpec",
    "cugraphlab.bench.stacks.stack_names": "cugraphlab.bench.compare.stack_names",
    # bench.records was one module; it is a package of record, kinds, environment, html
    "cugraphlab.bench.records.CLOCKS": "cugraphlab.bench.records.record.CLOCKS",
    "cugraphlab.bench.records.clocks": "cugraphlab.bench.records.record.clocks",
    "cugraphlab.bench.records.Record": "cugraphlab.bench.records.record.Record",
    "cugraphlab.bench.records.RecordError": "cugraphlab.bench.records.record.RecordError",
    "cugraphlab.bench.records.MAX_SAMPLES": "cugraphlab.bench.records.record.MAX_SAMPLES",
    "cugraphlab.bench.records.bounded": "cugraphlab.bench.records.record.bounded",
    "cugraphlab.bench.records.load_record": "(the check of a dict read back) is now "
                                            "cugraphlab.bench.records.record.check_record",
    # bench.stats was one module; it is a package of summary, intervals, fits, paired statistics
    "cugraphlab.bench.stats.measure": _SAMPLER,
    "cugraphlab.bench.stats.Summary": "cugraphlab.bench.stats.summary.Summary",
    "cugraphlab.bench.stats.summarize": "cugraphlab.bench.stats.summary.summarize",
    "cugraphlab.bench.stats.median_ci_halfwidth": "cugraphlab.bench.stats.summary.median_ci_halfwidth",
    "cugraphlab.bench.stats.STOP_REASONS": "cugraphlab.bench.stats.summary.STOP_REASONS",
    # 0.3.0: one name per thing
    "cugraphlab.make_scaling_plan": "cugraphlab.bench.make_plan",
    "cugraphlab.bench.make_scaling_plan": "cugraphlab.bench.make_plan",
}

#: Modules that moved (``import cugraphlab.compiler``): 0.1.0's flat modules, and bench's modules put in wings.
MODULES: dict[str, str] = {
    "cugraphlab.calls": "cugraphlab.core._calls",
    "cugraphlab.chain": "cugraphlab.experiment.chain",
    "cugraphlab.compiler": "cugraphlab.core.program",
    "cugraphlab.driver": "cugraphlab.core.device",
    "cugraphlab.environment": "cugraphlab.bench.records.environment",
    "cugraphlab.errors": "cugraphlab.core.errors",
    "cugraphlab.graph": "cugraphlab.graphs",
    "cugraphlab.launch": "cugraphlab.core.launch",
    "cugraphlab.memory": "cugraphlab.core.memory",
    "cugraphlab.module": "cugraphlab.core.module",
    "cugraphlab.plot": "cugraphlab.report.plots",
    "cugraphlab.resource": "cugraphlab.core._resource",
    "cugraphlab.sources": "cugraphlab.core.sources",
    "cugraphlab.stream": "cugraphlab.core.stream",
    "cugraphlab.views": "cugraphlab.report",
    "cugraphlab.graph_build": "cugraphlab.graphs.build",
    "cugraphlab.graph_conditional": "cugraphlab.graphs.conditional",
    "cugraphlab.graph_forkjoin": "cugraphlab.experiment.forkjoin",
    "cugraphlab.graph_update": "cugraphlab.graphs.update",
    "cugraphlab.graph_views": "cugraphlab.graphs.inspect",
    "cugraphlab.pdl": "cugraphlab.graphs.pdl",
    "cugraphlab.cli_args": "cugraphlab.cli.args",
    "cugraphlab.cli_compare": "cugraphlab.cli.compare",
    "cugraphlab.cli_scale": "cugraphlab.cli.scale",
    "cugraphlab.views_compare": "cugraphlab.report.compare",
    "cugraphlab.views_measure": "cugraphlab.report.measure",
    "cugraphlab.views_pdl": "cugraphlab.report.pdl",
    "cugraphlab.bench.experiment": "cugraphlab.bench.run",
    "cugraphlab.bench.stacks": "cugraphlab.bench.compare",
    "cugraphlab.bench.conditional": "cugraphlab.bench.graphs.conditional",
    "cugraphlab.bench.devlaunch": "cugraphlab.bench.graphs.devlaunch",
    "cugraphlab.bench.memnodes": "cugraphlab.bench.graphs.memnodes",
    "cugraphlab.bench.nodes": "cugraphlab.bench.graphs.nodes",
    "cugraphlab.bench.pdl": "cugraphlab.bench.graphs.pdl",
    "cugraphlab.bench.switch": "cugraphlab.bench.graphs.switch",
    "cugraphlab.bench.switch_sweep": "cugraphlab.bench.graphs.switch_sweep",
    "cugraphlab.bench.update": "cugraphlab.bench.graphs.update",
    "cugraphlab.bench.latency": "cugraphlab.bench.measure.latency",
    "cugraphlab.bench.sweep": "cugraphlab.bench.measure.sweep",
    "cugraphlab.bench.timeline": "cugraphlab.bench.measure.timeline",
    "cugraphlab.bench.native_graph": "cugraphlab.bench.native.instantiate",
    "cugraphlab.bench.latency_native": "cugraphlab.bench.measure.latency_native",
    "cugraphlab.bench.paired_ways": "cugraphlab.bench.paired.ways",
    "cugraphlab.bench.copy_roof": "cugraphlab.bench.probes.copy_roof",
    "cugraphlab.bench.hold": "cugraphlab.bench.probes.hold",
    "cugraphlab.bench.sm_clock": "cugraphlab.bench.probes.sm_clock",
    "cugraphlab.bench.environment": "cugraphlab.bench.records.environment",
    "cugraphlab.bench.record_html": "cugraphlab.bench.records.html",
    "cugraphlab.bench.rebuild": "cugraphlab.bench.records.kinds",
    "cugraphlab.bench.scaling_paired": "cugraphlab.bench.scaling.paired",
    "cugraphlab.bench.fits": "cugraphlab.bench.stats.fits",
    "cugraphlab.bench.intervals": "cugraphlab.bench.stats.intervals",
    "cugraphlab.bench.paired_diff": "cugraphlab.bench.stats.paired_diff",
    "cugraphlab.bench.paired_stats": "cugraphlab.bench.stats.paired_stats",
    "cugraphlab.graphs.doctor_calls": "cugraphlab.graphs.doctor.calls",
    "cugraphlab.graphs.doctor_cupti": "cugraphlab.graphs.doctor.cupti",
    "cugraphlab.graphs.doctor_findings": "cugraphlab.graphs.doctor.findings",
    "cugraphlab.graphs.doctor_frames": "cugraphlab.graphs.doctor.frames",
    "cugraphlab.graphs.doctor_patches": "cugraphlab.graphs.doctor.patches",
    "cugraphlab.graphs.doctor_stacks": "cugraphlab.graphs.doctor.stacks",
    "cugraphlab.graphs.doctor_watch": "cugraphlab.graphs.doctor.watch",
    "cugraphlab.report.files": "cugraphlab.core.files",
    "cugraphlab.bench.floor": _STUDY.format("studies/floor/"),
    "cugraphlab.bench.exec_update": _STUDY.format("studies/exec_update/"),
    "cugraphlab.bench.launch_modes": _STUDY.format("studies/launch_modes/"),
}


@functools.lru_cache(maxsize=1)
def moves() -> dict[str, str]:
    """Every entry: old dotted name -> new dotted name, or what became of it."""
    table = {f"cugraphlab.{name}": f"cugraphlab.{sub}.{name}"
             for sub, names in TOP_LEVEL.items() for name in names.split()}
    for part in (NAMES, MODULES):
        for old, new in part.items():
            if old in table:
                raise TypeError(f"{old} is in the table of moves twice")
            table[old] = new
    return table


def moved(dotted: str) -> str | None:
    """The sentence for ``dotted`` (``"cugraphlab.resolve_arch moved to cugraphlab.core.resolve_arch"``), or
    None when it never left anywhere."""
    new = moves().get(dotted)
    if new is None:
        return None
    return f"{dotted} moved to {new}" if new.startswith("cugraphlab.") else f"{dotted} {new}"
