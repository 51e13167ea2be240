"""Floor 4, measurement: every timer and every result record lives here.

The shared base: ``records/`` (one record shape, the clock descriptions, the kind registry, the environment a
measurement ran on), ``timing`` (the one timed loop, a chain's mode timed, the interleaved-repeats harness),
``workers`` (worker processes with a start gate and a time limit), ``stats/`` (robust summaries, intervals, paired
statistics, fits), ``probes/`` (a kernel that holds the device, the SM clock, the copy roof), ``native/`` (the same
calls from a C loop, and the process's one ``native_floor``) and ``paired/``. ``paired/`` is base, not a family: the
harness of ways that share one context, measured in rotated rounds, which ``measure``, ``compare`` and ``scaling``
all use and which itself uses only the base. The base knows no family: no module of it imports a family's module,
at module level or inside a function (``tests/package/test_floors.py``). Then one module or wing per command
family, named as its ``cli/`` and ``report/`` modules: ``run``, ``measure/`` (latency, timeline, sweep), ``graphs/``
(update, conditional, nodes, memnodes, switch, pdl, devlaunch), ``doctor``, ``diff``, ``scaling/``, and the wings
``compare/`` and ``scale/``, which never import each other. Every measurement returns a Record that serializes to
JSON with its environment.

One verb for the face: every function that measures on a device is ``measure_<thing>(device, *, size=, iters=,
...)`` and returns its record (``device``: a Device or an ordinal, always first; ``size``: floats per buffer;
``iters``: iterations or launches per timed loop). ``measure_run`` is what ``cugraphlab run`` does,
``measure_sweep`` ``cugraphlab measure sweep``, ``measure_doctor`` ``cugraphlab doctor``; what does not measure
keeps a verb of its own (``diff_records``, ``make_plan``, ``load_record``; ``bench.compare.compare``, the wing's
entry, keeps the command's name). Keywords renamed to follow it (``n=``, ``iterations=``, ``device_index=``) and
the old names ``run_experiment``, ``run_sweep``, ``run_doctor`` and ``record_timeline`` still work, with a
DeprecationWarning naming the new one (``core.renamed``; CHANGELOG.md).

Nothing is imported until it is used: ``bench.<name>`` loads the one module that defines the name (so that importing
``bench.compare.worker`` in a fresh process loads neither NumPy nor the rest of the package).
"""
from __future__ import annotations

from .._lazy import exports

__all__, __getattr__, __dir__ = exports(__name__, {
    "records.record": ("CLOCKS", "Record", "RecordError", "check_record"),
    "records.kinds": ("load_record", "record_class", "record_from_dict", "record_kinds"),
    "records.environment": ("collect", "system_info"),
    "timing": ("Timings", "Variant", "interleave", "timed_loop", "timed_chunks", "chunk_sizes"),
    "stats.summary": ("STOP_REASONS", "Summary", "sample_adaptively", "median_ci_halfwidth", "summarize"),
    "stats.intervals": ("compare_samples", "mann_whitney", "ratio_of_medians"),
    "stats.fits": ("Flatness", "LinearFit", "fit_linear", "flatness"),
    "probes.copy_roof": ("CopyBandwidth", "copy_bandwidth"),
    "probes.hold": ("DeviceHold", "HeldSample"),
    "run": ("ModeResult", "RunResult", "measure_run", "run_experiment"),
    "measure.latency": ("LatencyResult", "measure_latency"),
    "measure.timeline": ("TimelineResult", "measure_timeline", "record_timeline"),
    "measure.sweep": ("SweepResult", "measure_sweep", "run_sweep"),
    "measure.result": ("MeasureResult",),
    "graphs.update": ("UpdateCosts", "measure_update_costs"),
    "graphs.conditional": ("WhileResult", "measure_while"),
    "graphs.nodes": ("NodesResult", "measure_nodes"),
    "graphs.memnodes": ("MemnodesResult", "measure_memnodes"),
    "graphs.switch": ("SwitchResult", "measure_switch"),
    "graphs.pdl": ("PdlResult", "measure_pdl"),
    "graphs.devlaunch": ("DevlaunchResult", "measure_devlaunch"),
    "doctor": ("DoctorResult", "measure_doctor", "run_doctor"),
    "diff": ("DiffResult", "diff_records"),
    "scaling.sweep": ("ScalingResult", "make_plan", "measure_scaling"),
})
