"""Floor 4, measurement: every timer and every result record lives here.

stats (robust summaries, adaptive sampling), timing (the one timed loop and the interleaved-repeats harness),
environment (what a measurement ran on), experiment (``run``), latency, timeline, sweep, copy_roof, compare (and its
ways), update, pdl, conditional. Every measurement returns a plain record (a dataclass) that serializes to JSON with
the environment.
"""
from .compare import CompareResult, StackRow
from .conditional import WhileResult, measure_while
from .copy_roof import CopyBandwidth, copy_bandwidth
from .environment import collect, system_info
from .experiment import ModeResult, RunResult, run_experiment
from .latency import LatencyResult, measure_latency
from .pdl import PdlResult, measure_pdl
from .stats import STOP_REASONS, Summary, measure, median_ci_halfwidth, summarize
from .sweep import SweepResult, run_sweep
from .timeline import TimelineResult, record_timeline
from .timing import Timings, Variant, interleave, timed_loop
from .update import UpdateCosts, measure_update_costs

__all__ = [
    "CompareResult", "StackRow",
    "WhileResult", "measure_while",
    "CopyBandwidth", "copy_bandwidth",
    "collect", "system_info",
    "ModeResult", "RunResult", "run_experiment",
    "LatencyResult", "measure_latency",
    "PdlResult", "measure_pdl",
    "STOP_REASONS", "Summary", "measure", "median_ci_halfwidth", "summarize",
    "SweepResult", "run_sweep",
    "TimelineResult", "record_timeline",
    "Timings", "Variant", "interleave", "timed_loop",
    "UpdateCosts", "measure_update_costs",
]
