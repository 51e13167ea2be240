"""The one hot loop: a fixed list of launches enqueued many times, eagerly or as replayed graphs.

``Runner(launches, stream)`` is what every way of running a workload in this package goes through (the chain eager
and as a graph, its fused kernel, the PDL chain, the launch-rate workers of ``bench.scale``):

* ``eager(iters)``: one binding call per launch per iteration (cuLaunchKernel, or cuLaunchKernelEx for programmatic
  launches), nothing else in the loop but the status test;
* ``graphs(n, unroll)``: ``n`` cuGraphLaunch calls of the launches captured ``unroll`` times into one graph; the
  executable is made on first use (capture, instantiate, upload) and kept in the runner's ExecCache.

Runners enqueue and return; they do not wait.

A test hook, off unless asked: ``CUGRAPHLAB_LAUNCH_DELAY_NS=N`` in the environment when a Runner is made adds a
busy-wait of N ns after every launch call it makes (cuLaunchKernel(Ex) and cuGraphLaunch alike): a known slowdown
that ``cugraphlab diff`` must find (benchmarks/diff_judges.py: 1,000 ns). The wrapper is chosen once, when the Runner
is made (``launch_delay_ns()``); without the variable the loops below are exactly the plain ones, and a record made
with it says so in its environment (``env["injected"]``, ``bench.records.environment.collect``).
"""
from __future__ import annotations

import os
import time

from ..core._resource import Resource
from ..core.errors import InvalidArgumentError, check, positive_int
from ..graphs.capture import capture_launches
from ..graphs.exec import ExecCache, GraphExec

__all__ = ["Runner", "RUN_MODES", "LAUNCH_DELAY_ENV", "launch_delay_ns"]

RUN_MODES = ("eager", "graph")
#: The environment variable of the test hook (module docstring).
LAUNCH_DELAY_ENV = "CUGRAPHLAB_LAUNCH_DELAY_NS"


def launch_delay_ns() -> int:
    """The busy-wait after every launch that ``$CUGRAPHLAB_LAUNCH_DELAY_NS`` asks for (0: none, the default).

    Raises InvalidArgumentError (one line) for a value that is not an integer >= 0.
    """
    text = os.environ.get(LAUNCH_DELAY_ENV, "").strip()
    if not text:
        return 0
    try:
        ns = int(text)
    except ValueError:
        ns = -1
    if ns < 0:
        raise InvalidArgumentError(f"{LAUNCH_DELAY_ENV} must be an integer number of ns >= 0, got {text!r}")
    return ns


def _delayed(fn, ns: int):
    """``fn`` followed by a busy-wait of ``ns`` ns (the test hook's wrapper)."""
    perf = time.perf_counter_ns

    def call(*args):
        r = fn(*args)
        end = perf() + ns
        while perf() < end:
            pass
        return r

    return call


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
        self.delay_ns = launch_delay_ns()
        if self.delay_ns:  # the test hook: every launch call followed by a busy-wait
            self._fn = _delayed(self._fn, self.delay_ns) if self._fn is not None else None
            self._fn_calls = tuple((_delayed(f, self.delay_ns), c) for f, c in self._fn_calls)

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
        if self.delay_ns:
            fn = _delayed(fn, self.delay_ns)
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
