"""The one hot loop: a fixed list of launches enqueued many times, eagerly or as replayed graphs.

``Runner(launches, stream)`` is what every way of running a workload in this package goes through (the chain eager
and as a graph, its fused kernel, the PDL chain, the launch-rate workers of ``bench.scale``):

* ``eager(iters)``: one binding call per launch per iteration (cuLaunchKernel, or cuLaunchKernelEx for programmatic
  launches), nothing else in the loop but the status test;
* ``graphs(n, unroll)``: ``n`` cuGraphLaunch calls of the launches captured ``unroll`` times into one graph; the
  executable is made on first use (capture, instantiate, upload) and kept in the runner's ExecCache.

Runners enqueue and return; they do not wait.
"""
from __future__ import annotations

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, check, positive_int
from ..graphs.capture import capture_launches
from ..graphs.exec import ExecCache, GraphExec

__all__ = ["Runner", "RUN_MODES"]

RUN_MODES = ("eager", "graph")


class Runner(Resource):
    """Enqueues ``launches`` (core.launch.Launch, all on ``stream``) eagerly or as cached graphs."""

    def __init__(self, launches, stream):
        self.launches = tuple(launches)
        if not self.launches:
            raise InvalidArgumentError("a runner needs at least one launch")
        self.stream = stream
        self.execs = self.adopt(ExecCache(stream))
        fns = {launch.fn for launch in self.launches}
        # One binding function for all launches (the usual case) lets the loop keep it in a local.
        self._fn = fns.pop() if len(fns) == 1 else None
        self._calls = tuple(launch.call_args for launch in self.launches)
        self._fn_calls = tuple((launch.fn, launch.call_args) for launch in self.launches)
        self._api = self.launches[0].api

    def eager(self, iters: int) -> None:
        """``iters`` iterations, each one binding call per launch."""
        fn, calls = self._fn, self._calls
        if fn is not None:
            for _ in range(iters):
                for c in calls:
                    r = fn(*c)
                    if r[0]:
                        check(r, self._api)
        else:
            for _ in range(iters):
                for f, c in self._fn_calls:
                    r = f(*c)
                    if r[0]:
                        check(r, "cuLaunchKernel(Ex)")

    def capture(self, unroll: int = 1):
        """The launches captured ``unroll`` times into a new Graph (owned by the caller)."""
        return capture_launches(self.stream, self.launches, positive_int("unroll", unroll))

    def graph_exec(self, unroll: int = 1) -> GraphExec:
        """The graph of ``unroll`` iterations, instantiated and uploaded on first use, then kept."""
        positive_int("unroll", unroll)
        return self.execs.get(unroll, lambda: self.capture(unroll))

    def graphs(self, n: int, unroll: int = 1) -> None:
        """``n`` cuGraphLaunch calls of the graph holding ``unroll`` iterations."""
        exe = self.graph_exec(unroll)
        fn, h, s = exe.fn, exe.handle, self.stream.handle
        for _ in range(n):
            r = fn(h, s)
            if r[0]:
                check(r, "cuGraphLaunch")

    def run(self, mode: str, iters: int, unroll: int = 1) -> None:
        """``iters`` iterations as ``mode``: "eager", or "graph" (``iters`` a multiple of ``unroll``)."""
        positive_int("iterations", iters)
        if mode == "eager":
            self.eager(iters)
        elif mode == "graph":
            if iters % unroll:
                raise InvalidArgumentError(f"iterations ({iters}) must be a multiple of unroll ({unroll})")
            self.graphs(iters // unroll, unroll)
        else:
            raise InvalidArgumentError(f"unknown mode {mode!r}; modes: {', '.join(RUN_MODES)}")
