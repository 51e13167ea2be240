"""``cugraphlab measure``: time your own work from the command line, a Python function or a kernel in a .cu file.

The parser and the handler; the work is ``bench.measure`` (``run_spec`` in this process, ``measure_processes``
in N), the text ``report.measure_work``. Every bad input is one line and exit 2; a capture that fails prints the
timings that could be made and the capture doctor's diagnosis, and exits 2.
"""
from __future__ import annotations

import argparse

from ..core.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, InvalidArgumentError
from .args import (
    add_device,
    add_fail_on,
    add_json,
    add_judge,
    add_threshold,
    count_arg,
    name_list_arg,
    save_json,
    seconds_arg,
    size_arg,
    threshold_arg,
)

__all__ = ["add_measure", "cmd_measure", "spec_from_args", "EPILOG"]

EPILOG = """\
what to measure:
  path/to/file.py:function   function(stream) enqueues one call's work on the stream it is given (CuPy, PyTorch,
                             cuda.core or cugraphlab: --stream says which); --setup FUNC runs once first and what it
                             returns is passed on: function(stream, *state) (a tuple), (stream, **state) (a dict)
  package.module:function    the same, imported by module name
  path/to/kernel.cu          a kernel of the file, no Python needed: --kernel NAME --size N --args LIST, where
                             --args has one item per kernel parameter, in order: a name (x, out) is a buffer of
                             --size elements of the pointer's type, filled with random values; n is the size; a
                             number is that value (types come from the kernel's declaration; KIND:VALUE such as
                             f32:2.0 or u64:n where the source does not say)

examples:
  cugraphlab measure benchmarks/measure_demo/saxpy.cu --kernel saxpy --size 2^20 --args out,x,y,2.0,n
  cugraphlab measure benchmarks/measure_demo/cupy_saxpy.py:step --setup make --stream cupy --check verify --json new.json
  cugraphlab measure benchmarks/measure_demo/cupy_saxpy.py:step --setup make --processes 6 --json new.json --compare-to old.json --fail-on slower

ways: eager (each call from Python), graph (captured once through the capture doctor, one cuGraphLaunch per call),
native and floor (a kernel only: the driver call from C behind a builtin, and in a C loop), and the reference (the
bare launch of an empty kernel, in the same rounds). Per call, in µs:
  held    how long the work runs on the GPU: K calls queued behind a kernel holding the stream, CUDA events
          around them, released, / K (n/a when the work synchronises: it cannot be queued ahead)
  cold    one call after an L2 flush, queued behind the hold: the GPU's time for a first touch
  host    what a call costs the launching thread; wall: until the GPU is done; device: CUDA events around
          the calls as the host makes them (the host's pace when a call is shorter than making it)
  x ref   host over the reference's, round by round.
exit: 0 measured (and checked), 1 a check failed or --fail-on matched, 2 bad input or a capture that failed."""


def add_measure(sub, common) -> None:
    p = sub.add_parser("measure", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
                       help="time your own work: a function(stream) in a .py file, or a kernel in a .cu file",
                       description="Time your own work every way it can run: eagerly from Python, as a CUDA "
                                   "graph (what it saves, after how many calls it pays off) and, for a kernel, "
                                   "natively from C.", epilog=EPILOG)
    p.add_argument("target", metavar="WHAT", help="path/to/file.py:function, package.module:function, or a .cu file")
    py = p.add_argument_group("a Python function")
    py.add_argument("--setup", metavar="FUNC", help="run once first (a function of the same file, or file.py:func)")
    py.add_argument("--check", metavar="FUNC", help="run after the timed loops, once per way: returns None/True or "
                    "raises AssertionError (for a .cu kernel: file.py:func called as func(inputs, outputs), two "
                    "dicts of NumPy arrays by buffer name)")
    py.add_argument("--prepare", metavar="FUNC", help="run before each way's checked call (fresh inputs)")
    py.add_argument("--stream", choices=("cugraphlab", "cupy", "torch", "cuda.core", "handle"), default=None,
                    help="the stream the function gets (default cugraphlab)")
    cu = p.add_argument_group("a kernel in a .cu file")
    cu.add_argument("--kernel", metavar="NAME", help="the kernel (default: the file's only one)")
    cu.add_argument("--size", type=size_arg, default=None, help="elements per buffer, e.g. 2^20 (default 2^20)")
    cu.add_argument("--args", metavar="LIST", help="one comma-separated item per kernel parameter, e.g. out,x,y,2.0,n")
    cu.add_argument("--block", type=count_arg, default=None, help="threads per block (default 256)")
    cu.add_argument("--grid", type=count_arg, default=None, help="blocks (default ceil(size / block))")
    how = p.add_argument_group("how")
    how.add_argument("--ways", metavar="LIST", type=name_list_arg, help="comma list of eager, graph, native, floor (default: all that "
                     "apply)")
    how.add_argument("--processes", type=count_arg, default=1,
                     help="measure in N fresh processes, one after the other; intervals take the process as the "
                          "unit (default 1: here)")
    how.add_argument("--l2", choices=("warm", "cold"), default="warm",
                     help="replaced: every way now has a cold row (one call after an L2 flush, queued behind the "
                          "hold); --l2 cold is refused, saying so")
    how.add_argument("--no-gpu-clocks", action="store_true",
                     help="leave out the held and cold rows (the GPU's own time per call)")
    how.add_argument("--time-budget", type=seconds_arg, default=5.0, metavar="S",
                     help="seconds of sampling per process at most (default 5)")
    how.add_argument("--min-samples", type=count_arg, default=10, metavar="N",
                     help="samples (rounds) per way at least, before the spread may stop sampling (default 10)")
    how.add_argument("--max-samples", type=count_arg, default=200, metavar="N",
                     help="samples (rounds) per way at most (default 200)")
    how.add_argument("--no-reference", action="store_true",
                     help="leave out the reference (the bare launch of an empty kernel timed in the same rounds, which "
                          "x ref divides by)")
    how.add_argument("--capture-mode", choices=("thread_local", "global", "relaxed"), default="thread_local",
                     help="the capture's mode (default thread_local)")
    add_device(how)
    out = p.add_argument_group("records")
    add_json(out)
    out.add_argument("--compare-to", metavar="OLD.json", help="diff this run against an older record of it")
    add_threshold(out, None, "for --compare-to: smallest change that counts, as 5%% or 0.05 (default 5%%)")
    add_fail_on(out, "for --compare-to: exit 1 when a judged row gets this verdict")
    add_judge(out, None, "for --compare-to: which rows' verdicts count: repeatable (default: x ref, held, cold and "
                         "device-bound rows, which repeat between processes; host rows move 30-40%%) or all")
    p.set_defaults(handler=cmd_measure)


def _function_name(text: str | None, target_source: str | None, option: str) -> str | None:
    """``--setup make`` -> ``file.py:make`` (the target's file); ``other.py:make`` as it is."""
    if text is None:
        return None
    if ":" in text:
        return text
    if not text.isidentifier():
        raise InvalidArgumentError(f"--{option} {text!r}: give a function name, or path/to/file.py:function")
    if target_source is None:
        raise InvalidArgumentError(f"--{option} {text}: name its file too (path/to/file.py:{text})")
    return f"{target_source}:{text}"


def spec_from_args(args) -> dict:
    """The spec (``bench.measure.run``) the options describe; InvalidArgumentError for options that do not fit."""
    target = args.target
    if target.lower().endswith((".cu", ".cuh")):
        for option in ("setup", "prepare", "stream"):
            if getattr(args, option) is not None:
                raise InvalidArgumentError(f"--{option} is for a Python function; {target} is a kernel source")
        items = None if args.args is None else [a.strip() for a in args.args.split(",")]
        return {"cu": target, "kernel": args.kernel, "size": args.size or 1 << 20, "args": items,
                "block": args.block or 256, "grid": args.grid, "check": _function_name(args.check, None, "check"),
                "device": args.device}
    for option in ("kernel", "size", "args", "block", "grid"):
        if getattr(args, option) is not None:
            raise InvalidArgumentError(f"--{option} is for a kernel in a .cu file, not for {target}")
    if ":" not in target:
        raise InvalidArgumentError(f"expected path/to/file.py:function, package.module:function or a .cu file, "
                                   f"got {target!r}")
    source = target.rpartition(":")[0]
    return {"target": target, "setup": _function_name(args.setup, source, "setup"),
            "check": _function_name(args.check, source, "check"),
            "prepare": _function_name(args.prepare, source, "prepare"), "stream": args.stream,
            "device": args.device}


def _options(args):
    from ..bench.measure.options import MeasureOptions

    ways = None if not args.ways else tuple(w.strip() for w in args.ways.split(",") if w.strip())
    return MeasureOptions.coerce({"ways": ways, "l2": args.l2, "reference": not args.no_reference,
                                  "capture_mode": args.capture_mode, "gpu_clocks": not args.no_gpu_clocks,
                                  "time_budget_s": args.time_budget, "min_samples": args.min_samples,
                                  "max_samples": args.max_samples})


def _old_record(args):
    """The --compare-to record, read and checked before anything is measured: a missing file, a JSON list, a
    record of another kind or schema costs one line (exit 2) now, not after the measurement."""
    from ..bench.diff import read_record_file
    from ..bench.measure.result import MeasureResult
    from ..bench.records.record import RecordError

    if not args.compare_to:
        for option, given in (("--fail-on", args.fail_on is not None), ("--threshold", args.threshold is not None),
                              ("--judge", getattr(args, "judge", None) is not None)):
            if given:
                raise InvalidArgumentError(f"{option} judges a comparison: give --compare-to OLD.json with it")
        return None, None
    threshold = threshold_arg("5%") if args.threshold is None else args.threshold
    old = read_record_file(args.compare_to)
    if not isinstance(old, dict):
        from ..report.show import json_type_words

        raise RecordError(f"{args.compare_to}: {json_type_words(old)}, not a record; --compare-to takes a "
                          f"record written by cugraphlab measure --json")
    if old.get("kind") != MeasureResult.KIND:
        raise RecordError(f"{args.compare_to}: a record of kind {old.get('kind')!r}, not {MeasureResult.KIND!r}; "
                          f"--compare-to takes a record written by cugraphlab measure --json")
    return old, threshold


def _compare(args, old, threshold, result) -> tuple[str, bool]:
    from ..bench.diff import diff_records
    from ..report.diff import render_diff

    d = diff_records(old, result.to_dict(), threshold, a_name=args.compare_to, b_name="this run",
                     judge=getattr(args, "judge", None) or "repeatable")
    return render_diff(d), d.fails(args.fail_on)


def cmd_measure(args) -> int:
    from ..bench.measure.processes import measure_processes, run_spec
    from ..bench.measure.result import build_result
    from ..report.measure_work import render_measure

    spec = spec_from_args(args)
    options = _options(args)
    if "cu" in spec:  # NVRTC needs no GPU: a kernel that does not compile says so before the GPU is looked for
        from ..bench.measure.cu_kernel import CuKernel

        CuKernel.plan(spec["cu"], kernel=spec["kernel"], size=spec["size"], args=spec["args"], block=spec["block"],
                      grid=spec["grid"]).check_compiles()
    old, threshold = _old_record(args)  # before anything is measured
    if args.processes > 1:
        result = measure_processes(None, processes=args.processes, options=options, spec=spec)
    else:
        part, env, config = run_spec(spec, options)
        config["processes"] = 1
        result = build_result([part], config=config, env=env, sampling=options.sampling)
    save_json(args.json, result)  # written first: whatever the comparison says, the new record is kept
    comparison, failed = _compare(args, old, threshold, result) if old is not None else (None, False)
    print(render_measure(result, comparison))
    if result.capture_failed:
        return EXIT_USAGE
    if result.verified is False or failed:
        return EXIT_FAILED
    return EXIT_OK
