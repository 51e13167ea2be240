"""Command line: ``cugraphlab run | info | compile``. Parsing and printing only; the work lives in the library."""
from __future__ import annotations

import argparse
import sys

from .errors import CompileError, CudaError, CugraphlabError, InvalidArgumentError, NoDeviceError

__all__ = ["main", "build_parser"]

EXIT_USAGE = 2  # bad input, no GPU, compile error: one clear line, like argparse's own errors
EXIT_CUDA = 1  # the driver failed on good input


def _positive_int(text: str) -> int:
    try:
        v = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {v}")
    return v


def _device_index(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a device index (0, 1, ...), got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"device index must be >= 0, got {v}")
    return v


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trace", action="store_true",
                        help="print every driver and NVRTC call made (arguments, result, duration) to stderr")
    p = argparse.ArgumentParser(prog="cugraphlab",
                                description="What a kernel launch costs from Python, and what a CUDA graph saves.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", parents=[common], help="the classic experiment: a 4-op chain eager vs graph vs fused")
    run.add_argument("--size", type=_positive_int, default=1 << 20, help="float32 elements (default 1,048,576)")
    run.add_argument("--iters", type=_positive_int, default=5000, help="iterations per timed loop (default 5000)")
    run.add_argument("--ops", default="add,mul,sub,relu", help="comma-separated chain (default add,mul,sub,relu)")
    run.add_argument("--scalar", type=float, default=2.0, help="the factor of mul (default 2.0)")
    run.add_argument("--device", type=_device_index, default=0, help="CUDA device index (default 0)")
    run.add_argument("--repeats", type=_positive_int, default=5, help="timed loops per mode (default 5)")
    run.add_argument("--unroll", type=_positive_int, default=1,
                     help="also time a graph holding this many iterations (default 1: off)")
    run.add_argument("--seed", type=int, default=None, help="seed of the random inputs")
    run.add_argument("--json", metavar="PATH", help="write the full record (samples' statistics, environment)")

    info = sub.add_parser("info", parents=[common], help="devices, driver, versions and the compile cache")
    info.add_argument("--device", type=_device_index, default=None, help="only this device")

    comp = sub.add_parser("compile", parents=[common], help="compile the kernel set (no GPU needed)")
    comp.add_argument("--arch", default=None, help="sm_XY or compute_XY (default: the GPU's, else the newest known)")
    comp.add_argument("--ptx", action="store_true", help="PTX instead of cubin")
    comp.add_argument("--no-cache", action="store_true", help="compile even when the cache has the result")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    tracer = None
    if getattr(args, "trace", False):
        from .calls import tracing

        tracer = tracing(sys.stderr)
    try:
        return {"run": _cmd_run, "info": _cmd_info, "compile": _cmd_compile}[args.command](args)
    except NoDeviceError as e:
        print(f"cugraphlab {args.command}: no usable GPU: {e}", file=sys.stderr)
        return EXIT_USAGE
    except CompileError as e:
        print(f"cugraphlab {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidArgumentError as e:
        print(f"cugraphlab {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except CudaError as e:
        print(f"cugraphlab {args.command}: CUDA driver error: {e}", file=sys.stderr)
        return EXIT_CUDA
    except CugraphlabError as e:
        print(f"cugraphlab {args.command}: {e}", file=sys.stderr)
        return EXIT_CUDA
    finally:
        if tracer is not None:
            tracer.stop()


def _cmd_run(args) -> int:
    from .bench.experiment import run_experiment
    from .chain import parse_ops
    from .views import render_run

    ops = parse_ops(args.ops)  # fail on a bad op before touching the GPU
    result = run_experiment(size=args.size, iters=args.iters, ops=ops, scalar=args.scalar, device=args.device,
                            repeats=args.repeats, unroll=args.unroll, seed=args.seed)
    print(render_run(result))
    if args.json:
        from .report import write_json

        write_json(args.json, result.to_dict())
        print(f"\nrecord written to {args.json}")
    return 0 if all(m.verified for m in result.modes) else EXIT_CUDA


def _cmd_info(args) -> int:
    from .views import render_info

    print(render_info(args.device))
    return 0


def _cmd_compile(args) -> int:
    from .views import render_compile

    print(render_compile(args.arch, args.ptx, not args.no_cache))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
