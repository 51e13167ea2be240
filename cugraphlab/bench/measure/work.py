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

Every way is a ``way.Way`` whose ``run(n)`` enqueues ``n`` calls on the stream and returns: what the one timer
(``bench.timing.timed_loop``) times. The graph ways (captured through the capture doctor) are ``captured``'s.
"""
from __future__ import annotations

from typing import Callable

from ...core.errors import InvalidArgumentError
from .captured import capture_way, explained_capture, floor_graph_way, graph_way, native_graph_way, ready_exec_timed
from .way import WAYS, Way, repeat_calls, unavailable

__all__ = ["LaunchWork", "CallableWork", "GraphWork", "as_work"]


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
            return Way("eager", WAYS["eager"], runner.eager, close=runner.close, per_call=len(self.launches))
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
                return unavailable("native", e)

            def close() -> None:
                for n in natives:
                    n.close()

            return Way("native", WAYS["native"], repeat_calls(tuple(n.fire for n in natives)), close=close,
                       per_call=len(natives))
        try:
            from ..native.loops import NativeFloor

            floor = NativeFloor()
            loops = tuple(floor.launch_loop(launch) for launch in self.launches)
        except Exception as e:
            return unavailable("floor", e)

        def run(n: int) -> None:  # each launch's C loop in turn (the order differs from eager's; the cost does not)
            for loop in loops:
                loop(n)

        return Way("floor", WAYS["floor"], run, per_call=len(loops))


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
            return Way("eager", WAYS["eager"], repeat_calls((self._bound(),), self.args), per_call=None)
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
            self.exe = self._made = ready_exec_timed(self.graph, self.stream, costs)
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
            way = graph_way(exe, self.stream, costs)
            way.close = None  # the work's own close() destroys it, after every way is done
            return way
        if name == "native":
            return native_graph_way(exe, self.stream)
        return floor_graph_way(exe, self.stream)


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
