"""``cugraphlab.measure``: one call that times a user's work eagerly, as a graph and natively.

``work``: a prepared ``Launch`` (or a list of them, fired in order as one call); a callable ``fn(stream)``
that enqueues one call's work on the stream it is given; a ``Graph`` or ``GraphExec``; or a target string
``"path/to/file.py:function"`` / ``"package.module:function"`` naming such a callable.

Ways (``ways=`` picks some; default all that apply): ``eager`` (each call from Python), ``graph`` (the work
captured once through the capture doctor, replayed with one cuGraphLaunch per call: if the capture fails, the
way carries the doctor's diagnosis instead of a timing, and the rest is still measured), ``native`` (for
launches and graphs: the same driver call from C behind a Python builtin) and ``floor`` (a C loop: the driver
alone). Each way reports, per call, in µs, five clocks with intervals:

  ``held``   how long the work runs on the GPU: K calls queued behind a kernel holding the stream, CUDA events
             around them, released, / K (no host gap inside); "n/a" (no figure) when the work synchronises
  ``cold``   the same for one call after an L2 flush, queued behind the hold: a first touch of cold data
  ``host``   what a call costs the launching thread (perf_counter_ns around the calls)
  ``wall``   from before the first call until the GPU is done, per call
  ``device`` CUDA events around the calls as the host makes them: the host's pace when a call is shorter
             than the host needs to make it (the GPU idles between calls), the GPU's time when it is longer

and the graph's capture, instantiate and upload costs and the break-even count of calls; the SM clock and
why sampling stopped.

Imports nothing heavy until it is called (``import cugraphlab.bench`` binds this function)."""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["measure"]


def _check_call_args(processes, timeout_s, **functions) -> None:
    from ...core.errors import InvalidArgumentError

    if processes is not None and (isinstance(processes, bool) or not isinstance(processes, int) or processes < 1):
        raise InvalidArgumentError(f"processes must be a whole number >= 1, got {processes!r}")
    if timeout_s is not None and (isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float))
                                  or not timeout_s > 0):
        raise InvalidArgumentError(f"timeout_s must be a number of seconds > 0, got {timeout_s!r}")
    for name, f in functions.items():
        if f is not None and not isinstance(f, str) and not callable(f):
            raise InvalidArgumentError(f"{name} must be a function or a 'path.py:function' string, got "
                                       f"{type(f).__name__}")


def measure(work, *, setup: Callable | str | None = None, stream: Any = None, device: Any = None,
            ways: tuple[str, ...] | None = None, check: Callable | str | None = None,
            prepare: Callable | str | None = None, l2: str = "warm", processes: int | None = None,
            calls: int | None = None, min_samples: int = 10, max_samples: int = 200, target_spread: float = 0.01,
            time_budget_s: float = 5.0, sm_clock: bool = True, reference: bool = True,
            capture_mode: str = "thread_local", gpu_clocks: bool = True,
            timeout_s: float | None = None, progress: Callable[[str], None] | None = None):
    """Time ``work`` every way it can run: eagerly from Python, as a CUDA graph, natively from C.

    What each way and each clock is: the module docstring.

    Parameters
    ----------
    work : Launch, list of Launch, callable, Graph, GraphExec or str
        What is timed (above); a callable is ``fn(stream)``, a string ``"file.py:function"`` names one.
    setup : callable or str, optional
        ``setup(stream)`` (or ``setup()``) runs once first; what it returns is handed to the work, to ``prepare``
        and to ``check`` (a tuple as extra positional arguments, a dict as keyword arguments, anything else as one
        argument).
    stream : str or stream object, optional
        Which stream a callable gets: ``"cugraphlab"`` (default), ``"cupy"``, ``"torch"``, ``"cuda.core"`` or
        ``"handle"`` (an int), all views of one stream made here; or a stream object (CuPy, PyTorch, cuda.core or
        cugraphlab), used as it is.
    device : Device or int, optional
        A Device or an ordinal (default 0; a launch or graph brings its own).
    ways : tuple of str, optional
        Which of ``eager``, ``graph``, ``native``, ``floor`` (default: all that apply).
    check : callable or str, optional
        Run after the timed loops, once per way, right after one more call of that way (``prepare`` runs before
        it: fresh inputs, poisoned outputs); it passes by returning None or True (or a ``compare_bits`` result that
        is ok) and fails by returning False or raising AssertionError.
    prepare, l2 : callable or str, str
        Run before each checked call (and each timed round): fresh inputs, poisoned outputs; ``l2``: ``"warm"``
        only (the cold L2 is every way's ``cold`` clock; ``l2="cold"`` is refused, naming it).
    processes : int, optional
        N >= 2 measures in N fresh processes, one after the other, each importing the work by name (a target
        string or a top-level function); intervals then take the process as the unit.
    calls : int, optional
        Calls per sample (default: about 1 ms of the first way).
    min_samples, max_samples, target_spread, time_budget_s : int, int, float, float
        Samples per way at least and at most; sampling stops once every way's median is known within
        ``target_spread`` (~95% interval), at ``max_samples``, or at ``time_budget_s`` (per process).
    sm_clock, reference : bool
        Read the SM clock after each round; time the bare launch of an empty kernel in the same rounds and give
        each way its host cost in those launches (``x ref``: a paired figure that repeats between processes).
    capture_mode, gpu_clocks, timeout_s, progress : str, bool, float, callable
        The capture's CUstreamCaptureMode (``"thread_local"``, ``"global"``, ``"relaxed"``); take the held and
        cold samples (default True); seconds per worker process; called with a line of text as it goes.

    Returns
    -------
    MeasureResult
        A Record of kind ``cugraphlab.measure``: ``result["eager"].host.median``, ``result.break_even``,
        ``result.to_dict()``, ``result.save(path)``; ``cugraphlab diff`` compares two.

    Raises
    ------
    InvalidArgumentError
        Bad input, in one line; every keyword is checked before anything runs.
    WorkRaised
        The work, its setup, its prepare or its check raised (the exception chained).
    StreamIgnoredError
        A callable enqueued nothing on the stream it was given.
    """
    from .options import MeasureOptions
    from .processes import measure_processes
    from .run import measure_here

    # every keyword checked here, before anything runs (whichever ways are asked)
    options = MeasureOptions.coerce(dict(ways=tuple(ways) if isinstance(ways, (list, tuple)) else ways, l2=l2,
                                         calls=calls, sm_clock=sm_clock, reference=reference,
                                         capture_mode=capture_mode, gpu_clocks=gpu_clocks, min_samples=min_samples,
                                         max_samples=max_samples, target_spread=target_spread,
                                         time_budget_s=time_budget_s))
    _check_call_args(processes, timeout_s, setup=setup, check=check, prepare=prepare, progress=progress)
    if processes is not None and processes != 1:
        return measure_processes(work, setup=setup, check=check, prepare=prepare, stream=stream, device=device,
                                 processes=processes, options=options, timeout_s=timeout_s, progress=progress)
    return measure_here(work, setup=setup, check=check, prepare=prepare, stream=stream, device=device,
                        options=options, progress=progress)
