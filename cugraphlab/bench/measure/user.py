"""``cugraphlab.measure``: one call that times a user's work eagerly, as a graph and natively.

Imports nothing heavy until it is called (``import cugraphlab.bench`` binds this function)."""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["measure"]


def measure(work, *, setup: Callable | str | None = None, stream: Any = None, device: Any = None,
            ways: tuple[str, ...] | None = None, check: Callable | str | None = None,
            prepare: Callable | str | None = None, l2: str = "warm", processes: int | None = None,
            calls: int | None = None, min_samples: int = 10, max_samples: int = 200, target_spread: float = 0.01,
            time_budget_s: float = 5.0, sm_clock: bool = True, reference: bool = True,
            capture_mode: str = "thread_local",
            timeout_s: float | None = None, progress: Callable[[str], None] | None = None):
    """Time ``work`` every way it can run: eagerly from Python, as a CUDA graph, natively from C.

    ``work``: a prepared ``Launch`` (or a list of them, fired in order as one call); a callable ``fn(stream)``
    that enqueues one call's work on the stream it is given; a ``Graph`` or ``GraphExec``; or a target string
    ``"path/to/file.py:function"`` / ``"package.module:function"`` naming such a callable.

    Ways (``ways=`` picks some; default all that apply): ``eager`` (each call from Python), ``graph`` (the work
    captured once through the capture doctor, replayed with one cuGraphLaunch per call: if the capture fails, the
    way carries the doctor's diagnosis instead of a timing, and the rest is still measured), ``native`` (for
    launches and graphs: the same driver call from C behind a Python builtin) and ``floor`` (a C loop: the driver
    alone). Each way reports, per call, in µs: ``host`` (what the calls cost the launching thread), ``wall`` (until
    the GPU is done) and ``device`` (CUDA events), with intervals; the graph's capture, instantiate and upload
    costs and the break-even count of calls; the SM clock and why sampling stopped.

    Parameters:
      ``setup``: ``setup(stream)`` (or ``setup()``) runs once first; what it returns is handed to the work, to
      ``prepare`` and to ``check`` (a tuple as extra positional arguments, a dict as keyword arguments, anything
      else as one argument). ``stream``: which stream a callable gets: ``"cugraphlab"`` (default), ``"cupy"``,
      ``"torch"``, ``"cuda.core"`` or ``"handle"`` (an int), all views of one stream made here; or a stream object
      (CuPy, PyTorch, cuda.core or cugraphlab), used as it is. ``device``: a Device or an ordinal (default 0; a
      launch or graph brings its own). ``check``: run after the timed loops, once per way, right after one more
      call of that way (``prepare`` runs before it: fresh inputs, poisoned outputs); it passes by returning None or
      True (or a ``compare_bits`` result that is ok) and fails by returning False or raising AssertionError.
      ``l2``: "warm" or "cold" (the L2 flushed before every call; a sample is then one call). ``processes``: N >= 2
      measures in N fresh processes, one after the other, each importing the work by name (a target string or a
      top-level function); intervals then take the process as the unit. ``calls``: calls per sample (default:
      about 1 ms of the first way). ``min_samples``/``max_samples``/``target_spread``/``time_budget_s``: sampling
      stops once every way's median is known within ``target_spread`` (~95% interval), at ``max_samples``, or at
      the time budget (per process). ``sm_clock``: read the SM clock after each round. ``reference``: time the
      bare launch of an empty kernel in the same rounds, and give each way its host cost in those launches
      (``x ref``, rows ``"WAY: host / reference"``): a paired figure that repeats between processes where the
      absolute one moves with the process's launch-cost mode. ``capture_mode``: the
      capture's CUstreamCaptureMode ("thread_local", "global", "relaxed"). ``timeout_s``: per worker process.

    Returns a ``MeasureResult`` (a Record of kind ``cugraphlab.measure``: ``result["eager"].host.median``,
    ``result.break_even``, ``result.to_dict()``; ``cugraphlab diff`` compares two). Raises InvalidArgumentError
    (one line) for bad input, ``WorkRaised`` when the work, its setup or its check raises (the exception chained),
    ``StreamIgnoredError`` when a callable enqueues nothing on the stream it is given.
    """
    from .processes import measure_processes
    from .run import measure_here

    sampling = dict(min_samples=min_samples, max_samples=max_samples, target_spread=target_spread,
                    time_budget_s=time_budget_s)
    options = dict(ways=tuple(ways) if ways is not None else None, l2=l2, calls=calls, sm_clock=sm_clock,
                   reference=bool(reference), capture_mode=capture_mode, **sampling)
    if processes is not None and processes != 1:
        return measure_processes(work, setup=setup, check=check, prepare=prepare, stream=stream, device=device,
                                 processes=processes, options=options, timeout_s=timeout_s, progress=progress)
    return measure_here(work, setup=setup, check=check, prepare=prepare, stream=stream, device=device,
                        options=options, progress=progress)
