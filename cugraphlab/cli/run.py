"""The run family: ``run`` (the classic experiment), ``info`` (devices, driver, versions, cache), ``compile``."""
from __future__ import annotations

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import (
    add_device,
    add_iters,
    add_json,
    add_ops,
    add_repeats,
    add_scalar,
    add_seed,
    add_size,
    count_arg,
    save_json,
)

__all__ = ["add_commands"]


def add_commands(sub, common) -> None:
    run = sub.add_parser("run", parents=[common], help="the classic experiment: a 4-op chain eager vs graph vs fused")
    add_size(run)
    add_iters(run)
    add_ops(run)
    add_scalar(run)
    add_device(run)
    add_repeats(run)
    run.add_argument("--unroll", type=count_arg, default=1,
                     help="also time a graph holding this many iterations (default 1: off)")
    run.add_argument("--cold-l2", action="store_true",
                     help="also time the fused kernel on rotating input sets that exceed twice the L2 (reads from "
                          "DRAM), with both fused rows' bytes/s against the copy roof")
    run.add_argument("--chunks", type=count_arg, default=None,
                     help="cut each timed loop into this many chunks, one sample each for `cugraphlab diff` "
                          "(default 10; 1: the loop alone, without the 9 extra CUDA events)")
    add_seed(run)
    add_json(run)
    run.add_argument("--compare", action="store_true",
                     help="also time the same chain in CuPy and PyTorch (where installed) and show their rows")
    run.set_defaults(handler=cmd_run)

    info = sub.add_parser("info", parents=[common], help="devices, driver, versions and the compile cache")
    add_device(info, default=None)
    info.set_defaults(handler=cmd_info)

    comp = sub.add_parser("compile", parents=[common], help="compile the kernel set (no GPU needed)")
    comp.add_argument("--arch", default=None, help="sm_XY or compute_XY (default: the GPU's, else the newest known)")
    comp.add_argument("--ptx", action="store_true", help="PTX instead of cubin")
    comp.add_argument("--no-cache", action="store_true", help="compile even when the cache has the result")
    comp.set_defaults(handler=cmd_compile)


def cmd_run(args) -> int:
    from ..bench.run import measure_run
    from ..experiment.ops import parse_ops
    from ..report.run import render_run

    ops = parse_ops(args.ops)  # fail on a bad op before touching the GPU
    result = measure_run(args.device, size=args.size, iters=args.iters, ops=ops, scalar=args.scalar,
                         repeats=args.repeats, unroll=args.unroll, seed=args.seed,
                         cold_l2=getattr(args, "cold_l2", False),
                         **({} if args.chunks is None else {"chunks": args.chunks}))
    print(render_run(result))
    baselines = None
    if args.compare:
        from .compare import run_baselines

        baselines = run_baselines(args, ops)
        result.compare = baselines.to_dict()
    if args.json:
        print()
    save_json(args.json, result)
    ok = all(m.verified for m in result.modes) and (baselines is None or baselines.ok)
    return EXIT_OK if ok else EXIT_FAILED


def cmd_info(args) -> int:
    from ..bench.records.environment import system_info
    from ..report.run import render_info

    info = system_info(args.device)
    print(render_info(info))
    if info.get("missing_package"):  # no cuda-bindings: what to install, not "no usable GPU"
        print(info["missing_package"])
    if info.get("driver_error"):  # the facts above need no GPU: info has done its work (exit 0), and says why
        from . import no_gpu_text

        print(f"no usable GPU: {no_gpu_text(info['driver_error'])}")
    return EXIT_OK


def cmd_compile(args) -> int:
    from ..experiment.kernel_set import compile_kernel_set
    from ..report.run import render_compile

    print(render_compile(compile_kernel_set(args.arch, args.ptx, not args.no_cache)))
    return EXIT_OK
