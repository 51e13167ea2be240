"""``cugraphlab doctor``: run a Python file or module with every capture explained, or show the gallery.

    cugraphlab doctor SCRIPT.py [args...]     # runpy.run_path with sys.argv = [SCRIPT.py, args...]
    cugraphlab doctor -m package.module [args...]
    cugraphlab doctor --gallery [ours|field|all] [--device N] [--json PATH]   # all: both galleries
    cugraphlab doctor --replay SCRIPT.py [args...]   # also: per capture site, captures, replays, capture cost
    cugraphlab doctor --replay --eager-us 40 SCRIPT.py   # and the break-even against 40 us of eager work per use
    cugraphlab doctor --cupti SCRIPT.py | --cupti --gallery   # also name calls made by CuPy, PyTorch, raw bindings

Under the doctor, every ``capture(...)`` made through cugraphlab without ``explain=`` is explained
(``graphs.doctor.explain_all``); at the end the diagnoses of the captures with findings are printed. Exit code: the
script's own (``sys.exit(N)``); 1 when it raised (its traceback printed from its own first frame: none of the
doctor's or runpy's) or when it exited 0 but a capture failed; 2, in one line, when it could not start (no such
file, a folder without ``__main__.py``, a syntax error, no such module) or ended for want of a GPU ("no usable
GPU", as every command says it). ``--gallery``: exit 0 when every case was named right,
the clean case had no finding and the state was restored after each, else 1; ``--gallery field`` runs the field
gallery (graphs.field_gallery: mistakes from public threads, PyTorch, CuPy, cuda.core, Triton, numba-cuda,
cugraphlab, each case and its fixed twin in a process of its own): exit 0 when no case crashed or hung and every case
that ran was caught and its fix worked; ``--gallery`` alone runs both. ``--cupti`` (cupti-python
installed): every capture in the CUPTI mode (graphs.doctor.cupti), the gallery with the cases made past cugraphlab's
door and the mode's overhead; without cupti-python one line and exit 2.
"""
from __future__ import annotations

import argparse
import sys

from ..core.errors import EXIT_FAILED, EXIT_OK
from .args import add_json, device_index_arg

__all__ = ["add_commands", "cmd_doctor"]

GALLERIES = ("ours", "field", "all")


def _eager_us(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"--eager-us takes the host microseconds of the eager work per use, a "
                                         f"number > 0, got {text!r}")
    return value


def add_commands(sub, common) -> None:
    """Register ``doctor`` on ``sub`` (argparse subparsers) with the ``common`` parent options."""
    p = sub.add_parser("doctor", parents=[common],
                       help="run a script with every capture explained (which call broke it, and the fix), "
                            "or --gallery: each capture mistake made on purpose")
    p.add_argument("-m", dest="module", nargs=argparse.REMAINDER, metavar="MODULE",
                   help="run a module (like python -m) instead of a file; what follows goes to the module")
    p.add_argument("--gallery", nargs="?", const="all", default=False, metavar="ours|field|all",
                   help="reproduce each class of capture mistake on the GPU: ours (each class, the modes table), "
                        "field (mistakes from public threads, in PyTorch, CuPy, cuda.core, Triton, numba-cuda), "
                        "or all (the default: both)")
    p.add_argument("--replay", action="store_true",
                   help="with a script: also the replay watch, per capture site (cugraphlab, PyTorch, CuPy, "
                        "cuda.core): captures, instantiations, replays, updates and their host cost, graph memory, a "
                        "site re-captured on every use, a graph launched on two streams or racing a copy, a refused "
                        "exec update")
    p.add_argument("--eager-us", type=_eager_us, default=None, metavar="US",
                   help="with --replay: the host microseconds of the same work done eagerly, per use: each site's "
                        "break-even (pays off after N replays / has paid off / never pays off here)")
    p.add_argument("--device", type=device_index_arg, default=None, help="CUDA device index for --gallery (default 0)")
    add_json(p, "with --gallery: write the record")
    p.add_argument("--no-overhead", action="store_true", help="with --gallery: skip timing explain=True")
    p.add_argument("--cupti", action="store_true",
                   help="CUPTI mode (needs cupti-python): log every driver call of the process during each capture, "
                        "so that calls made by CuPy, PyTorch or raw cuda.bindings are named too")
    p.add_argument("script", nargs="?", help="the Python file to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    p.set_defaults(handler=cmd_doctor)


def cmd_doctor(args) -> int:
    from cugraphlab.core.errors import InvalidArgumentError

    if args.gallery:
        if args.script or args.module or args.gallery not in GALLERIES:
            if args.gallery not in GALLERIES and not args.gallery.endswith(".py"):
                raise InvalidArgumentError(f"--gallery takes {', '.join(GALLERIES)} (or nothing: all), "
                                           f"got {args.gallery!r}")
            raise InvalidArgumentError("give a script, a module or --gallery, not both")
        if args.replay or args.eager_us is not None:
            raise InvalidArgumentError("--replay and --eager-us watch a script (the field gallery runs its replay "
                                       "cases under the replay watch by itself)")
        return _gallery(args)
    if args.eager_us is not None and not args.replay:
        raise InvalidArgumentError("--eager-us is for --replay (the break-even of each capture site)")
    for option, given in (("--json", args.json), ("--no-overhead", args.no_overhead),
                          ("--device", args.device is not None)):
        if given:  # taken and ignored would be worse than refused
            raise InvalidArgumentError(f"{option} is for --gallery; a script's diagnoses are printed, not recorded")
    if args.module is not None:
        if not args.module:
            raise InvalidArgumentError("-m needs a module name")
        return _run(args.module[0], list(args.module[1:]), module=True, cupti=args.cupti, replay=args.replay,
                    eager_us=args.eager_us)
    if not args.script:
        raise InvalidArgumentError("name a Python file to run (or -m MODULE, or --gallery)")
    from pathlib import Path

    script = Path(args.script)
    if script.is_dir() and not (script / "__main__.py").is_file():
        raise InvalidArgumentError(f"{args.script} is a folder with no __main__.py: name a Python file to run")
    if not script.exists():
        raise InvalidArgumentError(f"no such file: {args.script}")
    return _run(args.script, list(args.args), module=False, cupti=args.cupti, replay=args.replay,
                eager_us=args.eager_us)


def _run(target: str, argv: list[str], *, module: bool, cupti: bool = False, replay: bool = False,
         eager_us: float | None = None) -> int:
    import os

    from cugraphlab.graphs.doctor import run_explained
    from cugraphlab.report.doctor import render_session

    here = os.getcwd()
    if module:  # as `python -m` does: a module in the current folder is found
        sys.path.insert(0, here)
    try:
        code, diagnoses = run_explained(target, argv, module=module, cupti=cupti, replay=replay)
    finally:
        if module and here in sys.path:
            sys.path.remove(here)
    sys.stdout.flush()
    print(render_session(diagnoses))
    if replay:
        from cugraphlab.graphs.doctor import stacks as doctor_stacks
        from cugraphlab.graphs.doctor import watch as doctor_watch
        from cugraphlab.report.doctor import render_sites

        events = doctor_watch.LAST.events if doctor_watch.LAST is not None else []
        print(render_sites(doctor_stacks.site_stats(events, eager_us)))
    if code == 0 and any(not d.ok for d in diagnoses):
        return EXIT_FAILED
    return code


def _gallery(args) -> int:
    from cugraphlab.bench.doctor import measure_doctor
    from cugraphlab.report.doctor import render_doctor

    gallery = args.gallery
    if args.cupti:  # the CUPTI mode names calls in our gallery's captures; the field gallery's run in processes
        if gallery == "field":
            from cugraphlab.core.errors import InvalidArgumentError

            raise InvalidArgumentError("--cupti applies to --gallery ours (the field gallery runs each case in its "
                                       "own process)")
        gallery = "ours"
    record = measure_doctor(args.device or 0, overhead=not args.no_overhead, cupti=args.cupti, gallery=gallery)
    if args.cupti:
        from cugraphlab.report.doctor_cupti import render_doctor_cupti

        print(render_doctor_cupti(record))
    else:
        print(render_doctor(record))
    from .args import save_json

    save_json(args.json, record)
    return EXIT_OK if record.ok else EXIT_FAILED
