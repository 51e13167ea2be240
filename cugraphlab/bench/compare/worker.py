"""The function each stack's worker process runs: open the stack, time every way and mode at every size.

``stack_job(**kwargs)`` is the ``run_workers`` target. It never raises for a stack problem: a stack that cannot be
imported or started gives "unavailable" rows, a way or mode that raises gives a "failed" row with the reason, and
the rest still run. What comes back is plain data: ``{"rows": [StackRow as dict], "versions": {...}, "gpu": {...}}``.
Nothing at module level imports a stack library, NumPy included, so that a per-stack ``sys.path`` override
(``CUGRAPHLAB_STACK_PYTHONPATH_<NAME>``) is in place before anything is imported.
"""
from __future__ import annotations

import importlib
import os
import sys
import time

__all__ = ["stack_job", "pythonpath_env"]


def pythonpath_env(stack: str) -> str:
    """The environment variable whose folders are prepended to ``sys.path`` in ``stack``'s worker."""
    return f"CUGRAPHLAB_STACK_PYTHONPATH_{stack.upper()}"


def _apply_pythonpath(stack: str) -> list[str]:
    extra = [p for p in os.environ.get(pythonpath_env(stack), "").split(os.pathsep) if p]
    for p in reversed(extra):
        if p not in sys.path:
            sys.path.insert(0, p)
    return extra


def stack_job(stack: str, variant: str, sizes, iters: int, launches: int, repeats: int, warmup: int, ops,
              scalar: float, seed: int, device: int, round_index: int) -> dict:
    """Time ``stack`` (job ``variant``) at each size; returns rows as dicts plus versions and GPU info.

    Parameters: ``sizes`` element counts; ``iters`` chain iterations per timed loop; ``launches`` launches per
    ``launch`` loop; ``repeats`` timed loops per mode; ``warmup`` repetitions before timing; ``ops`` the chain;
    ``scalar`` mul's factor; ``seed`` of the inputs (the same in every worker); ``device`` the GPU ordinal;
    ``round_index`` copied into each row.
    """
    t0 = time.monotonic()
    extra = _apply_pythonpath(stack)
    from .records import StackRow
    from .registry import STACKS
    from .way import StackUnavailable, short_error

    spec = STACKS[stack]
    ops = tuple(ops)
    versions, gpu, rows = {}, None, []
    if extra:
        versions["pythonpath_override"] = pythonpath_env(stack)

    def row(n, way, mode, status, note, **kw):
        rows.append(StackRow(stack, way, mode, int(n), round_index, status=status, note=note,
                             same_cubin=spec.same_cubin, **kw))

    try:
        module = importlib.import_module(spec.module)
        st = module.open_stack(device, ops, variant)
    except StackUnavailable as e:
        # a missing third-party package is "not installed"; this project's own ways (and the bare binding they
        # stand on) have no excuse: their failure to start is a failure, so a broken cugraphlab can never skip
        status = "failed" if spec.own else "unavailable"
        for n in sizes:
            row(n, "-", "-", status, str(e) if not spec.own else f"could not start: {e}")
        return _pack(rows, versions, gpu, t0)
    except Exception as e:  # a bug or a broken install: a failed row (never a traceback, never a skip)
        for n in sizes:
            row(n, "-", "-", "failed", f"could not start: {short_error(e)}")
        return _pack(rows, versions, gpu, t0)
    versions.update(getattr(st, "versions", {}) or {})
    if hasattr(st, "gpu"):
        try:
            gpu = st.gpu()
        except Exception:
            gpu = None
    version_text = ", ".join(f"{k} {v}" for k, v in versions.items() if v and k != "pythonpath_override")
    try:
        for n in sizes:
            _one_size(st, n, iters, launches, repeats, warmup, ops, scalar, seed, row, version_text)
    finally:
        try:
            st.close()
        except Exception:
            pass
    return _pack(rows, versions, gpu, t0)


def _one_size(st, n, iters, launches, repeats, warmup, ops, scalar, seed, row, version_text) -> None:
    from ..stats.summary import summarize
    from ..timing import DEVICE_CLOCK, WALL_CLOCK
    from .shared import expected_for, make_inputs
    from .way import MODES, StackUnavailable, measure_mode, short_error

    inputs = make_inputs(seed, n, repeats)
    expected = {m: expected_for(m, ops, inputs, scalar) for m in ("launch", "eager")}
    try:
        ways = st.ways(n, ops, scalar)
    except StackUnavailable as e:
        row(n, "-", "-", "unavailable", str(e))
        return
    except Exception as e:
        row(n, "-", "-", "failed", f"could not set up size {n}: {short_error(e)}")
        return
    for way in ways:
        try:
            for mode in MODES:
                note = way.notes.get(mode, "")
                if mode not in way.runners:
                    row(n, way.way, mode, "unsupported", way.unsupported.get(mode, "not available"),
                        version=version_text)
                    continue
                k = launches if mode == "launch" else iters
                try:
                    res = measure_mode(way, mode, k, repeats, warmup, inputs,
                                       expected["launch" if mode == "launch" else "eager"])
                except Exception as e:
                    row(n, way.way, mode, "failed", short_error(e), version=version_text)
                    continue
                w = summarize(res.wall, unit="us", clock=WALL_CLOCK)
                d = summarize(res.device, unit="us", clock=DEVICE_CLOCK) if res.device else None
                if not res.device and "no device clock" not in note:
                    note = f"{note}; no device clock" if note else "no device clock"
                row(n, way.way, mode, "ok", note, count=k, repeats=repeats, kernels=way.kernels.get(mode),
                    wall_us=w.median, wall_p5=w.p5, wall_p95=w.p95,
                    device_us=d.median if d else None, device_p5=d.p5 if d else None,
                    device_p95=d.p95 if d else None, checked=res.checked, mismatches=res.mismatches,
                    version=version_text, wall_samples=[float(v) for v in res.wall])
        finally:
            try:
                way.close()
            except Exception:
                pass


def _pack(rows, versions, gpu, t0) -> dict:
    from dataclasses import asdict

    seconds = time.monotonic() - t0
    out = []
    for r in rows:
        r.seconds = round(seconds, 3)
        out.append(asdict(r))
    return {"rows": out, "versions": versions, "gpu": gpu, "pid": os.getpid()}


def paired_job(device: int, size: int, contexts: int, seed: int, ways=None) -> dict:
    """The paired measurement (``bench.paired.harness.measure_paired``) of every way that can share one context, in a worker
    process of its own: interleaved in one process, context and stream, over ``contexts`` fresh contexts; returns
    the record as a dict. A failure of this project's own ways raises (the parent turns it into a failed section)."""
    from ..paired.harness import measure_paired

    return measure_paired(device, size, contexts=contexts, seed=seed, ways=ways).to_dict()
