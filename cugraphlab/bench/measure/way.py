"""What every way of ``measure`` is (``Way``: ``run(n)`` enqueues n calls), the errors a user's work meets, and the
loops that cost next to nothing, so that what is timed is the call:

- a builtin (a native launch's ``fire``, a C function) is driven by ``itertools.starmap`` drained into a
  zero-length deque: the loop runs in C, no bytecode per call;
- a Python function or method is called from a Python loop (``for _ in repeat(None, n): f(a)``): since Python 3.11 a
  call from Python code to Python code skips the C entry into the interpreter that a call from C pays. On the H200
  (Python 3.12) the starmap loop cost 0.04-0.05 µs per call more than a bare Python loop calling the same function
  (benchmarks/results/2026-12-01_H200_round7/*_measure_overhead_parts_*.log)."""
from __future__ import annotations

import os
import types
from collections import deque
from dataclasses import dataclass, field
from itertools import cycle, islice, repeat, starmap
from typing import Callable

from ...core.errors import CugraphlabError, InvalidArgumentError

__all__ = ["WAYS", "Way", "WorkRaised", "StreamIgnoredError", "call_user", "user_error", "drain", "repeat_calls",
           "unavailable", "is_python_code", "reference_way", "graph_reference_way", "REFERENCES", "reference_of",
           "CAPTURE_COST_REPEATS"]

WAYS = {
    "eager": "each call made from Python",
    "graph": "the work captured once, one cuGraphLaunch per call from Python",
    "native": "the same driver call made from C behind a Python builtin (no binding between)",
    "floor": "the same driver call in a C loop (no Python at all): the floor",
    "reference": "cuLaunchKernel of an empty kernel through the bare binding, in the same rounds: what x ref "
                 "divides by",
    "graph reference": "cuGraphLaunch of a graph of one empty kernel through the bare binding, in the same rounds: "
                       "what the graph way's x ref divides by",
}
#: The ways timed beside the user's, to divide by: never checked, never given an x ref of their own.
REFERENCES = ("reference", "graph reference")


def reference_of(way: str) -> str:
    """The reference a way's host cost is divided by: like for like, a graph launch by a graph launch (the two
    calls move differently with a process's launch-cost mode: on the H200 a graph launch's cost over an empty
    kernel launch's ranged 0.42-0.52 between sessions, the eager launch's 1.07-1.11)."""
    return "graph reference" if way == "graph" else "reference"
CAPTURE_COST_REPEATS = 3


class WorkRaised(InvalidArgumentError):
    """The user's work (or its setup or check) raised: the message names the exception and the line it came from;
    the original exception is chained (``__cause__``)."""


class StreamIgnoredError(InvalidArgumentError):
    """A callable enqueued nothing on the stream it was given (a capture of one call holds no node)."""


def _where(exc: BaseException) -> str:
    """`` (at file.py:LINE in function)``: the deepest frame of the user's code, never the import machinery's
    (``<frozen importlib._bootstrap>``) nor the interpreter's own."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not (name.startswith("<") or f"{os.sep}importlib{os.sep}" in name):
            last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    return f" (at {code.co_filename.rsplit('/', 1)[-1]}:{last.tb_lineno} in {code.co_name})"


def user_error(what: str, e: BaseException) -> WorkRaised:
    """The one-line WorkRaised for exception ``e`` of the user's ``what`` (raise it ``from e``)."""
    text = f": {str(e).splitlines()[0]}" if str(e) else ""
    if isinstance(e, ImportError):  # a module it imports is missing: say that, not the exception's class
        return WorkRaised(f"{what} failed: {str(e).splitlines()[0] if str(e) else 'an import failed'}{_where(e)}")
    return WorkRaised(f"{what} raised {type(e).__name__}{text}{_where(e)}")


def call_user(what: str, fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)``; an exception of the user's code becomes one WorkRaised line naming ``what``.
    cugraphlab's own errors (a CudaError, a CompileError) pass through as they are."""
    try:
        return fn(*args, **kwargs)
    except CugraphlabError:
        raise
    except Exception as e:
        raise user_error(what, e) from e


def drain(it) -> None:
    """Run an iterator to its end in C, keeping nothing (a zero-length deque)."""
    deque(it, maxlen=0)


try:
    from operator import call as _call  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    def _call(f):
        return f()


def _python_loop(f: Callable, args: tuple) -> Callable[[int], None]:
    """``run(n)``: ``f(*args)`` ``n`` times from a Python loop, the arguments spelled out for up to three."""
    if not args:
        def run(n: int) -> None:
            for _ in repeat(None, n):
                f()
    elif len(args) == 1:
        (a,) = args

        def run(n: int) -> None:
            for _ in repeat(None, n):
                f(a)
    elif len(args) == 2:
        a, b = args

        def run(n: int) -> None:
            for _ in repeat(None, n):
                f(a, b)
    elif len(args) == 3:
        a, b, c = args

        def run(n: int) -> None:
            for _ in repeat(None, n):
                f(a, b, c)
    else:
        def run(n: int) -> None:
            for _ in repeat(None, n):
                f(*args)
    return run


def is_python_code(f) -> bool:
    """True for a function or bound method written in Python (what a Python loop calls cheapest)."""
    if isinstance(f, types.MethodType):
        f = f.__func__
    return isinstance(f, types.FunctionType)


def repeat_calls(fns: tuple, args: tuple = ()) -> Callable[[int], None]:
    """``run(n)``: ``n`` rounds of ``fns`` in order, each called with ``args``: one Python function or method from a
    Python loop, anything else from a loop in C (the module docstring says why)."""
    if len(fns) == 1:
        f = fns[0]
        if is_python_code(f):
            return _python_loop(f, tuple(args))
        return lambda n: drain(starmap(f, repeat(args, n)))
    if args:
        raise ValueError("several functions are called without arguments")
    k = len(fns)
    return lambda n: drain(map(_call, islice(cycle(fns), n * k)))


@dataclass
class Way:
    """One way of running the work: ``run(n)`` enqueues ``n`` calls (None when it cannot be measured here:
    ``note`` says why; a failed capture also keeps the doctor's ``diagnosis``). ``costs``: one-off costs in µs
    (graph: capture, instantiate, upload samples) and facts (nodes). ``close`` frees what the way made.
    ``per_call``: the launches (kernel or graph) one call queues, None when unknown (a callable): how many calls
    fit behind the hold (``held``)."""

    name: str
    what: str
    run: Callable[[int], None] | None
    note: str = ""
    diagnosis: dict | None = None
    costs: dict = field(default_factory=dict)
    close: Callable[[], None] | None = None
    per_call: int | None = 1


def unavailable(name: str, e: BaseException) -> Way:
    return Way(name, WAYS[name], None, note=f"not measured: {e}")


# --- graphs -------------------------------------------------------------------------------------------------------
def reference_way(device, stream) -> Way:
    """The reference measured beside every way, in the same rounds: the package's empty kernel launched through
    the bare binding (``bench.native.loops.bindings_loop``). A way's host µs per call over the reference's, round
    by round, is its cost in bare launches: a figure that repeats between processes, where the absolute one moves
    with the process's launch-cost mode (docs/studies/launch-cost-modes.md)."""
    try:
        from ...core.launch import LaunchConfig
        from ..native.loops import bindings_loop

        kernels = device.load_kernels(names=["empty"])
    except Exception as e:
        return unavailable("reference", e)
    launch = kernels["empty"].prepare((), (), LaunchConfig(1, 32), stream)
    loop = bindings_loop(launch)
    loop.keep = launch  # type: ignore[attr-defined]
    return Way("reference", WAYS["reference"], loop, close=kernels.close)


def graph_reference_way(device, stream) -> Way:
    """The graph way's reference, in the same rounds: a graph holding the package's empty kernel once, captured,
    instantiated and uploaded here, launched through the bare binding (``bench.native.loops.graph_bindings_loop``,
    the loop the graph way uses). The graph way's host µs per call over it is its cost in bare graph launches."""
    try:
        from ...core.launch import LaunchConfig
        from ...graphs.capture import capture_launches
        from ..native.loops import graph_bindings_loop

        kernels = device.load_kernels(names=["empty"])
    except Exception as e:
        return unavailable("graph reference", e)
    try:
        launch = kernels["empty"].prepare((), (), LaunchConfig(1, 32), stream)
        graph = capture_launches(stream, [launch])
        exe = graph.instantiate()
        exe.upload(stream)
    except Exception as e:
        kernels.close()
        return unavailable("graph reference", e)

    def close() -> None:
        exe.close()
        graph.close()
        kernels.close()

    loop = graph_bindings_loop(exe, stream)
    loop.keep = (launch, graph, exe)  # type: ignore[attr-defined]
    return Way("graph reference", WAYS["graph reference"], loop, close=close)
