"""What ``measure`` can time, and the ways it times each kind of work.

    the work                          its ways, in this order
    a prepared Launch, or a list      eager   one binding call per launch (``experiment.runners.Runner.eager``)
                                      graph   the launches captured once, replayed with one cuGraphLaunch
                                      native  ``Launch.native()``: cuLaunchKernel from C behind a builtin function
                                      floor   the C loop of ``bench.native``: the driver alone, no Python
    a callable ``fn(stream)``         eager   ``fn`` called from Python
                                      graph   one call of ``fn`` captured, replayed
    a Graph or GraphExec              graph   cuGraphLaunch from Python
                                      native  ``NativeGraphLaunch``: cuGraphLaunch from C behind a builtin
                                      floor   the C loop of cuGraphLaunch

Every way is a ``Way`` whose ``run(n)`` enqueues ``n`` calls on the stream and returns: what the one timer
(``bench.timing.timed_loop``) times. The loops themselves cost next to nothing: a callable and a native launch are
driven by ``itertools.starmap`` drained into a zero-length deque, a loop that runs in C (no Python bytecode per
call), so what is timed is the call.

A graph is captured through the capture doctor (``graphs.capture(..., explain=True)``): a capture that fails gives
a ``Way`` with no ``run`` and the doctor's diagnosis (which call broke it, from which line, the fix). A callable
whose captured call holds no node did not enqueue on the stream it was given: ``StreamIgnoredError``.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from itertools import cycle, islice, repeat, starmap
from typing import Callable

from ...core.errors import CugraphlabError, InvalidArgumentError

__all__ = ["Way", "WorkRaised", "StreamIgnoredError", "LaunchWork", "CallableWork", "GraphWork", "as_work",
           "explained_capture", "capture_way", "reference_way", "call_user", "user_error", "WAYS"]

#: Every way's name and what it times (shown in the table and kept in the record).
WAYS = {
    "eager": "each call made from Python",
    "graph": "the work captured once, one cuGraphLaunch per call from Python",
    "native": "the same driver call made from C behind a Python builtin (no binding between)",
    "floor": "the same driver call in a C loop (no Python at all): the floor",
    "reference": "cuLaunchKernel of an empty kernel through the bare binding, in the same rounds: what x ref "
                 "divides by",
}
CAPTURE_COST_REPEATS = 3


class WorkRaised(InvalidArgumentError):
    """The user's work (or its setup or check) raised: the message names the exception and the line it came from;
    the original exception is chained (``__cause__``)."""


class StreamIgnoredError(InvalidArgumentError):
    """A callable enqueued nothing on the stream it was given (a capture of one call holds no node)."""


def _where(exc: BaseException) -> str:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    return f" (at {code.co_filename.rsplit('/', 1)[-1]}:{last.tb_lineno} in {code.co_name})"


def user_error(what: str, e: BaseException) -> WorkRaised:
    """The one-line WorkRaised for exception ``e`` of the user's ``what`` (raise it ``from e``)."""
    text = f": {str(e).splitlines()[0]}" if str(e) else ""
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


def repeat_calls(fns: tuple, args: tuple = ()) -> Callable[[int], None]:
    """``run(n)``: ``n`` rounds of ``fns`` in order, each called with ``args``, the loop in C."""
    if len(fns) == 1:
        f = fns[0]
        return lambda n: drain(starmap(f, repeat(args, n)))
    if args:
        raise ValueError("several functions are called without arguments")
    k = len(fns)
    return lambda n: drain(map(_call, islice(cycle(fns), n * k)))


@dataclass
class Way:
    """One way of running the work: ``run(n)`` enqueues ``n`` calls (None when it cannot be measured here:
    ``note`` says why; a failed capture also keeps the doctor's ``diagnosis``). ``costs``: one-off costs in µs
    (graph: capture, instantiate, upload samples) and facts (nodes). ``close`` frees what the way made."""

    name: str
    what: str
    run: Callable[[int], None] | None
    note: str = ""
    diagnosis: dict | None = None
    costs: dict = field(default_factory=dict)
    close: Callable[[], None] | None = None


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
        return _unavailable("reference", e)
    launch = kernels["empty"].prepare((), (), LaunchConfig(1, 32), stream)
    loop = bindings_loop(launch)
    loop.keep = launch  # type: ignore[attr-defined]
    return Way("reference", WAYS["reference"], loop, close=kernels.close)


def _unavailable(name: str, e: BaseException) -> Way:
    return Way(name, WAYS[name], None, note=f"not measured: {e}")


# --- graphs -------------------------------------------------------------------------------------------------------
def _ready(graph, stream, costs: dict):
    from ...graphs.exec import GraphExec  # noqa: F401  (the type instantiate returns)

    t0 = time.perf_counter_ns()
    exe = graph.instantiate()
    t1 = time.perf_counter_ns()
    try:
        exe.upload(stream)
    except BaseException:
        exe.close()
        raise
    t2 = time.perf_counter_ns()
    costs.setdefault("instantiate_us", []).append((t1 - t0) / 1e3)
    costs.setdefault("upload_us", []).append((t2 - t1) / 1e3)
    return exe


def _graph_way(exe, stream, costs: dict, what: str = WAYS["graph"]) -> Way:
    from ..native.loops import graph_bindings_loop

    return Way("graph", what, graph_bindings_loop(exe, stream), costs=costs, close=exe.close)


def explained_capture(stream, call_once: Callable[[], None], *, mode: str = "thread_local",
                      callable_work: bool = False) -> Way | None:
    """One call captured through the capture doctor: None when it captured, or a graph Way without ``run``
    carrying the doctor's diagnosis. For a callable, a capture holding no node raises StreamIgnoredError."""
    from ...graphs.capture import capture

    cap = capture(stream, mode=mode, explain=True)
    try:
        with cap:
            call_once()
    except Exception as e:
        diagnosis = getattr(e, "diagnosis", None) or cap.diagnosis
        first = diagnosis.first if diagnosis is not None else None
        if first is not None:
            note = f"capture failed: {first.line()}. Fix: {first.mistake.fix}"
        else:
            note = f"capture failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        return Way("graph", WAYS["graph"], None, note=note,
                   diagnosis=diagnosis.to_dict() if diagnosis is not None else None)
    graph = cap.graph
    try:
        nodes = graph.node_count
    except Exception:  # a driver (or a stand-in) that cannot list nodes: the count stays unknown
        nodes = None
    graph.close()
    if nodes == 0 and callable_work:
        raise StreamIgnoredError(
            "the callable enqueued nothing on the stream it was given (a capture of one call holds no node): "
            "launch on the stream passed in (CuPy: `with stream:`, PyTorch: `with torch.cuda.stream(stream):`, "
            "cuda.core: launch(stream, ...)), or pass measure(..., stream=<your stream>)")
    return None


def capture_way(stream, call_once: Callable[[], None], *, mode: str = "thread_local", callable_work: bool = False,
                repeats: int = CAPTURE_COST_REPEATS) -> Way:
    """The work (``call_once()`` enqueues one call on ``stream``) captured through the capture doctor, then
    ``repeats`` times more without it to time capture and instantiate; the last executable is the one replayed."""
    from ...graphs.capture import capture

    failed = explained_capture(stream, call_once, mode=mode, callable_work=callable_work)
    if failed is not None:
        return failed
    costs: dict = {"capture_us": []}
    exe = None
    try:
        for _ in range(repeats):
            t0 = time.perf_counter_ns()
            with capture(stream, mode=mode, explain=False) as cap:
                call_once()
            costs["capture_us"].append((time.perf_counter_ns() - t0) / 1e3)
            try:
                if exe is not None:
                    exe.close()
                    exe = None
                if "nodes" not in costs:
                    try:
                        costs["nodes"] = cap.graph.node_count
                    except Exception:
                        costs["nodes"] = None
                exe = _ready(cap.graph, stream, costs)
            finally:
                cap.graph.close()
    except BaseException:
        if exe is not None:
            exe.close()
        raise
    return _graph_way(exe, stream, costs)


def _native_graph_way(exe, stream) -> Way:
    try:
        from ...core.native_launch import NativeGraphLaunch

        native = NativeGraphLaunch(exe, stream)
    except Exception as e:
        return _unavailable("native", e)
    return Way("native", WAYS["native"], repeat_calls((native.fire,)), close=native.close)


def _floor_graph_way(exe, stream) -> Way:
    try:
        from ..native.loops import NativeFloor

        loop = NativeFloor().graph_loop(exe, stream)
    except Exception as e:
        return _unavailable("floor", e)
    return Way("floor", WAYS["floor"], loop)


# --- the kinds of work ----------------------------------------------------------------------------------------------
class LaunchWork:
    """Prepared launches (``core.launch.Launch``), all on one stream, fired in order as one call."""

    kind = "launches"
    ways = ("eager", "graph", "native", "floor")

    def __init__(self, launches, stream=None):
        self.launches = tuple(launches)
        if not self.launches:
            raise InvalidArgumentError("measure needs at least one launch")
        streams = {id(getattr(l, "stream", None)) for l in self.launches}
        first = getattr(self.launches[0], "stream", None)
        if first is None or len(streams) != 1:
            raise InvalidArgumentError("the launches must all be bound to one stream (Kernel.prepare(..., stream) "
                                       "or launch.on(stream)), or all unbound with measure(..., stream=...)")
        if stream is not None and stream is not first:
            raise InvalidArgumentError("a Launch bound to a stream is timed on it: leave stream= out (or prepare it "
                                       "without a stream)")
        self.stream = first
        self.device = first.device

    def describe(self) -> str:
        names = [getattr(l.kernel, "name", "?") for l in self.launches]
        return f"{len(names)} launch{'es' if len(names) > 1 else ''}: {', '.join(names)}"

    def call_once(self) -> None:
        for launch in self.launches:
            launch()

    def close(self) -> None:
        """Nothing: the launches stay the caller's."""

    def build(self, name: str, *, mode: str = "thread_local") -> Way:
        if name == "eager":
            from ...experiment.runners import Runner

            runner = Runner(self.launches, self.stream)
            return Way("eager", WAYS["eager"], runner.eager, close=runner.close)
        if name == "graph":
            return capture_way(self.stream, self.call_once, mode=mode)
        if name == "native":
            natives = []
            try:
                for launch in self.launches:
                    natives.append(launch.native())
            except Exception as e:
                for n in natives:
                    n.close()
                return _unavailable("native", e)

            def close() -> None:
                for n in natives:
                    n.close()

            return Way("native", WAYS["native"], repeat_calls(tuple(n.fire for n in natives)), close=close)
        try:
            from ..native.loops import NativeFloor

            floor = NativeFloor()
            loops = tuple(floor.launch_loop(launch) for launch in self.launches)
        except Exception as e:
            return _unavailable("floor", e)

        def run(n: int) -> None:  # each launch's C loop in turn (the order differs from eager's; the cost does not)
            for loop in loops:
                loop(n)

        return Way("floor", WAYS["floor"], run)


class CallableWork:
    """A Python callable ``fn(view, *args, **kwargs)`` enqueuing one call's work on the stream view it is given."""

    kind = "callable"
    ways = ("eager", "graph")

    def __init__(self, fn: Callable, stream, view, args: tuple = (), kwargs: dict | None = None, name: str = ""):
        if not callable(fn):
            raise InvalidArgumentError(f"the work must be callable, got {type(fn).__name__}")
        self.fn, self.stream, self.view = fn, stream, view
        self.args = (view, *args)
        self.kwargs = dict(kwargs or {})
        self.device = stream.device
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__

    def describe(self) -> str:
        return f"{self.name}(stream)"

    def call_once(self) -> None:
        self.fn(*self.args, **self.kwargs)

    def close(self) -> None:
        """Nothing: the callable and its buffers stay the caller's."""

    def _bound(self) -> Callable:
        if not self.kwargs:
            return self.fn
        import functools

        return functools.partial(self.fn, **self.kwargs)

    def check_stream(self, *, mode: str = "thread_local") -> None:
        """StreamIgnoredError when one call, captured, holds no node (a capture that fails cannot tell)."""
        explained_capture(self.stream, self.call_once, mode=mode, callable_work=True)

    def build(self, name: str, *, mode: str = "thread_local") -> Way:
        if name == "eager":
            return Way("eager", WAYS["eager"], repeat_calls((self._bound(),), self.args))
        return capture_way(self.stream, self.call_once, mode=mode, callable_work=True)


class GraphWork:
    """A Graph (instantiated here, and its instantiate timed) or a GraphExec, replayed on ``stream``."""

    kind = "graph"
    ways = ("graph", "native", "floor")

    def __init__(self, graph, stream):
        from ...graphs.exec import GraphExec

        self.graph, self.stream, self.device = graph, stream, stream.device
        self.exe = graph if isinstance(graph, GraphExec) else None
        self._made = None

    def describe(self) -> str:
        return "a graph" if self.exe is None else "an instantiated graph"

    def _exec(self, costs: dict):
        if self.exe is None:
            try:
                costs["nodes"] = self.graph.node_count
            except Exception:
                costs["nodes"] = None
            self.exe = self._made = _ready(self.graph, self.stream, costs)
        return self.exe

    def close(self) -> None:
        """Destroy the executable made here (one given as a GraphExec stays the caller's)."""
        made, self._made = self._made, None
        if made is not None:
            made.close()

    def build(self, name: str, *, mode: str = "thread_local") -> Way:
        costs: dict = {}
        exe = self._exec(costs)
        if name == "graph":
            way = _graph_way(exe, self.stream, costs)
            way.close = None  # the work's own close() destroys it, after every way is done
            return way
        if name == "native":
            return _native_graph_way(exe, self.stream)
        return _floor_graph_way(exe, self.stream)


def as_work(work, stream, view, args=(), kwargs=None, name: str = ""):
    """The work object for what ``measure`` was given (a Launch, a list of them, a Graph, a GraphExec or a
    callable); InvalidArgumentError naming the type for anything else."""
    from ...core.launch import Launch
    from ...graphs.exec import Graph, GraphExec

    if isinstance(work, Launch):
        return LaunchWork((work,), stream)
    if isinstance(work, (list, tuple)) and work and all(isinstance(w, Launch) for w in work):
        return LaunchWork(work, stream)
    if isinstance(work, (Graph, GraphExec)):
        return GraphWork(work, stream)
    if callable(work):
        return CallableWork(work, stream, view, args, kwargs, name)
    raise InvalidArgumentError(f"measure times a Launch, a list of Launches, a Graph, a GraphExec or a callable "
                               f"fn(stream); got {type(work).__name__}")
