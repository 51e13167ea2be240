"""Floor 4, measurement: every timer and every result record lives here.

The shared base: records (one record shape, the clock descriptions), stats (robust summaries, adaptive sampling),
timing (the one timed loop and the interleaved-repeats harness), environment (what a measurement ran on), workers
(worker processes with a start gate and a time limit), copy_roof (the device's copy bandwidth), hold (a kernel that
holds the device while launches queue behind it), fits (linear fits, flatness verdicts). Then one module per command
family, named as its ``cli/`` and ``report/`` modules: run, latency / timeline / sweep (measure), update and
conditional (graphs), pdl, doctor (the capture doctor's gallery and its overhead), scaling (graph costs against node
count); and the wings compare/ and scale/, which never import each other. Every measurement returns a Record that
serializes to JSON with its environment.
"""
from .conditional import WhileResult, measure_while
from .copy_roof import CopyBandwidth, copy_bandwidth
from .environment import collect, system_info
from .latency import LatencyResult, measure_latency
from .diff import DiffResult, diff_records
from .doctor import DoctorResult, run_doctor
from .exec_update import ExecUpdatePaired, measure_exec_update
from .fits import Flatness, LinearFit, fit_linear, flatness
from .hold import DeviceHold, HeldSample
from .intervals import compare_samples, mann_whitney, ratio_of_medians
from .memnodes import MemnodesResult, measure_memnodes
from .floor import FloorResult, measure_floor
from .nodes import NodesResult, measure_nodes
from .scaling import ScalingResult, make_scaling_plan, measure_scaling
from .switch import SwitchResult, measure_switch
from .pdl import PdlResult, measure_pdl
from .rebuild import record_class, record_from_dict
from .records import CLOCKS, Record, RecordError, load_record
from .run import ModeResult, RunResult, run_experiment
from .stats import STOP_REASONS, Summary, measure, median_ci_halfwidth, summarize
from .sweep import SweepResult, run_sweep
from .timeline import TimelineResult, record_timeline
from .timing import Timings, Variant, interleave, timed_loop
from .update import UpdateCosts, measure_update_costs

__all__ = [
    "WhileResult", "measure_while",
    "CopyBandwidth", "copy_bandwidth",
    "collect", "system_info",
    "LatencyResult", "measure_latency",
    "NodesResult", "measure_nodes",
    "DoctorResult", "run_doctor",
    "ScalingResult", "measure_scaling", "make_scaling_plan", "DeviceHold", "HeldSample",
    "fit_linear", "flatness", "LinearFit", "Flatness",
    "FloorResult", "measure_floor",
    "DiffResult", "diff_records", "compare_samples", "mann_whitney", "ratio_of_medians",
    "MemnodesResult", "measure_memnodes", "SwitchResult", "measure_switch",
    "PdlResult", "measure_pdl",
    "CLOCKS", "Record", "RecordError", "load_record", "record_from_dict", "record_class",
    "ExecUpdatePaired", "measure_exec_update",
    "ModeResult", "RunResult", "run_experiment",
    "STOP_REASONS", "Summary", "measure", "median_ci_halfwidth", "summarize",
    "SweepResult", "run_sweep",
    "TimelineResult", "record_timeline",
    "Timings", "Variant", "interleave", "timed_loop",
    "UpdateCosts", "measure_update_costs",
]
