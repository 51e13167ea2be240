"""Worker processes that share nothing, start together, report back, and can never hang the parent.

    outcomes = run_workers(module.function, [{"device": 0}, {"device": 1}], timeout_s=60)

Each kwargs dict becomes one process of the ``spawn`` start method (a fresh interpreter: no CUDA state, no locks or
threads inherited from the parent), running ``function(**kwargs)``. The function must be a top-level function of an
importable module, because spawn sends it by name. What it returns (a plain dict, or anything picklable) comes back
through a queue as ``WorkerOutcome.result``.

Starting together: with ``start_together=True`` the workers share a barrier. A worker calls ``wait_start()`` once its
set-up is done (device opened, kernels loaded, graphs built); every worker leaves that call at the same moment, so the
timed work overlaps. A worker may call ``wait_start()`` again for each later timed round; every worker must call it
equally often. Outside a worker (or with ``start_together=False``) ``wait_start()`` returns at once.

Failure: a worker that raises is reported with the exception's type and message (its traceback goes to stderr); one
still running ``timeout_s`` after the start is terminated (then killed) and reported as timed out; one that exits
without a result (a crash, ``os._exit``) is reported with its exit code. When one worker fails, the barrier is
broken, so the others stop waiting at it and fail with a message saying why. The parent always returns.
"""
from __future__ import annotations

import multiprocessing
import pickle
import queue as _queue
import signal
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from ..core.errors import InvalidArgumentError

__all__ = ["WorkerOutcome", "run_workers", "wait_start", "in_worker", "WorkerStartError"]

# After a worker's process is seen dead, how long the parent keeps reading the queue for a result it may have sent
# just before exiting (the queue's pipe can lag behind the exit status).
_EXIT_GRACE_S = 1.0
_POLL_S = 0.05


@dataclass(frozen=True)
class WorkerOutcome:
    """What became of one worker.

    ``index``: its position in kwargs_list. ``ok``: it returned. ``result``: what it returned (None unless ok).
    ``error``: why not (``"ValueError: ..."``, ``"timed out after 3 s"``, ``"exited with code 3 ..."``), None if ok.
    ``seconds``: wall time of the target inside the worker when it reported, else the parent's time until the
    failure was seen.
    """

    index: int
    ok: bool
    result: Any
    error: str | None
    seconds: float


class WorkerStartError(RuntimeError):
    """The start barrier broke: another worker failed or timed out before reaching it."""


class _Gate:
    def __init__(self, barrier, timeout_s: float):
        self.barrier, self.timeout_s = barrier, timeout_s

    def wait(self) -> None:
        import threading

        try:
            self.barrier.wait(self.timeout_s)
        except threading.BrokenBarrierError:
            raise WorkerStartError("another worker failed or timed out before the start line") from None


_gate: _Gate | None = None


def in_worker() -> bool:
    """True inside a process started by run_workers with start_together=True."""
    return _gate is not None


def wait_start() -> None:
    """Wait until every worker of this run has called wait_start() as often as this one (a barrier across processes).

    Raises WorkerStartError when another worker failed first. Returns at once outside a start_together worker.
    """
    if _gate is not None:
        _gate.wait()


def _child(target: Callable, index: int, kwargs: dict, results, barrier, timeout_s: float) -> None:
    """Body of each worker process: run the target, send (index, ok, result, error, seconds) as pickled bytes."""
    global _gate
    _gate = _Gate(barrier, timeout_s) if barrier is not None else None
    t0 = time.perf_counter()
    try:
        result = target(**kwargs)
        # pickled here so that an unpicklable result is reported, not lost in the queue's feeder thread
        payload = pickle.dumps((index, True, result, None, time.perf_counter() - t0))
    except BaseException as e:  # SystemExit and KeyboardInterrupt too: the parent must hear about them
        traceback.print_exc()
        if barrier is not None:
            barrier.abort()
        message = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        payload = pickle.dumps((index, False, None, message, time.perf_counter() - t0))
    results.put(payload)


def _check_target(target: Callable) -> None:
    name = getattr(target, "__qualname__", None)
    module = getattr(target, "__module__", None)
    if not callable(target) or not name or not module or "<" in name or "." in name:
        raise InvalidArgumentError(
            f"a worker target must be a top-level function of an importable module (spawn sends it by name), "
            f"got {target!r}")


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "exited without a result"
    if code < 0:
        try:
            sig = signal.Signals(-code).name
        except ValueError:
            sig = f"signal {-code}"
        return f"killed by {sig} before reporting a result"
    return f"exited with code {code} before reporting a result"


def _stop(process) -> None:
    """terminate (SIGTERM), then kill (SIGKILL) if it is still alive 2 s later."""
    if process.is_alive():
        process.terminate()
        process.join(2.0)
    if process.is_alive():
        process.kill()
        process.join(2.0)


def run_workers(target: Callable, kwargs_list, timeout_s: float, start_together: bool = True) -> list[WorkerOutcome]:
    """Run ``target(**kwargs)`` in one spawned process per kwargs dict, all at once; one outcome per dict, in order.

    Parameters: ``target`` a top-level function (picklable by name); ``kwargs_list`` picklable dicts;
    ``timeout_s`` seconds from the start of the first process after which any worker still running is stopped;
    ``start_together`` gives the workers a shared barrier, crossed by calling ``wait_start()`` in the worker.
    Returns a list of WorkerOutcome (never raises for a worker's failure). No CUDA call is made here.
    """
    _check_target(target)
    kwargs_list = [dict(k) for k in kwargs_list]
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
        raise InvalidArgumentError(f"worker timeout must be a number of seconds > 0, got {timeout_s!r}")
    n = len(kwargs_list)
    if n == 0:
        return []
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    barrier = ctx.Barrier(n) if start_together else None
    processes = []
    outcomes: dict[int, WorkerOutcome] = {}
    t_start = time.perf_counter()
    try:
        for i, kwargs in enumerate(kwargs_list):
            p = ctx.Process(target=_child, args=(target, i, kwargs, results, barrier, float(timeout_s)),
                            name=f"cugraphlab-worker-{i}", daemon=True)
            p.start()
            processes.append(p)
        deadline = t_start + timeout_s
        dead_since: dict[int, float] = {}

        def fail(i: int, reason: str) -> None:
            outcomes[i] = WorkerOutcome(i, False, None, reason, time.perf_counter() - t_start)
            if barrier is not None:
                barrier.abort()  # the others must not wait at the start line for this one

        while len(outcomes) < n:
            try:
                payload = results.get(timeout=_POLL_S)
            except _queue.Empty:
                payload = None
            if payload is not None:
                index, ok, result, error, seconds = pickle.loads(payload)
                if index not in outcomes:
                    outcomes[index] = WorkerOutcome(index, ok, result, error, seconds)
                continue
            now = time.perf_counter()
            for i, p in enumerate(processes):
                if i in outcomes:
                    continue
                if not p.is_alive():
                    if now - dead_since.setdefault(i, now) >= _EXIT_GRACE_S:
                        fail(i, _exit_reason(p.exitcode))
                elif now >= deadline:
                    _stop(p)
                    fail(i, f"timed out after {timeout_s:g} s")
    finally:
        # Workers that reported still have to exit: give them until the deadline (at least a moment), then stop them.
        # If the parent itself was interrupted, stop them all at once.
        finished = len(outcomes) == n
        for p in processes:
            if finished:
                p.join(max(0.5, t_start + timeout_s - time.perf_counter()))
            _stop(p)
        results.close()
        results.cancel_join_thread()
    return [outcomes[i] for i in range(n)]
