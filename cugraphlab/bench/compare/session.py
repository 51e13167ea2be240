"""``cugraphlab compare``: every Python way to launch the chain, each stack timed in its OWN fresh process.

Why one process per stack: measured on an H200 (docs/studies/legacy-stream.md), kernels run ~7% slower on the
device when PyTorch or CuPy launched kernels in the process before cugraphlab allocated its buffers; the same steps done afterwards slow nothing. Rather than order libraries inside one
process (and still let each one's allocator, streams and module loads shape the others), every stack runs in a
spawned worker of its own on the same inputs (the same seed), one worker at a time, so no two stacks share a
process or the GPU while timed. ``rounds`` (default 2) runs every stack once per round, round after round, so each
figure's repeatability across two processes is part of the result.

``compare(...)`` validates everything before starting a worker (``InvalidArgumentError``), then for each round and
stack runs ``bench.compare.worker.stack_job`` through ``bench.workers.run_workers``; a worker that raises, dies or
runs past ``timeout_s`` becomes rows saying so.
"""
from __future__ import annotations

import math
import os
import random
import sys
from contextlib import contextmanager
from typing import Callable, Sequence

from .records import CompareResult, StackRow
from .registry import BASELINE_STACKS, STACKS

__all__ = ["DEFAULT_SIZES", "DEFAULT_TIMEOUT_S", "compare", "compare_baselines", "compare_checked", "validate_compare",
           "CompareResult",
           "StackRow"]

DEFAULT_SIZES = (1 << 20, 1024)
DEFAULT_TIMEOUT_S = 900.0  # per worker: Triton/JAX compiles plus 2 sizes x 4 modes x repeats of 5,000 iterations
DEFAULT_WARMUP = 200


def validate_compare(*, size=DEFAULT_SIZES, iters: int = 5000, ops=("add", "mul", "sub", "relu"), repeats: int = 5,
                     device: int = 0, scalar: float = 2.0, stacks: Sequence[str] | str | None = None, rounds: int = 2,
                     launches: int | None = None, warmup: int = DEFAULT_WARMUP,
                     timeout_s: float = DEFAULT_TIMEOUT_S) -> dict:
    """Every argument of ``compare`` checked and normalised into its config (sizes deduplicated in order), or ONE
    ``InvalidArgumentError`` (nothing has touched a GPU yet). ``compare_checked`` runs the config returned."""
    from ...core.errors import InvalidArgumentError, positive_int
    from ...experiment.ops import parse_ops

    sizes = tuple(size) if isinstance(size, (list, tuple, set, range)) else (size,)
    if not sizes:
        raise InvalidArgumentError("give at least one size")
    sizes = tuple(dict.fromkeys(positive_int("size", s) for s in sizes))
    ops = parse_ops(ops)
    iters = positive_int("iterations", iters)
    launches = iters if launches is None else positive_int("launches", launches)
    repeats = positive_int("repeats", repeats)
    rounds = positive_int("rounds", rounds)
    device = positive_int("device", device, minimum=0)
    warmup = positive_int("warm-up", warmup, minimum=0)
    try:
        import numpy as np

        s32 = float(np.float32(scalar))
    except (TypeError, ValueError):
        s32 = float("nan")
    if not math.isfinite(s32):
        raise InvalidArgumentError(f"scalar must be a finite float32, got {scalar!r}")
    if stacks is None:
        names = list(STACKS)
    else:
        names = [s.strip() for s in stacks.split(",")] if isinstance(stacks, str) else [str(s).strip() for s in stacks]
        names = [s for s in dict.fromkeys(names) if s]
        unknown = [s for s in names if s not in STACKS]
        if unknown or not names:
            raise InvalidArgumentError(f"unknown stack {unknown[0] if unknown else '(none)'!r}; "
                                       f"known: {', '.join(STACKS)}")
    if not (isinstance(timeout_s, (int, float)) and math.isfinite(timeout_s) and timeout_s > 0):
        raise InvalidArgumentError(f"timeout must be a positive number of seconds, got {timeout_s!r}")
    return {"sizes": list(sizes), "iters": iters, "launches": launches, "ops": list(ops), "scalar": float(scalar),
            "repeats": repeats, "rounds": rounds, "device": device, "warmup": warmup, "stacks": names,
            "timeout_s": float(timeout_s)}


@contextmanager
def _job_env(pairs):
    """Set environment variables for the worker about to be spawned (it inherits them), restore after.

    ``("XLA_FLAGS", "+cmdbuf")`` appends JAX's command-buffer flags to any XLA_FLAGS already set."""
    saved = {}
    try:
        for key, value in pairs:
            saved[key] = os.environ.get(key)
            if key == "XLA_FLAGS" and value == "+cmdbuf":
                from .stacks.jax import COMMAND_BUFFER_FLAGS

                value = " ".join(x for x in (saved[key] or "", COMMAND_BUFFER_FLAGS) if x)
            os.environ[key] = value
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def _stack_folder(stack: str) -> str | None:
    return os.environ.get(f"CUGRAPHLAB_STACK_PYTHONPATH_{stack.upper()}") or None


@contextmanager
def _front_of_sys_path(folder: str | None):
    """Put ``folder`` first in this process's sys.path while a worker is spawned: a spawned child takes its parent's
    sys.path before it imports anything (multiprocessing's preparation data), so PYTHONPATH alone would not win."""
    if not folder:
        yield
        return
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        try:
            sys.path.remove(folder)
        except ValueError:
            pass


def _stack_path(stack: str) -> tuple:
    """``CUGRAPHLAB_STACK_PYTHONPATH_<STACK>`` put in front of PYTHONPATH for that stack's worker process, so that
    what it holds (e.g. a NumPy that numba-cuda supports, for the numba worker only) is imported before the
    machine's own packages: the worker is a fresh interpreter, and PYTHONPATH comes before site-packages."""
    extra = os.environ.get(f"CUGRAPHLAB_STACK_PYTHONPATH_{stack.upper()}")
    if not extra:
        return ()
    rest = os.environ.get("PYTHONPATH")
    return (("PYTHONPATH", extra + (os.pathsep + rest if rest else "")),)


def _failure_rows(stack: str, variant: str, cfg: dict, round_index: int, why: str, seconds: float) -> list[StackRow]:
    way = f"({variant})" if variant else "-"
    return [StackRow(stack, way, "-", n, round_index, status="failed", note=f"worker: {why}",
                     same_cubin=STACKS[stack].same_cubin, seconds=round(seconds, 3)) for n in cfg["sizes"]]


def compare(size=DEFAULT_SIZES, iters: int = 5000, ops=("add", "mul", "sub", "relu"), repeats: int = 5,
            device: int = 0, *, scalar: float = 2.0, seed: int | None = None, stacks: Sequence[str] | str | None = None,
            rounds: int = 2, launches: int | None = None, warmup: int = DEFAULT_WARMUP,
            timeout_s: float = DEFAULT_TIMEOUT_S, progress: Callable[[str], None] | None = None,
            target: Callable | None = None, paired_contexts: int = 0) -> CompareResult:
    """Time every asked-for stack launching the same chain, each in its own process, ``rounds`` times.

    Stacks are interleaved across processes (round 1: A B C, round 2: A B C, ...), never A A B B; a worker that
    fails or runs past ``timeout_s`` leaves rows saying why, and the others go on. Every argument is checked
    (``validate_compare``) before any worker starts.

    Parameters
    ----------
    size : int or sequence of int
        One element count or several.
    iters : int
        Chain iterations per timed loop.
    ops : sequence of str or str
        The chain's ops (``experiment.ops.parse_ops``).
    repeats : int
        Timed loops per mode.
    device : int
        The GPU ordinal.
    scalar : float
        The factor of ``mul`` (a finite float32).
    seed : int or None
        Seed of the inputs (drawn once if None, then the same in every worker).
    stacks : sequence of str, str or None
        Names from ``bench.compare.registry.STACKS`` (comma-separated or a list); None: all.
    rounds : int
        Passes over all stacks.
    launches : int or None
        Launches per ``launch`` loop (default ``iters``).
    warmup : int
        Untimed repetitions before timing, in each worker (0 or more).
    timeout_s : float
        Seconds each worker may run.
    progress : callable or None
        ``progress(line)``, called with one line per finished worker.
    target : callable or None
        Replaces the worker function (tests).
    paired_contexts : int
        Above 0, adds, after the stacks, one worker per size measuring the ways that can share one context paired
        over that many fresh contexts (``bench.paired``: ratios to the bare binding with 95% intervals).

    Returns
    -------
    CompareResult
        One StackRow per stack, way, mode and size (figures or why not), each stack's versions, the paired
        measurement if asked, the raw samples and the environment.

    Raises
    ------
    InvalidArgumentError
        Bad input (a size, count, scalar, stack, ordinal or timeout), in one line, before any worker starts.
    """
    cfg = validate_compare(size=size, iters=iters, ops=ops, repeats=repeats, device=device, scalar=scalar,
                           stacks=stacks, rounds=rounds, launches=launches, warmup=warmup, timeout_s=timeout_s)
    return compare_checked(cfg, seed=seed, progress=progress, target=target, paired_contexts=paired_contexts)


def compare_checked(config: dict, *, seed: int | None = None, progress: Callable[[str], None] | None = None,
                    target: Callable | None = None, paired_contexts: int = 0) -> CompareResult:
    """``compare`` on a config ``validate_compare`` returned (the CLI checks once, before its other checks, and
    runs what it checked); the other parameters as ``compare``'s."""
    from ..records.environment import collect
    from .worker import stack_job

    cfg = dict(config)
    cfg["seed"] = int(seed) if seed is not None else random.SystemRandom().randrange(2**32)
    cfg["chain"] = " -> ".join(f"mul {cfg['scalar']:g}" if o == "mul" else o for o in cfg["ops"])
    cfg["process"] = "one spawned process per stack, size and round, one at a time"
    say = progress or (lambda _line: None)
    target = target or stack_job
    rows: list[StackRow] = []
    versions: dict = {}
    gpu = None
    for r in range(1, cfg["rounds"] + 1):
        for n in cfg["sizes"]:  # a fresh process per size too: a chain made after another one ran reads slower
            for name in cfg["stacks"]:
                for variant, env in STACKS[name].jobs:
                    got = _one_job(target, cfg, name, variant, env, n, r, rows, say)
                    if got is not None:
                        if got.get("versions"):
                            versions.setdefault(name + (f" ({variant})" if variant else ""), got["versions"])
                        gpu = gpu or got.get("gpu")
    paired = _paired_sections(cfg, paired_contexts, say) if paired_contexts else None
    env = collect(None)  # the parent never opens a device; the GPU is what the workers saw
    if gpu:
        env["gpu_seen_by_workers"] = gpu
        env["gpu"] = {k: gpu.get(k) for k in ("name", "compute_capability", "sm_count")}
        env["driver"] = {"cuda": gpu.get("driver_cuda"), "release": _driver_release()}
    cfg["paired_contexts"] = paired_contexts
    return CompareResult(config=cfg, rows=rows, env=env, versions=versions, paired=paired)


def _paired_sections(cfg: dict, contexts: int, say) -> dict:
    """size -> the paired record (a dict), or {"error": why} when its worker failed."""
    from ..workers import run_workers
    from .worker import paired_job

    out = {}
    for n in cfg["sizes"]:
        kwargs = {"device": cfg["device"], "size": n, "contexts": contexts, "seed": cfg["seed"] % (2**31)}
        outcome = run_workers(paired_job, [kwargs], cfg["timeout_s"], start_together=False)[0]
        if outcome.ok and isinstance(outcome.result, dict):
            out[str(n)] = outcome.result
            say(f"paired at {n:,}: {contexts} contexts in {outcome.seconds:.1f} s")
        else:
            out[str(n)] = {"error": outcome.error or "no result"}
            say(f"paired at {n:,}: FAILED ({outcome.error})")
    return out


def _one_job(target, cfg: dict, name: str, variant: str, env, n: int, r: int, rows: list, say) -> dict | None:
    """Run one stack's worker for size ``n`` in round ``r`` in a fresh process; add its rows (or rows saying why it
    failed) to ``rows``; return what the worker reported, or None."""
    from ..workers import run_workers

    kwargs = {"stack": name, "variant": variant, "sizes": [n], "iters": cfg["iters"], "launches": cfg["launches"],
              "repeats": cfg["repeats"], "warmup": cfg["warmup"], "ops": cfg["ops"], "scalar": cfg["scalar"],
              "seed": cfg["seed"], "device": cfg["device"], "round_index": r}
    with _job_env(tuple(env) + _stack_path(name)), _front_of_sys_path(_stack_folder(name)):
        outcome = run_workers(target, [kwargs], cfg["timeout_s"], start_together=False)[0]
    label = f"round {r}: {name}" + (f" ({variant})" if variant else "") + f" at {n:,}"
    got = outcome.result if outcome.ok and isinstance(outcome.result, dict) else None
    try:
        if got is None:
            raise ValueError(outcome.error if not outcome.ok else f"returned {type(outcome.result).__name__}")
        new = [StackRow(**d) for d in got.get("rows", [])]
    except (TypeError, ValueError) as e:
        why = str(e) if isinstance(e, ValueError) else f"bad rows: {e}"
        rows.extend(_failure_rows(name, variant, {**cfg, "sizes": [n]}, r, why, outcome.seconds))
        say(f"{label}: FAILED ({why})")
        return None
    rows.extend(new)
    say(f"{label}: {sum(x.measured for x in new)} rows measured in {outcome.seconds:.1f} s")
    return got


def _driver_release():
    try:
        from ..records.environment import driver_release

        return driver_release()
    except Exception:
        return None


def compare_baselines(size: int, iters: int, ops, repeats: int, device: int, *, scalar: float = 2.0,
                      seed: int | None = None, progress=None) -> CompareResult:
    """What ``cugraphlab run --compare`` shows: cugraphlab, CuPy ufuncs and PyTorch at the run's size, one round."""
    return compare([size], iters, ops, repeats, device, scalar=scalar, seed=seed, stacks=BASELINE_STACKS, rounds=1,
                   progress=progress)
